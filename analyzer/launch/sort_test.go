package launch

import (
	"math/rand"
	"slices"
	"testing"
)

func TestSortByCat(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, n := range []int{0, 1, 2, 10, 1000} {
		for _, cats := range []int{1, 3, 256} {
			recs := make([]opRec, n)
			for i := range recs {
				recs[i] = opRec{cat: uint8(r.Intn(cats)), start: int32(i)}
			}
			want := slices.Clone(recs)
			sortByCat(recs)
			if !slices.IsSortedFunc(recs, func(x, y opRec) int { return int(x.cat) - int(y.cat) }) {
				t.Fatalf("n=%d cats=%d: not sorted", n, cats)
			}
			key := func(x, y opRec) int { return int(x.start - y.start) }
			slices.SortFunc(recs, key)
			if !slices.Equal(recs, want) {
				t.Fatalf("n=%d cats=%d: records changed", n, cats)
			}
		}
	}
}
