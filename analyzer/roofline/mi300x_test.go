package roofline

import (
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

func logRows(t *testing.T, res *Result) {
	for _, s := range res.Stages {
		t.Logf("stage %s: %d ns, modelled %d, no op %d, graph %d", s.Stage, s.KernelTime, s.Modelled, s.NoOp, s.Graph)
	}
	for i, r := range res.Rows {
		if i == 25 {
			break
		}
		t.Logf("%s %-40.40s %.80s inst %d %.1fus model=%s %s F=%.3g B=%.3g %.1fTF %.0fGB/s AI %.1f %s eff %.3f cov %.2f cpu_op=%s note=%s",
			r.Stage, r.Op, r.InputDims, r.Instances, float64(r.KernelTime)/1e3, r.Model, r.Dtype, r.Flops, r.Bytes,
			r.AchievedTFLOPS, r.AchievedGBPS, r.Intensity, r.Bound, r.Efficiency, r.Coverage, r.CPUOp, r.Note)
	}
}

// mi300x analyses a shared MI300X trace and checks what holds for any
// sensible roofline: the MI300X roofs, GEMM rows modelled from shapes, and
// every substantial modelled row's efficiency in (0, 1].
func mi300x(t *testing.T, rel string) *Result {
	st := fixture.Load(t, rel)
	res := Analyze(st, Options{Joins: callsite.NewJoins(st), DeviceName: "AMD Instinct MI300X", Arch: "gfx942"})
	logRows(t, res)
	if res.Device == nil || res.Device.Key != "MI300X" || res.Peaks["bf16"] != 1307.4 || res.PeakGBPS != 5300 {
		t.Fatalf("device %+v", res.Device)
	}
	var stageTime int64
	for _, s := range res.Stages {
		stageTime += s.KernelTime
	}
	gemms := 0
	for _, r := range res.Rows {
		if r.Model == "gemm" {
			gemms++
			if r.Flops <= 0 || r.Bytes <= 0 || r.Dtype != "bf16" || r.PeakTFLOPS != 1307.4 {
				t.Errorf("GEMM row %s %s: flops %v bytes %v dtype %q peak %v", r.Op, r.InputDims, r.Flops, r.Bytes, r.Dtype, r.PeakTFLOPS)
			}
		}
		if r.Modelled && r.KernelTime*100 >= stageTime && (r.Efficiency <= 0 || r.Efficiency > 1 || r.Bound == "") {
			t.Errorf("row %s %s (%.1f us): efficiency %v bound %q", r.Op, r.InputDims, float64(r.KernelTime)/1e3, r.Efficiency, r.Bound)
		}
		if !r.Modelled && r.Note == "" {
			t.Errorf("row %s %s: neither modelled nor explained", r.Op, r.InputDims)
		}
	}
	if gemms == 0 {
		t.Error("no GEMM rows")
	}
	return res
}

// TestSGLangPrefill: Qwen3-8B eager prefill+decode, GEMMs 85 % of the time.
func TestSGLangPrefill(t *testing.T) {
	res := mi300x(t, "traces/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz")
	s := res.Stages[0]
	if float64(s.Modelled) < 0.95*float64(s.KernelTime) {
		t.Errorf("modelled %d of %d ns", s.Modelled, s.KernelTime)
	}
	top := res.Rows[0]
	// The MLP up/gate projection: x [15360,4096] × W [24576,4096] via aiter → aten::linear → aten::mm.
	if top.Op != "aiter::gemm_a16w16" || top.Model != "gemm" || top.Bound != "compute" || top.Flops != 2*15360*24576*4096 || top.Instances != 36 {
		t.Errorf("top row %+v", top)
	}
	var attn bool
	for _, r := range res.Rows {
		if r.Model == "attention" {
			attn = true
			// 15 causal sequences of 1024 tokens, 32 heads of 128.
			if r.Flops != 4*15*32*1024*1024*128/2 || r.CPUOp != "aiter::mha_batch_prefill" {
				t.Errorf("attention row %+v", r)
			}
		}
	}
	if !attn {
		t.Error("no attention row")
	}
	if tk := res.Takeaways(s.Stage); len(tk) == 0 || !strings.Contains(tk[len(tk)-1], "of MI300X's bf16 peak") {
		t.Error("no takeaway")
	} else {
		t.Log(tk)
	}
}

// TestXDiT: FLUX.1 with AITER + SageAttention; the eager part (T5/CLIP
// encoders, VAE convolutions) has shapes, the graph-replayed transformer
// has none in this trace.
func TestXDiT(t *testing.T) {
	res := mi300x(t, "traces/tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz")
	convs := 0
	for _, r := range res.Rows {
		if r.Model == "conv" {
			convs++
			if r.Flops <= 0 || r.CPUOp != "aten::miopen_convolution" {
				t.Errorf("conv row %+v", r)
			}
		}
	}
	if convs == 0 {
		t.Error("no convolution rows")
	}
	// Without the capture trace (absent from ../shared) the graph replays
	// have no ops or shapes; everything else is modelled.
	s := res.Stages[0]
	if s.Graph == 0 {
		t.Error("graph-replayed time not reported")
	}
	t.Logf("%.2f %% modelled, %.2f %% graph-replayed", 100*float64(s.Modelled)/float64(s.KernelTime), 100*float64(s.Graph)/float64(s.KernelTime))
	if eager := s.KernelTime - s.Graph - s.NoOp; float64(s.Modelled) < 0.99*float64(eager) {
		t.Errorf("%d of %d ns outside the graph replays modelled", s.Modelled, eager)
	}
}

// TestSGLangDecodeCapture: the HIP-graph decode trace takes its ops and
// shapes from the graph capture trace (launch calls name their kernels).
func TestSGLangDecodeCapture(t *testing.T) {
	dir := "traces/tracelens/inference/sglang_decode/"
	formal := fixture.Load(t, dir+"sglang_Qwen3-8B_decode.json.gz")
	capture := fixture.Load(t, dir+"capture_traces/bs_32_rank0.json.gz")
	res := Analyze(formal, Options{DeviceName: "AMD Instinct MI300X", Arch: "gfx942", Mapping: capture})
	logRows(t, res)
	s := res.Stages[0]
	if s.Graph == 0 || float64(s.Mapped) < 0.9*float64(s.Graph) {
		t.Errorf("graph %d ns, mapped %d", s.Graph, s.Mapped)
	}
	var gemm *Row
	for i := range res.Rows {
		if r := &res.Rows[i]; r.Model == "gemm" && (gemm == nil || r.KernelTime > gemm.KernelTime) {
			gemm = r
		}
	}
	// Decode GEMMs (M = 32 tokens) are memory-bound on MI300X.
	if gemm == nil || gemm.Bound != "memory" || gemm.Efficiency <= 0 || gemm.Efficiency > 1 || gemm.MappedShare != 1 {
		t.Fatalf("top GEMM %+v", gemm)
	}
	t.Log(res.Takeaways(s.Stage))
}

// TestResNet18Training: the MI300X ResNet-18 training step (ROCm 7.2):
// forward and backward — convolution_backward, batch-norm backward (MIOpen
// BatchNormBwdSpatial), max-pool backward — all have a modelled row: at
// least 99 % of GPU time is modelled.
func TestResNet18Training(t *testing.T) {
	res := mi300x(t, "traces2/tracelens_mi300_resnet18/train_resnet18.json.gz")
	var all, mod int64
	for _, s := range res.Stages {
		all += s.KernelTime
		mod += s.Modelled
	}
	t.Logf("%.2f %% of %d ns modelled", 100*float64(mod)/float64(all), all)
	if float64(mod) < 0.99*float64(all) {
		t.Errorf("%.2f %% modelled", 100*float64(mod)/float64(all))
	}
	want := map[string]bool{"aten::convolution_backward": false, "aten::native_batch_norm_backward": false, "aten::max_pool2d_with_indices_backward": false}
	for _, r := range res.Rows {
		if _, ok := want[r.CPUOp]; ok && r.Modelled && r.Coverage == 1 {
			want[r.CPUOp] = true
		}
	}
	for op, seen := range want {
		if !seen {
			t.Errorf("no fully modelled row by %s", op)
		}
	}
}
