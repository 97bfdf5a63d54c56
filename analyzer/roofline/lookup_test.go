package roofline

import (
	"math/rand"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// shapesOf answers as Store.ShapesOf does, whatever the order of lookups.
func TestShapesOfHint(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 2, 7, 300} {
		st := trace.NewStore()
		cpu := int32(0)
		for range n {
			cpu += 1 + int32(r.Intn(3))
			st.Shapes = append(st.Shapes, trace.Shapes{CPU: cpu})
		}
		a := &analysis{st: st}
		for k := range 3000 {
			i := int32(r.Intn(int(cpu) + 3))
			if k%2 == 0 {
				i = int32(k / 4)
			}
			if got, want := a.shapesOf(i), st.ShapesOf(i); got != want {
				t.Fatalf("n=%d lookup %d of %d: %p, want %p", n, k, i, got, want)
			}
		}
	}
}
