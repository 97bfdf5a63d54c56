package collectives

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Late ranks besides the last. An instance's skew names one rank, the
// last to arrive, but two ranks can hold their peers together (two hosts
// paused by one cause, a rank late just before the straggler): the earlier
// peers waited for both, and making only the last rank faster would leave
// them waiting for the other. A rank other than the last is a late rank of
// an instance when it made the earliest peer wait materially:
//
//   - against the skew: its lateness (start − earliest start) is at least
//     half the instance's skew (lateFraction), and
//   - against the noise: the ranks that came within half the skew of the
//     earliest are the instance's on-time ranks and the latest of them
//     (noise) is how far apart ranks arrive there without a late one; a
//     late rank is at least twice that late (lateOverNoise) and at least
//     stallFloorNS past it — so a step's entry, where ranks come in spread
//     out (DLRM's send/recv #0: 0–7.6 ms), names only ranks set apart from
//     that spread by a gap — and at least twice the median of the positive
//     skews of the instances of the same ranks (how far apart they usually
//     arrive; instances whose ranks all start at once tell nothing of it:
//     the fourth blind set's MI300X job, whose ranks come 0–0.14 ms apart at
//     half its collectives and together at the rest, names none).
//
// With two ranks only the last can be late; with three the first alone is
// on time (noise 0), so the middle one is late when it came at least half
// the skew and stallFloorNS after the first.
const (
	lateFraction  = 2 // lateness ≥ skew / lateFraction
	lateOverNoise = 2 // lateness ≥ lateOverNoise × the latest on-time rank's
)

// LateRank is a rank other than the last that made its peers wait at an
// instance: Lateness is its start minus the earliest peer's.
type LateRank struct {
	Rank     int `json:"rank"`
	Lateness US  `json:"lateness_us"`
}

// lateRanks are the instance's late ranks besides its last rank (see
// above), latest first; an empty list, never nil. usual is the typical
// skew of the instances of its ranks (typicalSkews).
func (in *Instance) lateRanks(usual US) []LateRank {
	out := []LateRank{}
	if in.Skew <= 0 || len(in.Ranks) < 3 {
		return out
	}
	first := in.Ranks[in.firstAt()].Start
	var noise US
	for _, r := range in.Ranks {
		if l := r.Start - first; lateFraction*l < in.Skew {
			noise = max(noise, l)
		}
	}
	for _, r := range in.Ranks {
		l := r.Start - first
		if r.Rank == in.LastRank || lateFraction*l < in.Skew || l < lateOverNoise*max(noise, usual) || l-noise < stallFloorNS {
			continue
		}
		out = append(out, LateRank{Rank: r.Rank, Lateness: l})
	}
	slices.SortStableFunc(out, func(a, b LateRank) int {
		return cmp.Or(cmp.Compare(b.Lateness, a.Lateness), cmp.Compare(a.Rank, b.Rank))
	})
	return out
}

// lateText is late ranks in prose: "rank 2 9.039 ms behind the earliest
// peer, rank 4 …"; "" without any.
func lateText(late []LateRank) string {
	s := make([]string, len(late))
	for i, l := range late {
		s[i] = fmt.Sprintf("rank %d %s ms", l.Rank, ms(l.Lateness))
	}
	return strings.Join(s, ", ")
}

// typicalSkews is the median of the positive skews of the instances of
// each group of ranks (rankKey), every process group and kind together.
func (res *Result) typicalSkews() {
	by := map[string][]int64{}
	for i := range res.Instances {
		if in := &res.Instances[i]; in.Skew > 0 {
			by[rankKey(in)] = append(by[rankKey(in)], int64(in.Skew))
		}
	}
	res.typSkew = map[string]US{}
	for k, v := range by {
		res.typSkew[k] = US(medianInt(v))
	}
}

// lateOf is in's late ranks (see above).
func (res *Result) lateOf(in *Instance) []LateRank { return in.lateRanks(res.typSkew[rankKey(in)]) }
