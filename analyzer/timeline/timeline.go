// Package timeline computes the GPU timeline breakdown with TraceLens'
// definitions (busy, idle, computation, exposed communication and memcpy),
// so that users comparing against TraceLens' gpu_timeline.csv see the same
// numbers.
package timeline

import (
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Timeline is TraceLens' gpu_timeline for one trace file. Times are ns.
type Timeline struct {
	File          string
	Stage         string // the stage all of the file's GPU work is in (a stage folder's file), else ""
	Window        string // "ProfilerStep" or "gpu_span"
	Total         int64
	Busy          int64
	Idle          int64
	Computation   int64
	ExposedComm   int64
	ExposedMemcpy int64
	TotalComm     int64
	TotalMemcpy   int64
}

// ivs holds intervals [s[k], e[k]) as two columns. Before union the
// columns need not pair up: the union of intervals depends only on the
// multisets of starts and of ends, so each column is sorted on its own
// (slices.Sort on int64 makes no comparison calls, which wasm pays for
// per step of a sort with a comparison function).
type ivs struct{ s, e []int64 }

func (v ivs) len() int { return len(v.s) }

func (v *ivs) add(s, e int64) {
	v.s = append(v.s, s)
	v.e = append(v.e, e)
}

// Compute returns the timeline of file fi of the store. TraceLens classes:
// gpu_memcpy → memcpy; kernels whose name contains "nccl" → comm; other
// kernels and gpu_memset → computation. The window is the GPU-side
// ProfilerStep#N annotation(s) when present (only GPU events starting inside
// count), else first GPU start → last GPU end.
func Compute(st *trace.Store, fi int) Timeline {
	tl := Timeline{File: st.Files[fi].Name, Window: "gpu_span"}
	ws, we := int64(0), int64(-1)
	var steps nameFlags // per name id: 1 + is a ProfilerStep#, 0 = not known yet
	callsite.Chunks(len(st.Annot), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := &st.Annot[i]
			if int(a.File) == fi && steps.has(st, a.Name, isStep) {
				if we < ws || a.TS < ws {
					ws = a.TS
				}
				if a.End() > we {
					we = a.End()
				}
				tl.Window = "ProfilerStep"
			}
		}
	})
	// Sized once: at millions of ops, append's growth garbage would set a
	// wasm module's never-shrinking high-water mark. Computation fills
	// one pair of columns from the front, communication from the back.
	n := opsOf(st, fi)
	buf := ivs{make([]int64, n), make([]int64, n)}
	nComp, nComm := 0, 0
	var mem ivs
	first, last := int64(1<<62), int64(-1<<62)
	var nccl nameFlags
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if int(o.File) != fi || !o.Kind.IsGPUWork() {
				continue
			}
			if tl.Window == "ProfilerStep" && (o.TS < ws || o.TS > we) {
				continue
			}
			s, e := o.TS, o.End()
			first, last = min(first, s), max(last, e)
			switch {
			case o.Kind == trace.KindMemcpy:
				mem.add(s, e)
			case o.Kind == trace.KindKernel && nccl.is(st, o.Name):
				nComm++
				buf.s[n-nComm], buf.e[n-nComm] = s, e
			default:
				buf.s[nComp], buf.e[nComp] = s, e
				nComp++
			}
		}
	})
	if last < first {
		return tl
	}
	if tl.Window == "ProfilerStep" {
		tl.Total = we - ws
	} else {
		tl.Total = last - first
	}
	compU := union(ivs{buf.s[:nComp], buf.e[:nComp]})
	commU := union(ivs{buf.s[n-nComm:], buf.e[n-nComm:]})
	memU := union(mem)
	tl.Computation = length(compU)
	tl.TotalComm = length(commU)
	tl.TotalMemcpy = length(memU)
	tl.ExposedComm = tl.TotalComm - overlap(commU, compU)
	if memU.len() > 0 { // else no memcpy is exposed
		both := ivs{append(slices.Clip(compU.s), commU.s...), append(slices.Clip(compU.e), commU.e...)}
		tl.ExposedMemcpy = tl.TotalMemcpy - overlap(memU, union(both))
	}
	tl.Busy = tl.Computation + tl.ExposedComm + tl.ExposedMemcpy
	tl.Idle = tl.Total - tl.Busy
	return tl
}

// nameFlags memoizes a property of names per name id (by default
// whether the name contains "nccl", any case).
type nameFlags []uint8 // 1 + has it, 0 = not known yet

func (m *nameFlags) is(st *trace.Store, id uint32) bool { return m.has(st, id, isNCCL) }

func isNCCL(name string) bool { return strings.Contains(strings.ToLower(name), "nccl") }

func isStep(name string) bool { return strings.HasPrefix(name, "ProfilerStep#") }

func (m *nameFlags) has(st *trace.Store, id uint32, f func(string) bool) bool {
	for int(id) >= len(*m) {
		*m = append(*m, make([]uint8, len(*m)+64)...)
	}
	v := (*m)[id]
	if v == 0 {
		v = 1
		if f(st.Name(id)) {
			v = 2
		}
		(*m)[id] = v
	}
	return v == 2
}

// union merges intervals into a sorted, disjoint list, in place (the
// columns are sorted). Intervals that touch merge, as with a sweep over
// intervals sorted by start that extends the last one while the next
// starts at or before its end: starts are taken before ends at equal
// times.
func union(v ivs) ivs {
	if v.len() == 0 {
		return ivs{}
	}
	slices.Sort(v.s)
	slices.Sort(v.e)
	// The k-th interval out is written at k, never past the starts and
	// ends read so far.
	k, i, open, depth := 0, 0, int64(0), 0
	callsite.Chunks(len(v.e), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			for ; i < len(v.s) && v.s[i] <= v.e[j]; i++ {
				if depth == 0 {
					open = v.s[i]
				}
				depth++
			}
			depth--
			if depth == 0 {
				v.s[k], v.e[k] = open, v.e[j]
				k++
			}
		}
	})
	return ivs{v.s[:k], v.e[:k]}
}

func length(u ivs) (n int64) {
	for k := range u.s {
		n += u.e[k] - u.s[k]
	}
	return n
}

// overlap returns the length of the intersection of two disjoint sorted lists.
func overlap(a, b ivs) (n int64) {
	i, j := 0, 0
	for i < len(a.s) && j < len(b.s) {
		s, e := max(a.s[i], b.s[j]), min(a.e[i], b.e[j])
		if e > s {
			n += e - s
		}
		if a.e[i] < b.e[j] {
			i++
		} else {
			j++
		}
	}
	return n
}

// unionLength is length(union(lists…)) for sorted, disjoint lists, without
// building the union.
func unionLength(lists ...ivs) (n int64) {
	si := make([]int, len(lists))
	ei := make([]int, len(lists))
	open, depth := int64(0), 0
	for {
		ns, ks := int64(0), -1 // the next start and its list
		ne, ke := int64(0), -1 // the next end and its list
		for k, l := range lists {
			if si[k] < len(l.s) && (ks < 0 || l.s[si[k]] < ns) {
				ns, ks = l.s[si[k]], k
			}
			if ei[k] < len(l.e) && (ke < 0 || l.e[ei[k]] < ne) {
				ne, ke = l.e[ei[k]], k
			}
		}
		switch {
		case ke < 0:
			return n
		case ks >= 0 && ns <= ne:
			if depth == 0 {
				open = ns
			}
			depth++
			si[ks]++
		default:
			depth--
			if depth == 0 {
				n += ne - open
			}
			ei[ke]++
		}
	}
}

// Union returns the length of the union of all GPU work intervals of file fi
// and the activity span (max end − min start), both ns.
func Union(st *trace.Store, fi int) (busy, span int64) {
	n := opsOf(st, fi)
	iv := ivs{make([]int64, 0, n), make([]int64, 0, n)}
	first, last := int64(1<<62), int64(-1<<62)
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if int(o.File) == fi && o.Kind.IsGPUWork() {
				iv.add(o.TS, o.End())
				first, last = min(first, o.TS), max(last, o.End())
			}
		}
	})
	if iv.len() == 0 {
		return 0, 0
	}
	return length(union(iv)), last - first
}

// opsOf counts the GPU work ops of file fi.
func opsOf(st *trace.Store, fi int) int {
	n := 0
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if int(st.GPU[i].File) == fi && st.GPU[i].Kind.IsGPUWork() {
				n++
			}
		}
	})
	return n
}
