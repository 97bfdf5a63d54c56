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

// byWork marks the instances where the last rank's extra GPU work before
// the collective made it late (see above). Instances of every process
// group and kind with the same ranks are judged together: the noise of
// busy differences is the ranks', not a kind's.
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
	for _, k := range keys {
		idx := groups[k]
		// in time order: the cross-kind usual offset takes neighbours in time
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Compare(res.Instances[a].Ranks[res.Instances[a].firstAt()].Start, res.Instances[b].Ranks[res.Instances[b].firstAt()].Start)
		})
		nr := len(res.Instances[idx[0]].Ranks)
		if nr < 2 {
			continue
		}
		// extra[j][r]: rank r's busy time minus its peers' median, off[r][j]
		// its start minus the earliest peer's
		extra := make([][]int64, len(idx))
		off := make([][]int64, nr)
		for r := range off {
			off[r] = make([]int64, len(idx))
		}
		var all []int64
		peers := make([]int64, 0, nr)
		for j, i := range idx {
			in := &res.Instances[i]
			extra[j] = make([]int64, nr)
			for r := range in.peers {
				peers = peers[:0]
				lo := int64(math.MaxInt64)
				for q, op := range in.peers {
					if q != r {
						peers = append(peers, op.Busy)
						lo = min(lo, op.Start)
					}
				}
				extra[j][r] = units.SubSat(in.peers[r].Busy, medianInt(peers))
				off[r][j] = units.SubSat(in.peers[r].Start, lo)
				all = append(all, extra[j][r])
			}
		}
		m, thr := spread(all, workSigmas, workP90)
		nb := make([]int64, 0, 2*usualWindow)
		for j, i := range idx {
			in := &res.Instances[i]
			if in.Stall || in.MatchedBy == "peer" && in.last.Dir != "send" {
				continue
			}
			r := slices.IndexFunc(in.Ranks, func(t RankTime) bool { return t.Rank == in.LastRank })
			x := units.SubSat(extra[j][r], m)
			late := off[r][j]
			if x < thr || late < thr {
				continue
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
						nb = append(nb, off[r][q])
					}
				}
				usual = medianInt(nb)
			}
			ex := units.SubSat(late, usual)
			// the extra work accounts for at least half of how much later
			// than usual it came (a rank late by habit and busier by a
			// little is no compute straggler)
			if ex <= 0 || x < ex/2 {
				continue
			}
			in.Stall, in.weight, in.stallX = true, US(min(x, late)), ptrUS(US(ex))
			res.Stalls = append(res.Stalls, Stall{Rank: in.LastRank, Step: in.Step, Collective: in.Label(), PG: in.PG, Kind: in.Kind,
				Index: in.Index, Offset: US(late), Usual: US(usual), Excess: US(ex), Threshold: US(thr), Skew: in.Skew,
				By: "gpu_work", ExtraBusy: ptrUS(US(x)), Reason: explain(in, in.LastRank), weight: in.weight})
		}
	}
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
