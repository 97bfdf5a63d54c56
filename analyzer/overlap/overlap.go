package overlap

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Options select and size the analysis.
type Options struct {
	Stage     string // keep only rows of this stage; "" keeps all
	Limit     int    // rows per verdict and stage; 0 means 5 (the upstream table size)
	Timelines int    // ASCII timelines around representative kernels; 0 means 3, <0 none
	Width     int    // timeline width in characters; 0 means 96
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
	nameMemo map[*trace.Store]map[uint32]int32
	srcs     []source
	srcIdx   map[source]int32
	stages   []string
	ops      []op
	streams  []int32 // dense id → stream number
	byStream [][]int32

	stageBusy []int64
	credit    map[[2]int32]int64
	acc       []rowAcc
	rowIdx    map[[2]int32]int32 // (stage, canon) → row
}

func (a *analyzer) canon(st *trace.Store, o *trace.GPUOp) int32 {
	m := a.nameMemo[st]
	if m == nil {
		m = map[uint32]int32{}
		a.nameMemo[st] = m
	}
	if c, ok := m[o.Name]; ok {
		return c
	}
	raw := st.Name(o.Name)
	cn := kernels.Canonical(raw)
	c, ok := a.canonIdx[cn]
	if !ok {
		c = int32(len(a.canons))
		a.canons = append(a.canons, cn)
		a.canonIdx[cn] = c
		a.canonCat = append(a.canonCat, kernels.Classify(raw, o.Kind.String()).Category)
	}
	m[o.Name] = c
	return c
}

func (a *analyzer) intern(s source) int32 {
	if p, ok := a.srcIdx[s]; ok {
		return p
	}
	p := int32(len(a.srcs))
	a.srcs = append(a.srcs, s)
	a.srcIdx[s] = p
	return p
}

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
func heaviest(st *trace.Store) (uint16, int32, bool) {
	type fd struct {
		file uint16
		dev  int32
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

// Analyze measures the formal trace's overlap and maps its kernels back to
// CPU ops and Python scopes through the mapping trace. mapping may be nil,
// or formal itself when one trace serves both.
func Analyze(formal, mapping *trace.Store, opt Options) *Result {
	if opt.Limit <= 0 {
		opt.Limit = 5
	}
	if opt.Timelines == 0 {
		opt.Timelines = 3
	}
	if opt.Width <= 0 {
		opt.Width = 96
	}
	a := &analyzer{opt: opt, formal: formal, canonIdx: map[string]int32{}, nameMemo: map[*trace.Store]map[uint32]int32{},
		srcs: []source{{}}, srcIdx: map[source]int32{{}: 0}}
	res := &Result{opt: opt}
	file, dev, ok := heaviest(formal)
	if !ok {
		res.Summary.Note = "the formal trace has no GPU kernels"
		return res
	}
	res.Summary.FormalFile = formal.Files[file].Name
	res.Summary.Device = dev
	jf := newJoiner(formal)

	// Formal ops of the chosen GPU, with stage and direct source.
	streamID := map[int32]int32{}
	staged := false
	var stageOf []string
	replays := map[int32][]int32{} // graph launch → ops
	for i := range formal.GPU {
		o := &formal.GPU[i]
		if o.File != file || o.Device != dev || !o.Kind.IsGPUWork() {
			continue
		}
		sid, ok := streamID[o.Stream]
		if !ok {
			sid = int32(len(a.streams))
			streamID[o.Stream] = sid
			a.streams = append(a.streams, o.Stream)
			a.byStream = append(a.byStream, nil)
		}
		c := a.canon(formal, o)
		p := op{i: int32(i), ts: o.TS, end: o.End(), stream: sid, canon: c, bucket: bucketOf(a.canonCat[c]),
			kernel: o.Kind == trace.KindKernel}
		s := jf.stage(o)
		staged = staged || s != ""
		stageOf = append(stageOf, s)
		if l, graph := jf.graphLaunch(o); graph {
			replays[l] = append(replays[l], int32(len(a.ops)))
			if p.kernel {
				res.Summary.GraphKernels++
			}
		} else if src := jf.source(o); src != 0 {
			p.src = a.intern(jf.srcs[src])
			p.via = viaDirect
		}
		a.ops = append(a.ops, p)
	}
	res.Summary.GraphReplays = len(replays)
	for k := range a.ops {
		s := stageOf[k]
		if s == "" {
			s = stageAll
			if staged {
				s = stageOther
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
		res.Summary.ReplaysAligned = a.carry(m, replays)
	}

	a.sweep(res)
	a.rows(res)
	a.timelines(res)
	return res
}

// mapIndex is what the mapping trace says about each canonical kernel.
type mapIndex struct {
	file    string
	kernels int
	steps   []mapStep
	byName  map[int32]int32 // canonical kernel → dominant source
}

type mapStep struct {
	order []int32           // canonical kernels in time order
	count map[int32]int     // canonical kernel → occurrences
	seq   map[int32][]int32 // canonical kernel → sources in time order
}

func (a *analyzer) buildMapping(st *trace.Store, jf *joiner, same bool) *mapIndex {
	m := &mapIndex{byName: map[int32]int32{}}
	file, dev, ok := heaviest(st)
	if !ok {
		return m
	}
	m.file = st.Files[file].Name
	jm := jf
	if !same {
		jm = newJoiner(st)
	}
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
	stepIdx := map[int64]int{}
	votes := map[int32]map[int32]int{}
	for _, mo := range ops {
		o := &st.GPU[mo.i]
		c := a.canon(st, o)
		src := int32(0)
		if s := jm.source(o); s != 0 {
			src = a.intern(jm.srcs[s])
		}
		k, ok := stepIdx[mo.step]
		if !ok {
			k = len(m.steps)
			stepIdx[mo.step] = k
			m.steps = append(m.steps, mapStep{count: map[int32]int{}, seq: map[int32][]int32{}})
		}
		s := &m.steps[k]
		s.order = append(s.order, c)
		s.count[c]++
		s.seq[c] = append(s.seq[c], src)
		if src != 0 {
			if votes[c] == nil {
				votes[c] = map[int32]int{}
			}
			votes[c][src]++
		}
		m.kernels++
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

// carry gives graph-replayed formal kernels the source of the kernel at the
// same occurrence of the same canonical name in the best-matching mapping
// step, and falls back to the name's dominant source.
func (a *analyzer) carry(m *mapIndex, replays map[int32][]int32) (exact int) {
	launches := make([]int32, 0, len(replays))
	for l := range replays {
		launches = append(launches, l)
	}
	slices.Sort(launches)
	memo := map[string]int{}
	for _, l := range launches {
		ids := replays[l]
		slices.SortStableFunc(ids, func(x, y int32) int { return cmp.Compare(a.ops[x].ts, a.ops[y].ts) })
		count := map[int32]int{}
		var sig strings.Builder
		for _, id := range ids {
			count[a.ops[id].canon]++
			c := a.ops[id].canon
			sig.WriteByte(byte(c))
			sig.WriteByte(byte(c >> 8))
			sig.WriteByte(byte(c >> 16))
		}
		best, ok := memo[sig.String()]
		if !ok {
			best = -1
			bestScore := 0
			for k := range m.steps {
				score := 0
				for c, n := range count {
					score += min(n, m.steps[k].count[c])
				}
				if score > bestScore {
					best, bestScore = k, score
				}
			}
			memo[sig.String()] = best
		}
		if best >= 0 && len(m.steps[best].order) == len(ids) {
			same := true
			for q, id := range ids {
				same = same && m.steps[best].order[q] == a.ops[id].canon
			}
			if same {
				exact++
			}
		}
		seen := map[int32]int{}
		for _, id := range ids {
			p := &a.ops[id]
			j := seen[p.canon]
			seen[p.canon]++
			if best >= 0 {
				if seq := m.steps[best].seq[p.canon]; j < len(seq) && seq[j] != 0 {
					p.src, p.via = seq[j], viaSequence
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
		if p.via == viaSequence || p.via == viaName {
			continue
		}
		s, ok := m.byName[p.canon]
		if !ok {
			continue
		}
		switch {
		case p.src == 0:
			p.src, p.via = s, viaName
		case a.srcs[p.src].Scope == "" && a.srcs[s].Scope != "":
			merged := a.srcs[p.src]
			merged.Scope, merged.Chain = a.srcs[s].Scope, a.srcs[s].Chain
			p.src = a.intern(merged)
		}
	}
	return exact
}
