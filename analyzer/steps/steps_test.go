package steps

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

func TestDist(t *testing.T) {
	d := NewDist([]float64{4, 1, 3, 2})
	// ranks 0..3: p50 at 1.5 → 2.5, p90 at 2.7 → 3.7; population std of 1..4 = √1.25.
	if d.Count != 4 || d.Min != 1 || d.Max != 4 || d.P50 != 2.5 || math.Abs(d.P90-3.7) > 1e-12 || d.Mean != 2.5 || math.Abs(d.Std-math.Sqrt(1.25)) > 1e-12 {
		t.Errorf("%+v", d)
	}
	if NewDist(nil).Count != 0 || Percentile(nil, 50) != 0 {
		t.Error("empty")
	}
}

// The H100 decode traces' step figures equal testdata/stepkey.py's
// independent computation (its output committed beside it) within 1 %,
// and the graph-on wall time the shared answer key's min / mean / max.
func TestH100DecodeSteps(t *testing.T) {
	for _, c := range []struct {
		trace, key     string
		min, mean, max float64 // ../shared/testdata/gpu/facts/*.annot.json decode_step
	}{
		{"gpu/traces/graph_on.trace.json.gz", "testdata/graph_on.key.json", 1722.358, 1726.457, 1730.487},
		{"gpu/traces/eager_graph_off.trace.json.gz", "testdata/eager_graph_off.key.json", 0, 19638.198, 0},
		// TP=2 rank 0: each decode_step has a span on the compute and on the
		// NCCL stream (one External id): 32 steps, not 64 (min/mean/max of
		// the shared facts count the raw annotation events, so not compared)
		{"gpu/traces/tp_rank0.trace.json.gz", "testdata/tp_rank0.key.json", 0, 0, 0},
	} {
		st := fixture.Load(t, c.trace)
		j := callsite.NewJoins(st)
		bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
		id := idle.Analyze(st, idle.Options{Joins: j, StageOf: bd.OpStage, StageNames: bd.StageNames})
		res := Analyze(st, id, Options{OpStage: bd.OpStage, StageNames: bd.StageNames})
		var s *Stage
		for i := range res.Stages {
			if res.Stages[i].Steps > 0 {
				if s != nil {
					t.Fatalf("%s: steps in two stages", c.trace)
				}
				s = &res.Stages[i]
			}
		}
		if s == nil || s.Stage != "decode" || s.Name != "decode_step" {
			t.Fatalf("%s: %+v", c.trace, res.Stages)
		}
		checkKey(t, c.trace, s, c.key)
		for _, a := range [][2]float64{{s.Wall.Mean, c.mean}, {s.Wall.Min, c.min}, {s.Wall.Max, c.max}} {
			if a[1] > 0 && math.Abs(a[0]-a[1]) > 0.001 {
				t.Errorf("%s: %.3f vs answer key %.3f", c.trace, a[0], a[1])
			}
		}
		if l := s.Lead(""); !strings.HasPrefix(l, "step p50 ") {
			t.Errorf("lead %q", l)
		} else {
			t.Log(l)
		}
		if len(s.Kernels) == 0 || s.Kernels[0].Dist.Count == 0 || s.Short[0].UpTo != 2 {
			t.Errorf("kernels %+v short %+v", s.Kernels[:1], s.Short)
		}
	}
}

// checkKey compares a stage's step figures with stepkey.py's output in
// key: the step count, the warm-up, and every figure within 1 %.
func checkKey(t *testing.T, trace string, s *Stage, keyFile string) {
	t.Helper()
	c := struct{ trace, key string }{trace, keyFile}
	raw, err := os.ReadFile(c.key)
	if err != nil {
		t.Fatal(err)
	}
	var key struct {
		Steps, SteadyFrom int
		Wall, Busy, Idle  map[string]float64
	}
	var k2 map[string]json.RawMessage
	if err := json.Unmarshal(raw, &k2); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(k2["steps"], &key.Steps)
	json.Unmarshal(k2["steady_from"], &key.SteadyFrom)
	json.Unmarshal(k2["wall_us"], &key.Wall)
	json.Unmarshal(k2["busy_us"], &key.Busy)
	json.Unmarshal(k2["idle_us"], &key.Idle)
	if s.Steps != key.Steps || s.SteadyFrom != key.SteadyFrom {
		t.Errorf("%s: %d steps from %d, key %d from %d", c.trace, s.Steps, s.SteadyFrom, key.Steps, key.SteadyFrom)
	}
	for _, f := range []struct {
		name string
		got  Dist
		want map[string]float64
	}{{"wall", s.Wall, key.Wall}, {"busy", s.Busy, key.Busy}, {"idle", s.Idle, key.Idle}} {
		for _, p := range []struct {
			n string
			v float64
		}{{"min", f.got.Min}, {"p50", f.got.P50}, {"p90", f.got.P90}, {"p99", f.got.P99}, {"max", f.got.Max}, {"mean", f.got.Mean}} {
			if w := f.want[p.n]; math.Abs(p.v-w) > 0.01*math.Abs(w)+1e-3 {
				t.Errorf("%s %s %s: %.3f, key %.3f", c.trace, f.name, p.n, p.v, w)
			}
		}
	}
}

// vLLM's graph_execution traces mark their step with one CPU-side
// execute_<tokens>_context_…_generation_… annotation around the graph
// launch: the step is the GPU range of what it launched, and its figures
// equal stepkey.py --cpu execute_ (its output committed beside it).
func TestVLLMSteps(t *testing.T) {
	dir := "traces/tracelens/inference/"
	for _, c := range []struct{ trace, key, stage string }{
		{dir + "vllm_decode_full/graph_execution.json.gz", "testdata/vllm_decode_full.key.json", "decode"},
		{dir + "vllm_prefilldecode_piecewise/graph_execution.json.gz", "testdata/vllm_piecewise.key.json", "mixed"},
	} {
		st := fixture.Load(t, c.trace)
		j := callsite.NewJoins(st)
		bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
		id := idle.Analyze(st, idle.Options{Joins: j, StageOf: bd.OpStage, StageNames: bd.StageNames})
		res := Analyze(st, id, Options{OpStage: bd.OpStage, StageNames: bd.StageNames})
		if len(res.Stages) != 1 || res.Stages[0].Stage != c.stage || !strings.HasPrefix(res.Stages[0].Name, "execute_") {
			t.Fatalf("%s: %+v", c.trace, res.Stages)
		}
		s := &res.Stages[0]
		checkKey(t, c.trace, s, c.key)
		if l := s.Lead(""); !strings.HasPrefix(l, "step p50 ") || !strings.Contains(l, "tokens/s") {
			t.Errorf("%s: lead %q", c.trace, l)
		}
	}
}
