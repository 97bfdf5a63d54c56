// Package timeline computes the GPU timeline breakdown with TraceLens'
// definitions (busy, idle, computation, exposed communication and memcpy),
// so that users comparing against TraceLens' gpu_timeline.csv see the same
// numbers.
package timeline

import (
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Timeline is TraceLens' gpu_timeline for one trace file. Times are ns.
type Timeline struct {
	File          string
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

type interval struct{ s, e int64 }

// Compute returns the timeline of file fi of the store. TraceLens classes:
// gpu_memcpy → memcpy; kernels whose name contains "nccl" → comm; other
// kernels and gpu_memset → computation. The window is the GPU-side
// ProfilerStep#N annotation(s) when present (only GPU events starting inside
// count), else first GPU start → last GPU end.
func Compute(st *trace.Store, fi int) Timeline {
	tl := Timeline{File: st.Files[fi].Name, Window: "gpu_span"}
	ws, we := int64(0), int64(-1)
	for i := range st.Annot {
		a := &st.Annot[i]
		if int(a.File) == fi && strings.HasPrefix(st.Name(a.Name), "ProfilerStep#") {
			if we < ws || a.TS < ws {
				ws = a.TS
			}
			if a.End() > we {
				we = a.End()
			}
			tl.Window = "ProfilerStep"
		}
	}
	// Sized once: at millions of ops, append's growth garbage would set a
	// wasm module's never-shrinking high-water mark.
	n := opsOf(st, fi)
	comp := make([]interval, 0, n)
	var comm, mem []interval
	first, last := int64(1<<62), int64(-1<<62)
	isNCCL := map[uint32]bool{}
	for i := range st.GPU {
		o := &st.GPU[i]
		if int(o.File) != fi || !o.Kind.IsGPUWork() {
			continue
		}
		if tl.Window == "ProfilerStep" && (o.TS < ws || o.TS > we) {
			continue
		}
		iv := interval{o.TS, o.End()}
		first, last = min(first, iv.s), max(last, iv.e)
		switch o.Kind {
		case trace.KindMemcpy:
			mem = append(mem, iv)
		case trace.KindMemset:
			comp = append(comp, iv)
		default:
			nc, ok := isNCCL[o.Name]
			if !ok {
				nc = strings.Contains(strings.ToLower(st.Name(o.Name)), "nccl")
				isNCCL[o.Name] = nc
			}
			if nc {
				comm = append(comm, iv)
			} else {
				comp = append(comp, iv)
			}
		}
	}
	if last < first {
		return tl
	}
	if tl.Window == "ProfilerStep" {
		tl.Total = we - ws
	} else {
		tl.Total = last - first
	}
	compU, commU, memU := union(comp), union(comm), union(mem)
	tl.Computation = length(compU)
	tl.TotalComm = length(commU)
	tl.TotalMemcpy = length(memU)
	tl.ExposedComm = tl.TotalComm - overlap(commU, compU)
	compComm := union(append(append([]interval(nil), compU...), commU...))
	tl.ExposedMemcpy = tl.TotalMemcpy - overlap(memU, compComm)
	tl.Busy = tl.Computation + tl.ExposedComm + tl.ExposedMemcpy
	tl.Idle = tl.Total - tl.Busy
	return tl
}

// union merges intervals into a sorted, disjoint list.
func union(iv []interval) []interval {
	if len(iv) == 0 {
		return nil
	}
	slices.SortFunc(iv, func(a, b interval) int {
		if a.s != b.s {
			if a.s < b.s {
				return -1
			}
			return 1
		}
		if a.e < b.e {
			return -1
		} else if a.e > b.e {
			return 1
		}
		return 0
	})
	out := iv[:1]
	for _, x := range iv[1:] {
		l := &out[len(out)-1]
		if x.s <= l.e {
			l.e = max(l.e, x.e)
			continue
		}
		out = append(out, x)
	}
	return out
}

func length(u []interval) (n int64) {
	for _, x := range u {
		n += x.e - x.s
	}
	return n
}

// overlap returns the length of the intersection of two disjoint sorted lists.
func overlap(a, b []interval) (n int64) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		s, e := max(a[i].s, b[j].s), min(a[i].e, b[j].e)
		if e > s {
			n += e - s
		}
		if a[i].e < b[j].e {
			i++
		} else {
			j++
		}
	}
	return n
}

// Union returns the length of the union of all GPU work intervals of file fi
// and the activity span (max end − min start), both ns.
func Union(st *trace.Store, fi int) (busy, span int64) {
	iv := make([]interval, 0, opsOf(st, fi))
	first, last := int64(1<<62), int64(-1<<62)
	for i := range st.GPU {
		o := &st.GPU[i]
		if int(o.File) == fi && o.Kind.IsGPUWork() {
			iv = append(iv, interval{o.TS, o.End()})
			first, last = min(first, o.TS), max(last, o.End())
		}
	}
	if len(iv) == 0 {
		return 0, 0
	}
	return length(union(iv)), last - first
}

// opsOf counts the GPU work ops of file fi.
func opsOf(st *trace.Store, fi int) int {
	n := 0
	for i := range st.GPU {
		if int(st.GPU[i].File) == fi && st.GPU[i].Kind.IsGPUWork() {
			n++
		}
	}
	return n
}
