package collectives

import "testing"

// A TP × DP mesh: four ranks all-reduce together ten times (pg "tp"), then
// ranks {1,3} and {0,2} once each in DP pairs (pg "dp1", "dp0"). Rank 3's
// GPU runs 1 ms more work before its DP all-reduce and arrives 1 ms late.
// Its pair has one instance: bounded by its own two differences (x and −x)
// nothing could stand out; bounded by the job's pooled differences (a few
// µs) it is a stall by GPU work. The other pair, 20 µs apart, is none.
// (The fifth blind set, tools/plantstraggler5: a DP pair of the real DLRM
// ranks; a rank's extra GPU work there was named nowhere.)
func TestStallInSmallGroupPooled(t *testing.T) {
	var sums []*Summary
	for r := 0; r < 4; r++ {
		s := &Summary{Version: SummaryVersion, Rank: r, File: "r" + itoa(r), Steps: []Step{{Name: "ProfilerStep#1", Start: 0, End: 200_000_000}}}
		for i := 0; i < 10; i++ {
			t0 := int64(i)*10_000_000 + 1_000_000
			busy := int64(2_000_000 + 3_000*((r+i)%3))
			start := t0 + int64(2_000*((r+2*i)%4))
			s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "tp", Seq: -1, Bytes: -1, Launch: start - 10_000, Start: start, End: t0 + 1_600_000, Busy: busy, Step: 0})
		}
		t0 := int64(120_000_000)
		busy, late := int64(2_000_000+4_000*int64(r%2)), int64(20_000*int64(r/2))
		if r == 3 {
			busy, late = 3_000_000, 1_000_000
		}
		pg := "dp" + itoa(r%2)
		s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: pg, Seq: -1, Bytes: -1, Launch: t0 + late - 10_000, Start: t0 + late, End: t0 + 1_600_000, Busy: busy, Step: 0})
		sums = append(sums, s)
	}
	res := Match(sums)
	if len(res.Stalls) != 1 {
		t.Fatalf("stalls %+v, want rank 3 at dp1's all-reduce only", res.Stalls)
	}
	st := res.Stalls[0]
	if st.Rank != 3 || st.PG != "dp1" || st.By != "gpu_work" || st.ExtraBusy == nil || *st.ExtraBusy < 900_000 {
		t.Errorf("stall %+v, want rank 3 at dp1 by ≈ 1 ms of GPU work", st)
	}
}
