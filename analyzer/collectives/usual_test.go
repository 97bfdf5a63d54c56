package collectives

import "testing"

// The unplanted real traces hold no stall: their ranks' natural skew
// (TP=2: rank 0 up to 4.5 ms late, 3.7 ms past its usual offset) is the
// baseline a planted stall is judged against, never one itself.
func TestNoStallUnplanted(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		long  bool
	}{{"dlrm", dlrmFiles(t), false}, {"tp2", tp2Files, true}} {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("reads 158 MB of JSON")
			}
			res := Match(summaries(t, c.files...))
			for _, s := range res.Stalls {
				t.Errorf("false stall: %s", s.text())
			}
			with := 0
			for i := range res.Instances {
				if res.Instances[i].Excess != nil {
					with++
				}
			}
			t.Logf("%d of %d instances judged against a baseline", with, len(res.Instances))
		})
	}
}

// A rank whose offsets never vary (a trace cloned to ranks) keeps the
// floor: jitter below 50 µs is no stall, a 1 ms stall is.
func TestStallFloor(t *testing.T) {
	mk := func(late map[int]int64) []*Summary {
		var sums []*Summary
		for r := 0; r < 4; r++ {
			s := &Summary{Version: SummaryVersion, Rank: r, File: "r" + itoa(r), Steps: []Step{}}
			for i := 0; i < 40; i++ {
				t0 := int64(i) * 1_000_000
				if r == 2 {
					t0 += late[i]
				}
				s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "0", Seq: -1, Bytes: -1, Launch: -1, Start: t0, End: t0 + 100_000 + late[i], Step: -1})
			}
			sums = append(sums, s)
		}
		return sums
	}
	res := Match(mk(map[int]int64{5: 30_000, 20: 1_000_000}))
	if len(res.Stalls) != 1 || res.Stalls[0].Rank != 2 || res.Stalls[0].Index != 20 {
		t.Fatalf("stalls %+v, want rank 2 at #20 only", res.Stalls)
	}
}
