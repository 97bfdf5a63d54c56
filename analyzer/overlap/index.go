package overlap

import (
	"slices"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// nest indexes the spans of one thread so that "innermost span containing
// t" costs a binary search plus a walk up the nesting (same idea as
// breakdown's index; Kineto's CPU spans on a thread nest properly, a
// crossing one is treated as a child of the span open when it started).
type nest struct {
	pos    []int32 // indices into the span slice, by start asc, end desc
	parent []int32 // position of the enclosing span in pos, or -1
	start  []int64
}

func buildNest(spans []trace.Span, idx []int32) *nest {
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := &spans[a], &spans[b]
		switch {
		case x.TS != y.TS:
			return cmp64(x.TS, y.TS)
		case x.End() != y.End():
			return cmp64(y.End(), x.End())
		}
		return int(a - b)
	})
	n := &nest{pos: idx, parent: make([]int32, len(idx)), start: make([]int64, len(idx))}
	var stack []int32
	for p, i := range idx {
		s := &spans[i]
		n.start[p] = s.TS
		for len(stack) > 0 && spans[idx[stack[len(stack)-1]]].End() <= s.TS && spans[idx[stack[len(stack)-1]]].Dur > 0 {
			stack = stack[:len(stack)-1]
		}
		n.parent[p] = -1
		if len(stack) > 0 {
			n.parent[p] = stack[len(stack)-1]
		}
		stack = append(stack, int32(p))
	}
	return n
}

// at returns the position (in n.pos) of the innermost span containing t, or -1.
func (n *nest) at(spans []trace.Span, t int64) int32 {
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
	for j >= 0 && spans[n.pos[j]].End() < t {
		j = n.parent[j]
	}
	return j
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
