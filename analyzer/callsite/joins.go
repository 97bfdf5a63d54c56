package callsite

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Thread names one CPU thread or GPU stream of one file.
type Thread struct {
	File  uint16
	Track uint32
}

// Joins indexes a store for the joins of trace-format.md §5: GPU op →
// runtime launch (correlation), launch or GPU op → CPU op (External id),
// and per thread the nesting of CPU ops, Python frames and GPU annotations
// for containment by time.
type Joins struct {
	St            *trace.Store
	launch        idIndex // correlation → runtime/driver call
	byExt         idIndex // External id → cpu_op (preferred) or user_annotation
	CPU           map[Thread]*Nest
	Python        map[Thread]*Nest
	Annot         map[Thread]*Nest
	graphName     map[uint32]bool
	GraphLaunches int64 // hipGraphLaunch / cudaGraphLaunch calls
}

// NewJoins builds the indexes of st.
func NewJoins(st *trace.Store) *Joins {
	j := &Joins{St: st, graphName: map[uint32]bool{}}
	// Sized by a first pass: these indexes are the largest things built at
	// finish, and append's growth garbage would raise a wasm module's
	// never-shrinking high-water mark.
	var nl, ne int
	perThread := map[Thread]int{}
	for i := range st.CPU {
		switch s := &st.CPU[i]; s.Kind {
		case trace.KindRuntime, trace.KindDriver:
			if s.Corr != trace.None {
				nl++
			}
		case trace.KindCPUOp, trace.KindUserAnnotation:
			if s.Ext != trace.None {
				ne++
			}
			perThread[Thread{s.File, s.Track}]++
		}
	}
	j.launch.e = make([]idEntry, 0, nl)
	j.byExt.e = make([]idEntry, 0, ne)
	cpuIdx := make(map[Thread][]int32, len(perThread))
	for t, n := range perThread {
		cpuIdx[t] = make([]int32, 0, n)
	}
	for i := range st.CPU {
		s := &st.CPU[i]
		switch s.Kind {
		case trace.KindRuntime, trace.KindDriver:
			if s.Corr != trace.None {
				j.launch.add(s.File, s.Corr, int32(i))
			}
			if n := st.Name(s.Name); strings.HasPrefix(n, "hipGraphLaunch") || strings.HasPrefix(n, "cudaGraphLaunch") {
				j.graphName[s.Name] = true
				j.GraphLaunches++
			}
		case trace.KindCPUOp, trace.KindUserAnnotation:
			if s.Ext != trace.None {
				j.byExt.add(s.File, s.Ext, int32(i))
			}
			t := Thread{s.File, s.Track}
			cpuIdx[t] = append(cpuIdx[t], int32(i))
		}
	}
	j.launch.seal(nil)
	// A cpu_op beats a user_annotation carrying the same External id.
	j.byExt.seal(func(old, new int32) bool {
		return st.CPU[old].Kind != trace.KindCPUOp && st.CPU[new].Kind == trace.KindCPUOp
	})
	j.CPU = nests(st.CPU, cpuIdx)
	j.Python = nests(st.Python, byThread(st.Python))
	j.Annot = nests(st.Annot, byThread(st.Annot))
	return j
}

func byThread(spans []trace.Span) map[Thread][]int32 {
	idx := map[Thread][]int32{}
	for i := range spans {
		t := Thread{spans[i].File, spans[i].Track}
		idx[t] = append(idx[t], int32(i))
	}
	return idx
}

func nests(spans []trace.Span, idx map[Thread][]int32) map[Thread]*Nest {
	out := make(map[Thread]*Nest, len(idx))
	for k, v := range idx {
		out[k] = NewNest(spans, v)
	}
	return out
}

// Launch returns the runtime/driver call with this correlation, or -1.
func (j *Joins) Launch(file uint16, corr int64) int32 {
	if corr == trace.None {
		return -1
	}
	i, _ := j.launch.get(file, corr)
	return i
}

// ByExt returns the CPU op (or annotation) with this External id, or -1.
func (j *Joins) ByExt(file uint16, ext int64) int32 {
	if ext == trace.None {
		return -1
	}
	i, _ := j.byExt.get(file, ext)
	return i
}

// IsGraphLaunch reports whether a CPU span is a HIP/CUDA graph launch.
func (j *Joins) IsGraphLaunch(s *trace.Span) bool { return j.graphName[s.Name] }

// Enclosing returns the innermost CPU span of kind k on a thread that
// contains t, or -1.
func (j *Joins) Enclosing(t Thread, at int64, k trace.Kind) int32 {
	n := j.CPU[t]
	for p := n.At(j.St.CPU, at); p >= 0; p = n.Parent[p] {
		if s := &j.St.CPU[n.Pos[p]]; s.Kind == k && s.End() >= at {
			return n.Pos[p]
		}
	}
	return -1
}
