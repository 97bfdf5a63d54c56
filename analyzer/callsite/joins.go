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
	graphNames    []uint32 // names of graph launch calls (a few at most)
	GraphLaunches int64    // hipGraphLaunch / cudaGraphLaunch calls
	// threads numbers (file, track) pairs; cpuN, pyN and annotN are the
	// nests of CPU, Python and Annot by thread number (nil: none).
	threads           *Table
	cpuN, pyN, annotN []*Nest
}

// NewJoins builds the indexes of st.
func NewJoins(st *trace.Store) *Joins {
	j := &Joins{St: st, threads: NewTable(64)}
	// Sized by a first pass: these indexes are the largest things built at
	// finish, and append's growth garbage would raise a wasm module's
	// never-shrinking high-water mark. Threads are numbered by j.threads
	// (spans come in runs of one thread: the last one is remembered).
	var nl, ne int
	var perThread []int
	lastT, lastN := Thread{}, int32(-1)
	num := func(s *trace.Span) int32 {
		if t := (Thread{s.File, s.Track}); lastN < 0 || t != lastT {
			lastT, lastN = t, j.thread(s.File, s.Track)
		}
		return lastN
	}
	Chunks(len(st.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			switch s := &st.CPU[i]; s.Kind {
			case trace.KindRuntime, trace.KindDriver:
				if s.Corr != trace.None {
					nl++
				}
			case trace.KindCPUOp, trace.KindUserAnnotation:
				if s.Ext != trace.None {
					ne++
				}
				n := num(s)
				for int(n) >= len(perThread) {
					perThread = append(perThread, 0)
				}
				perThread[n]++
			}
		}
	})
	j.launch.e = make([]idEntry, 0, nl)
	j.byExt.e = make([]idEntry, 0, ne)
	cpuIdx := make([][]int32, len(perThread))
	lastName, lastGraph := uint32(0), false // names of consecutive runtime calls repeat
	for t, n := range perThread {
		cpuIdx[t] = make([]int32, 0, n)
	}
	Chunks(len(st.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := &st.CPU[i]
			switch s.Kind {
			case trace.KindRuntime, trace.KindDriver:
				if s.Corr != trace.None {
					j.launch.add(s.File, s.Corr, int32(i))
				}
				if s.Name != lastName {
					lastName = s.Name
					n := st.Name(s.Name)
					lastGraph = strings.HasPrefix(n, "hipGraphLaunch") || strings.HasPrefix(n, "cudaGraphLaunch")
					if lastGraph && !j.IsGraphLaunch(s) {
						j.graphNames = append(j.graphNames, s.Name)
					}
				}
				if lastGraph {
					j.GraphLaunches++
				}
			case trace.KindCPUOp, trace.KindUserAnnotation:
				if s.Ext != trace.None {
					j.byExt.add(s.File, s.Ext, int32(i))
				}
				n := num(s)
				cpuIdx[n] = append(cpuIdx[n], int32(i))
			}
		}
	})
	j.launch.seal(nil)
	// A cpu_op beats a user_annotation carrying the same External id.
	j.byExt.seal(func(old, new int32) bool {
		return st.CPU[old].Kind != trace.KindCPUOp && st.CPU[new].Kind == trace.KindCPUOp
	})
	j.CPU, j.cpuN = j.nests(st.CPU, cpuIdx)
	j.Python, j.pyN = j.nests(st.Python, j.byThread(st.Python))
	j.Annot, j.annotN = j.nests(st.Annot, j.byThread(st.Annot))
	return j
}

// thread returns the number of a thread in j.threads.
func (j *Joins) thread(file uint16, track uint32) int32 {
	n, _ := j.threads.Index(uint64(file)<<32|uint64(track), 0)
	return n
}

func (j *Joins) byThread(spans []trace.Span) [][]int32 {
	var idx [][]int32
	lastT, lastN := Thread{}, int32(-1)
	Chunks(len(spans), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := &spans[i]
			if t := (Thread{s.File, s.Track}); lastN < 0 || t != lastT {
				lastT, lastN = t, j.thread(s.File, s.Track)
			}
			for int(lastN) >= len(idx) {
				idx = append(idx, nil)
			}
			idx[lastN] = append(idx[lastN], int32(i))
		}
	})
	return idx
}

// nests builds the nest of every thread with spans, as a map by thread and
// a slice by thread number.
func (j *Joins) nests(spans []trace.Span, idx [][]int32) (map[Thread]*Nest, []*Nest) {
	m := make(map[Thread]*Nest, len(idx))
	byNum := make([]*Nest, len(idx))
	for n, v := range idx {
		if len(v) == 0 {
			continue
		}
		k := j.threads.Key(int32(n)).A
		nest := NewNest(spans, v)
		m[Thread{uint16(k >> 32), uint32(k)}] = nest
		byNum[n] = nest
	}
	return m, byNum
}

// CPUNest returns the nest of CPU ops and annotations of a thread (nil if
// none): j.CPU[Thread{file, track}] without hashing a struct.
func (j *Joins) CPUNest(file uint16, track uint32) *Nest { return j.nest(j.cpuN, file, track) }

// PythonNest returns the nest of Python frames of a thread, or nil.
func (j *Joins) PythonNest(file uint16, track uint32) *Nest { return j.nest(j.pyN, file, track) }

// AnnotNest returns the nest of GPU annotations of a stream, or nil.
func (j *Joins) AnnotNest(file uint16, track uint32) *Nest { return j.nest(j.annotN, file, track) }

func (j *Joins) nest(by []*Nest, file uint16, track uint32) *Nest {
	if len(by) == 0 {
		return nil
	}
	if n := j.threads.Find(uint64(file)<<32|uint64(track), 0); n >= 0 && int(n) < len(by) {
		return by[n]
	}
	return nil
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
func (j *Joins) IsGraphLaunch(s *trace.Span) bool {
	for _, n := range j.graphNames {
		if n == s.Name {
			return true
		}
	}
	return false
}

// Enclosing returns the innermost CPU span of kind k on a thread that
// contains t, or -1.
func (j *Joins) Enclosing(t Thread, at int64, k trace.Kind) int32 {
	n := j.CPUNest(t.File, t.Track)
	for p := n.At(j.St.CPU, at); p >= 0; p = n.Parent[p] {
		if s := &j.St.CPU[n.Pos[p]]; s.Kind == k && s.End() >= at {
			return n.Pos[p]
		}
	}
	return -1
}

// Context yields the names of the CPU ops, then of the Python frames, that
// contain t on a thread, innermost first, until yield returns false: what
// a launch ran under, for rules that decide by the launching code.
func (j *Joins) Context(t Thread, at int64) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		n := j.CPUNest(t.File, t.Track)
		for p := n.At(j.St.CPU, at); p >= 0; p = n.Parent[p] {
			if s := &j.St.CPU[n.Pos[p]]; s.End() >= at && !yield(j.St.Name(s.Name)) {
				return
			}
		}
		n = j.PythonNest(t.File, t.Track)
		for p := n.At(j.St.Python, at); p >= 0; p = n.Parent[p] {
			if s := &j.St.Python[n.Pos[p]]; s.End() >= at && !yield(j.St.Name(s.Name)) {
				return
			}
		}
	}
}
