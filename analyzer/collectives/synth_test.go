package collectives

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// synth generates the summaries of a job of n ranks, steps steps of ops
// all-reduces each (1 MiB bf16, pg "0"), every rank a few µs apart; rank
// late arrives lateNS late at every collective of step lateStep, with
// extra kernel time before it (a planted straggler). Deterministic.
func synth(n, steps, ops, late, lateStep int, lateNS int64) []*Summary {
	var out []*Summary
	seed := uint64(12345)
	rnd := func() int64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64(seed>>33) % 20000 // < 20 µs
	}
	for r := 0; r < n; r++ {
		s := &Summary{Version: SummaryVersion, File: fmt.Sprintf("rank%d.json", r), Rank: r, World: n, Device: "AMD Instinct MI355X",
			ClockBase: 1_790_000_000_000_000_000, Digest: fmt.Sprintf("%016x", r)}
		t := int64(1_000_000)
		for st := 0; st < steps; st++ {
			s.Steps = append(s.Steps, Step{Name: fmt.Sprintf("ProfilerStep#%d", st), Start: t, End: t + int64(ops)*1_000_000})
			for i := 0; i < ops; i++ {
				start := t + int64(i)*1_000_000 + 500_000 + rnd()
				busy := int64(400_000)
				if r == late && st == lateStep {
					start += lateNS
					busy += lateNS
				}
				top := []Kernel{{Name: "gemm", NS: busy, N: 2}}
				s.Ops = append(s.Ops, Op{Kind: "allreduce", PG: "0", PGDesc: "default_pg", Seq: int64(st*ops + i), Bytes: 1 << 20, Dtype: "BFloat16",
					Group: n, Start: start, End: t + int64(i)*1_000_000 + 600_000 + lateNS*boolInt(st == lateStep), Launch: start - 30_000, Step: st, Busy: busy, Top: top})
				s.KernelNS += busy + 100_000
				s.CommNS += 100_000
			}
			t += int64(ops) * 1_000_000
		}
		out = append(out, s)
	}
	return out
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// A planted straggler is named: rank, step, collective, and why.
func TestPlantedStraggler(t *testing.T) {
	res := Match(synth(8, 4, 6, 5, 2, 3_000_000))
	if len(res.Instances) != 24 || res.Instances[0].MatchedBy != "seq" {
		t.Fatalf("%d instances, matched by %s", len(res.Instances), res.Instances[0].MatchedBy)
	}
	s := res.Straggler
	if s == nil || s.Rank == nil || *s.Rank != 5 {
		t.Fatalf("straggler %+v", s)
	}
	if res.Steps[2].StragglerRank != 5 || res.Steps[2].Step != "ProfilerStep#2" {
		t.Errorf("step 2: %+v", res.Steps[2])
	}
	for _, in := range res.Instances {
		if in.Step == "ProfilerStep#2" && (in.LastRank != 5 || in.Skew < 3_000_000) {
			t.Errorf("%s: last %d skew %s", in.Label(), in.LastRank, in.Skew)
		}
		// allreduce busbw on 8 ranks: algbw × 2·7/8; MI355X xGMI peak 7 × 76.8
		if in.BusBW == nil || *in.PeakGBPS != 7*76.8 {
			t.Fatalf("%s: busbw %v peak %v", in.Label(), in.BusBW, in.PeakGBPS)
		}
		want := float64(1<<20) / float64(in.Transfer) * 2 * 7 / 8
		if d := *in.BusBW - want; d > 0.001 || d < -0.001 {
			t.Errorf("%s: busbw %v, want %v", in.Label(), *in.BusBW, want)
		}
	}
	if !strings.Contains(s.Reason, "GPU was busier") || !strings.Contains(s.Reason, "gemm") {
		t.Errorf("reason %q", s.Reason)
	}
}

// Ranks whose traces have different baseTimeNanoseconds are put on one
// clock: the same job written with rank 1's base 2 ms later and its times
// 2 ms smaller matches the same way.
func TestCommonClock(t *testing.T) {
	a := synth(2, 1, 3, 1, 0, 500_000)
	b := synth(2, 1, 3, 1, 0, 500_000)
	s := b[1]
	s.ClockBase += 2_000_000
	for i := range s.Ops {
		s.Ops[i].Start -= 2_000_000
		s.Ops[i].End -= 2_000_000
		s.Ops[i].Launch -= 2_000_000
	}
	for i := range s.Steps {
		s.Steps[i].Start -= 2_000_000
		s.Steps[i].End -= 2_000_000
	}
	x, y := Match(a), Match(b)
	if string(x.JSON("t", "v")) != string(y.JSON("t", "v")) {
		t.Errorf("shifted base gives other instances")
	}
}

// The reduce of 1,024 ranks' summaries (decoded from JSON, as `gputriage
// ranks` reads them): 1,024 × 200 collectives.
func BenchmarkReduce1024(b *testing.B) {
	sums := synth(1024, 4, 50, 77, 1, 2_000_000)
	var blobs [][]byte
	total := 0
	for _, s := range sums {
		j, _ := json.Marshal(s)
		blobs = append(blobs, j)
		total += len(j)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var back []*Summary
		for _, j := range blobs {
			s, err := ParseSummary(j) // as gputriage ranks reads them
			if err != nil {
				b.Fatal(err)
			}
			back = append(back, s)
		}
		res := Match(back)
		_ = res.JSON("t", "v")
		_ = res.RanksJSON("t", "v")
	}
}
