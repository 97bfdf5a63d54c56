package diff

import (
	"math"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
)

// Deltas and sums of deltas saturate: run A's stage windows sit at int64's
// end (each a window summed over files, itself saturated), run B's are
// small. The "window" gate sums every stage: it wrapped to a small A and
// a wrapped-around "REGRESSION" (issue 24); now A stays at int64's end and
// B is far faster.
func TestDeltasSaturate(t *testing.T) {
	side := func(name string, window, kernel, launches int64) Side {
		return Side{Name: name, BusyNS: kernel, SpanNS: window, Breakdown: &breakdown.Result{
			Stages: []breakdown.Stage{{Stage: "prefill", KernelCount: 1, KernelTime: kernel, Window: window}, {Stage: "decode", KernelCount: 1, KernelTime: kernel, Window: window}},
			Rows:   []breakdown.Row{{Stage: "prefill", Kernel: "gemm", Category: "gemm", Launches: launches, GPUTime: kernel}, {Stage: "decode", Kernel: "gemm", Category: "gemm", Launches: 2, GPUTime: kernel}}}}
	}
	th, err := ParseThreshold("window:+5%")
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(side("a", math.MaxInt64, 4e18, math.MaxInt64), side("b", 1000, 500, 1), Options{Force: true, FailOn: []Threshold{th}})
	if r.Regression || len(r.Gate) != 1 || r.Gate[0].DeltaUS >= 0 || r.Gate[0].Failed {
		t.Errorf("regression %v, gate %+v", r.Regression, r.Gate)
	}
	if r.Total.AUS != 8e18 || r.Total.DUS >= 0 || r.Total.ALaun != math.MaxInt64 || r.Total.DLaun >= 0 {
		t.Errorf("total %+v", r.Total)
	}
	for _, s := range r.Stages {
		if s.DWindow >= 0 {
			t.Errorf("stage %+v", s)
		}
	}
	// and the other way round: B at int64's end is a regression, never a wrapped speed-up
	r = Compare(side("b", 1000, 500, 1), side("a", math.MaxInt64, 4e18, math.MaxInt64), Options{Force: true, FailOn: []Threshold{th}})
	if !r.Regression || r.Gate[0].DeltaUS != math.MaxInt64-2000 {
		t.Errorf("regression %v, gate %+v", r.Regression, r.Gate)
	}
	if md := string(r.Markdown()); strings.Contains(md, "-9223372036854") {
		t.Errorf("a wrapped-around number: %s", md)
	}
}
