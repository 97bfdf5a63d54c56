package overlap

import (
	"cmp"
	"slices"
)

// sweep walks the starts and ends of every formal op in time order. In each
// segment between two consecutive points an active op is hidden if an op
// on another stream is active too, otherwise exclusive; hidden time is
// charged to the highest-priority bucket active on the other streams
// (compute, then communication, memory, elementwise, other), so "hidden by
// compute" is the upstream definition. It also totals busy time, ≥ 2-stream
// overlap, peak concurrent streams, the communication ∩ compute-kernel
// overlap and per-stage busy time, and keeps the hidden spans from which
// makeRow credits a row's dominant overlapping kernel.
//
// The work is O(n log n) however many ops are active at once (100 k
// mutually crossing kernels were 72 s when every segment visited every
// active op): per segment only O(1) global counters move, and an op reads
// its own figures as differences of those counters between its start and
// its end. The op that hides another is the best active op on another
// stream, so only two candidates exist per segment: the best overall (B1)
// and the best on a stream other than B1's (B2, what B1's own stream sees).
func (a *analyzer) sweep(res *Result) {
	type point struct {
		t     int64
		start bool
		op    int32
	}
	pts := make([]point, 0, 2*len(a.ops))
	for k := range a.ops {
		if a.ops[k].end > a.ops[k].ts { // empty ops take no time
			pts = append(pts, point{a.ops[k].ts, true, int32(k)}, point{a.ops[k].end, false, int32(k)})
		}
	}
	slices.SortFunc(pts, func(x, y point) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		if x.start != y.start { // ends first
			if x.start {
				return 1
			}
			return -1
		}
		return cmp.Compare(x.op, y.op)
	})
	// Row ids must exist before the sweep records what hides them.
	a.assignRows()
	nS := len(a.streams)
	cnt := make([]int32, nS) // active ops per stream
	var active, streams, streamSum int
	var commK, otherK int
	// Stage busy time, keyed like a 64-bit mask of stage&63 (stages past 63
	// alias onto it; real traces have a handful).
	var stageCnt [64]int32
	var stageFrom [64]int64
	stageBusy := make([]int64, len(a.stages))
	excl := make([]int64, nS)      // cumulative time each stream ran alone
	var hidAll [5]int64            // cumulative hidden time, by B1's bucket
	hidFix := make([][5]int64, nS) // B1's stream sees B2's bucket instead
	best := newBestOf(a, nS)
	a.spans = a.spans[:0]
	s := &res.Summary
	var prev int64
	for _, p := range pts {
		if seg := p.t - prev; seg > 0 && active > 0 {
			s.BusyUS += us(seg)
			if streams >= 2 {
				s.OverlapUS += us(seg)
			}
			s.PeakStreams = max(s.PeakStreams, streams)
			if commK > 0 && otherK > 0 {
				s.CommComputeUS += us(seg)
			}
			if streams == 1 {
				excl[streamSum] += seg
			} else {
				b1, b2 := best.top()
				s1 := a.ops[b1].stream
				k1, k2 := a.ops[b1].bucket, a.ops[b2].bucket
				hidAll[k1] += seg
				hidFix[s1][k1] -= seg
				hidFix[s1][k2] += seg
				if n := len(a.spans); n > 0 && a.spans[n-1].to == prev && a.spans[n-1].b1 == b1 && a.spans[n-1].b2 == b2 {
					a.spans[n-1].to = p.t
				} else {
					a.spans = append(a.spans, span{from: prev, to: p.t, b1: b1, b2: b2})
				}
			}
		}
		prev = p.t
		o := &a.ops[p.op]
		st := o.stage & 63
		if p.start {
			o.excl = -excl[o.stream]
			for b := range o.hidBy {
				o.hidBy[b] = -(hidAll[b] + hidFix[o.stream][b])
			}
			active++
			if cnt[o.stream] == 0 {
				streams++
				streamSum += int(o.stream)
			}
			cnt[o.stream]++
			if o.kernel {
				if o.bucket == bComm {
					commK++
				} else {
					otherK++
				}
			}
			if stageCnt[st] == 0 {
				stageFrom[st] = p.t
			}
			stageCnt[st]++
			best.add(p.op)
			continue
		}
		o.excl += excl[o.stream]
		o.hid = o.end - o.ts - o.excl
		for b := range o.hidBy {
			o.hidBy[b] += hidAll[b] + hidFix[o.stream][b]
		}
		active--
		cnt[o.stream]--
		if cnt[o.stream] == 0 {
			streams--
			streamSum -= int(o.stream)
		}
		if o.kernel {
			if o.bucket == bComm {
				commK--
			} else {
				otherK--
			}
		}
		stageCnt[st]--
		if stageCnt[st] == 0 && int(st) < len(stageBusy) {
			stageBusy[st] += p.t - stageFrom[st]
		}
		best.remove(p.op)
	}
	a.stageBusy = stageBusy
}

// span is a stretch of time with at least two streams active during which
// the same ops hide the others: b1 hides every op not on its own stream,
// b2 the ops on b1's stream.
type span struct {
	from, to int64
	b1, b2   int32
}

// overlapWith returns row r's dominant overlapping kernel (canonical id,
// -1 for none) and the hidden time it accounts for: the kernel whose ops
// hid the row's ops longest (ties: the lower canonical id). It walks the
// row's own ops against the hidden spans they meet, so the work is the
// row's size plus those spans, and only rows that are shown pay it.
func (a *analyzer) overlapWith(r int32) (int32, int64) {
	if a.rowOps == nil {
		a.rowOps = make([][]int32, len(a.acc))
		for k := range a.ops {
			if o := &a.ops[k]; o.end > o.ts {
				a.rowOps[o.row] = append(a.rowOps[o.row], int32(k))
			}
		}
	}
	type ev struct {
		t      int64
		stream int32
		d      int32
	}
	ops := a.rowOps[r]
	evs := make([]ev, 0, 2*len(ops))
	for _, k := range ops {
		o := &a.ops[k]
		evs = append(evs, ev{o.ts, o.stream, 1}, ev{o.end, o.stream, -1})
	}
	slices.SortFunc(evs, func(x, y ev) int { return cmp.Compare(x.t, y.t) })
	perStream := map[int32]int64{}
	var n int64
	credit := map[int32]int64{}
	spans := a.spans
	j := 0
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			perStream[evs[i].stream] += int64(evs[i].d)
			n += int64(evs[i].d)
		}
		if n == 0 {
			continue
		}
		next := evs[i].t // n > 0: an end is still to come
		if j == 0 {
			j, _ = slices.BinarySearchFunc(spans, t, func(s span, t int64) int { return cmp.Compare(s.to, t+1) })
		}
		for j < len(spans) && spans[j].to <= t {
			j++
		}
		for k := j; k < len(spans) && spans[k].from < next; k++ {
			sp := &spans[k]
			d := min(sp.to, next) - max(sp.from, t)
			on1 := perStream[a.ops[sp.b1].stream]
			if n > on1 {
				credit[a.ops[sp.b1].canon] += d * (n - on1)
			}
			if on1 > 0 {
				credit[a.ops[sp.b2].canon] += d * on1
			}
		}
	}
	bestC, bestT := int32(-1), int64(0)
	for c, v := range credit {
		if v > bestT || v == bestT && bestC >= 0 && c < bestC {
			bestC, bestT = c, v
		}
	}
	return bestC, bestT
}

// bestOf keeps, among the active ops, the best of each stream (a heap per
// stream) and the best two streams (a tournament tree over the streams'
// bests), in O(log n) per start or end. Better = higher bucket, then
// longer, then lower index: the op credited with hiding the others.
type bestOf struct {
	a     *analyzer
	heaps [][]int32 // per stream; ended ops leave lazily
	alive []bool
	size  int
	tree  [][2]int32 // node → best two op ids on distinct streams (-1 none)
}

func newBestOf(a *analyzer, streams int) *bestOf {
	size := 1
	for size < streams {
		size *= 2
	}
	t := make([][2]int32, 2*size)
	for i := range t {
		t[i] = [2]int32{-1, -1}
	}
	return &bestOf{a: a, heaps: make([][]int32, streams), alive: make([]bool, len(a.ops)), size: size, tree: t}
}

func (b *bestOf) better(x, y int32) bool {
	if y < 0 {
		return x >= 0
	}
	if x < 0 {
		return false
	}
	p, q := &b.a.ops[x], &b.a.ops[y]
	if p.bucket != q.bucket {
		return p.bucket > q.bucket
	}
	if dp, dq := p.end-p.ts, q.end-q.ts; dp != dq {
		return dp > dq
	}
	return x < y
}

// top returns the best active op and the best on another stream.
func (b *bestOf) top() (int32, int32) { return b.tree[1][0], b.tree[1][1] }

func (b *bestOf) add(k int32) {
	b.alive[k] = true
	s := b.a.ops[k].stream
	h := append(b.heaps[s], k)
	for i := len(h) - 1; i > 0; { // sift up
		p := (i - 1) / 2
		if !b.better(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	b.heaps[s] = h
	if h[0] == k {
		b.set(s, k)
	}
}

func (b *bestOf) remove(k int32) {
	b.alive[k] = false
	s := b.a.ops[k].stream
	h := b.heaps[s]
	if h[0] != k {
		return // it leaves when it reaches the top
	}
	for len(h) > 0 && !b.alive[h[0]] {
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		for i := 0; ; { // sift down
			l, m := 2*i+1, i
			if l < len(h) && b.better(h[l], h[m]) {
				m = l
			}
			if l+1 < len(h) && b.better(h[l+1], h[m]) {
				m = l + 1
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	b.heaps[s] = h
	top := int32(-1)
	if len(h) > 0 {
		top = h[0]
	}
	b.set(s, top)
}

// set makes k stream s's best and replays the tournament above it.
func (b *bestOf) set(s, k int32) {
	i := b.size + int(s)
	b.tree[i] = [2]int32{k, -1}
	for i /= 2; i >= 1; i /= 2 {
		l, r := b.tree[2*i], b.tree[2*i+1]
		// each child's two are on distinct streams, and the children's
		// streams are disjoint
		var out [2]int32
		if b.better(l[0], r[0]) {
			out[0] = l[0]
			out[1] = r[0]
			if b.better(l[1], r[0]) {
				out[1] = l[1]
			}
		} else {
			out[0] = r[0]
			out[1] = l[0]
			if b.better(r[1], l[0]) {
				out[1] = r[1]
			}
		}
		b.tree[i] = out
	}
}
