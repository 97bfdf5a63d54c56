package overlap

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
)

type rowAcc struct {
	stage uint8
	canon int32
	count int64
	total int64
	excl  int64
	wait  int64 // exclusive time spent waiting for a late rank (collectives)
	hid   int64
	hidBy [5]int64
	src   map[int32]int64
	via   [nVia]int64
	rep   int32 // longest op (first on ties)
}

func (r *rowAcc) exclRatio() float64 { return frac(r.excl, r.total) }

// reach is the exclusive time overlap could hide: collective wait is not.
func (r *rowAcc) reach() int64      { return r.excl - r.wait }
func (r *rowAcc) hidRatio() float64 { return frac(r.hid, r.total) }

func frac(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// assignRows gives every op its (stage, canonical kernel) row and indexes
// ops per stream in start order.
func (a *analyzer) assignRows() {
	a.rowIdx = map[[2]int32]int32{}
	for k := range a.ops {
		o := &a.ops[k]
		key := [2]int32{int32(o.stage), o.canon}
		r, ok := a.rowIdx[key]
		if !ok {
			r = int32(len(a.acc))
			a.rowIdx[key] = r
			a.acc = append(a.acc, rowAcc{stage: o.stage, canon: o.canon, src: map[int32]int64{}, rep: -1})
		}
		o.row = r
		a.byStream[o.stream] = append(a.byStream[o.stream], int32(k))
	}
	for _, ids := range a.byStream {
		slices.SortFunc(ids, func(x, y int32) int {
			p, q := &a.ops[x], &a.ops[y]
			if c := cmp.Compare(p.ts, q.ts); c != 0 {
				return c
			}
			if c := cmp.Compare(p.end, q.end); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		for pos, id := range ids {
			a.ops[id].position = int32(pos)
		}
	}
}

func (a *analyzer) rows(res *Result) {
	s := &res.Summary
	s.Ops = len(a.ops)
	s.Streams = append(s.Streams, a.streams...)
	slices.Sort(s.Streams)
	s.Streams = slices.Compact(s.Streams) // stage files reuse stream numbers
	s.OverlapShare = ratio(frac(int64(s.OverlapUS), int64(s.BusyUS)))
	var total int64
	var mapped, python int64
	var via [nVia]int64
	canonSrc := map[int32]map[int32]int64{}
	for k := range a.ops {
		o := &a.ops[k]
		d := o.end - o.ts
		r := &a.acc[o.row]
		r.count++
		r.total += d
		r.excl += o.excl
		if w := a.opt.Wait[o.i]; w > 0 {
			r.wait += min(w, o.excl)
		}
		r.hid += o.hid
		for b := range r.hidBy {
			r.hidBy[b] += o.hidBy[b]
		}
		r.via[o.via] += d
		if o.src != 0 {
			r.src[o.src] += d
			if canonSrc[o.canon] == nil {
				canonSrc[o.canon] = map[int32]int64{}
			}
			canonSrc[o.canon][o.src] += d
		}
		if r.rep < 0 || d > a.ops[r.rep].end-a.ops[r.rep].ts {
			r.rep = int32(k)
		}
		total += d
		via[o.via] += d
		if a.srcs.mapped(o.src) {
			mapped += d
		}
		if a.srcs.scoped(o.src) {
			python += d
		}
	}
	s.MappingCoverage = ratio(frac(mapped, total))
	s.PythonCoverage = ratio(frac(python, total))
	s.Direct = ratio(frac(via[viaDirect], total))
	s.BySequence = ratio(frac(via[viaSequence], total))
	s.ByName = ratio(frac(via[viaName], total))
	s.ByCapture = ratio(frac(via[viaCapture], total))
	s.MappedVia = "none"
	if mapped > 0 {
		v := via
		v[viaNone] = 0
		s.MappedVia = mappedBy(v)
	}
	canonBest := map[int32]int32{}
	res.locate = map[string]string{}
	for c, m := range canonSrc {
		canonBest[c] = topKey(m)
		src := a.srcs.get(canonBest[c])
		switch {
		case src.Scope != "":
			res.locate[a.canons[c]] = src.Scope
		case src.LaunchOp != "":
			res.locate[a.canons[c]] = "op: " + src.LaunchOp
		}
	}
	res.kmap = a.kernelMap(canonSrc)

	// Stage summaries, in table order.
	order := make([]int, len(a.stages))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if d := callsite.Rank(a.stages[x]) - callsite.Rank(a.stages[y]); d != 0 {
			return d
		}
		return strings.Compare(a.stages[x], a.stages[y])
	})
	stageTime := make([]int64, len(a.stages))
	a.streamTime = map[[2]int32]int64{}
	for k := range a.ops {
		d := a.ops[k].end - a.ops[k].ts
		stageTime[a.ops[k].stage] += d
		a.streamTime[[2]int32{int32(a.ops[k].stage), a.ops[k].stream}] += d
	}
	a.stageTime = stageTime
	for _, st := range order {
		s.Stages = append(s.Stages, StageSummary{Stage: a.stages[st], GPUTimeUS: us(stageTime[st]), BusyUS: us(a.stageBusy[st])})
	}

	byStage := make([][]int32, len(a.stages))
	for r := range a.acc {
		byStage[a.acc[r].stage] = append(byStage[a.acc[r].stage], int32(r))
	}
	for _, st := range order {
		if a.opt.Stage != "" && a.stages[st] != a.opt.Stage {
			continue
		}
		busy := a.stageBusy[st]
		rs := byStage[st]
		name := func(r int32) string { return a.canons[a.acc[r].canon] }
		// headroom: ≥ 5 µs and ≥ 45 % exclusive, non-compute first by
		// weighted exclusive time, compute only as fallback.
		var primary, fallback []int32
		for _, r := range rs {
			x := &a.acc[r]
			if x.total >= 5000 && frac(x.reach(), x.total) >= 0.45 {
				if a.bucketOfRow(x) == bCompute {
					fallback = append(fallback, r)
				} else {
					primary = append(primary, r)
				}
			}
		}
		byWeighted := func(p, q int32) int {
			x, y := &a.acc[p], &a.acc[q]
			wx := float64(x.reach()) * a.bucketOfRow(x).weight()
			wy := float64(y.reach()) * a.bucketOfRow(y).weight()
			if wx != wy {
				return cmp.Compare(wy, wx)
			}
			return strings.Compare(name(p), name(q))
		}
		slices.SortFunc(primary, byWeighted)
		slices.SortFunc(fallback, byWeighted)
		head := append(primary, fallback...)
		head = head[:min(len(head), a.opt.Limit)]
		seen := map[int32]bool{}
		for _, r := range head {
			row := a.makeRow(r, "headroom", busy, canonBest)
			if row.Priority == "P5" {
				continue
			}
			res.Rows = append(res.Rows, row)
			seen[r] = true
		}
		// low-roi-hidden: elementwise/memory, ≥ 5 µs, ≥ 65 % hidden.
		var low []int32
		for _, r := range rs {
			x := &a.acc[r]
			b := a.bucketOfRow(x)
			if (b == bElementwise || b == bMemory) && x.total >= 5000 && x.hidRatio() >= 0.65 {
				low = append(low, r)
			}
		}
		score := func(x *rowAcc) float64 {
			return float64(x.hid) * (1 + float64(x.hidBy[bCompute])/float64(max(x.hid, 1000)))
		}
		slices.SortFunc(low, func(p, q int32) int {
			x, y := &a.acc[p], &a.acc[q]
			if c := cmp.Compare(score(y), score(x)); c != 0 {
				return c
			}
			if c := cmp.Compare(y.hidRatio(), x.hidRatio()); c != 0 {
				return c
			}
			return strings.Compare(name(p), name(q))
		})
		for _, r := range low[:min(len(low), a.opt.Limit)] {
			if seen[r] {
				continue
			}
			res.Rows = append(res.Rows, a.makeRow(r, "low-roi-hidden", busy, canonBest))
			seen[r] = true
		}
		if len(rs) > 0 && a.activeStreams(a.acc[rs[0]].stage, busy) <= 1 {
			for i := range res.Rows {
				if row := &res.Rows[i]; row.Stage == a.stages[st] && row.Verdict == "headroom" {
					row.Suggestion += " Single stream: hiding it needs a second stream (or a split graph) and independence from its neighbours; otherwise fusing it into a neighbour is the lever."
				}
			}
		}
		res.Rows = append(res.Rows, a.dominantRows(rs, seen, busy, canonBest)...)
	}
}

// Dominant rows: the kernels that hold the stage's time, which the §12.3
// verdicts skip (compute is only a fallback, and 100 %-exclusive norm/RoPE
// kernels fill the table on single-stream graph replays). Each says what
// overlap could buy: at most the exposed non-compute time of the stage
// that could move under it, and nothing on a single stream, where the
// kernel bounds the stage by itself.
const (
	dominantShare = 0.05 // of the stage's busy time
	dominantRows  = 3
)

// activeStreams counts the streams that carry at least 1 % of a stage's
// busy time: a stray 5 µs op on a side stream does not make a single-stream
// graph replay multi-stream.
func (a *analyzer) activeStreams(st uint8, busy int64) int {
	per := map[int32]int64{}
	for k := range a.ops {
		if o := &a.ops[k]; o.stage == st {
			per[o.stream] += o.end - o.ts
		}
	}
	n := 0
	for _, t := range per {
		if frac(t, busy) >= 0.01 {
			n++
		}
	}
	return n
}

func (a *analyzer) dominantRows(rs []int32, seen map[int32]bool, busy int64, canonBest map[int32]int32) []Row {
	if len(rs) == 0 {
		return nil
	}
	nstreams := a.activeStreams(a.acc[rs[0]].stage, busy)
	var exposed, exposedComm int64 // exclusive time of the stage's non-compute work
	var cand []int32
	for _, r := range rs {
		x := &a.acc[r]
		switch a.bucketOfRow(x) {
		case bCompute:
			if !seen[r] && frac(x.total, busy) >= dominantShare {
				cand = append(cand, r)
			}
			continue
		case bComm:
			exposedComm += x.reach()
		}
		exposed += x.reach()
	}
	slices.SortFunc(cand, func(p, q int32) int {
		if c := cmp.Compare(a.acc[q].total, a.acc[p].total); c != 0 {
			return c
		}
		return strings.Compare(a.canons[a.acc[p].canon], a.canons[a.acc[q].canon])
	})
	var out []Row
	for _, r := range cand[:min(len(cand), dominantRows)] {
		x := &a.acc[r]
		row := a.makeRow(r, "dominant", busy, canonBest)
		row.StageStreams = nstreams
		switch {
		case nstreams <= 1 && frac(exposedComm, busy) >= 0.01:
			row.OverlapGainUS = us(min(x.excl, exposedComm))
			row.Priority, row.Recommendation = "P2", "move comm to a side stream"
			row.Suggestion = "Single stream: communication runs in line with compute. On its own stream, up to " + row.OverlapGainUS.String() + " us of it could run under this kernel (if the data dependencies allow); the kernel's own " + us(x.total).String() + " us stay."
		case nstreams <= 1:
			row.OverlapGainUS = 0
			row.Priority, row.Recommendation = "P3", "tune the kernel"
			row.Suggestion = "Single stream: " + pct(row.Share) + " of the stage is this kernel and nothing runs beside it; overlap would need a second stream or a split graph, and cannot shorten the kernel itself. Speed it up (tile/solution choice, fusion of its epilogue) or shrink its work."
		default:
			gain := min(x.excl, exposed)
			row.OverlapGainUS = us(gain)
			switch {
			case frac(exposedComm, busy) >= 0.01:
				row.Priority, row.Recommendation = "P2", "hide comm under it"
				row.Suggestion = "Up to " + us(min(x.excl, exposedComm)).String() + " us of exposed communication could run under this kernel on another stream (if the data dependencies allow); the kernel's own " + us(x.total).String() + " us stay."
			default:
				row.Priority, row.Recommendation = "P4", "critical path"
				row.Suggestion = "On the critical path; the stage's other streams leave " + us(gain).String() + " us of exposed work that could still move under it. Beyond that only a faster kernel helps."
			}
		}
		out = append(out, row)
	}
	return out
}

func (a *analyzer) bucketOfRow(r *rowAcc) bucket { return bucketOf(a.canonCat[r.canon]) }

func topKey(m map[int32]int64) int32 {
	var best int32
	var bt int64 = -1
	for k, v := range m {
		if v > bt || v == bt && k < best {
			best, bt = k, v
		}
	}
	return best
}

func (a *analyzer) makeRow(r int32, verdict string, busy int64, canonBest map[int32]int32) Row {
	x := &a.acc[r]
	b := a.bucketOfRow(x)
	src := a.srcs.get(topKey(x.src))
	row := Row{
		Stage: a.stages[x.stage], Verdict: verdict, Kernel: a.canons[x.canon], Category: b.String(),
		KernelCategory: a.canonCat[x.canon], PythonScope: src.Scope, LaunchOp: src.LaunchOp, OpChain: src.OpChain,
		CallChain: src.Chain, AnnotationPath: src.Annot, Launches: x.count, TotalUS: us(x.total), Share: ratio(frac(x.total, busy)),
		ExclusiveRatio: ratio(x.exclRatio()), HiddenRatio: ratio(x.hidRatio()),
		HiddenByComputeRatio: ratio(frac(x.hidBy[bCompute], x.total)), HiddenByCommRatio: ratio(frac(x.hidBy[bComm], x.total)),
		MappingRatio: ratio(frac(x.total-x.via[viaNone], x.total)), rep: x.rep,
	}
	if len(x.src) == 0 {
		row.MappingRatio = 0
	}
	row.MappedBy = mappedBy(x.via)
	if x.hid > 0 {
		best := bCompute
		for _, b := range []bucket{bComm, bMemory, bElementwise, bOther} {
			if x.hidBy[b] > x.hidBy[best] {
				best = b
			}
		}
		row.HiddenBy = best.String()
	}
	// Dominant overlapping kernel.
	bestC, bestT := a.overlapWith(r)
	if bestC >= 0 {
		row.OverlapWith = a.canons[bestC]
		row.OverlapWithUS = us(bestT)
	}
	row.DepSignal, row.PrevNeighbor, row.NextNeighbor = a.dependency(x.rep, canonBest)
	row.DepRisk = depRisk(row.DepSignal)
	row.Priority, row.Recommendation = priority(verdict, b, row.DepRisk, x, float64(row.Share)*100)
	row.Suggestion = suggestion(verdict, b, x, row.OverlapWith)
	// Hiding it saves at most its exclusive time, less collective wait
	// (waiting for a late rank is never headroom), and no more than the
	// stage's work on other streams that could run beside it: on a
	// single-stream stage nothing can, whatever its exclusive time.
	other := a.stageTime[x.stage] - a.streamTime[[2]int32{int32(x.stage), a.ops[x.rep].stream}]
	row.ConcurrentWorkUS = us(other)
	row.OverlapGainUS = us(max(0, min(x.reach(), other)))
	row.CollectiveWaitUS = us(x.wait)
	if x.wait > 0 {
		row.Suggestion += " " + us(x.wait).String() + " us of its exclusive time is waiting for the last rank to reach the collective: no overlap buys that back, only making the late rank faster does (ranks.json)."
	}
	return row
}

func mappedBy(v [nVia]int64) string {
	names := [nVia]string{"none", "direct", "sequence", "name", "capture"}
	best := 0
	for i := 1; i < int(nVia); i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	return names[best]
}

var scopeSig = regexp.MustCompile(`^(.+?)\(\d+\):\s*(.+)$`)

// sameScopeFamily: same file, or same function name.
func sameScopeFamily(x, y string) bool {
	if x == "" || y == "" {
		return false
	}
	mx, my := scopeSig.FindStringSubmatch(x), scopeSig.FindStringSubmatch(y)
	px, fx, py, fy := x, "", y, ""
	if mx != nil {
		px, fx = mx[1], mx[2]
	}
	if my != nil {
		py, fy = my[1], my[2]
	}
	return px == py || fx != "" && fx == fy
}

// dependencyLike: producer/consumer-looking neighbour categories.
func dependencyLike(cur, nb bucket) bool {
	switch cur {
	case bComm:
		return nb == bCompute || nb == bElementwise || nb == bMemory || nb == bOther
	case bElementwise, bMemory:
		return nb == bCompute || nb == bComm || nb == bElementwise || nb == bMemory
	}
	return false
}

// dependency classifies the representative op's nearest same-stream
// neighbours: tight gap (≤ max(2, min(20, 0.15·dur)) µs) and same scope
// family / same launch op / producer-consumer category → serial risk.
func (a *analyzer) dependency(rep int32, canonBest map[int32]int32) (signal, prev, next string) {
	o := &a.ops[rep]
	ids := a.byStream[o.stream]
	cur := a.srcs.get(canonBest[o.canon])
	thr := max(int64(2000), min(int64(20000), (o.end-o.ts)*15/100))
	side := func(nb int32, gap int64) (risk, unclear bool, desc string) {
		if nb < 0 {
			return false, false, "none"
		}
		n := &a.ops[nb]
		ns := a.srcs.get(canonBest[n.canon])
		gap = max(gap, 0)
		scope := ns.Scope
		if scope == "" {
			scope = "unmapped"
		}
		desc = short(a.canons[n.canon], 40) + " @ " + short(scope, 40) + " (gap " + us(gap).String() + " us)"
		if gap > thr {
			return false, false, desc
		}
		risk = sameScopeFamily(cur.Scope, ns.Scope) ||
			cur.LaunchOp != "" && cur.LaunchOp == ns.LaunchOp ||
			dependencyLike(o.bucket, n.bucket)
		unclear = !risk && (cur.Scope == "" || ns.Scope == "")
		return risk, unclear, desc
	}
	pn, nn := int32(-1), int32(-1)
	var pg, ng int64
	if p := o.position; p > 0 {
		pn = ids[p-1]
		pg = o.ts - a.ops[pn].end
	}
	if p := int(o.position); p+1 < len(ids) {
		nn = ids[p+1]
		ng = a.ops[nn].ts - o.end
	}
	pr, pu, prev := side(pn, pg)
	nr, nu, next := side(nn, ng)
	switch {
	case pr && nr:
		signal = "both-side serial risk"
	case pr:
		signal = "prev-side serial risk"
	case nr:
		signal = "next-side serial risk"
	case pu || nu:
		signal = "adjacency unclear"
	default:
		signal = "serial risk low"
	}
	return signal, prev, next
}

func depRisk(signal string) string {
	switch signal {
	case "serial risk low":
		return "low"
	case "adjacency unclear":
		return "unclear"
	}
	return "high"
}

// priority follows §12.3: share < 1 % → P5; headroom + low risk → P1 (try
// overlap for communication, try fusion otherwise); headroom + risk → P2;
// low-roi-hidden → P4; the rest P3/P4/P5.
func priority(verdict string, b bucket, risk string, x *rowAcc, sharePct float64) (string, string) {
	if sharePct < 1 {
		return "P5", "skip overlap"
	}
	switch verdict {
	case "headroom":
		if risk == "low" {
			if b == bComm {
				return "P1", "try overlap"
			}
			return "P1", "try fusion"
		}
		return "P2", "check deps"
	case "low-roi-hidden":
		return "P4", "skip overlap"
	}
	switch {
	case x.exclRatio() >= 0.85 && risk == "low":
		return "P3", "observe later"
	case x.hidRatio() >= 0.7:
		return "P5", "skip overlap"
	case risk == "high":
		return "P4", "check deps"
	case risk == "unclear":
		return "P4", "manual check"
	}
	return "P4", "observe later"
}

func suggestion(verdict string, b bucket, x *rowAcc, overlapWith string) string {
	switch verdict {
	case "headroom":
		switch b {
		case bComm:
			return "Communication is exposed: check whether it can run under nearby compute on another stream."
		case bElementwise, bMemory:
			return "Still exposed: fuse it into a neighbour or move it under a compute-heavy window."
		}
		return "Exposed time remains: inspect stream placement and the surrounding dependencies."
	case "low-roi-hidden":
		if overlapWith != "" {
			return "Mostly hidden under " + short(overlapWith, 48) + ": tuning it alone is low ROI."
		}
		return "Mostly hidden already: change it only together with fusion or scheduling."
	}
	return ""
}

// kernelMap lists every canonical kernel of the analysed GPU with its
// dominant source, by GPU time.
func (a *analyzer) kernelMap(canonSrc map[int32]map[int32]int64) []MapRow {
	type acc struct {
		n, t int64
		via  [nVia]int64
	}
	accs := map[int32]*acc{}
	for k := range a.ops {
		o := &a.ops[k]
		x := accs[o.canon]
		if x == nil {
			x = &acc{}
			accs[o.canon] = x
		}
		x.n++
		x.t += o.end - o.ts
		x.via[o.via] += o.end - o.ts
	}
	out := make([]MapRow, 0, len(accs))
	for c, x := range accs {
		r := MapRow{Kernel: a.canons[c], Category: a.canonCat[c], Launches: x.n, GPUTimeUS: us(x.t), MappedBy: mappedBy(x.via)}
		if m := canonSrc[c]; len(m) > 0 {
			best := topKey(m)
			src := a.srcs.get(best)
			r.PythonScope, r.CallChain, r.LaunchOp, r.OpChain, r.AnnotationPath = src.Scope, src.Chain, src.LaunchOp, src.OpChain, src.Annot
			r.SourceShare = ratio(frac(m[best], x.t))
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y MapRow) int {
		if c := cmp.Compare(y.GPUTimeUS, x.GPUTimeUS); c != 0 {
			return c
		}
		return strings.Compare(x.Kernel, y.Kernel)
	})
	return out
}
