package overlap

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

type fkey struct {
	file uint16
	id   int64
}

type tkey struct {
	file  uint16
	track uint32
}

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
	st        *trace.Store
	launch    map[fkey]int32 // correlation → runtime/driver call
	byExt     map[fkey]int32 // External id → cpu_op (preferred) / user_annotation
	cpu       map[tkey]*nest
	py        map[tkey]*nest
	annot     map[tkey]*nest
	graphName map[uint32]bool
	srcs      []source
	srcIdx    map[source]int32
	frameOK   map[uint32]int8 // python frame name → 1 meaningful, -1 not
	stageMemo map[uint32]string
}

func newJoiner(st *trace.Store) *joiner {
	j := &joiner{st: st, launch: map[fkey]int32{}, byExt: map[fkey]int32{}, graphName: map[uint32]bool{},
		srcs: []source{{}}, srcIdx: map[source]int32{{}: 0}, frameOK: map[uint32]int8{}, stageMemo: map[uint32]string{}}
	cpuIdx := map[tkey][]int32{}
	for i := range st.CPU {
		s := &st.CPU[i]
		switch s.Kind {
		case trace.KindRuntime, trace.KindDriver:
			if s.Corr != trace.None {
				if _, dup := j.launch[fkey{s.File, s.Corr}]; !dup {
					j.launch[fkey{s.File, s.Corr}] = int32(i)
				}
			}
			if n := st.Name(s.Name); strings.HasPrefix(n, "hipGraphLaunch") || strings.HasPrefix(n, "cudaGraphLaunch") {
				j.graphName[s.Name] = true
			}
		case trace.KindCPUOp, trace.KindUserAnnotation:
			if s.Ext != trace.None {
				k := fkey{s.File, s.Ext}
				if p, dup := j.byExt[k]; !dup || st.CPU[p].Kind != trace.KindCPUOp && s.Kind == trace.KindCPUOp {
					j.byExt[k] = int32(i)
				}
			}
			tk := tkey{s.File, s.Track}
			cpuIdx[tk] = append(cpuIdx[tk], int32(i))
		}
	}
	j.cpu = nests(st.CPU, cpuIdx)
	pyIdx := map[tkey][]int32{}
	for i := range st.Python {
		tk := tkey{st.Python[i].File, st.Python[i].Track}
		pyIdx[tk] = append(pyIdx[tk], int32(i))
	}
	j.py = nests(st.Python, pyIdx)
	anIdx := map[tkey][]int32{}
	for i := range st.Annot {
		tk := tkey{st.Annot[i].File, st.Annot[i].Track}
		anIdx[tk] = append(anIdx[tk], int32(i))
	}
	j.annot = nests(st.Annot, anIdx)
	return j
}

func nests(spans []trace.Span, idx map[tkey][]int32) map[tkey]*nest {
	out := make(map[tkey]*nest, len(idx))
	for k, v := range idx {
		out[k] = buildNest(spans, v)
	}
	return out
}

// launchOf returns the runtime/driver call that launched o, or -1.
func (j *joiner) launchOf(o *trace.GPUOp) int32 {
	if o.Corr == trace.None {
		return -1
	}
	if l, ok := j.launch[fkey{o.File, o.Corr}]; ok {
		return l
	}
	return -1
}

// graphLaunch reports whether o was replayed by a HIP/CUDA graph launch.
func (j *joiner) graphLaunch(o *trace.GPUOp) (int32, bool) {
	l := j.launchOf(o)
	return l, l >= 0 && j.graphName[j.st.CPU[l].Name]
}

// source attributes an eagerly launched op; graph-replayed ops get nothing
// (their launch is the graph, not an op).
func (j *joiner) source(o *trace.GPUOp) int32 {
	l, graph := j.graphLaunch(o)
	if graph {
		return 0
	}
	op := int32(-1)
	if o.Ext != trace.None {
		if p, ok := j.byExt[fkey{o.File, o.Ext}]; ok {
			op = p
		}
	}
	return j.sourceOf(op, l)
}

// launchSource attributes a runtime/driver launch call by itself: a launch
// recorded while a graph was being captured, which executed nothing.
func (j *joiner) launchSource(l int32) int32 { return j.sourceOf(-1, l) }

// sourceOf builds the source of a launch l (or -1) whose CPU op may already
// be known (op, or -1): the op by the launch's External id, else the
// innermost cpu_op around the launch; then the record_function path and
// the Python frames at the op.
func (j *joiner) sourceOf(op, l int32) int32 {
	st := j.st
	if op < 0 && l >= 0 {
		ls := &st.CPU[l]
		if ls.Ext != trace.None {
			if p, ok := j.byExt[fkey{ls.File, ls.Ext}]; ok {
				op = p
			}
		}
		if op < 0 {
			op = j.enclosing(ls.File, ls.Track, ls.TS)
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
	if p, ok := j.srcIdx[s]; ok {
		return p
	}
	p := int32(len(j.srcs))
	j.srcs = append(j.srcs, s)
	j.srcIdx[s] = p
	return p
}

// annotPath lists the record_function ranges (user_annotation) around c on
// its thread, outer → inner, at most the 3 innermost; profiler step ranges
// ("ProfilerStep#N") are left out: they number steps, not code.
func (j *joiner) annotPath(c *trace.Span) string {
	n := j.cpu[tkey{c.File, c.Track}]
	var names []string
	for p := n.at(j.st.CPU, c.TS); p >= 0 && len(names) < 3; p = n.parent[p] {
		s := &j.st.CPU[n.pos[p]]
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

// enclosing returns the innermost cpu_op on a thread containing t, or -1.
func (j *joiner) enclosing(file uint16, track uint32, t int64) int32 {
	n := j.cpu[tkey{file, track}]
	for p := n.at(j.st.CPU, t); p >= 0; p = n.parent[p] {
		if s := &j.st.CPU[n.pos[p]]; s.Kind == trace.KindCPUOp && s.End() >= t {
			return n.pos[p]
		}
	}
	return -1
}

// opChain lists the cpu_ops enclosing c (c included), outer → inner, at most 3.
func (j *joiner) opChain(c *trace.Span) string {
	n := j.cpu[tkey{c.File, c.Track}]
	var names []string
	for p := n.at(j.st.CPU, c.TS); p >= 0 && len(names) < 3; p = n.parent[p] {
		s := &j.st.CPU[n.pos[p]]
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
	n := j.py[tkey{file, track}]
	var chain []string // inner → outer
	best, bestScore := "", -1
	depth := 0
	for p := n.at(j.st.Python, t); p >= 0; p = n.parent[p] {
		f := &j.st.Python[n.pos[p]]
		if f.End() < t {
			continue
		}
		ok := j.frameOK[f.Name]
		name := j.st.Name(f.Name)
		if ok == 0 {
			ok = -1
			if meaningfulFrame(name) {
				ok = 1
			}
			j.frameOK[f.Name] = ok
		}
		if ok < 0 {
			continue
		}
		loc := shortLocation(name)
		if len(chain) < 6 {
			chain = append(chain, loc)
		}
		// Prefer framework code (sglang/, vllm/, …), innermost first.
		// Serving-framework code first (the upstream skill's priority to
		// python/sglang/…), then kernel-library wrappers, then the rest.
		score := 10
		if frameworkFrame(loc) && !plumbingFrame(loc) {
			score = 50
			if servingFrame(loc) {
				score = 60
			}
		}
		if strings.Contains(loc, "utils.py") && strings.Contains(loc, "__call__") || strings.Contains(loc, "profiler") {
			score -= 15
		}
		score -= depth
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

// Library frames that say nothing about where the user's code launched a
// kernel (as in breakdown, plus the upstream skill's ignore list).
var libraryFrames = []string{
	"/torch/", "torch/nn/", "/contextlib.py", "/threading.py", "/asyncio/", "/functools.py",
	"/typing.py", "/triton/", "<built-in", "<frozen", "/site-packages/accelerate/",
	"/concurrent/", "/selectors.py", "/runpy.py", "/_ops.py", "/tqdm/", "/queue.py",
	"/logging/", "/socket.py", "/uvicorn/", "/fastapi/", "/starlette/",
}

func meaningfulFrame(name string) bool {
	if strings.HasPrefix(name, "nn.Module:") || strings.HasPrefix(name, "<") {
		return false
	}
	if !strings.Contains(name, ".py(") {
		return false
	}
	path := "/" + name
	for _, l := range libraryFrames {
		if strings.Contains(path, l) {
			return false
		}
	}
	return true
}

var roots = []string{"sglang/", "vllm/", "aiter/", "xfuser/", "diffusers/", "transformers/", "megatron/", "deepspeed/", "flashinfer/", "sgl_kernel/", "tensorrt_llm/"}

// Framework frames that wrap model code rather than being it: vLLM's
// torch.compile / CUDA-graph wrappers and tracing decorators. A compiled
// region's kernels are launched from Inductor's generated code under
// them, so the model line that entered the region is the better location.
var plumbing = []string{"vllm/compilation/", "vllm/tracing/"}

func plumbingFrame(loc string) bool {
	for _, p := range plumbing {
		if strings.HasPrefix(loc, p) {
			return true
		}
	}
	return false
}

func servingFrame(loc string) bool {
	return strings.HasPrefix(loc, "sglang/") || strings.HasPrefix(loc, "vllm/") || strings.HasPrefix(loc, "tensorrt_llm/")
}

func frameworkFrame(loc string) bool {
	for _, r := range roots {
		if strings.HasPrefix(loc, r) {
			return true
		}
	}
	return false
}

// shortLocation trims a frame name to its package-relative path.
func shortLocation(name string) string {
	for _, r := range roots {
		if i := strings.LastIndex(name, "/"+r); i >= 0 {
			return name[i+1:]
		}
		if strings.HasPrefix(name, r) {
			return name
		}
	}
	paren := strings.Index(name, ".py(")
	if paren < 0 {
		return name
	}
	path := name[:paren]
	cut := 0
	for n, i := 0, len(path)-1; i >= 0; i-- {
		if path[i] == '/' || path[i] == '\\' {
			n++
			if n == 2 {
				cut = i + 1
				break
			}
		}
	}
	return name[cut:]
}

// Stage names, as in breakdown.
const (
	stagePrefill = "prefill"
	stageDecode  = "decode"
	stageMixed   = "mixed"
	stageAll     = "all"
	stageOther   = "unstaged"
)

func stageRank(s string) int {
	switch s {
	case stagePrefill:
		return 0
	case stageDecode:
		return 1
	case stageMixed:
		return 2
	case stageAll:
		return 3
	}
	return 4
}

var vllmStep = regexp.MustCompile(`context_(\d+)\(.*_generation_(\d+)\(`)

// stageOfAnnotation returns the stage an annotation name announces, or ""
// (the rule of breakdown's stage.go).
func stageOfAnnotation(name string) string {
	l := strings.ToLower(name)
	if strings.Contains(l, "profilerstep") {
		return ""
	}
	if m := vllmStep.FindStringSubmatch(l); m != nil {
		c, _ := strconv.Atoi(m[1])
		g, _ := strconv.Atoi(m[2])
		switch {
		case c > 0 && g > 0:
			return stageMixed
		case c > 0:
			return stagePrefill
		case g > 0:
			return stageDecode
		}
		return ""
	}
	switch {
	case strings.Contains(l, "decode"):
		return stageDecode
	case strings.Contains(l, "extend") || strings.Contains(l, "prefill"):
		return stagePrefill
	}
	return ""
}

func (j *joiner) stageName(id uint32) string {
	s, ok := j.stageMemo[id]
	if !ok {
		s = stageOfAnnotation(j.st.Name(id))
		j.stageMemo[id] = s
	}
	return s
}

// stage returns the stage of o: the innermost stage-naming GPU annotation
// around it, else the CPU annotation around its launch, else "".
func (j *joiner) stage(o *trace.GPUOp) string {
	st := j.st
	if n := j.annot[tkey{o.File, o.Track}]; n != nil {
		for p := n.at(st.Annot, o.TS); p >= 0; p = n.parent[p] {
			a := &st.Annot[n.pos[p]]
			if a.End() >= o.TS {
				if s := j.stageName(a.Name); s != "" {
					return s
				}
			}
		}
	}
	if l := j.launchOf(o); l >= 0 {
		ls := &st.CPU[l]
		n := j.cpu[tkey{ls.File, ls.Track}]
		for p := n.at(st.CPU, ls.TS); p >= 0; p = n.parent[p] {
			c := &st.CPU[n.pos[p]]
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
	if n := j.annot[tkey{o.File, o.Track}]; n != nil {
		for p := n.at(st.Annot, o.TS); p >= 0; p = n.parent[p] {
			a := &st.Annot[n.pos[p]]
			if a.End() >= o.TS && j.stageName(a.Name) != "" {
				return int64(n.pos[p])
			}
		}
	}
	if l := j.launchOf(o); l >= 0 {
		ls := &st.CPU[l]
		n := j.cpu[tkey{ls.File, ls.Track}]
		for p := n.at(st.CPU, ls.TS); p >= 0; p = n.parent[p] {
			c := &st.CPU[n.pos[p]]
			if c.Kind == trace.KindUserAnnotation && c.End() >= ls.TS && j.stageName(c.Name) != "" {
				return 1<<40 + int64(n.pos[p])
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
func Stages(st *trace.Store) []string {
	j := newJoiner(st)
	out := make([]string, len(st.GPU))
	staged := map[uint16]bool{}
	for i := range st.GPU {
		if o := &st.GPU[i]; o.Kind.IsGPUWork() {
			out[i] = j.stage(o)
			staged[o.File] = staged[o.File] || out[i] != ""
		}
	}
	for i := range st.GPU {
		if o := &st.GPU[i]; o.Kind.IsGPUWork() && out[i] == "" {
			out[i] = stageAll
			if staged[o.File] {
				out[i] = stageOther
			}
		}
	}
	return out
}
