package plantstraggler6

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
)

// stepMap is a non-decreasing shift of one rank's clock: Δ added from T on.
// t ↦ t + shift(t) is monotone, so no op of a stream or host thread reorders.
// Steps are kept sorted by T with running sums (p[i] = Δ of steps 0…i), so a
// lookup is a binary search.
type stepMap struct{ t, p []float64 }

func (m *stepMap) add(t, d float64) {
	if d <= 0 {
		return
	}
	i := sort.Search(len(m.t), func(i int) bool { return m.t[i] > t })
	m.t = append(m.t, 0)
	m.p = append(m.p, 0)
	copy(m.t[i+1:], m.t[i:])
	copy(m.p[i+1:], m.p[i:])
	m.t[i] = t
	prev := 0.0
	if i > 0 {
		prev = m.p[i-1]
	}
	m.p[i] = prev + d
	for j := i + 1; j < len(m.p); j++ {
		m.p[j] += d
	}
}

func (m *stepMap) sumTo(n int) float64 {
	if n == 0 {
		return 0
	}
	return m.p[n-1]
}

// at: shift of an instant at t (steps at T ≤ t).
func (m *stepMap) at(t float64) float64 {
	return m.sumTo(sort.Search(len(m.t), func(i int) bool { return m.t[i] > t }))
}

// before: shift of an end at t (steps at T < t): an event ending at T is not stretched.
func (m *stepMap) before(t float64) float64 {
	return m.sumTo(sort.Search(len(m.t), func(i int) bool { return m.t[i] >= t }))
}

type gpuOp struct {
	e          map[string]any
	idx        int
	start, end float64
	launch     float64 // host start of its launch call, NaN without one
	tid        float64
	stream     float64
	coll       bool
}

// rankModel: one rank's original times and its clock maps.
type rankModel struct {
	d       *doc
	ops     []*gpuOp // GPU ops by start
	colls   []*gpuOp // collective kernels by launch (issue order)
	host    stepMap
	gpu     stepMap
	endSet  map[int]float64  // event index → absolute new end of a collective kernel (settled)
	extra   map[int]float64  // event index → added duration (a longer kernel)
	insert  []map[string]any // extra kernels, in new times
	extraOf []extraRun       // extra kernels to place once the maps are final
	launch  map[float64]map[string]any
	commOps []map[string]any // CPU ops that wrap a collective's launch
}

func newRank(d *doc) *rankModel {
	rm := &rankModel{d: d, endSet: map[int]float64{}, extra: map[int]float64{}, launch: map[float64]map[string]any{}}
	for _, e := range d.events {
		switch str(e["cat"]) {
		case "cuda_runtime", "cuda_driver":
			if c, ok := num(args(e)["correlation"]); ok {
				rm.launch[c] = e
			}
		}
	}
	for i, e := range d.events {
		if !rigid(e) {
			continue
		}
		o := &gpuOp{e: e, idx: i, start: ts(e), end: ts(e) + dur(e), launch: math.NaN(), stream: numOr(args(e)["stream"], numOr(e["tid"], 0))}
		if c, ok := num(args(e)["correlation"]); ok {
			if l := rm.launch[c]; l != nil {
				o.launch = ts(l)
				o.tid = numOr(l["tid"], 0)
			}
		}
		o.coll = isCollKernel(e)
		rm.ops = append(rm.ops, o)
		if o.coll {
			rm.colls = append(rm.colls, o)
		}
	}
	sort.SliceStable(rm.ops, func(i, j int) bool { return rm.ops[i].start < rm.ops[j].start })
	sort.SliceStable(rm.colls, func(i, j int) bool { return issue(rm.colls[i]) < issue(rm.colls[j]) })
	return rm
}

func issue(o *gpuOp) float64 {
	if !math.IsNaN(o.launch) {
		return o.launch
	}
	return o.start
}

// instance: one collective matched across ranks (per group and kind, issue order).
type instance struct {
	pg, kind string
	index    int
	ops      map[int]*gpuOp
	slow     float64 // transfer factor (a slow link), 1 = none
}

func groupKey(e map[string]any) (string, string) {
	return str(args(e)["Process Group Name"]), kindOf(e)
}

func matchInstances(ranks []*rankModel) []*instance {
	byKey := map[string]*instance{}
	var out []*instance
	for r, rm := range ranks {
		count := map[string]int{}
		for _, o := range rm.colls {
			pg, kind := groupKey(o.e)
			k := pg + "\x00" + kind
			i := count[k]
			count[k]++
			id := fmt.Sprintf("%s\x00%d", k, i)
			in := byKey[id]
			if in == nil {
				in = &instance{pg: pg, kind: kind, index: i, ops: map[int]*gpuOp{}, slow: 1}
				byKey[id] = in
				out = append(out, in)
			}
			in.ops[r] = o
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].first() < out[j].first() })
	return out
}

func (in *instance) first() float64 {
	m := math.Inf(1)
	for _, o := range in.ops {
		m = math.Min(m, o.start)
	}
	return m
}

func (in *instance) label() string {
	if in.pg != "" {
		return fmt.Sprintf("%s %s #%d", in.pg, in.kind, in.index)
	}
	return fmt.Sprintf("%s #%d", in.kind, in.index)
}

// kernelBefore: the rank's last compute kernel that ends before the collective
// starts and after the rank's previous collective started (so the plant is this
// instance's, not an earlier one's).
func (rm *rankModel) kernelBefore(c *gpuOp) (*gpuOp, error) {
	prev := math.Inf(-1)
	for _, o := range rm.colls {
		if o.start < c.start && o.start > prev {
			prev = o.start
		}
	}
	var best *gpuOp
	for _, o := range rm.ops {
		if o.coll || str(o.e["cat"]) != "kernel" || o.end > c.start || o.end <= prev {
			continue
		}
		if best == nil || o.end > best.end {
			best = o
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no compute kernel between the previous collective and this one")
	}
	return best, nil
}

// hostPoint: where a host pause at the collective's launch begins — the CPU op
// that wraps the launch (record_param_comms, the c10d/symm_mem op), else the launch.
func (rm *rankModel) hostPoint(c *gpuOp) float64 {
	if math.IsNaN(c.launch) {
		return c.start
	}
	t := c.launch
	if rm.commOps == nil {
		rm.commOps = []map[string]any{}
		for _, e := range rm.d.events {
			if str(e["cat"]) != "cpu_op" && str(e["cat"]) != "user_annotation" {
				continue
			}
			n := str(e["name"])
			if n == "record_param_comms" || strings.HasPrefix(n, "nccl:") || strings.HasPrefix(n, "c10d::") || strings.HasPrefix(n, "symm_mem::") {
				rm.commOps = append(rm.commOps, e)
			}
		}
	}
	for _, e := range rm.commOps {
		if numOr(e["tid"], -1) == c.tid && ts(e) <= c.launch && c.launch <= ts(e)+dur(e) && ts(e) < t {
			t = ts(e)
		}
	}
	return t
}

// pauseHost: the host stops Δ at T; each GPU op launched from T on starts no
// sooner than its launch's new time plus its own latency up to 5 µs, against the
// maps as they stand (earlier pauses, longer kernels) — so a GPU queue absorbs
// the pause where it was deeper. Past the first op that had no queue and now
// starts in time, every later op is in time too (the maps only grow).
func (rm *rankModel) pauseHost(T, delta float64) {
	rm.host.add(T, delta)
	for _, o := range rm.ops {
		if math.IsNaN(o.launch) || o.launch < T {
			continue
		}
		lat := o.start - o.launch
		deficit := o.launch + rm.host.at(o.launch) + math.Min(lat, 5) - (o.start + rm.gpu.at(o.start))
		if deficit > 1e-9 {
			rm.gpu.add(o.start, deficit)
		}
		if lat <= 5 {
			break
		}
	}
}

// longer: the kernel runs Δ longer; the rank's GPU is Δ later from its end on.
func (rm *rankModel) longer(k *gpuOp, delta float64) {
	rm.extra[k.idx] += delta
	rm.gpu.add(k.end, delta)
}

// extraKernels: n copies of k run right after it (GPU work its peers do not have).
// The copies are placed when the maps are final, after k's new end.
func (rm *rankModel) extraKernels(k *gpuOp, n int, gap float64) float64 {
	d := k.end - k.start
	delta := float64(n) * (d + gap)
	rm.gpu.add(k.end, delta)
	rm.extraOf = append(rm.extraOf, extraRun{k: k, n: n, gap: gap})
	return delta
}

type extraRun struct {
	k   *gpuOp
	n   int
	gap float64
}

func (rm *rankModel) placeExtra() {
	for _, x := range rm.extraOf {
		k := x.k
		d := k.end - k.start
		base := k.end + rm.gpu.at(k.start) + rm.extra[k.idx] // k's own new end
		for i := 0; i < x.n; i++ {
			c := map[string]any{}
			for kk, v := range k.e {
				c[kk] = v
			}
			a := map[string]any{}
			for kk, v := range args(k.e) {
				if kk == "correlation" || kk == "External id" {
					continue
				}
				a[kk] = v
			}
			c["args"] = a
			c["ts"] = jnum(base + x.gap + float64(i)*(d+x.gap))
			c["dur"] = jnum(d)
			rm.insert = append(rm.insert, c)
		}
	}
}

// settle re-times every instance, earliest first: each rank's kernel ends at the
// new latest start plus its old (end − latest start) (× slow for a slow link);
// a rank whose kernel now ends later has its GPU move on that much later, and
// its host keeps pace from there.
//
// A plant or jitter before an instance (pre, by the rank's kernel) is made right
// before the instance settles: a host pause is then measured against the maps
// of every earlier wait, so the host never moves past what its GPU allows.
func settle(ranks []*rankModel, ins []*instance, pre map[*gpuOp][]func()) {
	for _, in := range ins {
		for r := 0; r < len(ranks); r++ {
			if o := in.ops[r]; o != nil {
				for _, f := range pre[o] {
					f()
				}
			}
		}
		L, Ln := math.Inf(-1), math.Inf(-1)
		for r, o := range in.ops {
			L = math.Max(L, o.start)
			Ln = math.Max(Ln, o.start+ranks[r].gpu.at(o.start))
		}
		for r, o := range in.ops {
			rm := ranks[r]
			target := Ln + in.slow*(o.end-L)
			rm.endSet[o.idx] = target
			moved := o.end + rm.gpu.at(o.end)
			if need := target - moved; need > 1e-9 {
				rm.gpu.add(o.end, need)
			}
			// The host keeps pace with its GPU from the collective on (else
			// every later kernel would sit after its launch on an idle GPU).
			if h := rm.gpu.at(o.end) - rm.host.at(o.end); h > 1e-9 {
				rm.host.add(o.end, h)
			}
		}
	}
}

// apply writes the new times into the rank's events.
func (rm *rankModel) apply() {
	for i, e := range rm.d.events {
		if str(e["ph"]) == "M" {
			continue
		}
		t, ok := num(e["ts"])
		if !ok {
			continue
		}
		_, hasDur := e["dur"]
		d := dur(e)
		m := &rm.host
		if gpuSide(e) {
			m = &rm.gpu
		}
		if rigid(e) {
			s := m.at(t)
			nt := t + s
			nd := d + rm.extra[i]
			if end, ok := rm.endSet[i]; ok {
				nd = end - nt
			}
			e["ts"] = jnum(nt)
			e["dur"] = jnum(nd)
			continue
		}
		nt := t + m.at(t)
		e["ts"] = jnum(nt)
		if hasDur && d > 0 {
			e["dur"] = jnum(t + d + m.before(t+d) - nt)
		}
	}
	rm.placeExtra()
	rm.d.events = append(rm.d.events, rm.insert...)
}

// jitterRank gives a cloned rank its own natural lateness: before each
// collective, seeded, either its last compute kernel runs a little longer or
// its host reaches the launch a little late. The changes are queued on the
// collective (pre), to be made just before it settles.
//
// maxQueue > 0: at a collective queued longer than that behind its launch the
// host's share is the kernel's too (a pause there would move GPU ops of other
// streams that ran before it — one GPU map per rank — past collectives already settled).
func jitterRank(rm *rankModel, rng *rand.Rand, amp, maxQueue float64, pre map[*gpuOp][]func()) {
	for _, c := range rm.colls {
		u := math.Round(rng.Float64() * amp)
		c := c
		deep := maxQueue > 0 && !(c.start-c.launch <= maxQueue)
		if rng.Intn(2) == 0 || deep {
			if k, err := rm.kernelBefore(c); err == nil {
				pre[c] = append(pre[c], func() { rm.longer(k, u) })
				continue
			}
		}
		if deep {
			continue
		}
		pre[c] = append(pre[c], func() { rm.pauseHost(rm.hostPoint(c), u) })
	}
}
