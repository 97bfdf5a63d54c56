package callsite

import (
	"cmp"
	"slices"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Nest indexes the intervals of one thread so that "innermost interval
// containing t" costs a binary search plus a walk up the nesting. Kineto's
// CPU intervals on a thread nest properly; a crossing one is treated as a
// child of the interval open when it started.
type Nest struct {
	Pos    []int32 // indices into the span slice, by start asc, end desc
	Parent []int32 // position of the enclosing interval in pos, or -1
	start  []int64
}

func NewNest(spans []trace.Span, idx []int32) *Nest {
	if !nestOrdered(spans, idx) {
		slices.SortFunc(idx, func(a, b int32) int {
			x, y := &spans[a], &spans[b]
			switch {
			case x.TS != y.TS:
				return cmp.Compare(x.TS, y.TS)
			case x.End() != y.End():
				return cmp.Compare(y.End(), x.End())
			}
			return int(a - b)
		})
	}
	n := &Nest{Pos: idx, Parent: make([]int32, len(idx)), start: make([]int64, len(idx))}
	var stack []int32
	for p, i := range idx {
		s := &spans[i]
		n.start[p] = s.TS
		for len(stack) > 0 && spans[idx[stack[len(stack)-1]]].End() <= s.TS && spans[idx[stack[len(stack)-1]]].Dur > 0 {
			stack = stack[:len(stack)-1]
		}
		n.Parent[p] = -1
		if len(stack) > 0 {
			n.Parent[p] = stack[len(stack)-1]
		}
		stack = append(stack, int32(p))
	}
	return n
}

// nestOrdered reports whether idx is already in NewNest's order (start
// asc, end desc, index asc), as spans mostly arrive: a check without a
// comparison call per pair (costly in wasm) saves the sort.
func nestOrdered(spans []trace.Span, idx []int32) bool {
	for k := 1; k < len(idx); k++ {
		a, b := idx[k-1], idx[k]
		x, y := &spans[a], &spans[b]
		if x.TS != y.TS {
			if x.TS > y.TS {
				return false
			}
			continue
		}
		if xe, ye := x.End(), y.End(); xe != ye {
			if xe < ye {
				return false
			}
			continue
		}
		if a > b {
			return false
		}
	}
	return true
}

// at returns the position (in n.Pos) of the innermost interval containing t,
// or -1.
func (n *Nest) At(spans []trace.Span, t int64) int32 {
	if n == nil {
		return -1
	}
	p, found := slices.BinarySearch(n.start, t)
	if found {
		for p+1 < len(n.start) && n.start[p+1] == t {
			p++
		}
	} else {
		p--
	}
	j := int32(p)
	for j >= 0 && spans[n.Pos[j]].End() < t {
		j = n.Parent[j]
	}
	return j
}
