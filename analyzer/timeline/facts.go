package timeline

import (
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// StreamStat is the GPU work of one (device, stream).
type StreamStat struct {
	Device, Stream         int32
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
	File               string
	Kernels            int64
	KernelTime         int64
	DistinctKernels    int
	Streams            []StreamStat
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
	for i := range st.CPU {
		c := &st.CPU[i]
		if int(c.File) != fi || c.Kind != trace.KindRuntime && c.Kind != trace.KindDriver {
			continue
		}
		n := st.Name(c.Name)
		if strings.HasPrefix(n, "cudaGraphLaunch") || strings.HasPrefix(n, "hipGraphLaunch") {
			f.GraphLaunches++
			if c.Corr != trace.None {
				graphCorr[c.Corr] = true
			}
		}
	}
	type sk struct{ d, s int32 }
	streams := map[sk]*StreamStat{}
	byName := map[uint32]*KernelStat{}
	ncclName := map[uint32]bool{}
	var nccl []interval
	other := make([]interval, 0, opsOf(st, fi))
	for i := range st.GPU {
		o := &st.GPU[i]
		if int(o.File) != fi || !o.Kind.IsGPUWork() {
			continue
		}
		s := streams[sk{o.Device, o.Stream}]
		if s == nil {
			s = &StreamStat{Device: o.Device, Stream: o.Stream}
			streams[sk{o.Device, o.Stream}] = s
		}
		switch o.Kind {
		case trace.KindMemcpy:
			s.Memcpys++
			s.MemcpyTime += o.Dur
			continue
		case trace.KindMemset:
			s.Memsets++
			s.MemsetTime += o.Dur
			continue
		}
		s.Kernels++
		s.KernelTime += o.Dur
		f.Kernels++
		f.KernelTime += o.Dur
		k := byName[o.Name]
		if k == nil {
			k = &KernelStat{Name: st.Name(o.Name)}
			byName[o.Name] = k
			ncclName[o.Name] = strings.Contains(strings.ToLower(k.Name), "nccl")
		}
		k.Count++
		k.Time += o.Dur
		if o.Corr != trace.None && graphCorr[o.Corr] {
			f.GraphKernels++
		}
		if ncclName[o.Name] {
			f.NCCLKernels++
			f.NCCLTime += o.Dur
			nccl = append(nccl, interval{o.TS, o.End()})
		} else {
			other = append(other, interval{o.TS, o.End()})
		}
	}
	f.NCCLComputeOverlap = overlap(union(nccl), union(other))
	f.DistinctKernels = len(byName)
	for _, s := range streams {
		f.Streams = append(f.Streams, *s)
	}
	slices.SortFunc(f.Streams, func(a, b StreamStat) int {
		if a.Device != b.Device {
			return int(a.Device - b.Device)
		}
		return int(a.Stream - b.Stream)
	})
	for _, k := range byName {
		f.TopKernels = append(f.TopKernels, *k)
	}
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
	f.Busy, f.Span = Union(st, fi)
	return f
}
