package collectives

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Rank summaries carry trace times: ParseSummary refuses one outside the
// reader's range (a hand-made rank_summary.json), naming the field, so
// no time on the common clock nor any difference of two leaves int64.
func TestSummaryTimesRange(t *testing.T) {
	good := synth(2, 1, 2, -1, -1, 0)[0]
	b, _ := json.Marshal(good)
	if _, err := ParseSummary(b); err != nil {
		t.Fatalf("a summary in range: %v", err)
	}
	for _, c := range []struct {
		field string
		set   func(s *Summary)
	}{
		{"clock_base_ns", func(s *Summary) { s.ClockBase = -1 }},
		{"kernel_ns", func(s *Summary) { s.KernelNS = 4.1e18 }},
		{"op 1 start_ns", func(s *Summary) { s.Ops[1].Start = math.MaxInt64 }},
		{"op 0 end_ns", func(s *Summary) { s.Ops[0].End = math.MinInt64 }},
		{"op 0 launch_ns", func(s *Summary) { s.Ops[0].Launch = -2 }},
		{"step 0 end_ns", func(s *Summary) { s.Steps[0].End = 9e18 }},
		{"op 1 top kernel ns", func(s *Summary) { s.Ops[1].Top[0].NS = -5 }},
	} {
		s := *synth(2, 1, 2, -1, -1, 0)[0]
		c.set(&s)
		b, _ := json.Marshal(&s)
		if _, err := ParseSummary(b); err == nil || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "rank0.json") {
			t.Errorf("%s: %v", c.field, err)
		}
	}
}

// Sums over instances saturate: two ranks whose clocks are 4·10¹⁸ ns
// apart wait about 8·10¹⁸ ns at each of two collectives (too few to tell a
// clock offset, see clockOffsets), and the rank's total wait and the
// straggler's lateness stay at int64's end instead of wrapping negative.
// With three, the offset is told by the ends and taken out, without
// wrapping either.
func TestMatchSumsSaturate(t *testing.T) {
	apart := func(n int) []*Summary {
		sums := synth(2, 1, n, -1, -1, 0)
		sums[0].ClockBase = 1
		sums[1].ClockBase = 4e18
		for i := range sums[1].Ops {
			o := &sums[1].Ops[i]
			o.Start += 3.9e18
			o.End += 3.9e18
			o.Launch += 3.9e18
		}
		for _, s := range sums {
			b, _ := json.Marshal(s)
			if _, err := ParseSummary(b); err != nil {
				t.Fatal(err)
			}
		}
		return sums
	}
	res := Match(apart(2))
	if len(res.Instances) != 2 || len(res.Ranks) != 2 {
		t.Fatalf("%d instances, %d ranks", len(res.Instances), len(res.Ranks))
	}
	for _, in := range res.Instances {
		if in.Skew < 7.8e18 || in.LastRank != 1 {
			t.Errorf("%s: skew %d, last rank %d", in.Label(), in.Skew, in.LastRank)
		}
	}
	if r := res.Ranks[0]; r.Wait != math.MaxInt64 {
		t.Errorf("rank 0 waited %d", r.Wait)
	}
	if r := res.Ranks[1]; r.Lateness != math.MaxInt64 || r.Wait != 0 || r.ClockOffset != nil || r.ClockAligned {
		t.Errorf("rank 1: lateness %d wait %d clock %v %v", r.Lateness, r.Wait, r.ClockOffset, r.ClockAligned)
	}
	if len(res.Steps) != 1 || res.Steps[0].Skew != math.MaxInt64 || res.Steps[0].Lateness != math.MaxInt64 {
		t.Errorf("steps %+v", res.Steps)
	}
	three := Match(apart(3))
	if r := three.Ranks[1]; !r.ClockAligned || r.ClockOffset == nil || *r.ClockOffset < 7.8e18 {
		t.Errorf("three collectives 7.9·10¹⁸ ns apart: rank 1 clock %v aligned %v", r.ClockOffset, r.ClockAligned)
	}
	for _, in := range three.Instances {
		if in.Skew < 0 || in.Skew > 100_000 || in.Transfer < 0 {
			t.Errorf("aligned %s: skew %d transfer %d", in.Label(), in.Skew, in.Transfer)
		}
	}
	for _, b := range []string{res.JSON("t", "v"), res.RanksJSON("t", "v"), res.Markdown(), three.JSON("t", "v"), three.RanksJSON("t", "v")} {
		if strings.Contains(string(b), "-9223372036854") || strings.Contains(string(b), "_us\": -9") || strings.Contains(string(b), "wait_us\": -") {
			t.Errorf("a wrapped-around sum: %.3000s", b)
		}
	}
}

// swinging lays out two ranks whose arrival order swings by 4·10¹⁸ ns at
// every collective (summaries in range): ten robust sigmas of that excess
// are 5.9·10¹⁹ ns, past int64.
func swinging(n int) []*Summary {
	sums := synth(2, 1, n, -1, -1, 0)
	for r, s := range sums {
		s.Steps[0] = Step{Name: "ProfilerStep#0", Start: 0, End: 4e18 + 1e9}
		for i := range s.Ops {
			o := &s.Ops[i]
			o.Start = int64((i+r)%2)*4e18 + int64(i)*1000
			o.End, o.Launch, o.Step = o.Start+100_000, -1, 0
		}
	}
	return sums
}

// The stall threshold converts ten robust sigmas to ns: int64(5.9e19) was
// −2⁶³ natively (every late arrival a stall, 3 × p90 wrapped too) and
// 2⁶³−1 under wasm (none). Saturated, it is none on both.
func TestUsualExtremeOffsets(t *testing.T) {
	sums := swinging(60)
	for _, s := range sums {
		b, _ := json.Marshal(s)
		if _, err := ParseSummary(b); err != nil {
			t.Fatal(err)
		}
	}
	res := Match(sums)
	if len(res.Instances) != 60 {
		t.Fatalf("%d instances", len(res.Instances))
	}
	if len(res.Stalls) != 0 {
		t.Errorf("%d stalls, first %+v", len(res.Stalls), res.Stalls[0])
	}
}
