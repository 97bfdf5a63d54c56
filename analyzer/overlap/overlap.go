package overlap

import (
	"cmp"
	"slices"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"

	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Options select and size the analysis.
type Options struct {
	Stage     string // keep only rows of this stage; "" keeps all
	Limit     int    // rows per verdict and stage; 0 means 5 (the upstream table size)
	Timelines int    // ASCII timelines around representative kernels; 0 means 3, <0 none
	Width     int    // timeline width in characters; 0 means 96
	// Joins are the formal store's join indexes when the caller already
	// built them (triage shares one set with the breakdown); nil builds them.
	Joins *callsite.Joins
	// Wait is, per collective kernel of the formal store (GPU index), the
	// time it spent waiting for the last rank to arrive (from the ranks
	// matched across a job, analyzer/collectives). That time is never
	// overlap headroom: no overlap buys it back, only the late rank can.
	Wait map[int32]int64
}

// Overlap buckets of the upstream skill; the value is the priority used to
// name the dominant overlapping kernel (compute first).
type bucket uint8

const (
	bOther bucket = iota
	bElementwise
	bMemory
	bComm
	bCompute
)

func (b bucket) String() string {
	return [...]string{"other", "elementwise", "memory", "communication", "compute"}[b]
}

// weight ranks headroom rows (§12.3).
func (b bucket) weight() float64 {
	return [...]float64{0.8, 1.0, 1.15, 1.3, 0.35}[b]
}

func (b bucket) char() byte { return "*~+=#"[b] }

// bucketOf folds a kernels category into the five overlap buckets.
func bucketOf(category string) bucket {
	switch category {
	case kernels.CategoryCommunication:
		return bComm
	case kernels.CategoryMemory:
		return bMemory
	case kernels.CategoryGEMM, kernels.CategoryAttention, kernels.CategoryMoE, kernels.CategoryConv:
		return bCompute
	case kernels.CategoryNorm, kernels.CategoryRoPE, kernels.CategoryActivation, kernels.CategoryQuantization,
		kernels.CategoryElementwise, kernels.CategoryReduction, kernels.CategoryIndex:
		return bElementwise
	}
	return bOther
}

// How a formal kernel got its CPU-side source.
const (
	viaNone     uint8 = iota
	viaDirect         // the formal trace's own joins (eager launch)
	viaSequence       // aligned with the mapping trace: same canonical kernel, same occurrence within the step
	viaName           // the canonical kernel's dominant source in the mapping trace
	viaCapture        // aligned with the launch sequence of a graph captured in the mapping trace
	nVia
)

// op is one formal GPU activity.
type op struct {
	i        int32 // index in the formal store's GPU slice
	ts, end  int64
	stream   int32 // dense stream id
	canon    int32
	bucket   bucket
	kernel   bool // a kernel (not a copy or fill)
	stage    uint8
	via      uint8
	src      int32
	row      int32
	excl     int64
	hid      int64
	hidBy    [5]int64 // hidden time by the highest-priority bucket active on other streams
	position int32    // in its stream's start-sorted list
}

type analyzer struct {
	opt      Options
	formal   *trace.Store
	canons   []string
	canonIdx map[string]int32
	canonCat []string
	loose    []int32 // canonical kernel → id of its name without template arguments
	looseIdx map[string]int32
	nameMemo map[*trace.Store]map[uint32]int32
	srcs     *srcTable
	stages   []string
	ops      []op
	streams  []int64 // dense id → stream number
	byStream [][]int32

	stageBusy []int64
	spans     []span    // hidden stretches, in time order (sweep)
	rowOps    [][]int32 // row → its ops that take time (built when a row is shown)
	acc       []rowAcc
	rowIdx    map[[2]int32]int32 // (stage, canon) → row

	stageTime  []int64            // GPU time of each stage's ops
	streamTime map[[2]int32]int64 // (stage, dense stream) → GPU time
}

func (a *analyzer) canon(st *trace.Store, o *trace.GPUOp) int32 {
	return a.canonName(st, o.Name, o.Kind)
}

// canonName returns the canonical kernel id of a name of st (a GPU op's, or
// the kernel a launch call names).
func (a *analyzer) canonName(st *trace.Store, name uint32, kind trace.Kind) int32 {
	m := a.nameMemo[st]
	if m == nil {
		m = map[uint32]int32{}
		a.nameMemo[st] = m
	}
	if c, ok := m[name]; ok {
		return c
	}
	raw := st.Name(name)
	cn := kernels.Canonical(raw)
	c, ok := a.canonIdx[cn]
	if !ok {
		c = int32(len(a.canons))
		a.canons = append(a.canons, cn)
		a.canonIdx[cn] = c
		a.canonCat = append(a.canonCat, kernels.Classify(raw, kind.String()).Category)
		ln := looseName(cn)
		l, ok := a.looseIdx[ln]
		if !ok {
			l = int32(len(a.looseIdx))
			a.looseIdx[ln] = l
		}
		a.loose = append(a.loose, l)
	}
	m[name] = c
	return c
}

// token is what an op is for alignment with a captured graph: its canonical
// kernel, or the copy / fill node it is.
func (p *op) token(st *trace.Store) int32 {
	switch st.GPU[p.i].Kind {
	case trace.KindMemcpy:
		return tokMemcpy
	case trace.KindMemset:
		return tokMemset
	}
	return p.canon
}

func (a *analyzer) intern(s source) int32 { return a.srcs.intern(s) }

func (a *analyzer) stageID(s string) uint8 {
	for i, x := range a.stages {
		if x == s {
			return uint8(i)
		}
	}
	a.stages = append(a.stages, s)
	return uint8(len(a.stages) - 1)
}

// heaviest returns the (file, device) whose GPU work is longest, as the
// upstream skill picks its GPU pid.
func heaviest(st *trace.Store) (uint16, int64, bool) {
	type fd struct {
		file uint16
		dev  int64
	}
	sum := map[fd]int64{}
	for i := range st.GPU {
		o := &st.GPU[i]
		if o.Kind == trace.KindKernel {
			sum[fd{o.File, o.Device}] += o.Dur
		}
	}
	var best fd
	var bt int64 = -1
	for k, v := range sum {
		if v > bt || v == bt && (k.file < best.file || k.file == best.file && k.dev < best.dev) {
			best, bt = k, v
		}
	}
	return best.file, best.dev, bt >= 0
}

// fileShifts returns, per file, what to add to its ops' times so that the
// analysed files follow one another: files of separate profiler sessions
// (or separate processes) whose clocks overlap must not be taken for
// concurrent work. Files that already follow one another (one process's
// stage windows) are not moved. Shifted times saturate at int64's end
// (units.AddSat): three files each spanning 3.9·10¹⁸ ns cannot follow one
// another inside int64, and wrapping would put the third before the first.
func fileShifts(st *trace.Store, devOf map[uint16]int64) map[uint16]int64 {
	shift := map[uint16]int64{}
	if len(devOf) < 2 {
		return shift
	}
	type span struct {
		file       uint16
		start, end int64
	}
	spans := map[uint16]*span{}
	for i := range st.GPU {
		o := &st.GPU[i]
		if d, ok := devOf[o.File]; !ok || o.Device != d || !o.Kind.IsGPUWork() {
			continue
		}
		s := spans[o.File]
		if s == nil {
			spans[o.File] = &span{o.File, o.TS, o.End()}
			continue
		}
		s.start, s.end = min(s.start, o.TS), max(s.end, o.End())
	}
	order := make([]*span, 0, len(spans))
	for _, s := range spans {
		order = append(order, s)
	}
	slices.SortFunc(order, func(x, y *span) int {
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		return cmp.Compare(x.file, y.file)
	})
	var last int64
	for k, s := range order {
		if k > 0 && s.start <= last {
			shift[s.file] = units.AddSat(last-s.start, 1000) // 1 µs apart
		}
		last = max(last, units.AddSat(s.end, shift[s.file]))
	}
	return shift
}

// Analyze measures the formal trace's overlap and maps its kernels back to
// CPU ops and Python scopes through the mapping trace. mapping may be nil,
// or formal itself when one trace serves both.
func Analyze(formal, mapping *trace.Store, opt Options) *Result {
	res, _ := analyze(formal, mapping, opt)
	return res
}

// analyze is Analyze that also returns the analyzer's per-op state (tests).
func analyze(formal, mapping *trace.Store, opt Options) (*Result, *analyzer) {
	if opt.Limit <= 0 {
		opt.Limit = 5
	}
	if opt.Timelines == 0 {
		opt.Timelines = 3
	}
	if opt.Width <= 0 {
		opt.Width = 96
	}
	a := &analyzer{opt: opt, formal: formal, canonIdx: map[string]int32{}, looseIdx: map[string]int32{}, nameMemo: map[*trace.Store]map[uint32]int32{},
		srcs: newSrcTable()}
	res := &Result{opt: opt}
	file, dev, ok := heaviest(formal)
	if !ok {
		res.Summary.Note = "the formal trace has no GPU kernels"
		return res, a
	}
	res.Summary.FormalFile = formal.Files[file].Name
	res.Summary.Device = dev
	jf := newJoiner(formal, opt.Joins)
	// A store of several files holds one rank's stage files (SGLang's
	// EXTEND and DECODE traces, analyzer/stagefiles.go): each file's
	// heaviest GPU is analysed, its streams kept apart from the others'.
	devOf := formal.HeaviestDevices()
	shift := fileShifts(formal, devOf)

	// Formal ops of the chosen GPU, with stage and direct source.
	type fileStream struct {
		file   uint16
		stream int64
	}
	streamID := map[fileStream]int32{}
	staged := false
	var stageOf []string
	replays := map[int32][]int32{} // graph launch → ops
	callsite.Chunks(len(formal.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &formal.GPU[i]
			if d, ok := devOf[o.File]; !ok || o.Device != d || !o.Kind.IsGPUWork() {
				continue
			}
			key := fileStream{o.File, o.Stream}
			sid, ok := streamID[key]
			if !ok {
				sid = int32(len(a.streams))
				streamID[key] = sid
				a.streams = append(a.streams, o.Stream)
				a.byStream = append(a.byStream, nil)
			}
			c := a.canon(formal, o)
			p := op{i: int32(i), ts: units.AddSat(o.TS, shift[o.File]), end: units.AddSat(o.End(), shift[o.File]), stream: sid, canon: c, bucket: bucketOf(a.canonCat[c]),
				kernel: o.Kind == trace.KindKernel}
			s := jf.stage(o)
			staged = staged || s != ""
			stageOf = append(stageOf, s)
			if l, graph := jf.graphLaunch(o); graph {
				replays[l] = append(replays[l], int32(len(a.ops)))
				if p.kernel {
					res.Summary.GraphKernels++
				}
			} else if src, ok := jf.source(o); ok {
				p.src = a.intern(src)
				p.via = viaDirect
			}
			a.ops = append(a.ops, p)
		}
	})
	res.Summary.GraphReplays = len(replays)
	for k := range a.ops {
		s := stageOf[k]
		if s == "" {
			s = callsite.StageAll
			if staged {
				s = callsite.StageOther
			}
		}
		a.ops[k].stage = a.stageID(s)
	}

	// Mapping: carry sources onto graph-replayed kernels, fill missing scopes.
	if mapping != nil {
		m := a.buildMapping(mapping, jf, formal == mapping)
		res.Summary.MappingFile = m.file
		res.Summary.MappingKernels = m.kernels
		res.Summary.MappingSteps = len(m.steps)
		res.Summary.MappingCaptures = m.captures
		res.Summary.ReplaysAligned, res.Summary.ReplaysByCapture = a.carry(m, replays)
	}

	a.sweep(res)
	a.rows(res)
	a.timelines(res)
	return res, a
}

// mapIndex is what the mapping trace says about each canonical kernel.
type mapIndex struct {
	file     string
	kernels  int
	steps    []mapStep
	canon    []int32         // every eager kernel's canonical name, grouped by step, in time order within one
	bySrc    []canonSrc      // the same per step, sorted by canonical name (in time order within one)
	byName   map[int32]int32 // canonical kernel → dominant source
	captures int
	classes  []capClass // captured graphs, grouped by identical token sequences
}

// capClass is the captured graphs whose launch sequences are the same.
type capClass struct {
	tokens  []int32
	count   map[int32]int
	members [][]int32 // per captured graph, in capture order: the source of each launch
}

// mapStep is one step of the mapping trace: its kernels are
// mapIndex.canon[lo:hi] and bySrc[lo:hi]. (Two maps per step cost 630 B
// natively and several times that in the module for steps of one kernel:
// 200 k distinct step annotations took the wasm CLI past 1.2 GB.)
type mapStep struct{ lo, hi int32 }

type canonSrc struct{ c, src int32 }

// order is step k's canonical kernels in time order.
func (m *mapIndex) order(k int) []int32 { return m.canon[m.steps[k].lo:m.steps[k].hi] }

// seq is step k's kernels of canonical name c, in time order.
func (m *mapIndex) seq(k int, c int32) []canonSrc {
	b := m.bySrc[m.steps[k].lo:m.steps[k].hi]
	i, _ := slices.BinarySearchFunc(b, c, func(x canonSrc, c int32) int { return cmp.Compare(x.c, c) })
	j, _ := slices.BinarySearchFunc(b[i:], c+1, func(x canonSrc, c int32) int { return cmp.Compare(x.c, c) })
	return b[i : i+j]
}

func (a *analyzer) buildMapping(st *trace.Store, jf *joiner, same bool) *mapIndex {
	m := &mapIndex{byName: map[int32]int32{}}
	if len(st.Files) > 0 {
		m.file = st.Files[0].Name
	}
	jm := jf
	if !same {
		jm = newJoiner(st, nil)
	}
	votes := map[int32]map[int32]int{}
	vote := func(c, src int32) {
		if src == 0 || c < 0 {
			return
		}
		if votes[c] == nil {
			votes[c] = map[int32]int{}
		}
		votes[c][src]++
	}
	// Executed, eagerly launched kernels, grouped by step.
	if file, dev, ok := heaviest(st); ok {
		m.file = st.Files[file].Name
		type mop struct {
			ts   int64
			i    int32
			step int64
		}
		var ops []mop
		for i := range st.GPU {
			o := &st.GPU[i]
			if o.File != file || o.Device != dev || !o.Kind.IsGPUWork() {
				continue
			}
			if _, graph := jm.graphLaunch(o); graph {
				continue // replayed kernels carry no CPU-side source
			}
			ops = append(ops, mop{o.TS, int32(i), jm.step(o)})
		}
		slices.SortStableFunc(ops, func(x, y mop) int { return cmp.Compare(x.ts, y.ts) })
		stepIdx := map[int64]int32{}
		type ent struct {
			step int32
			canonSrc
		}
		ents := make([]ent, 0, len(ops))
		callsite.Chunks(len(ops), func(lo, hi int) {
			for q := lo; q < hi; q++ {
				mo := ops[q]
				o := &st.GPU[mo.i]
				c := a.canon(st, o)
				src := int32(0)
				if s, ok := jm.source(o); ok {
					src = a.intern(s)
				}
				k, ok := stepIdx[mo.step]
				if !ok {
					k = int32(len(stepIdx))
					stepIdx[mo.step] = k
				}
				ents = append(ents, ent{k, canonSrc{c, src}})
				vote(c, src)
				m.kernels++
			}
		})
		// group by step (time order kept within one), then index by name
		slices.SortStableFunc(ents, func(x, y ent) int { return cmp.Compare(x.step, y.step) })
		m.steps = make([]mapStep, len(stepIdx))
		m.canon = make([]int32, len(ents))
		m.bySrc = make([]canonSrc, len(ents))
		for i, e := range ents {
			if i == 0 || e.step != ents[i-1].step {
				m.steps[e.step].lo = int32(i)
			}
			m.steps[e.step].hi = int32(i + 1)
			m.canon[i], m.bySrc[i] = e.c, e.canonSrc
		}
		for k := range m.steps {
			slices.SortStableFunc(m.bySrc[m.steps[k].lo:m.steps[k].hi], func(x, y canonSrc) int { return cmp.Compare(x.c, y.c) })
		}
	}
	// Captured graphs: the launches between begin and end of capture.
	classIdx := map[string]int{}
	for _, cp := range findCaptures(st) {
		if m.file == "" || m.kernels == 0 {
			m.file = st.Files[cp.file].Name
		}
		m.captures++
		toks := make([]int32, len(cp.launches))
		srcs := make([]int32, len(cp.launches))
		sig := make([]byte, 0, 4*len(toks))
		for q, l := range cp.launches {
			s := &st.CPU[l]
			switch k := launchKind(st.Name(s.Name)); {
			case k == trace.KindMemcpy:
				toks[q] = tokMemcpy
			case k == trace.KindMemset:
				toks[q] = tokMemset
			case s.Kernel != 0:
				toks[q] = a.canonName(st, s.Kernel, trace.KindKernel)
			default:
				toks[q] = tokUnnamed
			}
			if src, ok := jm.launchSource(l); ok {
				srcs[q] = a.intern(src)
			}
			vote(toks[q], srcs[q])
			sig = appendToken(sig, toks[q])
		}
		k, ok := classIdx[string(sig)]
		if !ok {
			k = len(m.classes)
			classIdx[string(sig)] = k
			cl := capClass{tokens: toks, count: map[int32]int{}}
			for _, t := range toks {
				cl.count[t]++
			}
			m.classes = append(m.classes, cl)
		}
		m.classes[k].members = append(m.classes[k].members, srcs)
	}
	for c, v := range votes {
		best, bn := int32(0), -1
		for s, n := range v {
			if n > bn || n == bn && s < best {
				best, bn = s, n
			}
		}
		m.byName[c] = best
	}
	return m
}

func appendToken(b []byte, t int32) []byte {
	return append(b, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
}

// capMatch is the best captured graph for one replay signature.
type capMatch struct {
	class int // -1: none good enough
	match []int32
	exact bool
}

// matchCapture aligns a replay's tokens with every captured graph (the 16
// nearest by token multiset when there are more) and keeps the best: the
// highest alignment weight, then the nearest length, then the first
// captured. A capture is used only if it aligns at least 30 % of the
// replay's ops.
func (a *analyzer) matchCapture(m *mapIndex, toks []int32) capMatch {
	best := capMatch{class: -1}
	if len(m.classes) == 0 || len(toks) == 0 {
		return best
	}
	cands := make([]int, len(m.classes))
	for k := range cands {
		cands[k] = k
	}
	if len(cands) > 16 {
		count := map[int32]int{}
		for _, t := range toks {
			count[t]++
		}
		overlap := make([]int, len(m.classes))
		for k := range m.classes {
			for t, n := range count {
				overlap[k] += min(n, m.classes[k].count[t])
			}
		}
		slices.SortStableFunc(cands, func(x, y int) int { return cmp.Compare(overlap[y], overlap[x]) })
		cands = cands[:16]
		slices.Sort(cands)
	}
	bestScore, bestDiff := 0, 0
	for _, k := range cands {
		y := m.classes[k].tokens
		match, score := a.align(toks, y)
		diff := len(y) - len(toks)
		if diff < 0 {
			diff = -diff
		}
		if score > bestScore || score == bestScore && best.class >= 0 && diff < bestDiff {
			best = capMatch{class: k, match: match, exact: len(y) == len(toks) && score == wExact*len(toks)}
			bestScore, bestDiff = score, diff
		}
	}
	if best.class >= 0 {
		n := 0
		for _, q := range best.match {
			if q >= 0 {
				n++
			}
		}
		if n*10 < len(toks)*3 {
			best.class = -1
		}
	}
	return best
}

// carry gives graph-replayed formal kernels their CPU-side source: first
// from the captured graph whose launch sequence aligns best with the
// replay (identical captures, such as the per-layer pieces of a PIECEWISE
// graph, are taken in turn: the n-th replay of a sequence gets the n-th
// capture of it), then from the same occurrence of the same canonical
// kernel in the best-matching mapping step, then from the name's dominant
// source.
func (a *analyzer) carry(m *mapIndex, replays map[int32][]int32) (exact, byCapture int) {
	launches := make([]int32, 0, len(replays))
	for l := range replays {
		launches = append(launches, l)
	}
	slices.SortFunc(launches, func(x, y int32) int {
		if c := cmp.Compare(a.formal.CPU[x].TS, a.formal.CPU[y].TS); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	memo := map[string]int{}
	capMemo := map[string]capMatch{}
	turn := map[int]int{}
	for _, l := range launches {
		ids := replays[l]
		slices.SortStableFunc(ids, func(x, y int32) int { return cmp.Compare(a.ops[x].ts, a.ops[y].ts) })
		count := map[int32]int{}
		var sig, tsig []byte
		toks := make([]int32, len(ids))
		for q, id := range ids {
			c := a.ops[id].canon
			count[c]++
			sig = appendToken(sig, c)
			toks[q] = a.ops[id].token(a.formal)
			tsig = appendToken(tsig, toks[q])
		}
		cm, ok := capMemo[string(tsig)]
		if !ok {
			cm = a.matchCapture(m, toks)
			capMemo[string(tsig)] = cm
		}
		var member []int32
		if cm.class >= 0 {
			byCapture++
			if cm.exact {
				exact++
			}
			cl := &m.classes[cm.class]
			member = cl.members[turn[cm.class]%len(cl.members)]
			turn[cm.class]++
		}
		best, ok := memo[string(sig)]
		if !ok {
			best = -1
			bestScore := 0
			for k := range m.steps {
				score := 0
				for c, n := range count {
					score += min(n, len(m.seq(k, c)))
				}
				if score > bestScore {
					best, bestScore = k, score
				}
			}
			memo[string(sig)] = best
		}
		if cm.class < 0 && best >= 0 && len(m.order(best)) == len(ids) {
			same, order := true, m.order(best)
			for q, id := range ids {
				same = same && order[q] == a.ops[id].canon
			}
			if same {
				exact++
			}
		}
		seen := map[int32]int{}
		for q, id := range ids {
			p := &a.ops[id]
			j := seen[p.canon]
			seen[p.canon]++
			if member != nil {
				if at := cm.match[q]; at >= 0 && member[at] != 0 {
					p.src, p.via = member[at], viaCapture
					continue
				}
			}
			if best >= 0 {
				if seq := m.seq(best, p.canon); j < len(seq) && seq[j].src != 0 {
					p.src, p.via = seq[j].src, viaSequence
					continue
				}
			}
			if s, ok := m.byName[p.canon]; ok {
				p.src, p.via = s, viaName
			}
		}
	}
	// Eager formal kernels without a Python scope take the mapping's.
	for k := range a.ops {
		p := &a.ops[k]
		if p.via == viaSequence || p.via == viaName || p.via == viaCapture {
			continue
		}
		s, ok := m.byName[p.canon]
		if !ok {
			continue
		}
		switch {
		case p.src == 0:
			p.src, p.via = s, viaName
		case !a.srcs.scoped(p.src) && a.srcs.scoped(s):
			merged, with := a.srcs.get(p.src), a.srcs.get(s)
			merged.Scope, merged.Chain = with.Scope, with.Chain
			p.src = a.intern(merged)
		}
	}
	return exact, byCapture
}
