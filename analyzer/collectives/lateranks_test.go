package collectives

import (
	"slices"
	"strings"
	"testing"
)

// Two ranks late together: the step names the last, and the other, late
// by more than half the skew and set apart from the on-time ranks, beside
// it — in the step row, the stall rows at its instances and its rank row.
func TestLateRanksSecondRank(t *testing.T) {
	sums := synth(8, 4, 6, 5, 2, 3_000_000)
	for i := range sums[2].Ops {
		if o := &sums[2].Ops[i]; o.Step == 2 {
			o.Start += 2_500_000
			o.Launch += 2_500_000
		}
	}
	res := Match(sums)
	for _, s := range res.Steps {
		want := s.Step == "ProfilerStep#2"
		if got := len(s.LateRanks) == 1 && s.LateRanks[0].Rank == 2; got != want {
			t.Errorf("%s: straggler %d, late ranks %+v", s.Step, s.StragglerRank, s.LateRanks)
		}
		if want && (s.StragglerRank != 5 || s.LateRanks[0].Lateness < 2_450_000 || s.LateRanks[0].Lateness > 2_550_000) {
			t.Errorf("%s: straggler %d, late ranks %+v", s.Step, s.StragglerRank, s.LateRanks)
		}
	}
	for _, st := range res.Stalls {
		if st.Rank == 5 && (len(st.LateRanks) != 1 || st.LateRanks[0].Rank != 2) {
			t.Errorf("stall %s: late ranks %+v", st.Collective, st.LateRanks)
		}
	}
	for _, r := range res.Ranks {
		if want := r.Rank == 2; (r.LateAt == 6) != want || (r.Late > 0) != want {
			t.Errorf("rank %d: late at %d, %s", r.Rank, r.LateAt, r.Late)
		}
	}
	if md := res.Markdown(); !slices.ContainsFunc(res.Steps, func(s StepRow) bool { return len(s.LateRanks) > 0 }) ||
		!strings.Contains(md, "| 5 | ") || !strings.Contains(md, "rank 2 2.5") {
		t.Errorf("summary names no late rank 2:\n%s", md)
	}
}

// One straggler alone names no other late rank (the ranks' jitter of
// < 20 µs is noise), nor do two ranks (only the last can be late).
func TestLateRanksNone(t *testing.T) {
	for _, n := range []int{2, 8} {
		res := Match(synth(n, 4, 6, 1, 2, 3_000_000))
		for _, s := range res.Steps {
			if len(s.LateRanks) != 0 {
				t.Errorf("%d ranks, %s: late ranks %+v", n, s.Step, s.LateRanks)
			}
		}
		for _, r := range res.Ranks {
			if r.LateAt != 0 {
				t.Errorf("%d ranks: rank %d late at %d", n, r.Rank, r.LateAt)
			}
		}
	}
}

// The rule on arrival patterns: a gap above the on-time ranks' spread
// names a rank; a step's spread-out entry names only ranks past a gap.
func TestLateRanksRule(t *testing.T) {
	inst := func(offsetsUS ...int64) *Instance {
		in := &Instance{}
		for r, o := range offsetsUS {
			in.Ranks = append(in.Ranks, RankTime{Rank: r, Start: US(o * 1000)})
			if US(o*1000) > in.Skew {
				in.Skew, in.LastRank = US(o*1000), r
			}
		}
		return in
	}
	ranks := func(l []LateRank) []int {
		var out []int
		for _, x := range l {
			out = append(out, x.Rank)
		}
		return out
	}
	for _, c := range []struct {
		name    string
		offsets []int64
		usual   US // the median of the positive skews of these ranks' instances, µs
		want    []int
	}{
		// the third blind set's dlrm_subset_r2_r5_ar2, all-reduce #2 (µs)
		{"two late of eight", []int64{0, 27, 9039, 68, 885, 10871, 34, 147}, 0, []int{2}},
		// DLRM's unplanted send/recv #0: ranks 2 and 6 set apart from 0..5.5 ms
		{"spread-out entry", []int64{5489, 0, 7116, 1502, 2752, 2955, 7119, 7624}, 0, []int{6, 2}},
		// late, but no more than twice the latest on-time rank
		{"within the spread", []int64{0, 3000, 5500, 10000}, 0, nil},
		{"under half the skew", []int64{0, 10, 4900, 10000}, 0, nil},
		{"three ranks", []int64{0, 6000, 10000}, 0, []int{1}},
		{"two ranks", []int64{0, 10000}, 0, nil},
		// the MI300X job of the fourth blind set, all-reduce #0: ranks
		// 0–0.14 ms apart (median of its positive skews: 0.108 ms)
		{"usual spread", []int64{142, 118, 15, 128, 0, 44, 103, 125}, 108, nil},
		// the blind3 pair against DLRM's usual (median skew 0.56 ms)
		{"the blind3 pair against DLRM's usual", []int64{0, 27, 9039, 68, 885, 10871, 34, 147}, 559, []int{2}},
		// jitter: past half the skew but under the 50 µs floor
		{"jitter", []int64{0, 5, 40, 70}, 0, nil},
	} {
		if got := ranks(inst(c.offsets...).lateRanks(c.usual * 1000)); !slices.Equal(got, c.want) {
			t.Errorf("%s: late ranks %v, want %v", c.name, got, c.want)
		}
	}
}
