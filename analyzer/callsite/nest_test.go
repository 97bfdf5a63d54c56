package callsite

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

func TestUpper(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := range 40 {
		s := make([]int64, n)
		for i := range s {
			s[i] = r.Int63n(20)
		}
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		for v := int64(-1); v <= 21; v++ {
			want := sort.Search(n, func(i int) bool { return s[i] > v })
			for h := -1; h <= n+1; h++ {
				if got := Upper(s, v, h); got != want {
					t.Fatalf("Upper(%v, %d, hint %d) = %d, want %d", s, v, h, got, want)
				}
			}
		}
	}
}

// A Cursor answers as Nest.At does, whatever the order of the lookups.
func TestCursor(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var spans []trace.Span
	var nests []*Nest
	for range 3 {
		var idx []int32
		for range 200 {
			idx = append(idx, int32(len(spans)))
			spans = append(spans, trace.Span{TS: r.Int63n(1000), Dur: r.Int63n(50)})
		}
		nests = append(nests, NewNest(spans, idx))
	}
	var c Cursor
	for i := range 5000 {
		n := nests[r.Intn(len(nests))]
		if i%7 == 0 {
			n = nil
		}
		at := r.Int63n(1100) - 50
		if i%3 > 0 {
			at = int64(i / 5) // mostly increasing
		}
		if got, want := c.At(n, spans, at), n.At(spans, at); got != want {
			t.Fatalf("lookup %d at %d: cursor %d, At %d", i, at, got, want)
		}
	}
}
