// Package breakdown answers "where does GPU time go, per stage": category and
// provider shares, and the kernel table that ties each kernel back to its CPU
// op and Python call site.
package breakdown

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"

	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Options select what to analyse.
type Options struct {
	Stage string // keep only this stage; "" keeps all
	// Joins are the store's join indexes when a caller already built them
	// (triage shares one set with the overlap analysis); nil builds them.
	Joins *callsite.Joins
}

// Share is a named slice of GPU time.
type Share struct {
	Name    string
	GPUTime int64 // ns
	Share   float64
}

// Stage is the category breakdown of one stage.
type Stage struct {
	Stage          string
	Source         string // annotation | file name | none
	KernelCount    int64  // GPU activities: kernels, copies, fills
	KernelTime     int64  // ns, summed over activities
	Window         int64  // ns, first start → last end (summed over files)
	AvgParallelism float64
	Categories     []Share
	Providers      []Share
	GraphKernels   int64 // GPU ops of the stage replayed by a graph launch
}

// Row is one line of the kernel table: a canonical kernel within a stage.
type Row struct {
	Stage          string
	Kernel         string
	Category       string
	Provider       string
	Launches       int64
	GPUTime        int64 // ns
	Share          float64
	PythonLocation string // dominant call site, "" when the trace has none
	SiteShare      float64
	CPUOp          string
	CPUOpShare     float64
	Graph          bool // launched by a HIP/CUDA graph replay
	// MappedBy says where the location came from when a mapping trace
	// supplied it (capture, sequence, name); "" = this trace itself.
	MappedBy string
}

// Result is the breakdown of one job.
type Result struct {
	Stages []Stage
	Rows   []Row
	// Shares of GPU time whose launching CPU op / Python location is known.
	CPUOpCoverage, PythonCoverage float64
	HasPython                     bool
	GraphLaunches, GraphKernels   int64
	// Classes holds the class of every kernel name analysed (by name id),
	// for analyses that group by category without classifying again.
	Classes map[uint32]kernels.Class
	// OpStage is every GPU op's stage (index into StageNames), aligned
	// with the store's GPU slice, for analyses that group by stage too.
	OpStage    []uint8
	StageNames []string
}

type attribution struct {
	cpuOp  uint32 // name id, 0 = unknown
	python uint32 // name id of the location, 0 = unknown
	graph  bool
}

// Analyze computes the breakdown and kernel table of every trace in st.
func Analyze(st *trace.Store, opt Options) *Result {
	a := newAttributor(st, opt.Joins)
	res := &Result{HasPython: len(st.Python) > 0}

	stages, stageNames := a.stages()
	res.OpStage, res.StageNames = stages, stageNames
	classes := make(map[uint32]kernels.Class)
	canon := make(map[uint32]string)

	type rowKey struct {
		stage string
		name  string
	}
	type rowAcc struct {
		Row
		n int32 // row number, in order of creation
		// the attrs number of the last (CPU op, location) summed, and its id
		last   [2]int32
		lastID [2]uint32
		// time per provider the launch context named, for a row whose
		// kernel name two libraries ship (kernels.ByContext)
		byContext map[string]int64
	}
	rows := map[rowKey]*rowAcc{}
	var rowList []*rowAcc
	// Per op, rows are found by (stage id, name id): an integer key, not
	// the canonical name's string, keeps the loop free of string hashing.
	// Table numbers are indices into byNum.
	byName := callsite.NewTable(256)
	var byNum []*rowAcc
	// Time per (row, CPU op name) and (row, location name), numbered by
	// attrs: no map per row, no hashing of Go map keys per op.
	attrs := callsite.NewTable(256)
	var attrT []int64
	type win struct{ first, last int64 }
	type stageAcc struct {
		Stage
		wins []win // per file; first > last = none
	}
	stageAccs := make([]*stageAcc, len(stageNames))
	var total, withOp, withPy int64
	const attrOp, attrSite = 0, 1
	add := func(r *rowAcc, kind uint64, id uint32, t int64) {
		n := r.last[kind]
		if n < 0 || r.lastID[kind] != id { // a row's ops mostly share both
			var added bool
			n, added = attrs.Index(uint64(r.n)<<1|kind, uint64(id))
			if added {
				attrT = append(attrT, 0)
			}
			r.last[kind], r.lastID[kind] = n, id
		}
		attrT[n] += t
	}
	// The row of the last op of each name id (+1, 0 = none) and its stage:
	// ops of one name are mostly of one stage.
	rowOf := make([]int32, len(st.Names))
	rowSid := make([]uint8, len(st.Names))

	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if !o.Kind.IsGPUWork() {
				continue
			}
			sid := stages[i]
			sname := stageNames[sid]
			if opt.Stage != "" && sname != opt.Stage {
				continue
			}
			at := a.attribute(o)
			if at.graph {
				res.GraphKernels++
			}
			sa := stageAccs[sid]
			if sa == nil {
				sa = &stageAcc{Stage: Stage{Stage: sname, Source: a.stageSource[sname]}, wins: make([]win, len(st.Files))}
				for f := range sa.wins {
					sa.wins[f] = win{1<<63 - 1, -1 << 63}
				}
				stageAccs[sid] = sa
			}
			sa.KernelCount++
			sa.KernelTime += o.Dur
			if at.graph {
				sa.GraphKernels++
			}
			w := &sa.wins[o.File]
			w.first, w.last = min(w.first, o.TS), max(w.last, o.End())

			nk := uint64(sid)<<32 | uint64(o.Name)
			var r *rowAcc
			if int(o.Name) < len(rowOf) && rowOf[o.Name] > 0 && rowSid[o.Name] == sid {
				r = byNum[rowOf[o.Name]-1]
			} else if n, added := byName.Index(nk, 0); !added {
				r = byNum[n]
			} else {
				cl, ok := classes[o.Name]
				if !ok {
					cl = kernels.Classify(st.Name(o.Name), o.Kind.String())
					classes[o.Name] = cl
					canon[o.Name] = kernels.Canonical(st.Name(o.Name))
				}
				rk := rowKey{sname, canon[o.Name]}
				if r = rows[rk]; r == nil {
					r = &rowAcc{Row: Row{Stage: sname, Kernel: rk.name, Category: cl.Category, Provider: cl.Provider}, n: int32(len(rowList)), last: [2]int32{-1, -1}}
					rows[rk] = r
					rowList = append(rowList, r)
				}
				byNum = append(byNum, r)
			}
			if int(o.Name) < len(rowOf) && (rowOf[o.Name] == 0 || rowSid[o.Name] != sid) {
				n := byName.Find(nk, 0)
				rowOf[o.Name], rowSid[o.Name] = n+1, sid
			}
			if r.Provider == kernels.ProviderAITERorVLLM {
				if p := kernels.ByContext(r.Provider, a.context(o)); p != "" {
					if r.byContext == nil {
						r.byContext = map[string]int64{}
					}
					r.byContext[p] += o.Dur
				}
			}
			r.Launches++
			r.GPUTime += o.Dur
			r.Graph = r.Graph || at.graph
			total += o.Dur
			if at.cpuOp != 0 {
				add(r, attrOp, at.cpuOp, o.Dur)
				withOp += o.Dur
			}
			if at.python != 0 {
				add(r, attrSite, at.python, o.Dur)
				withPy += o.Dur
			}
		}
	})
	resolveShared(rowList, func(r *rowAcc) (*Row, map[string]int64) { return &r.Row, r.byContext })
	// Category and provider shares per stage, from the rows.
	cats := map[string]map[string]int64{}
	provs := map[string]map[string]int64{}
	for _, r := range rows {
		if cats[r.Stage] == nil {
			cats[r.Stage], provs[r.Stage] = map[string]int64{}, map[string]int64{}
		}
		cats[r.Stage][r.Category] += r.GPUTime
		provs[r.Stage][r.Provider] += r.GPUTime
	}
	res.GraphLaunches = a.GraphLaunches
	res.Classes = classes
	if total > 0 {
		res.CPUOpCoverage = float64(withOp) / float64(total)
		res.PythonCoverage = float64(withPy) / float64(total)
	}

	for _, sa := range stageAccs {
		if sa == nil {
			continue
		}
		for _, w := range sa.wins {
			if w.last >= w.first {
				sa.Window = units.AddSat(sa.Window, w.last-w.first)
			}
		}
		if sa.Window > 0 {
			sa.AvgParallelism = float64(sa.KernelTime) / float64(sa.Window)
		}
		sa.Categories = shares(cats[sa.Stage.Stage], sa.KernelTime)
		sa.Providers = shares(provs[sa.Stage.Stage], sa.KernelTime)
		res.Stages = append(res.Stages, sa.Stage)
	}
	slices.SortFunc(res.Stages, func(x, y Stage) int {
		if d := callsite.Rank(x.Stage) - callsite.Rank(y.Stage); d != 0 {
			return d
		}
		return strings.Compare(x.Stage, y.Stage)
	})
	stageTime := map[string]int64{}
	for _, s := range res.Stages {
		stageTime[s.Stage] = s.KernelTime
	}
	// The dominant CPU op and location per row: the largest time, ties to
	// the smallest id (the name seen first in the file).
	type best struct {
		id uint32
		t  int64
	}
	tops := make([]best, 2*len(rowList))
	for i := range tops {
		tops[i].t = -1
	}
	for n := range attrT {
		k := attrs.Key(int32(n))
		b, id, v := &tops[k.A], uint32(k.B), attrT[n]
		if v > b.t || v == b.t && id < b.id {
			b.id, b.t = id, v
		}
	}
	top := func(b best) (uint32, int64) {
		if b.t < 0 {
			return 0, 0
		}
		return b.id, b.t
	}
	if len(rows) > 0 {
		res.Rows = make([]Row, 0, len(rows)) // one growth, not doubling (500 k distinct names)
	}
	for _, r := range rows {
		if t := stageTime[r.Stage]; t > 0 {
			r.Share = float64(r.GPUTime) / float64(t)
		}
		if id, t := top(tops[int(r.n)<<1|attrSite]); id != 0 {
			r.PythonLocation = st.Name(id)
			r.SiteShare = float64(t) / float64(max(r.GPUTime, 1))
		}
		if id, t := top(tops[int(r.n)<<1|attrOp]); id != 0 {
			r.CPUOp = st.Name(id)
			r.CPUOpShare = float64(t) / float64(max(r.GPUTime, 1))
		}
		res.Rows = append(res.Rows, r.Row)
	}
	slices.SortFunc(res.Rows, func(x, y Row) int {
		if d := callsite.Rank(x.Stage) - callsite.Rank(y.Stage); d != 0 {
			return d
		}
		if x.Stage != y.Stage {
			return strings.Compare(x.Stage, y.Stage)
		}
		if x.GPUTime != y.GPUTime {
			return cmp.Compare(y.GPUTime, x.GPUTime)
		}
		return strings.Compare(x.Kernel, y.Kernel)
	})
	return res
}

func shares(m map[string]int64, total int64) []Share {
	out := make([]Share, 0, len(m))
	for k, v := range m {
		s := Share{Name: k, GPUTime: v}
		if total > 0 {
			s.Share = float64(v) / float64(total)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(x, y Share) int {
		if x.GPUTime != y.GPUTime {
			return cmp.Compare(y.GPUTime, x.GPUTime)
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out
}

// attributor joins GPU ops to their launches, CPU ops, Python frames and
// stage annotations (trace-format.md §5).
type attributor struct {
	*callsite.Joins
	st          *trace.Store
	stageSource map[string]string
	sites       *callsite.Sites
}

func newAttributor(st *trace.Store, j *callsite.Joins) *attributor {
	if j == nil {
		j = callsite.NewJoins(st)
	}
	return &attributor{Joins: j, st: st, stageSource: map[string]string{}, sites: callsite.NewSites(j)}
}

func (a *attributor) attribute(o *trace.GPUOp) attribution {
	st := a.st
	var at attribution
	var l *trace.Span
	if j := a.Launch(o.File, o.Corr); j >= 0 {
		l = &st.CPU[j]
	}
	at.graph = l != nil && a.IsGraphLaunch(l)
	op := int32(-1)
	if !at.graph {
		op = a.ByExt(o.File, o.Ext)
	}
	if op < 0 && l != nil && !at.graph {
		if op = a.ByExt(o.File, l.Ext); op < 0 {
			op = a.Enclosing(callsite.Thread{File: l.File, Track: l.Track}, l.TS, trace.KindCPUOp)
		}
	}
	switch {
	case at.graph:
		at.cpuOp = l.Name
	case op >= 0:
		at.cpuOp = st.CPU[op].Name
	case l != nil:
		at.cpuOp = l.Name
	}
	// The call site among the Python frames active at the launch (or the
	// op's midpoint), chosen as the overlap analysis does.
	switch {
	case l != nil:
		at.python = a.sites.At(l.File, l.Track, l.TS)
	case op >= 0:
		c := &st.CPU[op]
		at.python = a.sites.At(c.File, c.Track, c.TS+c.Dur/2)
	}
	return at
}

// context is what o's launch ran under (CPU ops, then Python frames,
// innermost first); for a graph replay, nothing: the graph launch is not
// the kernel's launching code.
func (a *attributor) context(o *trace.GPUOp) func(yield func(string) bool) {
	if j := a.Launch(o.File, o.Corr); j >= 0 {
		if l := &a.st.CPU[j]; !a.IsGraphLaunch(l) {
			return a.Context(callsite.Thread{File: l.File, Track: l.Track}, l.TS)
		}
		return func(func(string) bool) {}
	}
	if op := a.ByExt(o.File, o.Ext); op >= 0 {
		c := &a.st.CPU[op]
		return a.Context(callsite.Thread{File: c.File, Track: c.Track}, c.TS+c.Dur/2)
	}
	return func(func(string) bool) {}
}

// resolveShared settles the provider of rows whose kernel name two
// libraries ship: by the provider their launches' context named (the one
// with more GPU time), else by a sibling launched by the same library call
// (the ll4mi reduce kernel follows its QKV kernel) whose provider is known
// when all such siblings agree; else the row keeps the name-shared provider.
func resolveShared[R any](rows []R, get func(R) (*Row, map[string]int64)) {
	var open []*Row
	for _, x := range rows {
		r, ev := get(x)
		if r.Provider != kernels.ProviderAITERorVLLM {
			continue
		}
		best, bestT, tie := "", int64(-1), false
		for p, t := range ev {
			switch {
			case t > bestT:
				best, bestT, tie = p, t, false
			case t == bestT:
				tie = true
			}
		}
		if best != "" && !tie {
			r.Provider = best
			continue
		}
		open = append(open, r)
	}
	for _, r := range open {
		known := ""
		for _, x := range rows {
			s, _ := get(x)
			if s == r || s.Provider == kernels.ProviderAITERorVLLM || !kernels.SameLauncher(s.Kernel, r.Kernel) {
				continue
			}
			if known != "" && known != s.Provider {
				known = ""
				break
			}
			known = s.Provider
		}
		if known != "" {
			r.Provider = known
		}
	}
}

// SetProvider gives row i provider p and moves the row's GPU time between
// the provider shares of its stage (for callers that learn a provider
// after the breakdown, from a mapping trace).
func (res *Result) SetProvider(i int, p string) {
	r := &res.Rows[i]
	if r.Provider == p {
		return
	}
	for k := range res.Stages {
		st := &res.Stages[k]
		if st.Stage != r.Stage {
			continue
		}
		m := map[string]int64{}
		for _, x := range st.Providers {
			m[x.Name] = x.GPUTime
		}
		if m[r.Provider] -= r.GPUTime; m[r.Provider] <= 0 {
			delete(m, r.Provider)
		}
		m[p] += r.GPUTime
		st.Providers = shares(m, st.KernelTime)
	}
	r.Provider = p
}

// ResolveShared settles, after SetProvider calls, the rows still of a
// name-shared provider by their siblings (see resolveShared).
func (res *Result) ResolveShared() {
	idx := make([]int, len(res.Rows))
	for i := range idx {
		idx[i] = i
	}
	before := make([]string, len(res.Rows))
	for i := range res.Rows {
		before[i] = res.Rows[i].Provider
	}
	rows := slices.Clone(res.Rows)
	resolveShared(idx, func(i int) (*Row, map[string]int64) { return &rows[i], nil })
	for i := range rows {
		if rows[i].Provider != before[i] {
			res.SetProvider(i, rows[i].Provider)
		}
	}
}

// stages assigns a stage to every GPU op: the innermost stage-naming GPU
// annotation around it, else the CPU annotation around its launch, else the
// file's name, else "all" (or "unstaged" in a file where other ops have one).
func (a *attributor) stages() ([]uint8, []string) {
	st := a.st
	names := []string{""}
	ids := map[string]uint8{"": 0}
	id := func(s string) uint8 {
		v, ok := ids[s]
		if !ok && len(names) < 255 {
			v = uint8(len(names))
			ids[s] = v
			names = append(names, s)
		}
		return v
	}
	out := make([]uint8, len(st.GPU))
	annotated := make([]bool, len(st.Files))
	sourced := make([]bool, 256) // stage id → stageSource set to "annotation"
	var annCur, cpuCur callsite.Cursor
	var lastT callsite.Thread // the thread of the last launch, and its nest
	var lastN *callsite.Nest
	haveT := false
	memo := map[uint32]string{}
	stageOf := func(id uint32) string {
		s, ok := memo[id]
		if !ok {
			s = callsite.OfAnnotation(st.Name(id))
			memo[id] = s
		}
		return s
	}
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if !o.Kind.IsGPUWork() {
				continue
			}
			if n := a.AnnotNest(o.File, o.Track); n != nil {
				for p := annCur.At(n, st.Annot, o.TS); p >= 0; p = n.Parent[p] {
					if s := stageOf(st.Annot[n.Pos[p]].Name); s != "" && st.Annot[n.Pos[p]].End() >= o.TS {
						out[i] = id(s)
						break
					}
				}
			}
			if out[i] == 0 && o.Corr != trace.None {
				if j := a.Launch(o.File, o.Corr); j >= 0 {
					l := &st.CPU[j]
					if !haveT || l.File != lastT.File || l.Track != lastT.Track {
						lastT, lastN, haveT = callsite.Thread{File: l.File, Track: l.Track}, a.CPUNest(l.File, l.Track), true
					}
					n := lastN
					for p := cpuCur.At(n, st.CPU, l.TS); p >= 0; p = n.Parent[p] {
						c := &st.CPU[n.Pos[p]]
						if c.Kind == trace.KindUserAnnotation && c.End() >= l.TS {
							if s := stageOf(c.Name); s != "" {
								out[i] = id(s)
								break
							}
						}
					}
				}
			}
			if out[i] != 0 {
				annotated[o.File] = true
				if !sourced[out[i]] {
					sourced[out[i]] = true
					a.stageSource[names[out[i]]] = "annotation"
				}
			}
		}
	})
	fileStage := make([]string, len(st.Files))
	for i := range st.Files {
		name := st.Files[i].Name
		fileStage[i] = callsite.OfPath(path.Base(path.Dir(name)) + "/" + path.Base(name))
	}
	// The stage of a file's remaining ops is the same for all of them:
	// found once per file (in op order, so stage ids are numbered as
	// before), not with a string-keyed map update per op.
	fileID := make([]int16, len(st.Files)) // 1 + stage id, 0 = not yet
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if out[i] != 0 || !o.Kind.IsGPUWork() {
				continue
			}
			if v := fileID[o.File]; v > 0 {
				out[i] = uint8(v - 1)
				continue
			}
			switch {
			case fileStage[o.File] != "":
				out[i] = id(fileStage[o.File])
				if a.stageSource[fileStage[o.File]] == "" {
					a.stageSource[fileStage[o.File]] = "file name"
				}
			case annotated[o.File]:
				out[i] = id(callsite.StageOther)
				a.stageSource[callsite.StageOther] = "outside stage annotations"
			default:
				out[i] = id(callsite.StageAll)
				a.stageSource[callsite.StageAll] = "none"
			}
			fileID[o.File] = int16(out[i]) + 1
		}
	})
	return out, names
}
