package idle

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// piece is a stretch of host time with one culprit.
type piece struct {
	s, e  int64
	frame uint32 // innermost Python source frame (name id), 0 = none
	op    uint32 // innermost CPU op (name id), 0 = none
	fw    uint32 // innermost framework or user frame outside torch/triton (callsite.Meaningful), 0 = none
}

// pieces divides the gap's sampled host time [x, sample) on the launching
// thread into stretches of constant innermost frame and CPU op and calls fn
// on each: exact, as cheap as the frames in the gap (not one lookup per
// µs), and nothing kept.
func (a *analyzer) pieces(g gapClass, fn func(piece)) {
	if !g.threadOK || g.sample <= g.x {
		return
	}
	st := a.st
	if a.lastPy == nil && a.lastCPU == nil || g.thread != a.lastThread {
		a.lastThread, a.lastPy, a.lastCPU = g.thread, a.j.PythonNest(g.thread.File, g.thread.Track), a.j.CPUNest(g.thread.File, g.thread.Track)
		a.pyHint, a.cpuHint = 0, 0
	}
	py, cpu := a.lastPy, a.lastCPU
	var cur piece
	for t := g.x; t < g.sample; {
		next := g.sample
		pp, nx := innermost(py, st.Python, t, &a.pyHint)
		next = min(next, nx)
		pc, nx := innermost(cpu, st.CPU, t, &a.cpuHint)
		next = min(next, nx)
		p := piece{t, next, a.sourceFrame(py, pp), cpuOp(st, cpu, pc), a.frameworkFrame(py, pp)}
		if cur.e == t && cur.frame == p.frame && cur.op == p.op && cur.fw == p.fw && t > g.x {
			cur.e = next
		} else {
			if cur.e > cur.s {
				fn(cur)
			}
			cur = p
		}
		t = next
	}
	if cur.e > cur.s {
		fn(cur)
	}
}

// innermost returns the position in n of the innermost span containing t
// (start ≤ t < end), or -1, and the next time that can change. hint is
// where the last lookup in n landed (lookups go forward in time).
func innermost(n *callsite.Nest, spans []trace.Span, t int64, hint *int) (int32, int64) {
	if n == nil {
		return -1, 1<<63 - 1
	}
	// The first span starting after t.
	i := n.Upper(t, *hint)
	*hint = i
	next := int64(1<<63 - 1)
	if i < len(n.Pos) {
		next = spans[n.Pos[i]].TS
	}
	p := int32(i - 1)
	for p >= 0 && spans[n.Pos[p]].End() <= t {
		p = n.Parent[p]
	}
	if p >= 0 {
		next = min(next, spans[n.Pos[p]].End())
	}
	return p, next
}

// sourceFrame walks out from position p to the innermost Python source
// frame ("file.py(line): fn"; built-ins and nn.Module scopes skipped).
func (a *analyzer) sourceFrame(n *callsite.Nest, p int32) uint32 {
	for ; p >= 0; p = n.Parent[p] {
		id := a.st.Python[n.Pos[p]].Name
		for int(id) >= len(a.source) {
			a.source = append(a.source, make([]uint8, max(64, len(a.source)))...)
		}
		src := a.source[id]
		if src == 0 {
			name := a.st.Name(id)
			src = 1
			if strings.Contains(name, ".py(") && !strings.HasPrefix(name, "<") {
				src = 2
			}
			a.source[id] = src
		}
		if src == 2 {
			return id
		}
	}
	return 0
}

// frameworkFrame walks out from position p to the innermost frame of the
// serving framework or the user's code: frames inside torch/, triton/,
// built-ins and the other library frames of callsite.Meaningful say how a
// call was made, not which code made it (a Triton launch under
// torch/utils/_device.py is SGLang's aiter_backend.py asking for it).
func (a *analyzer) frameworkFrame(n *callsite.Nest, p int32) uint32 {
	for ; p >= 0; p = n.Parent[p] {
		id := a.st.Python[n.Pos[p]].Name
		for int(id) >= len(a.meaningful) {
			a.meaningful = append(a.meaningful, make([]uint8, max(64, len(a.meaningful)))...)
		}
		m := a.meaningful[id]
		if m == 0 {
			m = 1
			if callsite.Meaningful(a.st.Name(id)) {
				m = 2
			}
			a.meaningful[id] = m
		}
		if m == 2 {
			return id
		}
	}
	return 0
}

func cpuOp(st *trace.Store, n *callsite.Nest, p int32) uint32 {
	for ; p >= 0; p = n.Parent[p] {
		if s := &st.CPU[n.Pos[p]]; s.Kind == trace.KindCPUOp {
			return s.Name
		}
	}
	return 0
}

// weight is the sampled host time of [s, e) inside a gap whose host time
// [x, stop) is sampled every Grid ns from x, each sample weighing Grid, the
// last one what is left (the answer key's sampling, computed exactly).
func weight(x, stop, s, e int64) int64 {
	if e <= s {
		return 0
	}
	k0, k1 := ceilDiv(s-x), ceilDiv(e-x)
	if k1 <= k0 {
		return 0
	}
	w := (k1 - k0) * Grid
	if kl := ceilDiv(stop-x) - 1; kl >= k0 && kl < k1 {
		w -= Grid - (stop - x - kl*Grid)
	}
	return w
}

func ceilDiv(v int64) int64 { return (v + Grid - 1) / Grid }

// blame adds the sampled culprit of piece p, clipped to [s, e), to window
// w (an id in a.accs).
func (a *analyzer) blame(w int32, g gapClass, p piece, s, e int64) {
	v := weight(g.x, g.sample, max(p.s, s), min(p.e, e))
	if v <= 0 {
		return
	}
	key := p.op
	if a.hasStacks {
		key = p.frame
	}
	// Consecutive gaps mostly blame the same culprit: each window
	// remembers its last one.
	acc := a.accs[w]
	c := acc.lastCul
	if c < 0 || acc.lastKey != key {
		var added bool
		c, added = a.culTab.Index(uint64(w), uint64(key))
		if added {
			a.culT = append(a.culT, 0)
		}
		acc.lastCul, acc.lastKey = c, key
	}
	a.culT[c] += v
	if a.hasStacks { // without stacks the key is the op
		o, added := a.opTab.Index(uint64(c), uint64(p.op))
		if added {
			a.opT = append(a.opT, 0)
		}
		a.opT[o] += v
		if p.fw != 0 {
			f, added := a.fwTab.Index(uint64(w), uint64(p.fw))
			if added {
				a.fwT = append(a.fwT, 0)
			}
			a.fwT[f] += v
		}
	}
}

// stepName reports annotation names that mark one iteration: ProfilerStep#N,
// decode_step, train_step, SGLang's step[DECODE bs=32] ("step" as a word),
// and one model execution: vLLM's execute_model, the serving harnesses'
// execute_32_context_0(…)_generation_32(…), xDiT's execute_diffusion_1_256x256.
// A method named step (Optimizer.step#SGD.step) is a phase inside an
// iteration, not one.
func stepName(name string) bool {
	l := strings.ToLower(name)
	if strings.HasPrefix(l, "profilerstep#") || strings.HasPrefix(l, "execute_") {
		return true
	}
	for i := 0; ; {
		k := strings.Index(l[i:], "step")
		if k < 0 {
			return false
		}
		k += i
		before := k == 0 || !letter(l[k-1]) && l[k-1] != '.'
		after := k+4 == len(l) || !letter(l[k+4])
		if before && after {
			return true
		}
		i = k + 4
	}
}

func letter(b byte) bool { return b >= 'a' && b <= 'z' }

// stepRanges returns the step windows of one device, sorted and disjoint:
// GPU-side step annotations on its streams when the file has any, else the
// GPU range (first start → last end) of the ops launched inside each
// CPU-side step annotation.
func (a *analyzer) stepRanges(k devKey, ops []int32) []*stepRange {
	st := a.st
	tracks := map[uint32]bool{}
	lastTrack := uint32(0)
	for n, i := range ops {
		if len(st.Annot) == 0 {
			break // no GPU-side annotations to match
		}
		if t := st.GPU[i].Track; n == 0 || t != lastTrack {
			tracks[t], lastTrack = true, t
		}
	}
	var out []*stepRange
	// Kineto writes one gpu_user_annotation per stream the range ran on,
	// all with the CPU annotation's External id (decode_step: 27.6 ms on
	// the compute stream, then 2.2 µs on the NCCL stream): one step is the
	// union of the spans of one id.
	type annotKey struct {
		name uint32
		ext  int64
	}
	byExt := map[annotKey]*stepRange{}
	callsite.Chunks(len(st.Annot), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := &st.Annot[i]
			if s.File == k.file && tracks[s.Track] && a.isStep(s.Name) {
				if s.Ext != trace.None && s.Ext != 0 {
					key := annotKey{s.Name, s.Ext}
					if r := byExt[key]; r != nil {
						r.s, r.e = min(r.s, s.TS), max(r.e, s.End())
						continue
					}
					r := &stepRange{s: s.TS, e: s.End(), name: s.Name}
					byExt[key] = r
					out = append(out, r)
					continue
				}
				out = append(out, &stepRange{s: s.TS, e: s.End(), name: s.Name})
			}
		}
	})
	out = dropContainers(out)
	if len(out) == 0 {
		byAnnot := map[int32]*stepRange{}
		var lastT callsite.Thread
		var n *callsite.Nest
		hint := 0
		callsite.Chunks(len(ops), func(lo, hi int) {
			for _, i := range ops[lo:hi] {
				o := &st.GPU[i]
				l := a.j.Launch(o.File, o.Corr)
				if l < 0 {
					continue
				}
				c := &st.CPU[l]
				if t := (callsite.Thread{File: c.File, Track: c.Track}); n == nil || t != lastT {
					n, lastT, hint = a.j.CPUNest(c.File, c.Track), t, 0
				}
				p, _ := innermost(n, st.CPU, c.TS, &hint)
				// The innermost step annotation that holds no other one: an
				// annotation around steps (ProfilerStep#N around vLLM's
				// execute_…, a harness's execute_… around SGLang's
				// step[DECODE …]) is a container, not a step.
				step := int32(-1)
				for ; p >= 0; p = n.Parent[p] {
					if s := &st.CPU[n.Pos[p]]; s.Kind == trace.KindUserAnnotation && a.isStep(s.Name) && !a.container(n, p) {
						step = n.Pos[p]
						break
					}
				}
				if step < 0 {
					continue
				}
				r := byAnnot[step]
				if r == nil {
					r = &stepRange{s: o.TS, e: o.End(), name: st.CPU[step].Name}
					byAnnot[step] = r
					out = append(out, r)
				}
				r.s, r.e = min(r.s, o.TS), max(r.e, o.End())
			}
		})
	}
	slices.SortStableFunc(out, func(x, y *stepRange) int {
		if x.s != y.s {
			return cmp.Compare(x.s, y.s)
		}
		return cmp.Compare(y.e, x.e)
	})
	kept := out[:0]
	for _, r := range out {
		if n := len(kept); n > 0 {
			if r.e <= kept[n-1].e {
				continue // nested in the previous step
			}
			r.s = max(r.s, kept[n-1].e)
		}
		kept = append(kept, r)
	}
	for _, r := range kept {
		r.row = a.register(&acc{Window: Window{Name: st.Name(r.name), Kind: "step", File: st.Files[k.file].Name, Start: r.s}})
		a.rows = append(a.rows, r.row)
	}
	return kept
}

// container reports whether the step annotation at position p of n holds
// another step annotation (not an equal span: a copy of itself). A step
// annotation that holds none holds no step annotation's span either, so
// the scans of non-containers cover disjoint spans; a container's stops at
// its first step inside.
func (a *analyzer) container(n *callsite.Nest, p int32) bool {
	i := n.Pos[p]
	if v, ok := a.containers[i]; ok {
		return v
	}
	st := a.st
	s := &st.CPU[i]
	v := false
	for q := int(p) + 1; q < len(n.Pos); q++ {
		c := &st.CPU[n.Pos[q]]
		if c.TS >= s.End() {
			break
		}
		if c.Kind == trace.KindUserAnnotation && c.End() <= s.End() && (c.TS != s.TS || c.End() != s.End()) && a.isStep(c.Name) {
			v = true
			break
		}
	}
	if a.containers == nil {
		a.containers = map[int32]bool{}
	}
	a.containers[i] = v
	return v
}

// dropContainers drops the step ranges that hold another (not an equal
// range: one annotation's copies on several streams), keeping the
// innermost level; rs is in any order.
func dropContainers(rs []*stepRange) []*stepRange {
	slices.SortStableFunc(rs, func(x, y *stepRange) int {
		if x.s != y.s {
			return cmp.Compare(x.s, y.s)
		}
		return cmp.Compare(y.e, x.e)
	})
	// minEnd[i]: the least end among the ranges after i's run of equal
	// ranges; a range holds another iff that end is not past its own (the
	// later ranges start no earlier, and one starting at or after its end
	// also ends after it).
	minEnd := make([]int64, len(rs)+1)
	minEnd[len(rs)] = 1<<63 - 1
	for i := len(rs) - 1; i >= 0; i-- {
		minEnd[i] = min(minEnd[i+1], rs[i].e)
	}
	kept := rs[:0:0]
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].s == rs[i].s && rs[j].e == rs[i].e {
			j++
		}
		if minEnd[j] > rs[i].e || rs[i].e <= rs[i].s {
			kept = append(kept, rs[i:j]...)
		}
		i = j
	}
	return kept
}

func (a *analyzer) isStep(id uint32) bool {
	for int(id) >= len(a.stepNames) {
		a.stepNames = append(a.stepNames, make([]uint8, max(64, len(a.stepNames)))...)
	}
	v := a.stepNames[id]
	if v == 0 {
		v = 1
		if stepName(a.st.Name(id)) {
			v = 2
		}
		a.stepNames[id] = v
	}
	return v == 2
}
