package collectives

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Clock offsets between ranks. The ranks of a multi-host job write times on
// their own hosts' clocks, which NTP keeps apart by up to milliseconds; an
// offset adds to every arrival skew and wait of that rank unseen, and a
// rank whose clock reads ahead looks late everywhere. The kernels of one
// collective instance end together on every rank — none can finish before
// the last rank's data is in — to within a few µs (DLRM 8 × V100: ≤ 7 µs;
// H200 TP=2: ≤ 5.4 µs over 1,073 instances), whether or not a rank came
// late: a straggler moves its starts, not its ends. So a rank's kernel end
// minus the instance's median end, its median over the instances, is how
// far its clock reads ahead; a real straggler gives none, a shifted clock
// gives the shift at every instance.
const (
	// clockMin is how many instances a rank's offset needs.
	clockMin = 3
	// clockFloor: an offset is taken out only past 50 µs, far beyond the
	// ends' natural agreement, so traces on one clock are left as written.
	clockFloor = 50_000
	// clockSigmas: and only when the rank's ends agree with it at nearly
	// every instance — the offset is at least 10 × the 90th percentile of
	// their deviation from it (ranks sampled from different parts of a job,
	// whose instances never overlap, give no consistent offset).
	clockSigmas = 10
)

// offsets are the ranks' estimated clock offsets.
type offsets map[int]clockEst

type clockEst struct {
	ns    int64 // how far the rank's clock reads ahead of its peers'
	noise int64 // 90th percentile of |end − instance median − ns|
	n     int   // instances it was estimated on
}

// sure reports an offset that is taken out.
func (e clockEst) sure() bool {
	a := max(e.ns, -e.ns)
	return e.n >= clockMin && a >= clockFloor && a/clockSigmas >= e.noise
}

// clockOffsets estimates every rank's clock offset from the end times of
// the instances matched across a group (not point-to-point pairs: they are
// paired by the overlap of their times on the clock being judged). The
// instance's reference end is its lower median: with two ranks the earlier
// one, so of a pair the rank whose clock reads later carries the offset.
func clockOffsets(ins []Instance) offsets {
	d := map[int][]int64{}
	var ends []int64
	for i := range ins {
		in := &ins[i]
		if in.MatchedBy == "peer" || len(in.Ranks) < 2 {
			continue
		}
		ends = ends[:0]
		for _, r := range in.Ranks {
			ends = append(ends, int64(r.End))
		}
		c := median(ends)
		for _, r := range in.Ranks {
			d[r.Rank] = append(d[r.Rank], units.SubSat(int64(r.End), c))
		}
	}
	out := offsets{}
	for r, v := range d {
		m := median(v)
		dev := make([]int64, len(v))
		for i, x := range v {
			dev[i] = max(units.SubSat(x, m), units.SubSat(m, x))
		}
		slices.Sort(dev)
		out[r] = clockEst{ns: m, noise: dev[len(dev)*9/10], n: len(v)}
	}
	return out
}

// aligned is the ranks whose offsets are taken out, in rank order.
func (o offsets) aligned() []int {
	var rs []int
	for r, e := range o {
		if e.sure() {
			rs = append(rs, r)
		}
	}
	slices.Sort(rs)
	return rs
}

// apply is sums with every sure offset taken out of its rank's times
// (copies; sums are never changed), nil when there is none.
func (o offsets) apply(sums []*Summary) []*Summary {
	if len(o.aligned()) == 0 {
		return nil
	}
	out := slices.Clone(sums)
	for i, s := range sums {
		e, ok := o[s.Rank]
		if !ok || !e.sure() {
			continue
		}
		out[i] = shifted(s, -e.ns)
	}
	return out
}

// shifted is a copy of s with every time moved by d ns.
func shifted(s *Summary, d int64) *Summary {
	c := *s
	c.Ops = slices.Clone(s.Ops)
	for k := range c.Ops {
		o := &c.Ops[k]
		o.Start += d
		o.End += d
		if o.Launch >= 0 {
			o.Launch += d
		}
	}
	c.Steps = slices.Clone(s.Steps)
	for k := range c.Steps {
		c.Steps[k].Start += d
		c.Steps[k].End += d
	}
	return &c
}

// note says which clocks were aligned and how.
func (o offsets) note() string {
	var parts []string
	for _, r := range o.aligned() {
		e := o[r]
		parts = append(parts, fmt.Sprintf("rank %d's clock read %s ms ahead of its peers' (its ends within %s µs of that at 90 %% of %d instances)", r, signedMS(e.ns), US(e.noise), e.n))
	}
	return "clocks aligned: " + strings.Join(parts, ", ") +
		" — a rank's clock offset is the median over the collectives of its kernel's end minus the instance's median end (an instance ends together on every rank, a late rank too); its times were moved back by it before skew, wait and the straggler were computed"
}

// report puts the estimates into res's rank rows.
func (o offsets) report(res *Result) {
	for i := range res.Ranks {
		row := &res.Ranks[i]
		if e, ok := o[row.Rank]; ok && e.n >= clockMin {
			v := US(e.ns)
			row.ClockOffset, row.ClockAligned = &v, e.sure()
		}
	}
}

func signedMS(ns int64) string {
	if ns < 0 {
		return "−" + ms(US(-ns))
	}
	return "+" + ms(US(ns))
}
