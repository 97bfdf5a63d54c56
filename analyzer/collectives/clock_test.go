package collectives

import (
	"strings"
	"testing"
)

// shiftRank writes every time of rank r's summary d ns later (its host
// clock off by d), ClockBase unchanged: what a multi-host job whose clocks
// disagree records.
func shiftRank(sums []*Summary, r int, d int64) {
	for _, s := range sums {
		if s.Rank != r {
			continue
		}
		for i := range s.Ops {
			o := &s.Ops[i]
			o.Start += d
			o.End += d
			if o.Launch >= 0 {
				o.Launch += d
			}
		}
		for i := range s.Steps {
			s.Steps[i].Start += d
			s.Steps[i].End += d
		}
	}
}

func rankRow(t *testing.T, res *Result, r int) RankRow {
	t.Helper()
	for _, x := range res.Ranks {
		if x.Rank == r {
			return x
		}
	}
	t.Fatalf("no rank %d", r)
	return RankRow{}
}

// A rank whose clock alone is off (every time +2 ms, no real lateness) is
// no straggler: its offset is estimated from the collectives' end times
// (an instance ends together on every rank), reported, and taken out
// before skew and wait, so the instances are the unshifted job's.
func TestClockOffsetAligned(t *testing.T) {
	for _, c := range []struct {
		n, rank int
		d       int64
	}{{8, 4, 2_000_000}, {8, 0, -3_000_000}, {2, 1, 1_500_000}} {
		want := Match(synth(c.n, 4, 6, -1, -1, 0))
		sums := synth(c.n, 4, 6, -1, -1, 0)
		shiftRank(sums, c.rank, c.d)
		got := Match(sums)
		row := rankRow(t, got, c.rank)
		if row.ClockOffset == nil || int64(*row.ClockOffset) != c.d || !row.ClockAligned {
			t.Errorf("n=%d rank %d +%d ns: offset %v aligned %v", c.n, c.rank, c.d, row.ClockOffset, row.ClockAligned)
		}
		for _, x := range got.Ranks {
			if x.Rank != c.rank && (x.ClockAligned || x.ClockOffset == nil || *x.ClockOffset != 0) {
				t.Errorf("n=%d: rank %d offset %v aligned %v", c.n, x.Rank, x.ClockOffset, x.ClockAligned)
			}
		}
		if len(got.Instances) != len(want.Instances) {
			t.Fatalf("%d instances, want %d", len(got.Instances), len(want.Instances))
		}
		for i := range got.Instances {
			g, w := &got.Instances[i], &want.Instances[i]
			if g.Skew != w.Skew || g.LastRank != w.LastRank || g.Transfer != w.Transfer {
				t.Errorf("n=%d %s: skew %s last %d transfer %s, want %s %d %s", c.n, g.Label(), g.Skew, g.LastRank, g.Transfer, w.Skew, w.LastRank, w.Transfer)
			}
			for k := range g.Ranks {
				if g.Ranks[k] != w.Ranks[k] {
					t.Errorf("n=%d %s: %+v, want %+v", c.n, g.Label(), g.Ranks[k], w.Ranks[k])
				}
			}
		}
		if len(got.Stalls) != 0 {
			t.Errorf("n=%d: stalls %+v", c.n, got.Stalls)
		}
		if s := got.Straggler; s != nil && s.Rank != nil && want.Straggler != nil && *s.Rank != *want.Straggler.Rank {
			t.Errorf("n=%d: straggler %d, unshifted %d", c.n, *s.Rank, *want.Straggler.Rank)
		}
		notes := strings.Join(got.Notes, "\n")
		if !strings.Contains(notes, "clocks aligned") || !strings.Contains(got.Markdown(), "Clocks aligned") {
			t.Errorf("n=%d: no alignment note: %s", c.n, notes)
		}
		if strings.Contains(notes, "transfer < 0") {
			t.Errorf("n=%d: transfer < 0 after alignment: %s", c.n, notes)
		}
	}
}

// A real straggler moves its starts, not its ends (the collective ends when
// the last rank's data is in): no offset is estimated and it is named.
// With a clock offset on top (on the straggler itself, or on another
// rank) it is named the same, by the same lateness.
func TestClockOffsetNotFooledByStraggler(t *testing.T) {
	base := Match(synth(8, 4, 6, 5, 2, 3_000_000))
	if base.Straggler == nil || *base.Straggler.Rank != 5 {
		t.Fatalf("straggler %+v", base.Straggler)
	}
	for _, x := range base.Ranks {
		if x.ClockAligned || x.ClockOffset == nil || *x.ClockOffset != 0 {
			t.Errorf("rank %d: offset %v aligned %v on one clock", x.Rank, x.ClockOffset, x.ClockAligned)
		}
	}
	for _, shifted := range []int{5, 2} {
		sums := synth(8, 4, 6, 5, 2, 3_000_000)
		shiftRank(sums, shifted, -1_700_000)
		res := Match(sums)
		if res.Straggler == nil || *res.Straggler.Rank != 5 || res.Steps[2].StragglerRank != 5 {
			t.Fatalf("rank %d shifted: straggler %+v step 2 %+v", shifted, res.Straggler, res.Steps[2])
		}
		if got, want := rankRow(t, res, 5).Lateness, rankRow(t, base, 5).Lateness; got != want {
			t.Errorf("rank %d shifted: lateness %s, want %s", shifted, got, want)
		}
		if row := rankRow(t, res, shifted); row.ClockOffset == nil || *row.ClockOffset != -1_700_000 || !row.ClockAligned {
			t.Errorf("rank %d: offset %v", shifted, row.ClockOffset)
		}
	}
}

// Ends that do not agree (ranks sampled from different parts of a job: an
// instance's kernels never overlap) give no consistent offset: nothing is
// moved.
func TestClockOffsetInconsistent(t *testing.T) {
	sums := synth(2, 2, 6, -1, -1, 0)
	seed := uint64(7)
	for i := range sums[1].Ops {
		seed = seed*6364136223846793005 + 1442695040888963407
		d := int64(seed>>33)%40_000_000 - 20_000_000
		o := &sums[1].Ops[i]
		o.Start += d
		o.End += d
		o.Launch += d
	}
	res := Match(sums)
	for _, x := range res.Ranks {
		if x.ClockAligned {
			t.Errorf("rank %d aligned by %v on inconsistent ends", x.Rank, x.ClockOffset)
		}
	}
	if strings.Contains(strings.Join(res.Notes, " "), "clocks aligned") {
		t.Errorf("notes: %v", res.Notes)
	}
}

// Shifts moves every rank's own op times onto the clock Match's instances
// are on: clock bases that differ and a rank whose clock is off.
func TestShifts(t *testing.T) {
	sums := synth(4, 4, 6, -1, -1, 0)
	shiftRank(sums, 2, 2_000_000)
	for _, s := range sums {
		s.ClockBase = 1_000_000_000 + int64(s.Rank)*7_000
		shiftRank(sums, s.Rank, -int64(s.Rank)*7_000) // same instant, later base
	}
	res := Match(sums)
	if !rankRow(t, res, 2).ClockAligned {
		t.Fatal("rank 2's clock is not aligned")
	}
	d := Shifts(sums, res)
	if d[2] != 2*7_000-2_000_000 || d[1] != 7_000 {
		t.Errorf("shifts %v", d)
	}
	starts := map[int]map[int64]bool{}
	for _, s := range sums {
		starts[s.Rank] = map[int64]bool{}
		for _, o := range s.Ops {
			starts[s.Rank][o.Start+d[s.Rank]] = true
		}
	}
	for _, in := range res.Instances {
		for _, rt := range in.Ranks {
			if !starts[rt.Rank][int64(rt.Start)] {
				t.Fatalf("%s: rank %d's start %d is no op of the rank shifted", in.Label(), rt.Rank, int64(rt.Start))
			}
		}
	}
}
