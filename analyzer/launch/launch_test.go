package launch

import (
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

func analyze(st *trace.Store) *Result {
	j := callsite.NewJoins(st)
	bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
	ids, names := bd.OpStage, bd.StageNames
	id := idle.Analyze(st, idle.Options{Joins: j, StageOf: ids, StageNames: names})
	return Analyze(st, Options{Joins: j, StageOf: ids, StageNames: names, Idle: id})
}

func TestDist(t *testing.T) {
	d := distOf([]int32{5, 1, 4, 2, 3, 6, 7, 8, 9, 10})
	if d != (Dist{N: 10, P50: 5, P90: 9, P99: 10, Max: 10}) {
		t.Errorf("dist = %+v", d)
	}
	if d := distOf(nil); d.N != 0 {
		t.Errorf("empty dist = %+v", d)
	}
}

// The host-bound decode loop: every kernel is short, the host is the
// bottleneck, and every eager op has a launch delay sample.
func TestHostbound(t *testing.T) {
	st := fixture.Load(t, "gpu/perfmodel/hostbound.trace.json.gz")
	r := analyze(st)
	if r.Verdict.Verdict != "cpu-bound" {
		t.Errorf("verdict = %q (%+v), want cpu-bound", r.Verdict.Verdict, r.Verdict)
	}
	if r.All.Kernels != 920 || r.All.Ops != 960 {
		t.Errorf("kernels %d ops %d, want 920 / 960", r.All.Kernels, r.All.Ops)
	}
	if r.All.FromStart.N != 960 || r.All.Graph != 0 {
		t.Errorf("delay samples %d graph %d, want 960 / 0", r.All.FromStart.N, r.All.Graph)
	}
	if r.All.FromStart.P50 < r.All.FromEnd.P50 {
		t.Errorf("delay from call start %d < from call end %d", r.All.FromStart.P50, r.All.FromEnd.P50)
	}
	if r.Verdict.ShortShare < 0.9 {
		t.Errorf("short kernel share %.3f: the loop's kernels are all a few µs", r.Verdict.ShortShare)
	}
	var hist int64
	for _, b := range r.Histogram {
		hist += b.Kernels
	}
	if hist != r.All.Kernels {
		t.Errorf("histogram holds %d kernels, want %d", hist, r.All.Kernels)
	}
}

// SGLang decode, one HIP graph: its 544 replayed ops give one delay sample
// (graph launch → first op) in the graph row, none in their categories.
func TestGraphReplay(t *testing.T) {
	st := fixture.Load(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	r := analyze(st)
	var g *Row
	for i := range r.Rows {
		if r.Rows[i].Category == GraphRow {
			g = &r.Rows[i]
		}
	}
	if g == nil || g.Ops != 544 || g.FromStart.N != 1 {
		t.Fatalf("graph row = %+v, want 544 ops and one delay sample", g)
	}
	if r.All.Graph != 544 || r.All.FromStart.N != int(r.All.Ops-544) {
		t.Errorf("all: graph %d, delay samples %d of %d ops", r.All.Graph, r.All.FromStart.N, r.All.Ops)
	}
	if r.Verdict.Verdict != "device-waits" {
		t.Errorf("verdict = %q, want device-waits (the GPU waited 463 ms on an event)", r.Verdict.Verdict)
	}
}

// Issue 22 item 13: a launch delay of ~200 ms is the queue ahead of the
// launch (the host ran ahead of a busy GPU), and the takeaway says so.
func TestRanAheadNote(t *testing.T) {
	r := &Result{}
	r.All.Kernels = 10
	r.Verdict.Verdict = "device-waits"
	r.All.FromEnd.P50 = 222_055_188
	if tk := r.Takeaway(); !strings.Contains(tk, "the host ran ahead of a busy GPU") {
		t.Errorf("takeaway %q", tk)
	}
	r.All.FromEnd.P50 = 18_173
	if tk := r.Takeaway(); strings.Contains(tk, "ran ahead") {
		t.Errorf("an 18 µs delay: %q", tk)
	}
}
