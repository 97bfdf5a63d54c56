// Package roofline answers "is this op good?": per op signature (the
// top-level op, its input shapes, types and flags) and stage, the FLOPs and
// bytes its inputs imply, the TFLOP/s and GB/s its kernels achieved, and
// how far that is from the device's roof (HTA/TraceLens-style roofline).
//
// Every GPU op (kernel, copy, fill) is charged to the top-level cpu_op (the
// outermost op on the launching thread) that launched it, joined by
// External id or through the launch call's correlation: small workspace
// memsets an op launches count toward it. FLOPs and bytes come from the
// op that launched the kernel (or the nearest enclosing op with a
// formula) — aten::linear → aten::addmm is modelled once, at the addmm —
// from its record_shapes arguments, or from the trace's own `flops`
// argument when present. Ops without shapes are reported as such; nothing
// is guessed.
package roofline

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/kernels"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Options select the stage, the stages of GPU ops, and the roofs.
type Options struct {
	Stage      string
	Joins      *callsite.Joins // nil builds them
	OpStage    []uint8         // stage of every GPU op (index into StageNames); nil = one stage "all"
	StageNames []string
	DeviceName string // deviceProperties name
	Arch       string // observed arch (gfx942, sm90 …)
	// Mapping is the trace graph-replayed kernels take their ops and
	// shapes from (graph-off or capture trace; the analysed store itself
	// uses its captured launches only); nil = none.
	Mapping      *trace.Store
	MappingJoins *callsite.Joins
	// PeakTFLOPS / PeakGBPS override the device table (every dtype's
	// compute roof, and the memory roof); 0 keeps the table's.
	PeakTFLOPS, PeakGBPS float64
}

// Row is one op signature in one stage.
type Row struct {
	Stage          string
	Op             string
	InputDims      []byte // raw JSON (compacted), nil without shapes
	InputTypes     []string
	ConcreteInputs []string
	Kernels        []Kernel
	Instances      int64
	KernelTime     int64 // ns, all instances
	// Per instance; valid when Modelled.
	Flops, Bytes float64
	Modelled     bool
	Model        string  // dominant formula by time: gemm | attention | conv | elementwise | norm | flops-arg
	Coverage     float64 // share of the row's kernel time launched by a modelled op
	Dtype        string
	Note         string // why the row is not (fully) modelled
	PythonLoc    string
	CPUOp        string // the op whose shapes gave the FLOPs (else the launching op)
	// MappedShare is the share of the row's kernel time that was graph-
	// replayed and took its op and shapes from the mapping trace.
	MappedShare float64

	AchievedTFLOPS, AchievedGBPS, Intensity float64
	PeakTFLOPS, PeakGBPS, RooflineTFLOPS    float64
	Efficiency                              float64
	Bound                                   string // compute | memory | ""
}

// Kernel is one kernel name under a row.
type Kernel struct {
	Name     string
	Launches int64
	Time     int64
}

// StageTotals says how much of a stage's GPU time the rows cover.
type StageTotals struct {
	Stage      string
	KernelTime int64 // every GPU op of the stage
	Modelled   int64 // launched by an op with a formula
	NoOp       int64 // no launching cpu_op found
	Graph      int64 // graph-replayed: launched by a graph, not an op
	Mapped     int64 // graph-replayed with op and shapes from the mapping trace
}

// Result is the roofline of one job.
type Result struct {
	Device      *Device // nil when neither the name nor the arch is in the table
	DeviceBasis string
	Overridden  bool
	PeakGBPS    float64
	Peaks       map[string]float64
	Stages      []StageTotals
	Rows        []Row
}

// opInfo is what one launching cpu_op resolves to (memoized).
type opInfo struct {
	op       int32 // the launching op (cache key)
	valid    bool
	top      int32 // outermost cpu_op
	modelled int32 // op whose formula applies, -1 = none
	c        cost
	note     string
	launcher uint32 // name of the launching op
}

const opCache = 4096

// bitset marks CPU span indices.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// set marks i and reports whether it was already marked.
func (b bitset) set(i int32) bool {
	w, m := int(i)/64, uint64(1)<<(uint(i)%64)
	was := b[w]&m != 0
	b[w] |= m
	return was
}

type rowKey struct {
	stage                   uint8
	name, dims, types, conc uint32
}

type rowAcc struct {
	Row
	key       rowKey
	instances int64
	instF     float64 // instances of mapped (graph-replayed) launches
	mapped    int64   // kernel time of those
	kernels   map[uint32]*Kernel
	flops     float64
	bytes     float64
	modelTime int64
	dtypeT    map[string]int64
	modelT    map[string]int64
	opT       map[uint32]int64
	locT      map[uint32]int64
	notes     map[string]int64
}

// Analyze computes the roofline rows of every trace in st.
func Analyze(st *trace.Store, opt Options) *Result {
	j := opt.Joins
	if j == nil {
		j = callsite.NewJoins(st)
	}
	res := &Result{}
	res.Device, res.DeviceBasis = SelectDevice(opt.DeviceName, opt.Arch)
	res.Peaks = map[string]float64{}
	if res.Device != nil {
		for k, v := range res.Device.Peak {
			res.Peaks[k] = v
		}
		res.PeakGBPS = res.Device.GBPS
	}
	if opt.PeakTFLOPS > 0 {
		res.Overridden = true
		for _, k := range dtypes {
			res.Peaks[k] = opt.PeakTFLOPS
		}
	}
	if opt.PeakGBPS > 0 {
		res.Overridden = true
		res.PeakGBPS = opt.PeakGBPS
	}
	names := opt.StageNames
	if opt.OpStage == nil {
		names = []string{callsite.StageAll}
	}

	a := newAnalysis(st, j)
	var byName, byCanon map[string]*mapped
	if opt.Mapping != nil {
		mj := opt.MappingJoins
		if opt.Mapping == st {
			mj = j
		}
		byName, byCanon = buildMapping(opt.Mapping, mj, opt.Mapping == st)
	}
	memo := map[uint32]*mapped{}
	rows := map[rowKey]*rowAcc{}
	row := func(sid uint8, name uint32, sh trace.Shapes) *rowAcc {
		k := rowKey{sid, name, sh.Dims, sh.Types, sh.Concrete}
		r := rows[k]
		if r == nil {
			s := a.sig(sh)
			r = &rowAcc{key: k, Row: Row{Stage: names[sid], Op: st.Name(name), InputDims: s.rawDims, InputTypes: s.types, ConcreteInputs: s.concrete},
				kernels: map[uint32]*Kernel{},
				dtypeT:  map[string]int64{}, modelT: map[string]int64{}, opT: map[uint32]int64{}, locT: map[uint32]int64{}, notes: map[string]int64{}}
			rows[k] = r
		}
		return r
	}
	kernel := func(r *rowAcc, o *trace.GPUOp) {
		r.KernelTime += o.Dur
		kn := r.kernels[o.Name]
		if kn == nil {
			kn = &Kernel{Name: st.Name(o.Name)}
			r.kernels[o.Name] = kn
		}
		kn.Launches++
		kn.Time += o.Dur
	}
	totals := make([]*StageTotals, len(names))
	for i := range st.GPU {
		o := &st.GPU[i]
		if !o.Kind.IsGPUWork() {
			continue
		}
		var sid uint8
		if opt.OpStage != nil {
			sid = opt.OpStage[i]
		}
		if int(sid) >= len(names) || opt.Stage != "" && names[sid] != opt.Stage {
			continue
		}
		t := totals[sid]
		if t == nil {
			t = &StageTotals{Stage: names[sid]}
			totals[sid] = t
		}
		t.KernelTime += o.Dur
		l := j.Launch(o.File, o.Corr)
		if l >= 0 && j.IsGraphLaunch(&st.CPU[l]) {
			t.Graph += o.Dur
			e, seen := memo[o.Name]
			if !seen {
				e = lookup(byName, byCanon, st.Name(o.Name))
				memo[o.Name] = e
			}
			if e != nil {
				t.Mapped += o.Dur
				r := row(sid, st.Intern(e.op), trace.Shapes{Dims: st.Intern(e.dims), Types: st.Intern(e.types), Concrete: st.Intern(e.conc)})
				kernel(r, o)
				r.instF += e.inst
				r.mapped += o.Dur
				if e.loc != "" {
					r.locT[st.Intern(e.loc)] += o.Dur
				}
				if e.modelled {
					t.Modelled += o.Dur
					r.modelTime += o.Dur
					r.flops += e.c.flops
					r.bytes += e.c.bytes
					r.dtypeT[e.c.dtype] += o.Dur
					r.modelT[e.c.model] += o.Dur
					r.opT[st.Intern(e.cpuOp)] += o.Dur
				} else {
					r.opT[st.Intern(e.cpuOp)] += o.Dur
					r.notes[e.note] += o.Dur
				}
			}
			continue
		}
		op := a.launchingOp(o, l)
		if op < 0 {
			t.NoOp += o.Dur
			continue
		}
		info := a.resolve(op)
		top := &st.CPU[info.top]
		var sh trace.Shapes
		if p := st.ShapesOf(info.top); p != nil {
			sh = *p
		}
		r := row(sid, top.Name, sh)
		if !a.topSeen.set(info.top) {
			r.instances++
		}
		kernel(r, o)
		if loc := a.python(op, l); loc != 0 {
			r.locT[loc] += o.Dur
		}
		if info.modelled >= 0 {
			t.Modelled += o.Dur
			r.modelTime += o.Dur
			if !a.modelSeen.set(info.modelled) {
				r.flops += info.c.flops
				r.bytes += info.c.bytes
			}
			r.dtypeT[info.c.dtype] += o.Dur
			r.modelT[info.c.model] += o.Dur
			r.opT[st.CPU[info.modelled].Name] += o.Dur
		} else {
			r.opT[info.launcher] += o.Dur
			r.notes[info.note] += o.Dur
		}
	}
	for _, t := range totals {
		if t != nil {
			res.Stages = append(res.Stages, *t)
		}
	}
	slices.SortFunc(res.Stages, func(x, y StageTotals) int {
		if d := callsite.Rank(x.Stage) - callsite.Rank(y.Stage); d != 0 {
			return d
		}
		return strings.Compare(x.Stage, y.Stage)
	})
	for _, r := range rows {
		res.Rows = append(res.Rows, a.finish(r, res))
	}
	slices.SortFunc(res.Rows, func(x, y Row) int {
		if d := callsite.Rank(x.Stage) - callsite.Rank(y.Stage); d != 0 {
			return d
		}
		if x.Stage != y.Stage {
			return strings.Compare(x.Stage, y.Stage)
		}
		if x.KernelTime != y.KernelTime {
			return cmp.Compare(y.KernelTime, x.KernelTime)
		}
		if c := strings.Compare(x.Op, y.Op); c != 0 {
			return c
		}
		if c := strings.Compare(string(x.InputDims), string(y.InputDims)); c != 0 {
			return c
		}
		if c := slices.Compare(x.InputTypes, y.InputTypes); c != 0 {
			return c
		}
		return slices.Compare(x.ConcreteInputs, y.ConcreteInputs)
	})
	return res
}

// finish turns a row's sums into per-instance figures and its roofline.
func (a *analysis) finish(r *rowAcc, res *Result) Row {
	st := a.st
	out := r.Row
	out.Instances = r.instances + int64(math.Round(r.instF))
	if r.KernelTime > 0 {
		out.MappedShare = float64(r.mapped) / float64(r.KernelTime)
	}
	for _, k := range r.kernels {
		out.Kernels = append(out.Kernels, *k)
	}
	slices.SortFunc(out.Kernels, func(x, y Kernel) int {
		if x.Time != y.Time {
			return cmp.Compare(y.Time, x.Time)
		}
		return strings.Compare(x.Name, y.Name)
	})
	if id := topKey(r.opT); id != 0 {
		out.CPUOp = st.Name(id)
	}
	if id := topKey(r.locT); id != 0 {
		out.PythonLoc = st.Name(id)
	}
	if len(r.notes) > 0 {
		out.Note = topString(r.notes)
	}
	if r.KernelTime > 0 {
		out.Coverage = float64(r.modelTime) / float64(r.KernelTime)
	}
	if r.modelTime == 0 || r.KernelTime <= 0 {
		out.Dtype = firstDtype(a.sig(trace.Shapes{Dims: r.key.dims, Types: r.key.types, Concrete: r.key.conc}))
		return out
	}
	out.Modelled = true
	out.Dtype = topString(r.dtypeT)
	out.Model = topString(r.modelT) // the dominant formula (a conv's layout copies ride along)
	if out.Coverage < 1 && out.Note != "" {
		out.Note = "partly modelled: " + out.Note
	}
	n := float64(max(out.Instances, 1))
	out.Flops, out.Bytes = r.flops/n, r.bytes/n
	sec := float64(r.KernelTime) / 1e9
	out.AchievedTFLOPS = r.flops / sec / 1e12
	out.AchievedGBPS = r.bytes / sec / 1e9
	if r.bytes > 0 {
		out.Intensity = r.flops / r.bytes
	}
	out.PeakTFLOPS = res.Peaks[out.Dtype]
	out.PeakGBPS = res.PeakGBPS
	if out.PeakGBPS <= 0 {
		return out
	}
	switch {
	case r.flops == 0:
		out.Bound = "memory"
		out.Efficiency = out.AchievedGBPS / out.PeakGBPS
	case out.PeakTFLOPS > 0 && r.bytes > 0:
		ridge := out.PeakTFLOPS * 1e3 / out.PeakGBPS // FLOP/byte
		memRoof := out.Intensity * out.PeakGBPS / 1e3
		if out.Intensity < ridge {
			out.Bound, out.RooflineTFLOPS = "memory", memRoof
		} else {
			out.Bound, out.RooflineTFLOPS = "compute", out.PeakTFLOPS
		}
		out.Efficiency = out.AchievedTFLOPS / out.RooflineTFLOPS
	}
	return out
}

func topKey(m map[uint32]int64) uint32 {
	var best uint32
	var bt int64 = -1
	for k, v := range m {
		if v > bt || v == bt && k < best {
			best, bt = k, v
		}
	}
	return best
}

func topString(m map[string]int64) string {
	best, bt := "", int64(-1)
	for k, v := range m {
		if v > bt || v == bt && k < best {
			best, bt = k, v
		}
	}
	return best
}

type analysis struct {
	st *trace.Store
	j  *callsite.Joins
	// ops caches resolved launching ops, direct-mapped by op index: a
	// large trace has one op per kernel, and a map entry each would stay
	// in a wasm module's heap; a miss only resolves the op again.
	ops                [opCache]opInfo
	topSeen, modelSeen bitset // CPU spans already counted as an instance / a cost
	sigs               map[[3]uint32]*sig
	// models memoizes shapesModel per op name and signature: a large trace
	// resolves an op per kernel, but has few distinct signatures.
	models map[[4]uint32]modelled
	sites  *callsite.Sites
}

// model is model(name, sig, flops) with the per-signature part memoized.
func (a *analysis) model(name uint32, sh trace.Shapes) (cost, bool, string) {
	k := [4]uint32{name, sh.Dims, sh.Types, sh.Concrete}
	s := a.sig(sh)
	m, ok := a.models[k]
	if !ok {
		m = shapesModel(a.st.Name(name), s)
		a.models[k] = m
	}
	return withFlops(m, s, sh.Flops)
}

func newAnalysis(st *trace.Store, j *callsite.Joins) *analysis {
	return &analysis{st: st, j: j, sigs: map[[3]uint32]*sig{}, models: map[[4]uint32]modelled{}, topSeen: newBitset(len(st.CPU)), modelSeen: newBitset(len(st.CPU)),
		sites: callsite.NewSites(j)}
}

// lookup finds a replayed kernel's mapping entry by name, else by
// canonical name.
func lookup(byName, byCanon map[string]*mapped, name string) *mapped {
	if byName == nil {
		return nil
	}
	if e := byName[name]; e != nil {
		return e
	}
	return byCanon[kernels.Canonical(name)]
}

func (a *analysis) sig(sh trace.Shapes) *sig {
	k := [3]uint32{sh.Dims, sh.Types, sh.Concrete}
	s := a.sigs[k]
	if s == nil {
		v := parseSig(a.st.Name(sh.Dims), a.st.Name(sh.Types), a.st.Name(sh.Concrete))
		s = &v
		a.sigs[k] = s
	}
	return s
}

// launchingOp finds the cpu_op that launched o: by its External id, else
// by its launch call's External id, else the innermost cpu_op around the
// launch call.
func (a *analysis) launchingOp(o *trace.GPUOp, l int32) int32 {
	st, j := a.st, a.j
	if op := j.ByExt(o.File, o.Ext); op >= 0 && st.CPU[op].Kind == trace.KindCPUOp {
		return op
	}
	if l < 0 {
		return -1
	}
	ls := &st.CPU[l]
	if op := j.ByExt(ls.File, ls.Ext); op >= 0 && st.CPU[op].Kind == trace.KindCPUOp {
		return op
	}
	return j.Enclosing(callsite.Thread{File: ls.File, Track: ls.Track}, ls.TS, trace.KindCPUOp)
}

// resolve finds a launching op's top-level op and the op whose formula
// applies: the launching op itself or the nearest enclosing op with one.
func (a *analysis) resolve(op int32) *opInfo {
	slot := &a.ops[int(op)&(opCache-1)]
	if slot.valid && slot.op == op {
		return slot
	}
	st := a.st
	s := &st.CPU[op]
	info := &opInfo{top: op, modelled: -1, launcher: s.Name}
	chain := []int32{op} // inner → outer
	n := a.j.CPU[callsite.Thread{File: s.File, Track: s.Track}]
	for p := n.At(st.CPU, s.TS); p >= 0; p = n.Parent[p] {
		i := n.Pos[p]
		c := &st.CPU[i]
		if i == op || c.Kind != trace.KindCPUOp || c.TS > s.TS || c.End() < s.End() {
			continue
		}
		if c.TS == s.TS && c.End() == s.End() && i > op {
			continue // an equal span recorded inside op
		}
		chain = append(chain, i)
	}
	info.top = chain[len(chain)-1]
	for _, i := range chain {
		var sh trace.Shapes
		sh.Flops = trace.None
		if p := st.ShapesOf(i); p != nil {
			sh = *p
		}
		c, ok, note := a.model(st.CPU[i].Name, sh)
		if ok {
			info.modelled, info.c = i, c
			break
		}
		if info.note == "" {
			info.note = note
		}
	}
	info.op, info.valid = op, true
	*slot = *info
	return slot
}

// python returns the call site of a launch: the best-scored meaningful
// Python frame active at the launch call (or at the op's start), as the
// kernel table chooses it.
func (a *analysis) python(op, l int32) uint32 {
	st := a.st
	at := &st.CPU[op]
	if l >= 0 && st.CPU[l].File == at.File && st.CPU[l].Track == at.Track {
		at = &st.CPU[l]
	}
	return a.sites.At(at.File, at.Track, at.TS)
}
