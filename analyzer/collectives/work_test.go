package collectives

import "testing"

// Four ranks, six all-reduces in one step: too few for a usual arrival.
// Rank 2's GPU runs 1 ms more work before #3 and arrives 1 ms late: a
// stall by GPU work. Rank 1 arrives 1.5 ms late at #4 with no extra work
// (a late host, as every rank's lateness may be in a one-step trace): no
// stall. Rank 3 is a little busier everywhere and late by habit: no stall.
func TestStallByGPUWork(t *testing.T) {
	var sums []*Summary
	for r := 0; r < 4; r++ {
		s := &Summary{Version: SummaryVersion, Rank: r, File: "r" + itoa(r), Steps: []Step{{Name: "ProfilerStep#1", Start: 0, End: 100_000_000}}}
		for i := 0; i < 6; i++ {
			t0 := int64(i)*10_000_000 + 1_000_000
			busy := int64(2_000_000 + 3_000*((r+i)%3)) // jitter of a few µs
			late := int64(0)
			switch {
			case r == 2 && i == 3:
				busy += 1_000_000
				late = 1_000_000
			case r == 1 && i == 4:
				late = 1_500_000
			case r == 3:
				busy += 20_000
				late = 200_000
			}
			start := t0 + late
			s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "0", Seq: -1, Bytes: -1, Launch: start - 10_000, Start: start, End: t0 + 1_600_000, Busy: busy, Step: 0})
		}
		sums = append(sums, s)
	}
	res := Match(sums)
	if len(res.Stalls) != 1 {
		t.Fatalf("stalls %+v, want rank 2 at #3 only", res.Stalls)
	}
	st := res.Stalls[0]
	if st.Rank != 2 || st.Index != 3 || st.By != "gpu_work" || st.ExtraBusy == nil || *st.ExtraBusy < 990_000 {
		t.Errorf("stall %+v, want rank 2 at #3 by ≈ 1 ms of GPU work", st)
	}
	if len(res.Steps) != 1 || res.Steps[0].StallRank == nil || *res.Steps[0].StallRank != 2 || res.Steps[0].StallCollective != "allreduce #3 (pg 0)" {
		t.Errorf("step rows %+v", res.Steps)
	}
	for _, in := range res.Instances {
		if in.Stall != (in.Index == 3) {
			t.Errorf("%s: stall %v", in.Label(), in.Stall)
		}
	}
}
