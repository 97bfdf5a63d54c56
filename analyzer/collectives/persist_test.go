package collectives

import "testing"

// persistent builds two ranks over 40 steps of 16 all-reduces. Rank 0 is
// late by habit (0.6–1.0 ms behind rank 1 at every collective, 1 ms more
// at every 7th, 1.8 ms more at every 13th: heavy-tailed like the H200
// pair's) and once, in step 7, 2.4 ms more (a natural swing: no extra
// work, no stall). With
// slow, rank 1's GPU runs 1.5 ms more work before every all-reduce of
// steps 5–7 (a persistent straggler: it then arrives 0.5–0.9 ms after
// rank 0). clock shifts every time of rank 1 by a constant (hosts whose
// clocks disagree).
func persistent(slow bool, clock int64) []*Summary {
	var sums []*Summary
	for r := 0; r < 2; r++ {
		s := &Summary{Version: SummaryVersion, Rank: r, File: "r" + itoa(r)}
		for st := 0; st < 40; st++ {
			s.Steps = append(s.Steps, Step{Name: "ProfilerStep#" + itoa(st), Start: int64(st) * 100_000_000, End: int64(st+1)*100_000_000 - 1})
			for i := 0; i < 16; i++ {
				n := st*16 + i
				t0 := int64(st)*100_000_000 + int64(i)*5_000_000 + 1_000_000
				busy := int64(1_000_000 + 2_000*((r+n)%5))
				habit := 600_000 + 100_000*int64(n%5) + 1_000_000*boolInt(n%7 == 0) + 1_800_000*boolInt(n%13 == 0)
				if st == 7 && i == 3 {
					habit += 2_400_000
				}
				start := t0
				if r == 0 {
					start += habit
				}
				if r == 1 && slow && st >= 5 && st <= 7 {
					busy += 1_500_000
					start += 1_500_000 + 50_000*int64(n%7) - 150_000
				}
				end := t0 + habit + 400_000
				if slow && st >= 5 && st <= 7 {
					end = max(end, t0+1_500_000+50_000*int64(n%7)-150_000+400_000)
				}
				if r == 1 {
					start, end = start+clock, end+clock
				}
				s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "0", Seq: -1, Bytes: -1, Launch: start - 10_000, Start: start, End: end, Busy: busy, Delay: 10_000, Step: st})
			}
		}
		sums = append(sums, s)
	}
	return sums
}

// A persistent straggler is the straggler of every step it slows, also
// where another rank's single natural swing is larger than each of its
// small delays; a constant clock offset between the hosts is no stall and
// names no rank in its stead.
func TestPersistentStraggler(t *testing.T) {
	step := func(res *Result, name string) StepRow {
		for _, s := range res.Steps {
			if s.Step == name {
				return s
			}
		}
		t.Fatalf("no step %s", name)
		return StepRow{}
	}
	res := Match(persistent(true, 0))
	for _, st := range []string{"ProfilerStep#5", "ProfilerStep#6", "ProfilerStep#7"} {
		if s := step(res, st); s.StragglerRank != 1 {
			t.Errorf("%s: straggler rank %d at %s, want rank 1 (persistent)", st, s.StragglerRank, s.Collective)
		}
	}
	for _, st := range []string{"ProfilerStep#4", "ProfilerStep#8"} {
		if s := step(res, st); s.StragglerRank != 0 {
			t.Errorf("%s: straggler rank %d, want rank 0 (late by habit)", st, s.StragglerRank)
		}
	}
	for _, s := range res.Stalls {
		if s.Rank != 1 || s.Step < "ProfilerStep#5" || s.Step > "ProfilerStep#7" {
			t.Errorf("stall outside the plant: %s", s.text())
		}
	}
	// unplanted, then rank 1's clock 2 ms ahead: no stall, and step 7 names
	// rank 0's swing either way
	for _, clock := range []int64{0, 2_000_000} {
		res := Match(persistent(false, clock))
		for _, s := range res.Stalls {
			t.Errorf("clock %d: stall %s", clock, s.text())
		}
		if s := step(res, "ProfilerStep#7"); s.StragglerRank != 0 || s.Collective != "allreduce #115 (pg 0)" {
			t.Errorf("clock %d: step 7 straggler rank %d at %s, want rank 0 at #115", clock, s.StragglerRank, s.Collective)
		}
	}
}
