package overlap

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// source is where a kernel comes from on the CPU side.
type source struct {
	LaunchOp string // innermost cpu_op around the launch (or the launch call)
	OpChain  string // enclosing cpu_ops, outer → inner (at most 3)
	Annot    string // record_function (user_annotation) path around the op, outer → inner (at most 3)
	Scope    string // chosen Python location
	Chain    string // meaningful Python frames, outer → inner (at most 4)
}

func (s source) mapped() bool { return s.LaunchOp != "" || s.Scope != "" }

// joiner joins the GPU ops of one store to launches, CPU ops, Python frames
// and stage annotations (trace-format.md §5).
type joiner struct {
	*callsite.Joins
	st        *trace.Store
	frameOK   map[uint32]int8 // python frame name → 1 meaningful, -1 not
	stageMemo map[uint32]string
}

// newJoiner wraps the store's join indexes (built when j is nil).
func newJoiner(st *trace.Store, j *callsite.Joins) *joiner {
	if j == nil {
		j = callsite.NewJoins(st)
	}
	return &joiner{Joins: j, st: st, frameOK: map[uint32]int8{}, stageMemo: map[uint32]string{}}
}

// launchOf returns the runtime/driver call that launched o, or -1.
func (j *joiner) launchOf(o *trace.GPUOp) int32 { return j.Launch(o.File, o.Corr) }

// graphLaunch reports whether o was replayed by a HIP/CUDA graph launch.
func (j *joiner) graphLaunch(o *trace.GPUOp) (int32, bool) {
	l := j.launchOf(o)
	return l, l >= 0 && j.IsGraphLaunch(&j.st.CPU[l])
}

// source attributes an eagerly launched op; graph-replayed ops get nothing
// (their launch is the graph, not an op). ok is false for the empty source.
func (j *joiner) source(o *trace.GPUOp) (source, bool) {
	l, graph := j.graphLaunch(o)
	if graph {
		return source{}, false
	}
	return j.sourceOf(j.ByExt(o.File, o.Ext), l)
}

// launchSource attributes a runtime/driver launch call by itself: a launch
// recorded while a graph was being captured, which executed nothing.
func (j *joiner) launchSource(l int32) (source, bool) { return j.sourceOf(-1, l) }

// sourceOf builds the source of a launch l (or -1) whose CPU op may already
// be known (op, or -1): the op by the launch's External id, else the
// innermost cpu_op around the launch; then the record_function path and
// the Python frames at the op.
func (j *joiner) sourceOf(op, l int32) (source, bool) {
	st := j.st
	if op < 0 && l >= 0 {
		ls := &st.CPU[l]
		if op = j.ByExt(ls.File, ls.Ext); op < 0 {
			op = j.Enclosing(callsite.Thread{File: ls.File, Track: ls.Track}, ls.TS, trace.KindCPUOp)
		}
	}
	var s source
	var at *trace.Span
	switch {
	case op >= 0:
		at = &st.CPU[op]
		s.LaunchOp = st.Name(at.Name)
		s.OpChain = j.opChain(at)
	case l >= 0:
		at = &st.CPU[l]
		s.LaunchOp = st.Name(at.Name)
	}
	if at != nil {
		s.Annot = j.annotPath(at)
		// Python frames at the launch itself when it is on the op's
		// thread (the innermost code that queued the kernel: inside a
		// custom op such as vllm::moe_forward, frames begin after the op
		// does), else at the op's start.
		py := at
		if l >= 0 {
			if ls := &st.CPU[l]; ls.File == at.File && ls.Track == at.Track {
				py = ls
			}
		}
		s.Scope, s.Chain = j.python(py.File, py.Track, py.TS)
	}
	return s, s != source{}
}

// annotPath lists the record_function ranges (user_annotation) around c on
// its thread, outer → inner, at most the 3 innermost; profiler step ranges
// ("ProfilerStep#N") are left out: they number steps, not code.
func (j *joiner) annotPath(c *trace.Span) string {
	n := j.CPU[callsite.Thread{File: c.File, Track: c.Track}]
	var names []string
	for p := n.At(j.st.CPU, c.TS); p >= 0 && len(names) < 3; p = n.Parent[p] {
		s := &j.st.CPU[n.Pos[p]]
		if s.Kind != trace.KindUserAnnotation || s.End() < c.End() {
			continue
		}
		if name := j.st.Name(s.Name); !strings.HasPrefix(name, "ProfilerStep#") {
			names = append(names, name)
		}
	}
	for a, b := 0, len(names)-1; a < b; a, b = a+1, b-1 {
		names[a], names[b] = names[b], names[a]
	}
	return strings.Join(names, " › ")
}

// opChain lists the cpu_ops enclosing c (c included), outer → inner, at most 3.
func (j *joiner) opChain(c *trace.Span) string {
	n := j.CPU[callsite.Thread{File: c.File, Track: c.Track}]
	var names []string
	for p := n.At(j.st.CPU, c.TS); p >= 0 && len(names) < 3; p = n.Parent[p] {
		s := &j.st.CPU[n.Pos[p]]
		if s.Kind == trace.KindCPUOp && s.End() >= c.End() {
			names = append(names, j.st.Name(s.Name))
		}
	}
	for a, b := 0, len(names)-1; a < b; a, b = a+1, b-1 {
		names[a], names[b] = names[b], names[a]
	}
	return strings.Join(names, " › ")
}

// python returns the chosen Python location and the meaningful chain of
// frames active on a thread at t.
func (j *joiner) python(file uint16, track uint32, t int64) (string, string) {
	n := j.Python[callsite.Thread{File: file, Track: track}]
	var chain []string // inner → outer
	best, bestScore := "", -1
	depth := 0
	for p := n.At(j.st.Python, t); p >= 0; p = n.Parent[p] {
		f := &j.st.Python[n.Pos[p]]
		if f.End() < t {
			continue
		}
		ok := j.frameOK[f.Name]
		name := j.st.Name(f.Name)
		if ok == 0 {
			ok = -1
			if callsite.Meaningful(name) {
				ok = 1
			}
			j.frameOK[f.Name] = ok
		}
		if ok < 0 {
			continue
		}
		loc := callsite.Short(name)
		if len(chain) < 6 {
			chain = append(chain, loc)
		}
		score := callsite.Score(loc, depth)
		if score > bestScore {
			best, bestScore = loc, score
		}
		depth++
	}
	if len(chain) > 4 {
		chain = chain[:4]
	}
	for a, b := 0, len(chain)-1; a < b; a, b = a+1, b-1 {
		chain[a], chain[b] = chain[b], chain[a]
	}
	return best, strings.Join(chain, " -> ")
}

func (j *joiner) stageName(id uint32) string {
	s, ok := j.stageMemo[id]
	if !ok {
		s = callsite.OfAnnotation(j.st.Name(id))
		j.stageMemo[id] = s
	}
	return s
}

// stage returns the stage of o: the innermost stage-naming GPU annotation
// around it, else the CPU annotation around its launch, else "".
func (j *joiner) stage(o *trace.GPUOp) string {
	st := j.st
	if n := j.Annot[callsite.Thread{File: o.File, Track: o.Track}]; n != nil {
		for p := n.At(st.Annot, o.TS); p >= 0; p = n.Parent[p] {
			a := &st.Annot[n.Pos[p]]
			if a.End() >= o.TS {
				if s := j.stageName(a.Name); s != "" {
					return s
				}
			}
		}
	}
	if l := j.launchOf(o); l >= 0 {
		ls := &st.CPU[l]
		n := j.CPU[callsite.Thread{File: ls.File, Track: ls.Track}]
		for p := n.At(st.CPU, ls.TS); p >= 0; p = n.Parent[p] {
			c := &st.CPU[n.Pos[p]]
			if c.Kind == trace.KindUserAnnotation && c.End() >= ls.TS {
				if s := j.stageName(c.Name); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// step returns an id of the stage-annotation instance around o (GPU range,
// else CPU range around the launch), or -1: the unit kernel sequences are
// aligned within.
func (j *joiner) step(o *trace.GPUOp) int64 {
	st := j.st
	if n := j.Annot[callsite.Thread{File: o.File, Track: o.Track}]; n != nil {
		for p := n.At(st.Annot, o.TS); p >= 0; p = n.Parent[p] {
			a := &st.Annot[n.Pos[p]]
			if a.End() >= o.TS && j.stageName(a.Name) != "" {
				return int64(n.Pos[p])
			}
		}
	}
	if l := j.launchOf(o); l >= 0 {
		ls := &st.CPU[l]
		n := j.CPU[callsite.Thread{File: ls.File, Track: ls.Track}]
		for p := n.At(st.CPU, ls.TS); p >= 0; p = n.Parent[p] {
			c := &st.CPU[n.Pos[p]]
			if c.Kind == trace.KindUserAnnotation && c.End() >= ls.TS && j.stageName(c.Name) != "" {
				return 1<<40 + int64(n.Pos[p])
			}
		}
	}
	return -1
}

// Stages returns the stage of every GPU op of st, index-aligned with
// st.GPU, by the rule the overlap rows use: the innermost stage-naming GPU
// annotation around the op, else the CPU annotation around its launch, else
// "unstaged" in a file where other ops have a stage, else "all". Ops that
// are not GPU work get "".
func Stages(joins *callsite.Joins) []string {
	st := joins.St
	j := newJoiner(st, joins)
	out := make([]string, len(st.GPU))
	staged := map[uint16]bool{}
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if o := &st.GPU[i]; o.Kind.IsGPUWork() {
				out[i] = j.stage(o)
				staged[o.File] = staged[o.File] || out[i] != ""
			}
		}
	})
	for i := range st.GPU {
		if o := &st.GPU[i]; o.Kind.IsGPUWork() && out[i] == "" {
			out[i] = callsite.StageAll
			if staged[o.File] {
				out[i] = callsite.StageOther
			}
		}
	}
	return out
}
