package collectives

import "testing"

// A 2 × 2 mesh in one step: DP pairs {0,2},{1,3} all-reduce 18 times
// (enough for a usual arrival), TP pairs {0,1},{2,3} broadcast before the
// first six (too few for one). At round 3 rank 2's host launches
// its broadcast 2 ms late: rank 3 waits for it there, and both then reach
// their DP all-reduces 2 ms after ranks 0 and 1 — each last in its pair,
// with no time of its own to explain it. The delay arose at tp1's
// broadcast #3, and the step names it there (rank 2), not at either
// all-reduce it was carried to. (The fifth blind set, tools/plantstraggler5
// a100x4_bcast_tp1_r2: named only at the DP all-reduce after it.)
func TestStepStragglerCarriedAcrossGroups(t *testing.T) {
	const ms = int64(1_000_000)
	var sums []*Summary
	for r := 0; r < 4; r++ {
		s := &Summary{Version: SummaryVersion, Rank: r, File: "r" + itoa(r), Steps: []Step{{Name: "ProfilerStep#1", Start: 0, End: 400 * ms}}}
		for i := int64(0); i < 18; i++ {
			t0 := i*20*ms + ms
			bStart, bEnd, lag := t0+int64(3_000*r), t0+100_000, int64(0)
			if i == 3 && r >= 2 {
				lag = 2 * ms // rank 2 late at the broadcast, rank 3 waits for it
				bEnd += lag
				if r == 2 {
					bStart += lag
				}
			}
			if i < 6 {
				s.Ops = append(s.Ops, Op{Kind: "broadcast", PG: "tp" + itoa(r/2), Seq: -1, Bytes: -1, Launch: bStart - 10_000, Start: bStart, End: bEnd, Busy: ms, Step: 0})
			}
			aStart := t0 + 5*ms + lag + int64(2_000*((r+int(i))%3))
			aEnd := t0 + 6*ms
			if i == 3 {
				aEnd += 2 * ms // every rank's kernel ends with the latest start
			}
			s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "dp" + itoa(r%2), Seq: -1, Bytes: -1, Launch: aStart - 10_000, Start: aStart, End: aEnd, Busy: ms, Step: 0})
		}
		sums = append(sums, s)
	}
	res := Match(sums)
	if len(res.Steps) != 1 {
		t.Fatalf("steps %+v", res.Steps)
	}
	st := res.Steps[0]
	if st.StragglerRank != 2 || st.Collective != "broadcast #3 (pg tp1)" {
		t.Errorf("step straggler %v at %q, want rank 2 at broadcast #3 (pg tp1)", st.StragglerRank, st.Collective)
	}
}

// TestHeldElsewhereNoStall: rank 3 waits 2 ms at its TP broadcast for rank 2,
// then reaches its DP all-reduce 2 ms late, last there. That lateness is rank
// 2's (named at the broadcast), not a stall of rank 3's own (the sixth blind
// set's mesh: the global all-reduce after one all_to_all group was held).
func TestHeldElsewhereNoStall(t *testing.T) {
	const ms = int64(1_000_000)
	var sums []*Summary
	for r := 0; r < 4; r++ {
		s := &Summary{Version: SummaryVersion, Rank: r, File: "r" + itoa(r), Steps: []Step{{Name: "ProfilerStep#1", Start: 0, End: 400 * ms}}}
		for i := int64(0); i < 18; i++ {
			t0 := i*20*ms + ms
			bStart, bEnd, lag := t0+int64(3_000*r), t0+100_000, int64(0)
			if i == 3 && r >= 2 {
				lag = 2 * ms
				bEnd += lag
				if r == 2 {
					bStart += lag
				}
			}
			if i < 6 {
				s.Ops = append(s.Ops, Op{Kind: "broadcast", PG: "tp" + itoa(r/2), Seq: -1, Bytes: -1, Launch: bStart - 10_000, Start: bStart, End: bEnd, Busy: ms, Step: 0})
			}
			aStart := t0 + 5*ms + lag + int64(2_000*((r+int(i))%3))
			aEnd := t0 + 6*ms
			if i == 3 {
				aEnd += 2 * ms
			}
			s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "dp" + itoa(r%2), Seq: -1, Bytes: -1, Launch: aStart - 10_000, Start: aStart, End: aEnd, Busy: ms, Step: 0})
		}
		sums = append(sums, s)
	}
	res := Match(sums)
	held := false
	for _, in := range res.Instances {
		if in.PG == "dp1" && in.Kind == "allreduce" && in.Index == 3 {
			held = in.LastRank == 3 && in.Skew >= US(ms)
		}
	}
	if !held {
		t.Fatalf("the case does not hold: rank 3 is not last by ≥ 1 ms at dp1 all-reduce #3")
	}
	for _, st := range res.Stalls {
		if st.Rank == 3 {
			t.Errorf("stall of rank 3, held at its broadcast: %+v", st)
		}
	}
}
