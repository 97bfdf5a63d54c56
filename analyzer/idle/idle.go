// Package idle answers "why is the GPU idle": per stage window (and per step
// where step annotations exist) GPU busy and idle time, the idle time split
// into host-bound (the next GPU op had not been submitted when the GPU went
// idle) and device-side (it had: a dependency, an event wait, launch
// latency), and the host code that ran while the GPU starved.
package idle

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

const (
	// LatencyAllowance bounds the part of a host-bound gap after the late
	// launch call returned that still counts as host-bound: a just-submitted
	// op needs the device's launch latency (2–10 µs on current GPUs) to
	// start. Beyond it the submitted op waited on the device (an event, a
	// dependency), so the rest of the gap is device-side.
	LatencyAllowance = 20_000 // ns
	// Grid is the culprit sampling step (the answer key samples every 1 µs).
	Grid = 1000 // ns

	maxCulprits = 10
	maxSteps    = 200
	maxWaits    = 5
)

// Options select what to analyse.
type Options struct {
	Stage string // keep only this stage; "" keeps all
	Joins *callsite.Joins
	// StageOf and StageNames are the breakdown's stage of every GPU op
	// (breakdown.Stages); nil computes nothing per stage.
	StageOf    []uint8
	StageNames []string
}

// Culprit is host code that ran while the GPU starved.
type Culprit struct {
	Frame string // innermost Python source frame, "" when none
	CPUOp string // innermost CPU op (the dominant one under Frame with stacks), "" when none
	Time  int64  // ns, sampled
	Share float64
}

// Window is the idle attribution of one time window. Times are ns.
type Window struct {
	Name  string // "all", the stage, or the step annotation
	Kind  string // total | stage | steps | step
	Stage string
	File  string // step rows only
	Steps int    // steps inside (stage and steps windows)
	Start int64  // step rows: the window's start (ns, trace clock)

	Window, Busy, Idle int64
	HostBound          int64
	DeviceSide         int64
	Unknown            int64 // the next op's launch call is not in the trace
	OutsideSteps       int64 // idle between step annotations (stage and total windows)
	Culprits           []Culprit
	// Framework is the host-bound time by the innermost serving-framework
	// or user frame (outside torch/, triton/, built-ins) the host was in,
	// with stacks: where the code that made the slow call lives.
	Framework []Culprit
}

// HostBoundShare is the host-bound share of the classified idle time.
func (w *Window) HostBoundShare() float64 {
	if d := w.HostBound + w.DeviceSide; d > 0 {
		return float64(w.HostBound) / float64(d)
	}
	return 0
}

// Sync is one kind of host call that blocks on the device.
type Sync struct {
	Call string
	// Kind is what the call does: synchronize | free | malloc |
	// host-alloc | copy | item (blocking.go).
	Kind     string
	Calls    int64
	HostTime int64 // ns in these calls
	// Caller is the CPU op the calls ran in for most of IdleDuring (most
	// of HostTime when they held no idle time), "" when none encloses them.
	Caller string
	// IdleDuring is GPU idle time while the thread that launched the next
	// op was inside such a call: the sync drained the GPU and the host had
	// to return from it before submitting more.
	IdleDuring int64
}

// Wait is a long device-side gap: work was submitted, the GPU idled anyway.
type Wait struct {
	Op    string // canonical name of the op that waited
	Stage string
	Time  int64 // ns, device-side part of the gap
	// Submitted is how long before the op started its launch call returned.
	Submitted int64
	After     string // a *StreamWaitEvent call just before its launch, if any
	HostIn    string // the sync the host was blocked in for most of the wait
	// OutsideSteps: most of the gap lies outside every step window
	// (warm-up, the scheduler waiting for requests), not in a step.
	OutsideSteps bool
}

// Result is the idle attribution of one job.
type Result struct {
	HasStacks bool
	Total     Window
	Stages    []Window
	Steps     Window   // all step windows together (Steps == 0: none)
	StepRows  []Window // one per step, the first maxSteps
	// Every is every step window in order, without culprits (the step
	// statistics' input).
	Every   []Window
	Omitted int // step rows left out
	Syncs   []Sync
	Waits   []Wait
	// FiguresRank is, for a rank folder's top level, the rank these
	// figures are (never a sum over the ranks); nil otherwise.
	FiguresRank *int
}

// Analyze computes the idle attribution of every trace file in st.
func Analyze(st *trace.Store, opt Options) *Result {
	j := opt.Joins
	if j == nil {
		j = callsite.NewJoins(st)
	}
	a := newAnalyzer(st, j, opt)
	for _, k := range a.devices() {
		a.device(k)
	}
	return a.result()
}

type devKey struct {
	file   uint16
	device int64
}

// acc accumulates one window.
type acc struct {
	Window
	id int32 // index in analyzer.accs: culprits are summed under it
	// the culprit last blamed here (number in culTab, -1 = none) and its key
	lastCul int32
	lastKey uint32
}

type analyzer struct {
	st   *trace.Store
	j    *callsite.Joins
	opt  Options
	ops  map[devKey][]int32
	keys []devKey

	total  acc
	stages []*acc // by stage id
	steps  acc
	rows   []*acc
	accs   []*acc // every window, by id
	// Culprits: culTab numbers (window id, key: frame name id with stacks,
	// else CPU op id), culT holds their sampled time; with stacks, opTab
	// numbers (culprit, CPU op id) and opT holds their time. Integer
	// tables, not a map per window and culprit: this is per gap.
	culTab, opTab *callsite.Table
	// fwTab numbers (window id, framework frame name id), fwT their
	// sampled time (with stacks): the Framework culprits.
	fwTab      *callsite.Table
	fwT        []int64
	fwByAcc    [][]int32
	meaningful []uint8 // name id → 1 + callsite.Meaningful (0: not known yet)
	culT, opT  []int64
	// by result(): culprit numbers by window id, op numbers by culprit
	culByAcc, opsByCul [][]int32

	source  []uint8         // python frame name id → 1 + is a source frame (0: not known yet)
	threads *callsite.Table // numbers (file, track) of threads with calls
	syncs   [][]syncSpan    // by thread number
	calls   [][]int32       // runtime/driver calls by start, by thread number
	syncAcc map[string]*Sync
	// syncThreads are, per file, the numbers of threads with sync calls.
	syncThreads map[uint16][]int32
	covered     [][2]int64 // noteSync's scratch
	// syncCallers is, per sync label and enclosing CPU op name, the
	// GPU idle time and host time of those calls.
	syncCallers map[syncCaller]*[2]int64
	waits       []Wait
	canon       map[uint32]string

	hasStacks bool
	stepNames []uint8 // name id → 1 + is a step name (0: not known yet)
	// containers memoizes whether a CPU step annotation (by span index)
	// holds another one.
	containers map[int32]bool
	blames     []blameTo
	// the nests of the last thread looked up (gaps mostly share one), and
	// where the last lookups in them landed
	lastThread      callsite.Thread
	lastPy, lastCPU *callsite.Nest
	pyHint, cpuHint int
	// the last thread numbered by threadNum
	tnThread callsite.Thread
	tn       int32
	tnOK     bool
}

type syncSpan struct {
	ts, end int64
	label   string
	caller  int32 // enclosing CPU op (index into st.CPU), -1 = none
}

func newAnalyzer(st *trace.Store, j *callsite.Joins, opt Options) *analyzer {
	a := &analyzer{st: st, j: j, opt: opt, ops: map[devKey][]int32{},
		total:     acc{Window: Window{Name: "all", Kind: "total"}},
		steps:     acc{Window: Window{Name: "steps", Kind: "steps"}},
		hasStacks: len(st.Python) > 0, syncAcc: map[string]*Sync{}, syncCallers: map[syncCaller]*[2]int64{}, canon: map[uint32]string{},
		culTab: callsite.NewTable(64), opTab: callsite.NewTable(64), fwTab: callsite.NewTable(64), threads: callsite.NewTable(16)}
	a.register(&a.total)
	a.register(&a.steps)
	a.stages = make([]*acc, len(opt.StageNames))
	// Sized by a first pass: no append growth garbage in a wasm heap. A
	// trace has few devices: a linear scan with the last key remembered
	// beats hashing every op (slow in wasm).
	var keys []devKey
	var counts []int
	slot := func(k devKey, last *int) int {
		if *last >= 0 && keys[*last] == k {
			return *last
		}
		for i, x := range keys {
			if x == k {
				*last = i
				return i
			}
		}
		keys, counts = append(keys, k), append(counts, 0)
		*last = len(keys) - 1
		return *last
	}
	last := -1
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if o := &st.GPU[i]; o.Kind.IsGPUWork() && a.keep(i) {
				counts[slot(devKey{o.File, o.Device}, &last)]++
			}
		}
	})
	lists := make([][]int32, len(keys))
	for i, k := range keys {
		lists[i] = make([]int32, 0, counts[i])
		a.keys = append(a.keys, k)
	}
	last = -1
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if o := &st.GPU[i]; o.Kind.IsGPUWork() && a.keep(i) {
				x := slot(devKey{o.File, o.Device}, &last)
				lists[x] = append(lists[x], int32(i))
			}
		}
	})
	for i, k := range keys {
		a.ops[k] = lists[i]
	}
	slices.SortFunc(a.keys, func(x, y devKey) int {
		if x.file != y.file {
			return cmp.Compare(x.file, y.file)
		}
		return cmp.Compare(x.device, y.device)
	})
	a.indexCalls()
	return a
}

// register numbers a window for its culprits.
func (a *analyzer) register(w *acc) *acc {
	w.id, w.lastCul = int32(len(a.accs)), -1
	a.accs = append(a.accs, w)
	return w
}

func (a *analyzer) keep(i int) bool {
	return a.opt.Stage == "" || a.stageName(i) == a.opt.Stage
}

func (a *analyzer) stageName(i int) string {
	if a.opt.StageOf == nil {
		return callsite.StageAll
	}
	return a.opt.StageNames[a.opt.StageOf[i]]
}

func (a *analyzer) devices() []devKey { return a.keys }

// indexCalls sorts each thread's runtime/driver calls by start and collects
// the synchronizing calls (outermost only: a .item() holds the stream sync
// that implements it).
func (a *analyzer) indexCalls() {
	st := a.st
	d2h := map[int64]uint8{} // (file<<48 | corr) of copies from or to the host: copyD2H | copyH2D
	lastName, lastDir := uint32(0), uint8(0)
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if o.Kind != trace.KindMemcpy || o.Corr == trace.None {
				continue
			}
			if o.Name != lastName || i == 0 {
				lastName, lastDir = o.Name, copyDir(st.Name(o.Name))
			}
			if lastDir != 0 {
				d2h[int64(o.File)<<48|o.Corr] = lastDir
			}
		}
	})
	// Threads are numbered in a.threads (spans come in runs of one thread);
	// a first pass sizes each thread's calls.
	var counts []int
	lastT, lastN := callsite.Thread{}, int32(-1)
	num := func(c *trace.Span) int32 {
		if t := (callsite.Thread{File: c.File, Track: c.Track}); lastN < 0 || t != lastT {
			lastT = t
			lastN, _ = a.threads.Index(uint64(c.File)<<32|uint64(c.Track), 0)
			for int(lastN) >= len(counts) {
				counts = append(counts, 0)
			}
		}
		return lastN
	}
	callsite.Chunks(len(st.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if c := &st.CPU[i]; c.Kind == trace.KindRuntime || c.Kind == trace.KindDriver {
				counts[num(c)]++
			}
		}
	})
	a.calls = make([][]int32, len(counts))
	for t, n := range counts {
		a.calls[t] = make([]int32, 0, n)
	}
	lastN = -1
	var labels nameLabels
	callsite.Chunks(len(st.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := &st.CPU[i]
			if c.Kind == trace.KindRuntime || c.Kind == trace.KindDriver {
				t := num(c)
				a.calls[t] = append(a.calls[t], int32(i))
			}
			if c.Kind != trace.KindCPUOp && c.Kind != trace.KindRuntime && c.Kind != trace.KindDriver {
				continue
			}
			if l := labels.of(st, c, d2h); l != "" {
				t := num(c)
				for int(t) >= len(a.syncs) {
					a.syncs = append(a.syncs, nil)
				}
				caller := int32(-1)
				if c.Kind != trace.KindCPUOp {
					caller = a.j.Enclosing(callsite.Thread{File: c.File, Track: c.Track}, c.TS, trace.KindCPUOp)
				}
				a.syncs[t] = append(a.syncs[t], syncSpan{c.TS, c.End(), l, caller})
			}
		}
	})
	for len(a.calls) < len(counts) {
		a.calls = append(a.calls, nil)
	}
	for t, v := range a.calls {
		if !callsByStart(st, v) {
			slices.SortStableFunc(v, func(x, y int32) int { return cmp.Compare(st.CPU[x].TS, st.CPU[y].TS) })
		}
		a.calls[t] = v
	}
	for t, v := range a.syncs {
		slices.SortStableFunc(v, func(x, y syncSpan) int {
			if x.ts != y.ts {
				return cmp.Compare(x.ts, y.ts)
			}
			return cmp.Compare(y.end, x.end)
		})
		out := v[:0]
		for _, s := range v {
			if n := len(out); n > 0 && s.end <= out[n-1].end {
				continue // inside the previous sync
			}
			out = append(out, s)
			x := a.syncAcc[s.label]
			if x == nil {
				x = &Sync{Call: s.label, Kind: blockingKind(s.label)}
				a.syncAcc[s.label] = x
			}
			x.Calls++
			x.HostTime += s.end - s.ts
			a.callerTime(s, s.end-s.ts, false)
		}
		a.syncs[t] = out
		if len(out) > 0 {
			if a.syncThreads == nil {
				a.syncThreads = map[uint16][]int32{}
			}
			f := uint16(a.threads.Key(int32(t)).A >> 32)
			a.syncThreads[f] = append(a.syncThreads[f], int32(t))
		}
	}
}

// callsByStart reports whether calls are in start order already.
func callsByStart(st *trace.Store, calls []int32) bool {
	for k := 1; k < len(calls); k++ {
		if st.CPU[calls[k-1]].TS > st.CPU[calls[k]].TS {
			return false
		}
	}
	return true
}

// threadNum returns the number of a thread with runtime calls or syncs,
// or -1.
func (a *analyzer) threadNum(t callsite.Thread) int32 {
	if !a.tnOK || t != a.tnThread { // gaps mostly follow launches of one thread
		a.tnThread, a.tn, a.tnOK = t, a.threads.Find(uint64(t.File)<<32|uint64(t.Track), 0), true
	}
	return a.tn
}

// syncsOf returns the sync calls of thread number n.
func (a *analyzer) syncsOf(n int32) []syncSpan {
	if n < 0 || int(n) >= len(a.syncs) {
		return nil
	}
	return a.syncs[n]
}

// steps returns the step windows of one device, sorted and disjoint, with
// their annotation names.
type stepRange struct {
	s, e int64
	name uint32
	row  *acc
}

func (a *analyzer) device(k devKey) {
	st := a.st
	ops := a.ops[k]
	if !opsOrdered(st, ops) {
		slices.SortFunc(ops, func(x, y int32) int {
			p, q := &st.GPU[x], &st.GPU[y]
			if p.TS != q.TS {
				return cmp.Compare(p.TS, q.TS)
			}
			if p.End() != q.End() {
				return cmp.Compare(p.End(), q.End())
			}
			return cmp.Compare(x, y)
		})
	}
	// Stage windows of this device: first start → last end of its ops.
	type win struct {
		sid  int
		s, e int64
	}
	var wins []win
	first, last := st.GPU[ops[0]].TS, int64(-1<<63)
	if a.opt.StageOf != nil {
		var at [256]int // stage id → 1 + index in wins
		callsite.Chunks(len(ops), func(lo, hi int) {
			for _, i := range ops[lo:hi] {
				o := &st.GPU[i]
				sid := a.opt.StageOf[i]
				w := at[sid] - 1
				if w < 0 {
					w = len(wins)
					at[sid] = w + 1
					wins = append(wins, win{int(sid), o.TS, o.End()})
				}
				wins[w].e = max(wins[w].e, o.End())
			}
		})
	}
	callsite.Chunks(len(ops), func(lo, hi int) {
		for _, i := range ops[lo:hi] {
			last = max(last, st.GPU[i].End())
		}
	})
	steps := a.stepRanges(k, ops)
	for _, w := range wins {
		if a.stages[w.sid] == nil {
			a.stages[w.sid] = a.register(&acc{Window: Window{Name: a.opt.StageNames[w.sid], Kind: "stage", Stage: a.opt.StageNames[w.sid]}})
		}
		sa := a.stages[w.sid]
		sa.Window.Window = units.AddSat(sa.Window.Window, w.e-w.s)
		for _, r := range steps {
			if r.s >= w.s && r.s < w.e {
				sa.Steps++
			}
		}
	}
	// sums over devices and files saturate: each is up to 4·10¹⁸ ns
	a.total.Window.Window = units.AddSat(a.total.Window.Window, last-first)
	a.total.Steps += len(steps)
	a.steps.Steps += len(steps)

	// Windows a time interval is clipped to: the total, the stage windows.
	type target struct {
		acc  *acc
		s, e int64
	}
	targets := []target{{&a.total, first, last}}
	for _, w := range wins {
		targets = append(targets, target{a.stages[w.sid], w.s, w.e})
	}
	for _, r := range steps {
		r.row.Window.Window = r.e - r.s
		a.steps.Window.Window = units.AddSat(a.steps.Window.Window, r.e-r.s)
	}
	// Step stage: the stage of the first op starting inside.
	si := 0
	callsite.Chunks(len(ops), func(lo, hi int) {
		for _, i := range ops[lo:hi] {
			o := &st.GPU[i]
			for si < len(steps) && steps[si].e < o.TS {
				si++
			}
			if si < len(steps) && o.TS >= steps[si].s && steps[si].row.Stage == "" {
				steps[si].row.Stage = a.stageName(int(i))
			}
		}
	})

	busy := func(x, y int64) {
		for _, t := range targets {
			t.acc.Busy = units.AddSat(t.acc.Busy, overlap(x, y, t.s, t.e))
		}
		for k := firstStep(steps, x); k < len(steps) && steps[k].s < y; k++ {
			v := overlap(x, y, steps[k].s, steps[k].e)
			steps[k].row.Busy += v
			a.steps.Busy = units.AddSat(a.steps.Busy, v)
		}
	}
	inSteps := func(x, y int64) (n int64) {
		for k := firstStep(steps, x); k < len(steps) && steps[k].s < y; k++ {
			n += overlap(x, y, steps[k].s, steps[k].e)
		}
		return n
	}

	gap := func(x, y int64, prev, next int32) {
		if y <= x {
			return
		}
		g := a.classify(x, y, prev, next)
		blames := a.blames[:0]
		for _, t := range targets {
			s, e := max(x, t.s), min(y, t.e)
			if e <= s {
				continue
			}
			w := &t.acc.Window
			w.Idle = units.AddSat(w.Idle, e-s)
			if len(steps) > 0 {
				w.OutsideSteps = units.AddSat(w.OutsideSteps, e-s-inSteps(s, e))
			}
			g.add(w, s, e)
			blames = append(blames, blameTo{t.acc.id, s, e})
		}
		for k := firstStep(steps, x); k < len(steps) && steps[k].s < y; k++ {
			r := steps[k]
			s, e := max(x, r.s), min(y, r.e)
			if e <= s {
				continue
			}
			r.row.Idle += e - s
			a.steps.Idle = units.AddSat(a.steps.Idle, e-s)
			g.add(&r.row.Window, s, e)
			g.add(&a.steps.Window, s, e)
			// Culprits only for gaps between two ops of the step (as the
			// answer key): a gap crossing the step's edge was sampled
			// on a grid anchored outside it.
			if x >= r.s && y <= r.e {
				blames = append(blames, blameTo{a.steps.id, s, e})
			}
		}
		a.blames = blames
		a.pieces(g, func(p piece) {
			for _, b := range blames {
				a.blame(b.acc, g, p, b.s, b.e)
			}
		})
		a.noteSync(g, x, y)
		a.noteWait(g, next, len(steps) > 0 && 2*inSteps(x, y) < y-x)
	}

	// Sweep: merged busy intervals and the gaps between them. Step windows
	// may begin before the first op or end after the last: those edges are
	// gaps with no previous (next) op.
	start := first
	if len(steps) > 0 && steps[0].s < first {
		gap(steps[0].s, first, -1, ops[0])
	}
	end, prev := int64(-1<<63), int32(-1)
	callsite.Chunks(len(ops), func(lo, hi int) {
		for _, i := range ops[lo:hi] {
			o := &st.GPU[i]
			if prev >= 0 && o.TS > end {
				busy(start, end)
				gap(end, o.TS, prev, i)
				start = o.TS
			}
			if o.End() > end || prev < 0 {
				end, prev = max(end, o.End()), i
			}
		}
	})
	busy(start, end)
	if n := len(steps); n > 0 && steps[n-1].e > end {
		gap(end, steps[n-1].e, prev, -1)
	}
}

// opsOrdered reports whether ops (ascending indices) are already by start,
// then end: then the sort, a comparison call per step in wasm, is skipped.
func opsOrdered(st *trace.Store, ops []int32) bool {
	for k := 1; k < len(ops); k++ {
		p, q := &st.GPU[ops[k-1]], &st.GPU[ops[k]]
		if p.TS > q.TS || p.TS == q.TS && p.End() > q.End() {
			return false
		}
	}
	return true
}

// firstStep returns the first of the sorted, disjoint steps that ends after x.
// (A binary search written out: no comparison call per step, and none at
// all without steps, as in most traces.)
func firstStep(steps []*stepRange, x int64) int {
	lo, hi := 0, len(steps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if steps[m].e <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

type blameTo struct {
	acc  int32 // id in analyzer.accs
	s, e int64
}

func overlap(x, y, s, e int64) int64 {
	if v := min(y, e) - max(x, s); v > 0 {
		return v
	}
	return 0
}

// gapClass says how one idle gap [x, y) divides.
type gapClass struct {
	x, y     int64
	unknown  bool
	host     int64 // [x, host) is host-bound, [host, y) device-side
	sample   int64 // host code is sampled over [x, sample)
	thread   callsite.Thread
	threadOK bool
	tn       int32 // a.threadNum(thread), -1 = none
	launch   int32 // the next op's launch call, -1
}

func (g *gapClass) add(w *Window, s, e int64) {
	if g.unknown {
		w.Unknown = units.AddSat(w.Unknown, e-s)
		return
	}
	h := overlap(s, e, g.x, g.host)
	w.HostBound = units.AddSat(w.HostBound, h)
	w.DeviceSide = units.AddSat(w.DeviceSide, e-s-h)
}

// classify applies the rule: a gap is host-bound when the next op's launch
// call ended after the GPU went idle (the answer key's definition); its
// host-bound part runs until the call returned plus LatencyAllowance, the
// rest is device-side. Gaps inside one graph replay are device-side (the
// graph was submitted as one unit); after the last op nothing was
// submitted, so the GPU waited on the host.
func (a *analyzer) classify(x, y int64, prev, next int32) gapClass {
	st := a.st
	g := gapClass{x: x, y: y, host: x, sample: x, launch: -1, tn: -1}
	if next < 0 {
		var pl int32 = -1
		if prev >= 0 {
			p := &st.GPU[prev]
			pl = a.j.Launch(p.File, p.Corr)
		}
		g.host, g.sample = y, y
		if pl >= 0 {
			c := &st.CPU[pl]
			g.thread, g.threadOK = callsite.Thread{File: c.File, Track: c.Track}, true
			g.tn = a.threadNum(g.thread)
		}
		return g
	}
	n := &st.GPU[next]
	l := a.j.Launch(n.File, n.Corr)
	if l < 0 {
		g.unknown = true
		return g
	}
	c := &st.CPU[l]
	g.launch = l
	g.thread, g.threadOK = callsite.Thread{File: c.File, Track: c.Track}, true
	g.tn = a.threadNum(g.thread)
	if prev >= 0 && st.GPU[prev].Corr == n.Corr && a.j.IsGraphLaunch(c) {
		return g
	}
	if e := c.End(); e > x {
		g.host = min(y, e+LatencyAllowance)
		g.sample = min(y, e)
	}
	return g
}

// noteSync adds the gap's overlap with the sync calls of the thread that
// launched the next op and, for the time that thread was not in one, with
// those of the process's other threads (the autograd engine's thread
// frees memory while the main thread waits for it): each instant of the
// gap goes to one call.
func (a *analyzer) noteSync(g gapClass, x, y int64) {
	if !g.threadOK {
		return
	}
	covered := a.covered[:0]
	credit := func(tn int32) {
		syncs := a.syncsOf(tn)
		// outermost spans of one thread: disjoint, so ends ascend too
		k, _ := slices.BinarySearchFunc(syncs, x, func(s syncSpan, t int64) int {
			if s.end <= t {
				return -1
			}
			return 1
		})
		for ; k < len(syncs) && syncs[k].ts < y; k++ {
			s := syncs[k]
			lo, hi := max(x, s.ts), min(y, s.end)
			if lo >= hi {
				continue
			}
			var v int64
			v, covered = cover(covered, lo, hi)
			if v > 0 {
				a.syncAcc[s.label].IdleDuring += v
				a.callerTime(s, v, true)
			}
		}
	}
	credit(g.tn)
	for _, tn := range a.syncThreads[g.thread.File] {
		if tn != g.tn {
			credit(tn)
		}
	}
	a.covered = covered
}

// cover adds [lo, hi) to a sorted list of disjoint intervals and returns
// how much of it was not covered yet.
func cover(cov [][2]int64, lo, hi int64) (int64, [][2]int64) {
	v := hi - lo
	out := cov[:0:0]
	for _, c := range cov {
		switch {
		case c[1] < lo || c[0] > hi:
			out = append(out, c)
		default: // touches: merge into [lo, hi)
			v -= overlap(lo, hi, c[0], c[1])
			lo, hi = min(lo, c[0]), max(hi, c[1])
		}
	}
	out = append(out, [2]int64{lo, hi})
	slices.SortFunc(out, func(x, y [2]int64) int { return cmp.Compare(x[0], y[0]) })
	return v, out
}

func (a *analyzer) noteWait(g gapClass, next int32, outside bool) {
	if g.unknown || next < 0 || g.y <= g.host {
		return
	}
	st := a.st
	d := g.y - g.host
	if len(a.waits) == maxWaits && d <= a.waits[maxWaits-1].Time {
		return
	}
	n := &st.GPU[next]
	name, ok := a.canon[n.Name]
	if !ok {
		name = kernels.Canonical(st.Name(n.Name))
		a.canon[n.Name] = name
	}
	w := Wait{Op: name, Stage: a.stageName(int(next)), Time: d, OutsideSteps: outside}
	c := &st.CPU[g.launch]
	w.Submitted = n.TS - c.End()
	// A stream-wait-event call among the calls just before the launch.
	var calls []int32
	if g.tn >= 0 && int(g.tn) < len(a.calls) {
		calls = a.calls[g.tn]
	}
	p, _ := slices.BinarySearchFunc(calls, c.TS, func(i int32, t int64) int { return cmp.Compare(st.CPU[i].TS, t) })
	for q := p - 1; q >= 0 && q >= p-8; q-- {
		nm := st.Name(st.CPU[calls[q]].Name)
		if strings.Contains(nm, "WaitEvent") {
			w.After = nm
			break
		}
		if strings.Contains(nm, "Launch") || strings.Contains(nm, "Memcpy") || strings.Contains(nm, "Memset") {
			break
		}
	}
	var best int64
	for _, s := range a.syncsOf(g.tn) {
		if v := overlap(g.host, g.y, s.ts, s.end); v > best {
			best, w.HostIn = v, s.label
		}
	}
	a.waits = append(a.waits, w)
	slices.SortStableFunc(a.waits, func(x, y Wait) int { return cmp.Compare(y.Time, x.Time) })
	if len(a.waits) > maxWaits {
		a.waits = a.waits[:maxWaits]
	}
}
