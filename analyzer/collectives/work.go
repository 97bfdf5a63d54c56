package collectives

import (
	"cmp"
	"math"
	"slices"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Stalls by extra GPU work. The ranks of a data- or tensor-parallel job
// run the same kernels between two collectives, so the GPU time each rank
// spends there (Op.Busy) differs by little (H200 TP=2: at most 74 µs over
// 1,073 instances; DLRM 8 × V100: at most 216 µs, at a step's first
// collective). A rank whose GPU ran far more work than its peers' before
// a collective, enough to account for how much later than usual it came,
// is a compute straggler there — judged at every instance, also where too
// few instances of a kind leave no usual arrival to judge against (DLRM:
// 3–5 per kind, one step) and where the extra work is smaller than the
// natural swings of the arrival offsets (TP=2: 2 ms against 3.7 ms).
const (
	// workSigmas and workP90 bound the extra work like stallSigmas and
	// stallP90 bound an excess, over every rank's busy time minus its
	// peers' median at every instance of the same ranks.
	workSigmas = 10
	workP90    = 3
)

// Stalls by a late GPU start. A rank's lateness at a collective is its
// host's (it launched later) plus its GPU's (the kernel started later after
// its launch). Where the GPU ran more work first, byWork names it; where the
// kernel started long after both its launch and the end of the rank's last
// GPU op before it (Op.Delay: its GPU held it with nothing of the rank's
// own running), the delay is on the GPU's side but outside the trace
// (another process on the device, a stream waiting on an event, work the
// profiler missed) — still the rank that made the others wait. Naturally
// that delay is launch latency (DLRM 8 × V100: 1–14 µs; H200 TP=2: median
// 9 µs on rank 0, 2.5 µs on rank 1), so byWork's bound over the peers'
// differences applies unchanged.

// Stalls by a late host. In a host-bound job every host launches a
// collective only after its previous one has ended; the time it then takes
// (res.host) is its own — a GC pause, a data-loader fetch — and where a
// rank's was far longer than its peers' it launched late and made them
// wait. Judged like the GPU delay (only without a usual), and past every
// other rank's and instance's by workP90 × (judge).

// byWork marks the instances where the last rank's extra GPU work before
// the collective made it late (see above), then those where its GPU
// started it far later than its peers' after its launch and its previous
// op (see above). Instances of every process group and kind with the
// same ranks are judged together: the noise of busy and delay differences
// is the ranks', not a kind's.
func (res *Result) byWork() {
	groups := map[string][]int{}
	var keys []string
	for i := range res.Instances {
		in := &res.Instances[i]
		k := rankKey(in)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	busy := func(o *Op) (int64, bool) { return o.Busy, true }
	delay := func(o *Op) (int64, bool) { return o.Delay, o.Delay >= 0 }
	host := func(o *Op) (int64, bool) { h, ok := res.host[o]; return h, ok }
	var idxs [][]int
	var sizes []int
	var work, delays, hosts []*extras
	for _, k := range keys {
		idx := groups[k]
		// in time order: the cross-kind usual offset takes neighbours in time
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Compare(res.Instances[a].Ranks[res.Instances[a].firstAt()].Start, res.Instances[b].Ranks[res.Instances[b].firstAt()].Start)
		})
		if len(res.Instances[idx[0]].Ranks) < 2 {
			continue
		}
		h := res.extra(idx, host)
		h.over = res.overGap(idx)
		idxs, sizes = append(idxs, idx), append(sizes, len(idx))
		work, delays, hosts = append(work, res.extra(idx, busy)), append(delays, res.extra(idx, delay)), append(hosts, h)
	}
	poolBounds(work, sizes)
	poolBounds(delays, sizes)
	poolBounds(hosts, sizes)
	for g, idx := range idxs {
		res.judge(idx, work[g], "gpu_work")
		res.judge(idx, delays[g], "gpu_delay")
		res.judge(idx, hosts[g], "host")
	}
}

// extras is one measure's difference from the peers' median, per instance
// and rank of a group (in time order), with its median and bound.
type extras struct {
	x      [][]int64 // x[j][r]: rank r's measure minus its peers' median; nil: unknown
	off    [][]int64 // off[r][j]: rank r's start minus the earliest peer's
	m, thr int64
	// over (host only), over[j][r]: rank r's host time since its previous
	// collective ended minus its peers' median issue gap; nil: unknown
	over [][]int64
}

// extra measures every instance of idx by f (false: unknown on that rank,
// and the instance is not judged).
func (res *Result) extra(idx []int, f func(*Op) (int64, bool)) *extras {
	nr := len(res.Instances[idx[0]].Ranks)
	e := &extras{x: make([][]int64, len(idx)), off: make([][]int64, nr)}
	for r := range e.off {
		e.off[r] = make([]int64, len(idx))
	}
	var all []int64
	var sorted, starts []int64
	for j, i := range idx {
		in := &res.Instances[i]
		v := make([]int64, len(in.peers))
		ok := true
		starts = starts[:0]
		for r, op := range in.peers {
			starts = append(starts, op.Start)
			if ok {
				v[r], ok = f(op)
			}
		}
		lo := minBut(starts) // the earliest peer's start
		var med medianBut
		if ok {
			med = newMedianBut(v, sorted)
			sorted = med
		}
		for r := range in.peers {
			e.off[r][j] = units.SubSat(in.peers[r].Start, lo(r))
			if ok {
				if e.x[j] == nil {
					e.x[j] = make([]int64, nr)
				}
				e.x[j][r] = units.SubSat(v[r], med.of(v[r]))
				all = append(all, e.x[j][r])
			}
		}
	}
	if len(all) > 0 {
		e.m, e.thr = spread(all, workSigmas, workP90)
	}
	return e
}

// judge marks the instances of idx where the last rank's measure (e) beyond
// its peers' made it late: past e's bound, that late behind its earliest
// peer, later than its usual offset, and accounting for at least half of
// how much later than usual it came.
func (res *Result) judge(idx []int, e *extras, by string) {
	nb := make([]int64, 0, 2*usualWindow)
	for j, i := range idx {
		in := &res.Instances[i]
		if in.Stall || e.x[j] == nil || in.MatchedBy == "peer" && in.last.Dir != "send" {
			continue
		}
		// an unobserved delay is weaker evidence than extra work: its
		// natural tail is heavy (H200 TP=2: one of 2,146 collective kernels
		// held 273 µs with nothing traced running, past the 102 µs bound),
		// so where the rank's arrivals have a usual to judge by, only the
		// usual offset (past their natural swings) decides
		if by != "gpu_work" && in.Usual != nil {
			continue
		}
		r := slices.IndexFunc(in.Ranks, func(t RankTime) bool { return t.Rank == in.LastRank })
		x := units.SubSat(e.x[j][r], e.m)
		late := e.off[r][j]
		if x < e.thr || late < e.thr || units.SubSat(e.x[j][r], nextLargest(e.x[j], r)) < e.thr {
			continue
		}
		// a host's own time varies far more than its GPU's work (DLRM
		// 8 × V100, one step, host-bound: up to 1 ms past its peers', 10 %
		// of the ranks' differences past 0.5 ms, so 3 × their 90th
		// percentile swings from 0.5 to 1.6 ms with what else the step
		// holds). Its peers' host time is censored, too: a peer that ran
		// ahead of the previous collective's end reads 0, though it spent
		// up to its whole issue gap in its own host work. So a host stall
		// must also outlast its peers' whole time between the two
		// collectives (median issue gap), by 3 × as much as any other rank
		// at any instance outlasts its peers' (DLRM unplanted: at most
		// 0.25 ms; rank 7's natural 1 ms extra at send/recv #1 is 3.6 ms
		// short of its peers' gaps, a 6 ms pause overlapping a wait for
		// another straggler 1.3 ms past them)
		if by == "host" {
			o := e.over[j]
			if o == nil || o[r] <= 0 || o[r]/workP90 < maxBut(e.over, j, r) {
				continue
			}
		}
		// the rank's usual offset: its own group's baseline, else its
		// median over the neighbouring instances of every kind
		var usual int64
		if in.Usual != nil {
			usual = int64(*in.Usual)
		} else {
			nb = nb[:0]
			for q := max(0, j-usualWindow); q <= min(len(idx)-1, j+usualWindow); q++ {
				if q != j {
					nb = append(nb, e.off[r][q])
				}
			}
			usual = medianInt(nb)
		}
		ex := units.SubSat(late, usual)
		// the measure accounts for at least half of how much later than
		// usual it came (a rank late by habit and busier by a little is no
		// compute straggler)
		if ex <= 0 || x < ex/2 {
			continue
		}
		in.Stall, in.weight, in.stallX = true, US(min(x, late)), ptrUS(US(ex))
		st := Stall{Rank: in.LastRank, Step: in.Step, Collective: in.Label(), PG: in.PG, Kind: in.Kind,
			Index: in.Index, Offset: US(late), Usual: US(usual), Excess: US(ex), Threshold: US(e.thr), Skew: in.Skew,
			By: by, Reason: explain(in, in.LastRank), LateRanks: res.lateOf(in), weight: in.weight}
		switch by {
		case "gpu_work":
			st.ExtraBusy = ptrUS(US(x))
		case "gpu_delay":
			st.ExtraDelay = ptrUS(US(x))
		default:
			st.ExtraHost = ptrUS(US(x))
		}
		res.Stalls = append(res.Stalls, st)
	}
}

// overGap is over (see extras) for the instances of idx.
func (res *Result) overGap(idx []int) [][]int64 {
	out := make([][]int64, len(idx))
	for j, i := range idx {
		in := &res.Instances[i]
		h := make([]int64, len(in.peers))
		g := make([]int64, len(in.peers))
		ok := true
		for r, op := range in.peers {
			var okh, okg bool
			h[r], okh = res.host[op]
			g[r], okg = res.gap[op]
			ok = ok && okh && okg
		}
		if !ok {
			continue
		}
		out[j] = make([]int64, len(h))
		med := newMedianBut(g, nil)
		for r := range h {
			out[j][r] = units.SubSat(h[r], med.of(g[r]))
		}
	}
	return out
}

// maxBut is the largest of x but x[j][r] (nil rows skipped), 0 at least.
func maxBut(x [][]int64, j, r int) int64 {
	var m int64
	for q, row := range x {
		for p, v := range row {
			if q != j || p != r {
				m = max(m, v)
			}
		}
	}
	return m
}

// nextLargest is the largest of v but v[r]: what the last rank's measure
// must pass the bound beyond too. Work, host time and GPU delay differ
// between ranks structurally (DLRM 8 × V100: ranks 4, 5 and 6 run
// 117–174 µs more than the others before all-reduce #2), and a rank is no
// stall for what its peers also did: only for what it alone did.
func nextLargest(v []int64, r int) int64 {
	m := int64(math.MinInt64)
	for q, x := range v {
		if q != r {
			m = max(m, x)
		}
	}
	return m
}

// firstAt is the position in Ranks of the earliest start.
func (in *Instance) firstAt() int {
	f := 0
	for r := range in.Ranks {
		if in.Ranks[r].Start < in.Ranks[f].Start {
			f = r
		}
	}
	return f
}

func ptrUS(u US) *US { return &u }
