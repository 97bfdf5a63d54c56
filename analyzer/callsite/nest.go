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
	Chunks(len(idx), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s := &spans[idx[p]]
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
	})
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

// At returns the position (in n.Pos) of the innermost interval containing
// t, or -1.
func (n *Nest) At(spans []trace.Span, t int64) int32 {
	if n == nil {
		return -1
	}
	return n.from(spans, t, Upper(n.start, t, len(n.start)))
}

// from walks out from the last interval starting at or before t (ub is the
// first position starting after t) to the innermost one containing t.
func (n *Nest) from(spans []trace.Span, t int64, ub int) int32 {
	j := int32(ub - 1)
	for j >= 0 && spans[n.Pos[j]].End() < t {
		j = n.Parent[j]
	}
	return j
}

// Upper returns the first position in n.Pos whose span starts after t,
// searching out from hint (see Upper).
func (n *Nest) Upper(t int64, hint int) int { return Upper(n.start, t, hint) }

// Upper returns the first index of the sorted s whose value is > t,
// searching out from hint (where the last search of nearby t landed):
// lookups in time order then cost a few comparisons, not a binary search
// of ~20 dependent loads. Any hint gives the same answer.
func Upper(s []int64, t int64, hint int) int {
	n := len(s)
	h := min(max(hint, 0), n)
	lo, hi := 0, n
	if h < n && s[h] <= t {
		lo = h + 1
		for step := 1; ; step <<= 1 {
			k := h + step
			if k >= n {
				break
			}
			if s[k] > t {
				hi = k
				break
			}
			lo = k + 1
		}
	} else {
		hi = h
		if h > 0 && s[h-1] <= t {
			lo = h
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Cursor answers Nest.At for callers that look up times in (mostly)
// increasing order, remembering where the last lookups in a few nests
// landed. The zero Cursor is ready; a Cursor is not for concurrent use.
type Cursor struct {
	n    [4]*Nest
	p    [4]int
	next int
}

// At is n.At(spans, t).
func (c *Cursor) At(n *Nest, spans []trace.Span, t int64) int32 {
	if n == nil {
		return -1
	}
	k := 0
	for k < len(c.n) && c.n[k] != n {
		k++
	}
	if k == len(c.n) {
		k = c.next
		c.next = (c.next + 1) % len(c.n)
		c.n[k], c.p[k] = n, len(n.start)
	}
	ub := Upper(n.start, t, c.p[k])
	c.p[k] = ub
	return n.from(spans, t, ub)
}
