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
	"fmt"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/limits"

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
	// Model gives dimensions the trace lacks (--model-config); nil = none.
	Model *ModelConfig
	// TargetArch is the architecture results are projected onto (gfx950
	// …; --target-arch); "" = none.
	TargetArch string
	// WorldSize is the job's rank count (the trace's distributedInfo);
	// above 1 a rank holds a shard of each layer, so whole-layer
	// dimensions from the model config do not apply to its ops.
	WorldSize int
	// TargetProduct names the target's product when the user did (its
	// roofs then, not those of the ISA's usual part).
	TargetProduct string
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
	Model        string  // dominant formula by time: gemm | attention | conv | moe | pool | elementwise | norm | flops-arg
	Coverage     float64 // share of the row's kernel time launched by a modelled op
	Dtype        string
	Note         string // why the row is not (fully) modelled
	// Source says where numbers other than the op's recorded shapes came
	// from (the step annotation's sequence lengths, ops inside the op, the
	// model config); "" = the shapes alone.
	Source string
	// TargetBound is the least time (ns, every instance) the row's FLOPs
	// and bytes need at the target's roofs; TargetNote says what will not
	// carry over (ISA-specific kernels, MXFP4 dequantization) and
	// ISASpecific whether anything.
	TargetBound float64
	TargetNote  string
	ISASpecific bool
	PythonLoc   string
	CPUOp       string // the op whose shapes gave the FLOPs (else the launching op)
	// MappedShare is the share of the row's kernel time that was graph-
	// replayed and took its op and shapes from the mapping trace.
	MappedShare float64

	AchievedTFLOPS, AchievedGBPS, Intensity float64
	PeakTFLOPS, PeakGBPS, RooflineTFLOPS    float64
	Efficiency                              float64
	Bound                                   string // compute | memory | ""
	Merged                                  int    // an OtherOps row: how many rows it sums
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
	// TargetBound sums the modelled rows' bounds on the target (ns);
	// ISASpecific is the modelled time of rows whose kernels will not carry
	// over, ISAWhy why.
	TargetBound float64
	ISASpecific int64
	ISAWhy      string
}

// Result is the roofline of one job.
type Result struct {
	Device      *Device // nil when neither the name nor the arch is in the table
	Target      *Device // the --target-arch's table device, nil if none
	DeviceBasis string
	Overridden  bool
	PeakGBPS    float64
	Peaks       map[string]float64
	Stages      []StageTotals
	Rows        []Row
	// FiguresRank is, for a rank folder's top level, the rank these
	// figures are (never a sum over the ranks); nil otherwise.
	FiguresRank *int
	// MergedRows is how many rows past limits.OpRows per stage were summed
	// into the stages' OtherOps rows (0: none; the file is truncated).
	MergedRows int
}

// OtherOps names a stage's row that sums its rows past limits.OpRows.
const OtherOps = "(other ops)"

// opInfo is what one launching cpu_op resolves to (memoized).
type opInfo struct {
	op       int32 // the launching op (cache key)
	valid    bool
	top      int32 // outermost cpu_op
	modelled int32 // op whose formula applies, -1 = none
	c        cost
	note     string
	launcher uint32 // name of the launching op
	// c.dtype, c.model, note and c.source as numbers in analysis.strs
	dtypeID, modelID, noteID, srcID uint32
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

// rowAcc sums one row while the GPU ops are read: ids and numbers only
// (≈ 150 B), the row's strings are looked up when it is finished. 200 k
// distinct op names held a whole Row (≈ 370 B) per accumulator.
type rowAcc struct {
	key        rowKey
	sig        int32 // the signature's number in analysis.sigs
	kernelTime int64 // ns, all instances
	instances  int64
	instF      float64 // instances of mapped (graph-replayed) launches
	mapped     int64   // kernel time of those
	flops      float64
	bytes      float64
	modelTime  int64
	// The row's time per kernel, dtype, model, op, location and note is
	// kept in the analysis' attrs table under (row number, attr*); last
	// and lastKey remember the number and key last summed per kind.
	last    [attrKinds]int32
	lastKey [attrKinds]uint32
}

// Kinds of per-row sums in analysis.attrs: per kernel name id, per dtype,
// model and note (numbers in analysis.strs), per op and location name id.
const (
	attrKernel = iota
	attrDtype
	attrModel
	attrOp
	attrLoc
	attrNote
	attrSource
	attrKinds
)

// Analyze computes the roofline rows of every trace in st.
func Analyze(st *trace.Store, opt Options) *Result {
	j := opt.Joins
	if j == nil {
		j = callsite.NewJoins(st)
	}
	res := &Result{}
	res.Device, res.DeviceBasis = SelectDevice(opt.DeviceName, opt.Arch)
	if opt.TargetArch != "" {
		res.Target, _ = SelectDevice(opt.TargetProduct, opt.TargetArch)
	}
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
	a.cfg, a.world = opt.Model, opt.WorldSize
	var byName, byCanon map[string]*mapped
	if opt.Mapping != nil {
		mj := opt.MappingJoins
		if opt.Mapping == st {
			mj = j
		}
		byName, byCanon = buildMapping(opt.Mapping, mj, opt.Mapping == st, opt.Model, opt.WorldSize)
	}
	// Graph-replayed kernels' mapping entries by kernel name id, with the
	// entries' strings interned (in the order they were interned per
	// kernel, so ids are as before).
	type memoEntry struct {
		e                               *mapped
		op, dims, types, conc, loc, cpu uint32
		dtype, model, note, src         uint32 // in a.strs
	}
	memo := map[uint32]*memoEntry{}
	// Rows are numbered by rowTab under (stage, op name; signature number).
	rowTab := callsite.NewTable(256)
	var rows []*rowAcc
	// The row last found per op name id (+1, 0 = none): an op's launches
	// mostly have one signature and stage.
	rowOfName := make([]int32, len(st.Names))
	row := func(sid uint8, name uint32, sh trace.Shapes) (int32, *rowAcc) {
		k := rowKey{sid, name, sh.Dims, sh.Types, sh.Concrete}
		if int(name) < len(rowOfName) {
			if n := rowOfName[name] - 1; n >= 0 && rows[n].key == k {
				return n, rows[n]
			}
		}
		si := a.sigNum(sh)
		n, added := rowTab.Index(uint64(sid)<<32|uint64(name), uint64(si))
		if int(name) < len(rowOfName) {
			rowOfName[name] = n + 1
		}
		if !added {
			return n, rows[n]
		}
		r := &rowAcc{key: k, sig: si}
		for i := range r.last {
			r.last[i] = -1
		}
		rows = append(rows, r)
		return n, r
	}
	add := func(rn int32, kind int, key uint32, dur int64) {
		r := rows[rn]
		if n := r.last[kind]; n >= 0 && r.lastKey[kind] == key {
			a.attrT[n] += dur
			a.attrN[n]++
			return
		}
		r.last[kind], r.lastKey[kind] = a.add(rn, kind, key, dur), key
	}
	totals := make([]*StageTotals, len(names))
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
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
				m, seen := memo[o.Name]
				if !seen {
					if e := lookup(byName, byCanon, st.Name(o.Name)); e != nil {
						m = &memoEntry{e: e, op: st.Intern(e.op), dims: st.Intern(e.dims), types: st.Intern(e.types), conc: st.Intern(e.conc)}
						if e.loc != "" {
							m.loc = st.Intern(e.loc)
						}
						m.cpu = st.Intern(e.cpuOp)
						m.dtype, m.model, m.note, m.src = a.str(e.c.dtype), a.str(e.c.model), a.str(e.note), a.str(e.c.source)
					}
					memo[o.Name] = m
				}
				if m != nil {
					e := m.e
					t.Mapped += o.Dur
					rn, r := row(sid, m.op, trace.Shapes{Dims: m.dims, Types: m.types, Concrete: m.conc})
					r.kernelTime += o.Dur
					add(rn, attrKernel, o.Name, o.Dur)
					r.instF += e.inst
					r.mapped += o.Dur
					if e.loc != "" {
						add(rn, attrLoc, m.loc, o.Dur)
					}
					f, b, src, ok := e.c.flops, e.c.bytes, m.src, e.modelled
					if ok && e.c.seq {
						step := a.stepAt(&st.CPU[l])
						if ok = step != nil && step.sums.sq <= e.c.rows; ok {
							f, b = e.c.at(step.sums)
							src = step.src
						}
					}
					if ok {
						t.Modelled += o.Dur
						r.modelTime += o.Dur
						r.flops += f
						r.bytes += b
						add(rn, attrDtype, m.dtype, o.Dur)
						add(rn, attrModel, m.model, o.Dur)
						add(rn, attrOp, m.cpu, o.Dur)
						if src != 0 {
							add(rn, attrSource, src, o.Dur)
						}
					} else if e.modelled {
						add(rn, attrOp, m.cpu, o.Dur)
						add(rn, attrNote, a.str(noSteps), o.Dur)
					} else {
						add(rn, attrOp, m.cpu, o.Dur)
						add(rn, attrNote, m.note, o.Dur)
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
			if p := a.shapesOf(info.top); p != nil {
				sh = *p
			}
			rn, r := row(sid, top.Name, sh)
			if !a.topSeen.set(info.top) {
				r.instances++
			}
			r.kernelTime += o.Dur
			add(rn, attrKernel, o.Name, o.Dur)
			if loc := a.python(op, l); loc != 0 {
				add(rn, attrLoc, loc, o.Dur)
			}
			ok, src := info.modelled >= 0, info.srcID
			var step *stepInfo
			if ok && info.c.seq {
				step = a.stepAt(&st.CPU[info.modelled])
				if ok = step != nil && step.sums.sq <= info.c.rows; ok {
					src = step.src
				}
			}
			if ok {
				t.Modelled += o.Dur
				r.modelTime += o.Dur
				if !a.modelSeen.set(info.modelled) {
					f, b := info.c.flops, info.c.bytes
					if step != nil {
						f, b = info.c.at(step.sums)
					}
					r.flops += f
					r.bytes += b
				}
				add(rn, attrDtype, info.dtypeID, o.Dur)
				add(rn, attrModel, info.modelID, o.Dur)
				add(rn, attrOp, st.CPU[info.modelled].Name, o.Dur)
				if src != 0 {
					add(rn, attrSource, src, o.Dur)
				}
			} else if info.modelled >= 0 {
				add(rn, attrOp, st.CPU[info.modelled].Name, o.Dur)
				add(rn, attrNote, a.str(noSteps), o.Dur)
			} else {
				add(rn, attrOp, info.launcher, o.Dur)
				add(rn, attrNote, info.noteID, o.Dur)
			}
		}
	})
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
	a.rowsDone(len(rows))
	a.finishRows(rows, names, res, opt, limits.OpRows)
	return res
}

// add adds dur to the row's sum of one kind and key (and counts it), and
// returns the sum's number.
func (a *analysis) add(row int32, kind int, key uint32, dur int64) int32 {
	n, added := a.attrs.Index(uint64(row)*attrKinds+uint64(kind), uint64(key))
	if added {
		a.attrT = append(a.attrT, 0)
		a.attrN = append(a.attrN, 0)
	}
	a.attrT[n] += dur
	a.attrN[n]++
	return n
}

// rowsDone lists every row's sums (numbers in a.attrs), by row.
func (a *analysis) rowsDone(rows int) {
	a.byRow = make([][]int32, rows)
	for n := range a.attrT {
		r := a.attrs.Key(int32(n)).A / attrKinds
		a.byRow[r] = append(a.byRow[r], int32(n))
	}
}

// topKey returns the key of one kind of a row's sums with the largest
// time, ties to the smallest id (0, false: none).
func (a *analysis) topKey(row int32, kind int) (uint32, bool) {
	var best uint32
	var bt int64 = -1
	for _, n := range a.byRow[row] {
		k := a.attrs.Key(n)
		if int(k.A%attrKinds) != kind {
			continue
		}
		if v, id := a.attrT[n], uint32(k.B); v > bt || v == bt && id < best {
			best, bt = id, v
		}
	}
	return best, bt >= 0
}

// topString is topKey over keys numbered in a.strs, ties to the smallest
// string.
func (a *analysis) topString(row int32, kind int) (string, bool) {
	best, bt := "", int64(-1)
	for _, n := range a.byRow[row] {
		k := a.attrs.Key(n)
		if int(k.A%attrKinds) != kind {
			continue
		}
		if v, s := a.attrT[n], a.strs[k.B]; v > bt || v == bt && s < best {
			best, bt = s, v
		}
	}
	return best, bt >= 0
}

// finish turns a row's sums into per-instance figures and its roofline.
func (a *analysis) finish(rn int32, r *rowAcc, stage string, res *Result) Row {
	st := a.st
	out := a.head(r, stage)
	out.Instances = r.count()
	if r.kernelTime > 0 {
		out.MappedShare = float64(r.mapped) / float64(r.kernelTime)
	}
	for _, n := range a.byRow[rn] {
		if k := a.attrs.Key(n); k.A%attrKinds == attrKernel {
			out.Kernels = append(out.Kernels, Kernel{Name: st.Name(uint32(k.B)), Launches: a.attrN[n], Time: a.attrT[n]})
		}
	}
	slices.SortFunc(out.Kernels, func(x, y Kernel) int {
		if x.Time != y.Time {
			return cmp.Compare(y.Time, x.Time)
		}
		return strings.Compare(x.Name, y.Name)
	})
	if id, _ := a.topKey(rn, attrOp); id != 0 {
		out.CPUOp = st.Name(id)
	}
	if id, _ := a.topKey(rn, attrLoc); id != 0 {
		out.PythonLoc = st.Name(id)
	}
	if note, ok := a.topString(rn, attrNote); ok {
		out.Note = note
	}
	out.Source, _ = a.topString(rn, attrSource)
	if r.kernelTime > 0 {
		out.Coverage = float64(r.modelTime) / float64(r.kernelTime)
	}
	if r.modelTime == 0 || r.kernelTime <= 0 {
		out.Dtype = firstDtype(a.sigs[r.sig])
		return out
	}
	out.Modelled = true
	out.Dtype, _ = a.topString(rn, attrDtype)
	out.Model, _ = a.topString(rn, attrModel) // the dominant formula (a conv's layout copies ride along)
	if out.Coverage < 1 && out.Note != "" {
		out.Note = "partly modelled: " + out.Note
	}
	n := float64(max(out.Instances, 1))
	out.Flops, out.Bytes = r.flops/n, r.bytes/n
	sec := float64(r.kernelTime) / 1e9
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

type analysis struct {
	st    *trace.Store
	j     *callsite.Joins
	cfg   *ModelConfig
	world int // Options.WorldSize
	// steps memoizes the step annotations parsed, by CPU span index
	// (nil: not a step annotation).
	steps map[int32]*stepInfo
	// ops caches resolved launching ops, direct-mapped by op index: a
	// large trace has one op per kernel, and a map entry each would stay
	// in a wasm module's heap; a miss only resolves the op again.
	ops                [opCache]opInfo
	topSeen, modelSeen bitset // CPU spans already counted as an instance / a cost
	// sigTab numbers signatures (Input Dims, types, Concrete Inputs ids);
	// sigs holds them by number.
	sigTab *callsite.Table
	sigs   []*sig
	// models memoizes model() per op name, signature and whether a flops
	// argument applies: a large trace resolves an op per kernel, but has
	// few distinct signatures. models holds them by modelTab number.
	modelTab    *callsite.Table
	models      []modelMemo
	modelOfName []int32
	sites       *callsite.Sites
	chain       []int32 // resolve's scratch
	cur         callsite.Cursor
	// the thread of the last op resolved, and its nest
	lastThread callsite.Thread
	lastNest   *callsite.Nest
	haveThread bool
	shHint     int // where the last shapesOf landed
	// strs numbers the dtype, model and note strings rows are summed by.
	strs  []string
	strID map[string]uint32
	// attrs numbers (row·attrKinds + kind, key) of the rows' sums; attrT
	// and attrN hold their time and count by number, byRow their numbers
	// by row once the rows are done.
	attrs        *callsite.Table
	attrT, attrN []int64
	byRow        [][]int32
}

// modelMemoMax bounds the model memo (≈ 200 B an entry): real traces have
// hundreds to a few thousand op names and signatures; 200 k distinct op
// names kept 200 k answers never asked again.
const modelMemoMax = 1 << 14

// modelMemo is model()'s answer for one op name and signature, with or
// without a flops argument (the argument's value is filled in on use).
type modelMemo struct {
	c                               cost
	ok                              bool
	note                            string
	dtypeID, modelID, noteID, srcID uint32
	// the key: op name id, signature ids, whether a flops argument applies
	name, dims, types, conc uint32
	hasFlops                bool
}

// str returns the number of s in a.strs.
func (a *analysis) str(s string) uint32 {
	id, ok := a.strID[s]
	if !ok {
		id = uint32(len(a.strs))
		a.strs = append(a.strs, s)
		a.strID[s] = id
	}
	return id
}

// model is model(name, sig, flops), memoized per name, signature and
// whether flops applies.
func (a *analysis) model(name uint32, sh trace.Shapes) *modelMemo {
	// The memo last used per op name (+1, 0 = none) answers most lookups.
	for int(name) >= len(a.modelOfName) {
		a.modelOfName = append(a.modelOfName, make([]int32, len(a.modelOfName)+64)...)
	}
	// (a number past the memo's end is from before it was last emptied)
	if n := a.modelOfName[name] - 1; n >= 0 && int(n) < len(a.models) {
		if m := &a.models[n]; m.name == name && m.dims == sh.Dims && m.types == sh.Types && m.conc == sh.Concrete && m.hasFlops == (sh.Flops > 0) {
			return m
		}
	}
	si := a.sigNum(sh)
	hasFlops := uint64(0)
	if sh.Flops > 0 {
		hasFlops = 1
	}
	if a.modelTab.Len() >= modelMemoMax && a.modelTab.Find(uint64(name)<<32|uint64(si), hasFlops) < 0 {
		// A memo, not a record: emptied when full, answers are the same.
		a.modelTab, a.models = callsite.NewTable(64), a.models[:0]
	}
	n, added := a.modelTab.Index(uint64(name)<<32|uint64(si), hasFlops)
	if added {
		s := a.sigs[si]
		c, ok, note := withFlops(shapesModel(a.st.Name(name), s), s, int64(hasFlops))
		a.models = append(a.models, modelMemo{c: c, ok: ok, note: note, dtypeID: a.str(c.dtype), modelID: a.str(c.model), noteID: a.str(note), srcID: a.str(c.source),
			name: name, dims: sh.Dims, types: sh.Types, conc: sh.Concrete, hasFlops: hasFlops == 1})
	}
	a.modelOfName[name] = n + 1
	return &a.models[n]
}

func newAnalysis(st *trace.Store, j *callsite.Joins) *analysis {
	return &analysis{st: st, j: j, steps: map[int32]*stepInfo{}, sigTab: callsite.NewTable(64), modelTab: callsite.NewTable(64),
		topSeen: newBitset(len(st.CPU)), modelSeen: newBitset(len(st.CPU)),
		sites: callsite.NewSites(j), strs: []string{""}, strID: map[string]uint32{"": 0}, attrs: callsite.NewTable(256)}
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

// shapesOf is st.ShapesOf(i), searching out from where the last lookup
// landed: ops are resolved about in the order of their shapes.
func (a *analysis) shapesOf(i int32) *trace.Shapes {
	s := a.st.Shapes
	n := len(s)
	h := min(a.shHint, n)
	lo, hi := 0, n // the first k with s[k].CPU >= i is in [lo, hi]
	if h < n && s[h].CPU < i {
		lo = h + 1
		for step := 1; ; step <<= 1 {
			k := h + step
			if k >= n {
				break
			}
			if s[k].CPU >= i {
				hi = k
				break
			}
			lo = k + 1
		}
	} else {
		hi = h
		if h > 0 && s[h-1].CPU < i {
			lo = h
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m].CPU < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	a.shHint = lo
	if lo < n && s[lo].CPU == i {
		return &s[lo]
	}
	return nil
}

// sigNum returns the number of a signature in a.sigs, parsing it once.
func (a *analysis) sigNum(sh trace.Shapes) int32 {
	n, added := a.sigTab.Index(uint64(sh.Dims)<<32|uint64(sh.Types), uint64(sh.Concrete))
	if added {
		v := parseSig(a.st.Name(sh.Dims), a.st.Name(sh.Types), a.st.Name(sh.Concrete))
		a.sigs = append(a.sigs, &v)
	}
	return n
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
	info := opInfo{top: op, modelled: -1, launcher: s.Name}
	chain := append(a.chain[:0], op) // inner → outer
	if !a.haveThread || a.lastThread != (callsite.Thread{File: s.File, Track: s.Track}) {
		a.lastThread, a.lastNest, a.haveThread = callsite.Thread{File: s.File, Track: s.Track}, a.j.CPUNest(s.File, s.Track), true
	}
	n := a.lastNest
	for p := a.cur.At(n, st.CPU, s.TS); p >= 0; p = n.Parent[p] {
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
	a.chain = chain
	info.top = chain[len(chain)-1]
	noteID := uint32(0)
	for _, i := range chain {
		var sh trace.Shapes
		sh.Flops = trace.None
		if p := a.shapesOf(i); p != nil {
			sh = *p
		}
		m := a.model(st.CPU[i].Name, sh)
		if !m.ok && m.note != "" && isMoE(strings.ToLower(st.Name(st.CPU[i].Name))) && a.shapesOf(i) != nil {
			// The MoE model reads the ops inside this one: per op, not per
			// signature.
			if c, ok, note := a.moe(i, a.sigs[a.sigNum(sh)]); ok {
				info.modelled, info.c = i, c
				info.dtypeID, info.modelID, info.srcID = a.str(c.dtype), a.str(c.model), a.str(c.source)
				break
			} else if info.note == "" {
				info.note, noteID = note, a.str(note)
			}
		}
		if m.ok {
			info.modelled, info.c = i, m.c
			if sh.Flops > 0 {
				info.c.flops = float64(sh.Flops)
			}
			info.dtypeID, info.modelID, info.srcID = m.dtypeID, m.modelID, m.srcID
			break
		}
		if info.note == "" {
			info.note, noteID = m.note, m.noteID
		}
	}
	info.noteID = noteID // 0 is ""
	info.op, info.valid = op, true
	*slot = info
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

// noSteps explains an attention-over-a-KV-cache op left unmodelled.
const noSteps = "attention over a KV cache: no step annotation with the sequence lengths (execute_…(sq…sk…)) around it, or more query tokens than the op's rows"

// stepInfo is a parsed step annotation and its source line.
type stepInfo struct {
	sums seqSums
	src  uint32 // in a.strs
}

// stepAt returns the step annotation around a CPU span (an op, or a graph
// launch), nil if none.
func (a *analysis) stepAt(sp *trace.Span) *stepInfo {
	st := a.st
	n := a.j.CPUNest(sp.File, sp.Track)
	for p := n.At(st.CPU, sp.TS); p >= 0; p = n.Parent[p] {
		i := n.Pos[p]
		c := &st.CPU[i]
		if c.Kind != trace.KindUserAnnotation {
			continue
		}
		si, seen := a.steps[i]
		if !seen {
			if sums, ok := parseSeqSums(st.Name(c.Name)); ok {
				si = &stepInfo{sums: sums, src: a.str(fmt.Sprintf("sequence lengths from the step annotation %q: Σq %.0f, Σk %.0f, Σq·k %.0f, Σq² %.0f",
					trimLabel(sums.label), sums.sq, sums.sk, sums.sqsk, sums.sqsq))}
			}
			a.steps[i] = si
		}
		if si != nil {
			return si
		}
	}
	return nil
}

func trimLabel(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
