package timeline

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// StreamStat is the GPU work of one (device, stream).
type StreamStat struct {
	Device, Stream         int64
	Kernels                int64
	KernelTime             int64
	Memcpys, Memsets       int64
	MemcpyTime, MemsetTime int64
}

// KernelStat is the summed time of one exact kernel name.
type KernelStat struct {
	Name  string
	Count int64
	Time  int64
}

// Facts are the raw per-file numbers an engineer checks first, with the
// definitions of ../shared/testdata/gpu/README.md (exact names, per stream).
type Facts struct {
	File            string
	Kernels         int64
	KernelTime      int64
	DistinctKernels int
	Streams         []StreamStat
	// MergedStreams counts the streams beyond limits.StreamRows summed
	// into Streams' last row (device and stream -1); 0: each has its own.
	MergedStreams      int
	TopKernels         []KernelStat // top 10 by summed time, ties by name
	GraphLaunches      int64
	GraphKernels       int64
	NCCLKernels        int64
	NCCLTime           int64
	NCCLComputeOverlap int64
	Busy, Span         int64
}

// ComputeFacts returns the facts of file fi.
func ComputeFacts(st *trace.Store, fi int) Facts {
	f := Facts{File: st.Files[fi].Name}
	graphCorr := map[int64]bool{}
	lastName, lastGraph, seen := uint32(0), false, false // consecutive calls repeat names
	callsite.Chunks(len(st.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := &st.CPU[i]
			if int(c.File) != fi || c.Kind != trace.KindRuntime && c.Kind != trace.KindDriver {
				continue
			}
			if !seen || c.Name != lastName {
				n := st.Name(c.Name)
				lastName, lastGraph, seen = c.Name, strings.HasPrefix(n, "cudaGraphLaunch") || strings.HasPrefix(n, "hipGraphLaunch"), true
			}
			if lastGraph {
				f.GraphLaunches++
				if c.Corr != trace.None {
					graphCorr[c.Corr] = true
				}
			}
		}
	})
	// Streams are mostly few and consecutive ops share one: the last one
	// is remembered, others found by key (a hostile trace has one stream
	// per kernel). Kernel names are looked up by id (1 + index in
	// kernels, 0 = not seen).
	var streams []StreamStat
	type devStream struct{ dev, stream int64 }
	streamIdx := map[devStream]int{}
	lastS := -1
	var kernels []KernelStat
	var isNCCL []bool
	byName := make([]int32, len(st.Names))
	// Sized once; other (non-NCCL) kernels fill the columns from the
	// front, NCCL kernels from the back, copies and fills go aside.
	n := opsOf(st, fi)
	buf := ivs{make([]int64, n), make([]int64, n)}
	nOther, nNCCL := 0, 0
	var copies ivs
	first, last := int64(1<<62), int64(-1<<62)
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if int(o.File) != fi || !o.Kind.IsGPUWork() {
				continue
			}
			first, last = min(first, o.TS), max(last, o.End())
			if lastS < 0 || streams[lastS].Device != o.Device || streams[lastS].Stream != o.Stream {
				key := devStream{o.Device, o.Stream}
				k, ok := streamIdx[key]
				if !ok {
					k = len(streams)
					streamIdx[key] = k
					streams = append(streams, StreamStat{Device: o.Device, Stream: o.Stream})
				}
				lastS = k
			}
			s := &streams[lastS]
			switch o.Kind {
			case trace.KindMemcpy:
				s.Memcpys++
				s.MemcpyTime += o.Dur
				copies.add(o.TS, o.End())
				continue
			case trace.KindMemset:
				s.Memsets++
				s.MemsetTime += o.Dur
				copies.add(o.TS, o.End())
				continue
			}
			s.Kernels++
			s.KernelTime += o.Dur
			f.Kernels++
			f.KernelTime += o.Dur
			for int(o.Name) >= len(byName) {
				byName = append(byName, make([]int32, len(byName)+64)...)
			}
			k := byName[o.Name] - 1
			if k < 0 {
				k = int32(len(kernels))
				byName[o.Name] = k + 1
				kernels = append(kernels, KernelStat{Name: st.Name(o.Name)})
				isNCCL = append(isNCCL, strings.Contains(strings.ToLower(st.Name(o.Name)), "nccl"))
			}
			kernels[k].Count++
			kernels[k].Time += o.Dur
			if len(graphCorr) > 0 && o.Corr != trace.None && graphCorr[o.Corr] {
				f.GraphKernels++
			}
			if isNCCL[k] {
				f.NCCLKernels++
				f.NCCLTime += o.Dur
				nNCCL++
				buf.s[n-nNCCL], buf.e[n-nNCCL] = o.TS, o.End()
			} else {
				buf.s[nOther], buf.e[nOther] = o.TS, o.End()
				nOther++
			}
		}
	})
	ncclU := union(ivs{buf.s[n-nNCCL:], buf.e[n-nNCCL:]})
	otherU := union(ivs{buf.s[:nOther], buf.e[:nOther]})
	f.NCCLComputeOverlap = overlap(ncclU, otherU)
	f.DistinctKernels = len(kernels)
	f.Streams, f.MergedStreams = capStreams(streams, limits.StreamRows)
	f.TopKernels = kernels
	slices.SortFunc(f.TopKernels, func(a, b KernelStat) int {
		if a.Time != b.Time {
			if a.Time > b.Time {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(f.TopKernels) > 10 {
		f.TopKernels = f.TopKernels[:10]
	}
	// Busy is the union of all GPU work (Union(st, fi)), from the unions
	// already built.
	if first <= last {
		f.Span = last - first
		if copies.len() == 0 { // |A ∪ B| = |A| + |B| − |A ∩ B|
			f.Busy = length(ncclU) + length(otherU) - f.NCCLComputeOverlap
		} else {
			f.Busy = unionLength(ncclU, otherU, union(copies))
		}
	}
	return f
}

// capStreams sorts streams by device and stream and, when there are more
// than max, keeps the max-1 busiest (kernel, copy and fill time; ties by
// device and stream) and sums the rest into one last row with device and
// stream -1, returning how many it holds: a trace with one stream per
// kernel would otherwise write a row per kernel.
func capStreams(streams []StreamStat, max int) ([]StreamStat, int) {
	byKey := func(a, b StreamStat) int {
		if a.Device != b.Device {
			return cmp.Compare(a.Device, b.Device)
		}
		return cmp.Compare(a.Stream, b.Stream)
	}
	if len(streams) <= max {
		slices.SortFunc(streams, byKey)
		return streams, 0
	}
	busy := func(s StreamStat) int64 {
		return units.AddSat(units.AddSat(s.KernelTime, s.MemcpyTime), s.MemsetTime)
	}
	slices.SortFunc(streams, func(a, b StreamStat) int {
		if c := cmp.Compare(busy(b), busy(a)); c != 0 {
			return c
		}
		return byKey(a, b)
	})
	rest := StreamStat{Device: -1, Stream: -1}
	for _, s := range streams[max-1:] {
		rest.Kernels += s.Kernels
		rest.KernelTime = units.AddSat(rest.KernelTime, s.KernelTime)
		rest.Memcpys += s.Memcpys
		rest.MemcpyTime = units.AddSat(rest.MemcpyTime, s.MemcpyTime)
		rest.Memsets += s.Memsets
		rest.MemsetTime = units.AddSat(rest.MemsetTime, s.MemsetTime)
	}
	merged := len(streams) - (max - 1)
	kept := slices.Clone(streams[:max-1])
	slices.SortFunc(kept, byKey)
	return append(kept, rest), merged
}
