package collectives

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Lateness against each rank's usual arrival. Ranks of a real job rarely
// arrive together: one rank's host runs ahead of another's by a pattern
// that repeats layer after layer (the H200 TP=2 trace: rank 0 ≈ 0.6–1.2 ms
// late at every decode all-reduce). A stall below that natural skew never
// tops a step's raw skew, so each rank's arrival offset (its start minus
// the earliest peer's) is judged against its own median over the
// neighbouring instances of the same process group and kind; what exceeds
// it by far more than the offsets usually vary is a stall.
const (
	// usualWindow is how many instances each side form the baseline.
	usualWindow = 16
	// usualMin is the fewest neighbours a baseline is taken from: below it
	// there is no "usual" to judge against (the DLRM traces have 3–5
	// instances per kind) and only raw skew speaks.
	usualMin = 8
	// stallSigmas is how far past the baseline, in robust standard
	// deviations of the rank's excess over the whole group (1.4826 × MAD),
	// an arrival must be to be a stall. On the real H200 TP=2 trace the
	// natural excesses reach 8.9 σ (rank 0 at all-reduce #616, 3.7 ms),
	// the tail of a heavy-tailed distribution, so the cut sits above it.
	stallSigmas = 10
	// stallP90 is the other bound, in multiples of the 90th percentile of
	// the rank's |excess − median|: a MAD sees only the core, and ranks
	// that swap order now and then (TP=2 all-gathers: rank 1 early by
	// 0.4 ms, late by 0.4 ms in ≈ 15 % of steps) form a second mode that
	// must not read as stalls.
	stallP90 = 3
	// stallFloorNS keeps ranks whose offsets never vary (one trace cloned
	// to N ranks, a simulator) from calling launch jitter a stall.
	stallFloorNS = 50_000
)

// Stall is one instance where a rank arrived last and far later than it
// usually does at that collective.
type Stall struct {
	Rank       int    `json:"rank"`
	Step       string `json:"step"`
	Collective string `json:"collective"`
	PG         string `json:"pg"`
	Kind       string `json:"kind"`
	Index      int    `json:"index"`
	// Offset is the rank's start minus the earliest peer's start, Usual
	// its median over the neighbouring instances, Excess the difference.
	Offset    US `json:"offset_us"`
	Usual     US `json:"usual_offset_us"`
	Excess    US `json:"excess_us"`
	Threshold US `json:"threshold_us"`
	Skew      US `json:"skew_us"`
	// By is how it was judged: "usual_offset" (Excess past Threshold),
	// "gpu_work" (ExtraBusy, its GPU's work before the collective beyond
	// its peers' median, past Threshold and at least half of Excess) or
	// "gpu_delay" (ExtraDelay, how much longer than its peers' its kernel
	// waited after its launch and its GPU's previous op: work.go) or
	// "host" (ExtraHost, work.go).
	By         string `json:"by"`
	ExtraBusy  *US    `json:"extra_busy_us"`
	ExtraDelay *US    `json:"extra_gpu_delay_us"`
	// ExtraHost: by "host", how much longer than its peers' median its
	// host took to launch the collective after its previous one had ended
	// (work.go).
	ExtraHost *US    `json:"extra_host_us"`
	Reason    string `json:"reason"`
	// LateRanks are the other ranks that made their peers wait at the
	// instance, though less than Rank did (lateranks.go).
	LateRanks []LateRank `json:"late_ranks"`
	weight    US         // what orders stalls: Excess, or the lateness the extra work explains
}

// usual computes every instance's excess (the last rank's lateness beyond
// its usual arrival offset) and collects the stalls.
func (res *Result) usual() {
	// a group is a process group, kind and rank set (a send/recv pair)
	type gk struct{ pg, kind, ranks string }
	groups := map[gk][]int{}
	var keys []gk
	for i := range res.Instances {
		in := &res.Instances[i]
		k := gk{in.PG, in.Kind, rankKey(in)}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	res.Stalls = []Stall{}
	for _, k := range keys {
		idx := groups[k]
		if len(idx) <= usualMin {
			continue
		}
		nr := len(res.Instances[idx[0]].Ranks)
		// off[r][j]: rank r's start minus the earliest other rank's, at
		// the group's j-th instance
		off := make([][]int64, nr)
		for r := range off {
			off[r] = make([]int64, len(idx))
		}
		for j, i := range idx {
			rt := res.Instances[i].Ranks
			for r := range rt {
				lo := int64(math.MaxInt64)
				for q := range rt {
					if q != r {
						lo = min(lo, int64(rt[q].Start))
					}
				}
				off[r][j] = units.SubSat(int64(rt[r].Start), lo)
			}
		}
		for r := 0; r < nr; r++ {
			base := make([]int64, len(idx))
			ex := make([]int64, len(idx))
			nb := make([]int64, 0, 2*usualWindow)
			for j := range idx {
				nb = nb[:0]
				for q := max(0, j-usualWindow); q <= min(len(idx)-1, j+usualWindow); q++ {
					if q != j {
						nb = append(nb, off[r][q])
					}
				}
				base[j] = medianInt(nb)
				ex[j] = units.SubSat(off[r][j], base[j])
			}
			_, thr := spread(ex, stallSigmas, stallP90)
			for j, i := range idx {
				in := &res.Instances[i]
				if in.Ranks[r].Rank != in.LastRank {
					continue
				}
				u, x := US(base[j]), US(ex[j])
				in.Usual, in.Excess = &u, &x
				// a send/recv pair stalls when the receiver waits for a late
				// sender; a late receiver of a send posted ahead held no one
				// …and a rank held at its previous collective of another group
				// came late here by that group's straggler, named there
				if ex[j] < thr || in.MatchedBy == "peer" && in.last.Dir != "send" || res.heldElsewhere(in) {
					continue
				}
				in.Stall, in.weight, in.stallX = true, x, &x
				res.Stalls = append(res.Stalls, Stall{Rank: in.LastRank, Step: in.Step, Collective: in.Label(), PG: in.PG, Kind: in.Kind,
					Index: in.Index, Offset: US(off[r][j]), Usual: u, Excess: x, Threshold: US(thr), Skew: in.Skew, By: "usual_offset",
					Reason: explain(in, in.LastRank), LateRanks: res.lateOf(in), weight: x})
			}
		}
	}
}

// spread is v's median and how far past it a value must be to stand out:
// the largest of sigmas robust standard deviations (1.4826 × MAD), p90x
// times the 90th percentile of |v − median|, and stallFloorNS. Saturating:
// offsets of rank summaries reach ±8·10¹⁸ ns.
func spread(v []int64, sigmas float64, p90x int64) (median, thr int64) {
	m := medianInt(v)
	dev := make([]int64, len(v))
	for j, x := range v {
		dev[j] = abs64(units.SubSat(x, m))
	}
	sigma := 1.4826 * float64(medianInt(dev))
	slices.Sort(dev)
	p90 := dev[min(len(dev)-1, len(dev)*9/10)]
	return m, max(units.Trunc(sigmas*sigma), min(p90, math.MaxInt64/p90x)*p90x, stallFloorNS)
}

// sortStalls orders the stalls largest first.
func (res *Result) sortStalls() {
	slices.SortStableFunc(res.Stalls, func(a, b Stall) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.Rank, b.Rank))
	})
}

// stallText is one stall in prose.
func (s *Stall) text() string {
	t := fmt.Sprintf("rank %d at %s", s.Rank, s.Collective)
	if s.Step != "" {
		t += " in " + s.Step
	}
	switch {
	case s.By == "gpu_work" && s.ExtraBusy != nil:
		t += fmt.Sprintf(": its GPU ran %s ms more work before it than its peers' median, %s ms behind the earliest peer, %s ms past its usual (skew %s ms)", ms(*s.ExtraBusy), ms(s.Offset), ms(s.Excess), ms(s.Skew))
	case s.By == "host" && s.ExtraHost != nil:
		t += fmt.Sprintf(": its host launched it %s ms later after its previous collective had ended than its peers' median, %s ms behind the earliest peer, %s ms past its usual (skew %s ms)", ms(*s.ExtraHost), ms(s.Offset), ms(s.Excess), ms(s.Skew))
	case s.By == "gpu_delay" && s.ExtraDelay != nil:
		t += fmt.Sprintf(": its GPU started it %s ms later after its launch and its previous GPU op than its peers' median, %s ms behind the earliest peer, %s ms past its usual (skew %s ms)", ms(*s.ExtraDelay), ms(s.Offset), ms(s.Excess), ms(s.Skew))
	default:
		t += fmt.Sprintf(": %s ms later than its usual %s ms behind the earliest peer (skew %s ms)", ms(s.Excess), ms(s.Usual), ms(s.Skew))
	}
	if s.Reason != "" {
		t += "; " + s.Reason
	}
	if len(s.LateRanks) > 0 {
		t += "; also late there: " + lateText(s.LateRanks) + " behind the earliest peer"
	}
	return t
}

func medianInt(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	// the difference in uint64: two offsets ±8·10¹⁸ apart pass int64
	return s[n/2-1] + int64((uint64(s[n/2])-uint64(s[n/2-1]))/2)
}

// medianBut is medianInt of a list without one of its values, for each
// value in turn: the list sorted once (a median of every rank's peers was a
// sort per rank, quadratic in the ranks: 1,024 ranks took 15 s to reduce).
type medianBut []int64

// newMedianBut sorts a copy of v into buf's storage.
func newMedianBut(v, buf []int64) medianBut {
	s := append(buf[:0], v...)
	slices.Sort(s)
	return s
}

// of is medianInt of the list with one occurrence of x (a value of it) left
// out: equal values are interchangeable, so the first one's position does.
func (s medianBut) of(x int64) int64 {
	n := len(s) - 1
	if n <= 0 {
		return 0
	}
	p, _ := slices.BinarySearch(s, x)
	at := func(k int) int64 { // the k-th of the list without s[p]
		if k < p {
			return s[k]
		}
		return s[k+1]
	}
	if n%2 == 1 {
		return at(n / 2)
	}
	lo, hi := at(n/2-1), at(n/2)
	return lo + int64((uint64(hi)-uint64(lo))/2)
}

// minBut is the least of v without v[r], for each r: the least and the
// second least, found once.
func minBut(v []int64) func(r int) int64 {
	lo, lo2, at := int64(math.MaxInt64), int64(math.MaxInt64), -1
	for i, x := range v {
		if x < lo {
			lo, lo2, at = x, lo, i
		} else if x < lo2 {
			lo2 = x
		}
	}
	return func(r int) int64 {
		if r == at {
			return lo2
		}
		return lo
	}
}

func abs64(x int64) int64 {
	if x == math.MinInt64 {
		return math.MaxInt64
	}
	if x < 0 {
		return -x
	}
	return x
}
