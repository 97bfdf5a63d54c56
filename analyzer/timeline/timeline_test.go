package timeline

import "testing"

func TestUnionOverlap(t *testing.T) {
	u := union([]interval{{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 21}})
	if len(u) != 3 || length(u) != 4+7+1 {
		t.Fatalf("union %v", u)
	}
	v := union([]interval{{3, 6}, {11, 30}})
	if got := overlap(u, v); got != 1+1+1+1 { // [3,4] [5,6] [11,12] [20,21]
		t.Errorf("overlap = %d", got)
	}
	if overlap(nil, v) != 0 || length(nil) != 0 {
		t.Error("empty sets")
	}
}
