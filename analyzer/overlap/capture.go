package overlap

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// A capture trace (trace-format.md §7) records a HIP/CUDA graph being
// captured: between hipStreamBeginCapture and hipStreamEndCapture the
// runtime launch calls queue work into the graph instead of running it, so
// the trace has the launches (each with its cpu_op, record_function path
// and Python stack) but almost no executed kernels. On ROCm each launch
// names its kernel (args.kernel → trace.Span.Kernel); that launch-order
// kernel sequence is what a replay of the graph runs, in the same order.

// Alignment tokens of non-kernel graph nodes and of launches whose kernel
// is not named (CUDA launch calls carry no kernel argument).
const (
	tokUnnamed int32 = -1 // a kernel launch without a kernel name: matches any kernel weakly
	tokMemcpy  int32 = -2
	tokMemset  int32 = -3
)

// capture is one graph captured on one CPU thread.
type capture struct {
	file     uint16
	track    uint32
	begin    int64
	launches []int32 // indices into st.CPU, in launch order
}

// launchKind tells what a runtime/driver call queues: a kernel, a copy, a
// fill, or nothing (0).
func launchKind(name string) trace.Kind {
	switch {
	case strings.Contains(name, "GraphLaunch"):
		return 0
	case strings.Contains(name, "LaunchKernel") || strings.Contains(name, "LaunchCooperativeKernel"):
		return trace.KindKernel
	case strings.Contains(name, "Memcpy"):
		return trace.KindMemcpy
	case strings.Contains(name, "Memset"):
		return trace.KindMemset
	}
	return 0
}

// findCaptures returns the graphs captured in st, in (file, capture start)
// order: per thread, the launch calls between a StreamBeginCapture and the
// next StreamEndCapture. Captures without a launch are dropped.
func findCaptures(st *trace.Store) []capture {
	var rt []int32
	begins := false
	for i := range st.CPU {
		s := &st.CPU[i]
		if s.Kind != trace.KindRuntime && s.Kind != trace.KindDriver {
			continue
		}
		rt = append(rt, int32(i))
		if !begins && strings.Contains(st.Name(s.Name), "StreamBeginCapture") {
			begins = true
		}
	}
	if !begins {
		return nil
	}
	slices.SortFunc(rt, func(x, y int32) int {
		a, b := &st.CPU[x], &st.CPU[y]
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Track, b.Track); c != 0 {
			return c
		}
		if c := cmp.Compare(a.TS, b.TS); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	kindOf := map[uint32]trace.Kind{}
	var out []capture
	var cur *capture
	for _, i := range rt {
		s := &st.CPU[i]
		if cur != nil && (s.File != cur.file || s.Track != cur.track) {
			cur = nil // capture never ended on its thread: dropped
		}
		name := st.Name(s.Name)
		switch {
		case strings.Contains(name, "StreamBeginCapture"):
			cur = &capture{file: s.File, track: s.Track, begin: s.TS}
		case strings.Contains(name, "StreamEndCapture"):
			if cur != nil && len(cur.launches) > 0 {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			k, ok := kindOf[s.Name]
			if !ok {
				k = launchKind(name)
				kindOf[s.Name] = k
			}
			if k != 0 {
				cur.launches = append(cur.launches, i)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y capture) int {
		if c := cmp.Compare(x.file, y.file); c != 0 {
			return c
		}
		return cmp.Compare(x.begin, y.begin)
	})
	return out
}

// HasCaptures reports whether st records graph captures with launches: a
// capture trace is a mapping trace, never the formal timing.
func HasCaptures(st *trace.Store) bool { return len(findCaptures(st)) > 0 }

// Alignment weights: same canonical kernel (or the same copy / fill node),
// same kernel up to template arguments, a kernel against an unnamed launch.
const (
	wExact   = 3
	wLoose   = 2
	wUnnamed = 1
)

// maxCells bounds the dynamic-programming table of one alignment (bytes);
// beyond it a greedy matcher with look-ahead is used.
const maxCells = 1 << 22

// weight scores formal token x against captured token y (0: no match).
func (a *analyzer) weight(x, y int32) int {
	switch {
	case x == y:
		return wExact
	case x >= 0 && y >= 0 && a.loose[x] == a.loose[y]:
		return wLoose
	case x >= 0 && y == tokUnnamed:
		return wUnnamed
	}
	return 0
}

// align is a weighted longest-common-subsequence alignment of a replay's
// tokens x with a captured graph's tokens y: match[i] is the position in y
// x[i] is aligned with, or -1. Equal prefixes and suffixes are matched
// first; the middle by dynamic programming, or greedily when too large.
func (a *analyzer) align(x, y []int32) (match []int32, score int) {
	match = make([]int32, len(x))
	for i := range match {
		match[i] = -1
	}
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		match[p] = int32(p)
		score += wExact
		p++
	}
	sx, sy := len(x), len(y)
	for sx > p && sy > p && x[sx-1] == y[sy-1] {
		sx--
		sy--
		match[sx] = int32(sy)
		score += wExact
	}
	mx, my := x[p:sx], y[p:sy]
	if len(mx) == 0 || len(my) == 0 {
		return match, score
	}
	if len(mx)*len(my) <= maxCells {
		score += a.alignDP(mx, my, match[p:sx], int32(p))
	} else {
		score += a.alignGreedy(mx, my, match[p:sx], int32(p))
	}
	return match, score
}

// alignDP fills match (offset by off in y) with a maximum-weight common
// subsequence of x and y. Ties prefer a match, then skipping x.
func (a *analyzer) alignDP(x, y []int32, match []int32, off int32) int {
	n, m := len(x), len(y)
	dir := make([]byte, n*m) // 1 match, 2 skip x[i], 3 skip y[j]
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for i := 1; i <= n; i++ {
		cur[0] = 0
		for j := 1; j <= m; j++ {
			best, d := prev[j], byte(2)
			if cur[j-1] > best {
				best, d = cur[j-1], 3
			}
			if w := a.weight(x[i-1], y[j-1]); w > 0 && prev[j-1]+w >= best {
				best, d = prev[j-1]+w, 1
			}
			cur[j] = best
			dir[(i-1)*m+j-1] = d
		}
		prev, cur = cur, prev
	}
	score := prev[m]
	for i, j := n, m; i > 0 && j > 0; {
		switch dir[(i-1)*m+j-1] {
		case 1:
			match[i-1] = int32(j-1) + off
			i--
			j--
		case 2:
			i--
		default:
			j--
		}
	}
	return score
}

// alignGreedy walks both sequences; on a mismatch it skips whichever side
// reaches the other's next token sooner (within a window), else both.
func (a *analyzer) alignGreedy(x, y []int32, match []int32, off int32) int {
	const window = 64
	score := 0
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		if w := a.weight(x[i], y[j]); w > 0 {
			match[i] = int32(j) + off
			score += w
			i++
			j++
			continue
		}
		dy, dx := -1, -1
		for k := 1; k < window && j+k < len(y); k++ {
			if x[i] == y[j+k] {
				dy = k
				break
			}
		}
		for k := 1; k < window && i+k < len(x); k++ {
			if x[i+k] == y[j] {
				dx = k
				break
			}
		}
		switch {
		case dy > 0 && (dx < 0 || dy <= dx):
			j += dy
		case dx > 0:
			i += dx
		default:
			i++
			j++
		}
	}
	return score
}

// looseName drops template arguments (everything inside <…>) from a
// canonical name: kernels that differ only in them are the same code path.
func looseName(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			if depth == 0 {
				b.WriteByte('<')
			}
			depth++
		case c == '>' && depth > 0:
			depth--
			if depth == 0 {
				b.WriteByte('>')
			}
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}
