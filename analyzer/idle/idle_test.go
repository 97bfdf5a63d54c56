package idle

import (
	"encoding/json"
	"flag"
	"fmt"
	sharedfix "github.com/gputriage/gputriage/internal/fixture"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

var update = flag.Bool("update", false, "rewrite golden files")

func analyze(st *trace.Store) *Result {
	j := callsite.NewJoins(st)
	bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
	ids, names := bd.OpStage, bd.StageNames
	return Analyze(st, Options{Joins: j, StageOf: ids, StageNames: names})
}

// The host-bound decode loop's answer key: share of host-bound gap time and
// the frames blamed, sampled every 1 µs.
func TestHostboundKey(t *testing.T) {
	st := fixture.Load(t, "gpu/perfmodel/hostbound.trace.json.gz")
	raw, err := os.ReadFile(filepath.Join(fixture.Shared, "gpu/perfmodel/hostbound.facts.json"))
	if err != nil {
		sharedfix.Missing(t, "%v", err)
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

// SGLang decode on MI300X: the GPU idles 463 ms with resolve_future_token_ids
// already submitted after a hipStreamWaitEvent, while the host sits in a
// blocking D2H copy. That is device-side idle, not host-bound.
func TestSGLangDecodeWait(t *testing.T) {
	st := fixture.Load(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	r := analyze(st)
	if len(r.Stages) != 1 || r.Stages[0].Stage != "decode" {
		t.Fatalf("stages = %+v", r.Stages)
	}
	w := r.Stages[0]
	if w.Idle != w.HostBound+w.DeviceSide+w.Unknown || w.Window != w.Busy+w.Idle {
		t.Errorf("window %d ≠ busy %d + idle %d, or idle ≠ host %d + device %d + unknown %d", w.Window, w.Busy, w.Idle, w.HostBound, w.DeviceSide, w.Unknown)
	}
	if s := w.HostBoundShare(); s > 0.01 {
		t.Errorf("host-bound share %.4f, want < 1 %%", s)
	}
	if len(r.Waits) == 0 {
		t.Fatal("no device-side waits")
	}
	x := r.Waits[0]
	if x.Time < 463e6 || x.Time > 464e6 || x.After != "hipStreamWaitEvent" || x.HostIn != "D2H copy (hipMemcpyWithStream)" ||
		x.Op != "(anonymous namespace)::resolve_future_token_ids_kernel<long>" {
		t.Errorf("longest wait = %+v", x)
	}
	if got := r.Takeaways(); len(got) != 1 || !strings.Contains(got[0], "device-side") || !strings.Contains(got[0], "hipStreamWaitEvent") {
		t.Errorf("takeaways = %q", got)
	}
}

// The key loop syncs with .item() every step: the sync is named, once per
// step (the stream sync inside it is not counted again).
func TestItemSync(t *testing.T) {
	st := fixture.Load(t, "gpu/perfmodel/hostbound.trace.json.gz")
	r := analyze(st)
	if len(r.Syncs) == 0 || r.Syncs[0].Call != ".item() (aten::_local_scalar_dense)" || r.Syncs[0].Calls != 40 {
		t.Fatalf("syncs = %+v", r.Syncs)
	}
	if r.Syncs[0].IdleDuring <= 0 {
		t.Errorf("no GPU idle during .item(): %+v", r.Syncs[0])
	}
}

func TestWeight(t *testing.T) {
	// Host time [0, 2500) sampled at 0, 1000, 2000; the last weighs 500.
	for _, c := range []struct{ s, e, want int64 }{
		{0, 2500, 2500}, {0, 1, 1000}, {1, 1000, 0}, {1500, 2500, 500}, {999, 1001, 1000}, {2000, 2001, 500},
	} {
		if got := weight(0, 2500, c.s, c.e); got != c.want {
			t.Errorf("weight(%d, %d) = %d, want %d", c.s, c.e, got, c.want)
		}
	}
}

func TestStepName(t *testing.T) {
	for in, want := range map[string]bool{
		"ProfilerStep#3": true, "decode_step": true, "step[DECODE bs=32]": true, "train_step": true,
		"stepper": false, "microsteps": false, "## forward ##": false,
		// one model execution (vLLM, the serving harnesses, xDiT)
		"execute_model": true, "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)": true,
		"execute_context_1(888_788544)_generation_0(0)": true, "execute_diffusion_1_256x256": true,
		// a method inside an iteration
		"Optimizer.step#SGD.step": false, "Optimizer.zero_grad#SGD.zero_grad": false,
	} {
		if got := stepName(in); got != want {
			t.Errorf("stepName(%q) = %v", in, got)
		}
	}
}

// nestTrace is a trace of step annotations (name, start, end in µs, cat)
// each launching one kernel at start+10 that runs 50 µs.
func nestTrace(t *testing.T, annots [][4]any, launches [][2]int) *trace.Store {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	for _, a := range annots {
		pid, tid := 1, 1
		if a[3] == "gpu_user_annotation" {
			pid, tid = 0, 7
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":%q,"name":%q,"pid":%d,"tid":%d,"ts":%d,"dur":%d,"args":{}},`, a[3], a[0], pid, tid, a[1], a[2].(int)-a[1].(int))
	}
	for i, l := range launches {
		fmt.Fprintf(&b, `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":5,"args":{"correlation":%d}},`, l[0], i+1)
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"correlation":%d,"stream":7,"device":0}},`, i, l[0]+10, l[1], i+1)
	}
	b.WriteString(`{"ph":"i","name":"end","pid":1,"tid":1,"ts":0,"s":"t"}]}`)
	st := trace.NewStore()
	r := st.NewReader("nest.json")
	if _, err := r.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	r.Close()
	return st
}

// Nested step annotations: the innermost level that holds no other step
// is the step (ProfilerStep#N around vLLM's execute_…, a harness's
// execute_… around SGLang's step[…], GPU-side too); a method named step
// (Optimizer.step#SGD.step) is no step, so a ProfilerStep#N holding one
// stays the step.
func TestNestedSteps(t *testing.T) {
	const ex = "execute_8_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk800sqsq8sqsk800)"
	for _, c := range []struct {
		why      string
		annots   [][4]any
		launches [][2]int
		want     []string
	}{
		{"ProfilerStep around two vLLM steps",
			[][4]any{{"ProfilerStep#1", 0, 1000, "user_annotation"}, {ex, 100, 400, "user_annotation"}, {ex, 500, 800, "user_annotation"}},
			[][2]int{{110, 50}, {510, 50}}, []string{ex, ex}},
		{"harness execute_ around SGLang's step",
			[][4]any{{ex, 0, 1000, "user_annotation"}, {"step[DECODE bs=8]", 100, 900, "user_annotation"}},
			[][2]int{{50, 20}, {110, 50}}, []string{"step[DECODE bs=8]"}},
		{"ProfilerStep around an optimizer step",
			[][4]any{{"ProfilerStep#1", 0, 1000, "user_annotation"}, {"Optimizer.step#SGD.step", 600, 700, "user_annotation"}},
			[][2]int{{110, 50}, {610, 50}}, []string{"ProfilerStep#1"}},
		{"GPU-side ProfilerStep around two decode steps",
			[][4]any{{"ProfilerStep#1", 100, 2000, "gpu_user_annotation"}, {"decode_step", 110, 700, "gpu_user_annotation"}, {"decode_step", 800, 1500, "gpu_user_annotation"}},
			[][2]int{{100, 500}, {790, 600}}, []string{"decode_step", "decode_step"}},
	} {
		r := analyze(nestTrace(t, c.annots, c.launches))
		var got []string
		for _, w := range r.Every {
			got = append(got, w.Name)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: steps %q, want %q", c.why, got, c.want)
		}
	}
}

// Kineto writes one gpu_user_annotation per stream a range ran on, all
// with the CPU annotation's External id (the TP decode traces: decode_step
// 27.6 ms on the compute stream, then 2.2 µs on the NCCL stream). One step
// is their union, not two steps of which every other one lasts 2 µs.
func TestStepAnnotationPerStream(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	for i, s := range []int{0, 1000} {
		ext := 100 + i
		fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":"decode_step","pid":1,"tid":1,"ts":%d,"dur":900,"args":{"External id":%d}},`, s, ext)
		fmt.Fprintf(&b, `{"ph":"X","cat":"gpu_user_annotation","name":"decode_step","pid":0,"tid":7,"ts":%d,"dur":700,"args":{"External id":%d}},`, s+20, ext)
		fmt.Fprintf(&b, `{"ph":"X","cat":"gpu_user_annotation","name":"decode_step","pid":0,"tid":21,"ts":%d,"dur":2,"args":{"External id":%d}},`, s+725, ext)
		fmt.Fprintf(&b, `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":5,"args":{"correlation":%d}},`, s+5, 2*i+1)
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":%d,"dur":690,"args":{"correlation":%d,"stream":7,"device":0}},`, s+25, 2*i+1)
		fmt.Fprintf(&b, `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":5,"args":{"correlation":%d}},`, s+15, 2*i+2)
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":21,"ts":%d,"dur":2,"args":{"correlation":%d,"stream":21,"device":0}},`, s+725, 2*i+2)
	}
	b.WriteString(`{"ph":"i","name":"end","pid":1,"tid":1,"ts":0,"s":"t"}]}`)
	st := trace.NewStore()
	r := st.NewReader("tp.json")
	if _, err := r.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	r.Close()
	res := analyze(st)
	if len(res.Every) != 2 {
		t.Fatalf("%d steps, want 2 (one per External id)", len(res.Every))
	}
	for _, w := range res.Every {
		if w.Window != 707_000 { // ns
			t.Errorf("step at %d: window %d ns, want 707 µs (20 → 727: both streams' spans)", w.Start, w.Window)
		}
	}
}
