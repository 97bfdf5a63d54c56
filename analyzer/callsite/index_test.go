package callsite

import (
	"math/rand/v2"
	"testing"
)

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

// The dense tables answer as the binary search does: dense files, sparse
// files, ids past either end, negative ids, files with no entries.
func TestIDIndexDenseEqualsSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		var x idIndex
		type key struct {
			file uint16
			id   int64
		}
		ref := map[key]int32{}
		n := rng.IntN(3000)
		next := [4]int64{1_000_000, 0, 1_000_000, 0}
		for i := 0; i < n; i++ {
			f := uint16(rng.IntN(4))
			var id int64
			switch f {
			case 0, 2: // dense, counting up from a base
				next[f] += int64(rng.IntN(3)) // repeats and small gaps
				id = next[f]
			case 1: // sparse
				id = rng.Int64N(1 << 40)
			case 3: // negative and dense-ish
				id = int64(rng.IntN(50)) - 25
			}
			x.add(f, id, int32(i))
			if _, ok := ref[key{f, id}]; !ok {
				ref[key{f, id}] = int32(i)
			}
		}
		x.seal(nil)
		if n > 100 && len(x.dense) == 0 {
			t.Fatal("no dense table was built for dense ids")
		}
		probe := func(f uint16, id int64) {
			want, wok := ref[key{f, id}]
			if !wok {
				want = -1
			}
			if got, ok := x.get(f, id); got != want || ok != wok {
				t.Fatalf("round %d: get(%d,%d) = %d,%v want %d,%v", round, f, id, got, ok, want, wok)
			}
		}
		for k := range ref {
			probe(k.file, k.id)
		}
		for i := 0; i < 2000; i++ {
			probe(uint16(rng.IntN(6)), 1_000_000+int64(rng.IntN(n+3000))-1500)
			probe(uint16(rng.IntN(6)), int64(rng.IntN(100))-50)
		}
	}
}
