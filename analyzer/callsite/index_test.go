package callsite

import "testing"

func TestIDIndex(t *testing.T) {
	var x idIndex
	x.add(0, 7, 1)
	x.add(1, 7, 2)
	x.add(0, 3, 3)
	x.add(0, 7, 4) // duplicate: the first wins unless preferred
	x.seal(func(old, new int32) bool { return new == 4 })
	for _, c := range []struct {
		file uint16
		id   int64
		want int32
	}{{0, 7, 4}, {1, 7, 2}, {0, 3, 3}, {1, 3, -1}} {
		if got, _ := x.get(c.file, c.id); got != c.want {
			t.Errorf("get(%d,%d) = %d, want %d", c.file, c.id, got, c.want)
		}
	}
}
