package idle

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

var update = flag.Bool("update", false, "rewrite golden files")

func analyze(st *trace.Store) *Result {
	j := callsite.NewJoins(st)
	ids, names := breakdown.Stages(st, j)
	return Analyze(st, Options{Joins: j, StageOf: ids, StageNames: names})
}

// The host-bound decode loop's answer key: share of host-bound gap time and
// the frames blamed, sampled every 1 µs.
func TestHostboundKey(t *testing.T) {
	st := fixture.Load(t, "gpu/perfmodel/hostbound.trace.json.gz")
	raw, err := os.ReadFile(filepath.Join(fixture.Shared, "gpu/perfmodel/hostbound.facts.json"))
	if err != nil {
		t.Skip(err)
	}
	var key struct {
		Hostbound struct {
			Steps     int     `json:"decode_steps"`
			Window    float64 `json:"window_us"`
			Busy      float64 `json:"gpu_busy_us"`
			Gaps      float64 `json:"gaps_inside_steps_us"`
			HostBound float64 `json:"host_bound_gap_us"`
			Share     float64 `json:"host_bound_share_of_gaps"`
			Blame     []struct {
				Frame string  `json:"frame"`
				US    float64 `json:"sampled_us"`
			} `json:"blame_top"`
		} `json:"hostbound"`
	}
	if err := json.Unmarshal(raw, &key); err != nil {
		t.Fatal(err)
	}
	k := key.Hostbound
	r := analyze(st)
	s := r.Steps
	if s.Steps != k.Steps {
		t.Fatalf("steps = %d, want %d", s.Steps, k.Steps)
	}
	near := func(what string, got int64, want, tol float64) {
		t.Helper()
		if g := float64(got) / 1000; math.Abs(g-want) > tol {
			t.Errorf("%s = %.3f µs, want %.3f ± %.3f", what, g, want, tol)
		}
	}
	near("window", s.Window, k.Window, 0.01)
	near("busy", s.Busy, k.Busy, 0.2)
	// Our step idle also holds the edges between an annotation's bounds and
	// its first/last op (0.08 µs here), which the key leaves out of "gaps".
	near("host-bound", s.HostBound, k.HostBound, 0.2)
	if got := s.HostBoundShare(); math.Abs(got-k.Share) > 1e-6 {
		t.Errorf("host-bound share = %.6f, want %.6f", got, k.Share)
	}
	if len(s.Culprits) < len(k.Blame) {
		t.Fatalf("%d culprits, want ≥ %d", len(s.Culprits), len(k.Blame))
	}
	for i, b := range k.Blame {
		c := s.Culprits[i]
		if c.Frame != b.Frame {
			t.Errorf("culprit %d = %q, want %q", i, c.Frame, b.Frame)
		}
		near("culprit "+b.Frame, c.Time, b.US, 0.15) // the key rounds to 0.1 µs
	}
	t.Logf("steps: window %d busy %d host %d share %.6f", s.Window, s.Busy, s.HostBound, s.HostBoundShare())
	for _, c := range s.Culprits {
		t.Logf("  %-45s %-28s %10d %.4f", c.Frame, c.CPUOp, c.Time, c.Share)
	}
	fixture.Golden(t, "hostbound.idle.json", r.JSON("gputriage", "test", false), *update)
}
