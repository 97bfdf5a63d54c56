package overlap

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

const inference = "traces/tracelens/inference/"

const (
	sgDecode  = inference + "sglang_decode/sglang_Qwen3-8B_decode.json.gz"
	sgCapture = inference + "sglang_decode/capture_traces/bs_32_rank0.json.gz"
	vlFull    = inference + "vllm_decode_full/graph_execution.json.gz"
	vlFullCap = inference + "vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz"
	vlPW      = inference + "vllm_prefilldecode_piecewise/graph_execution.json.gz"
	vlPWCap   = inference + "vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz"
)

// replayOps returns, per graph launch of the formal trace in launch order,
// the analyzer's ops it replayed, in start order.
func replayOps(a *analyzer) [][]int32 {
	st := a.formal
	jf := newJoiner(st, nil)
	by := map[int32][]int32{}
	for k := range a.ops {
		if l, graph := jf.graphLaunch(&st.GPU[a.ops[k].i]); graph {
			by[l] = append(by[l], int32(k))
		}
	}
	ls := make([]int32, 0, len(by))
	for l := range by {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(x, y int32) int { return cmp.Compare(st.CPU[x].TS, st.CPU[y].TS) })
	out := make([][]int32, len(ls))
	for i, l := range ls {
		ids := by[l]
		slices.SortStableFunc(ids, func(x, y int32) int { return cmp.Compare(a.ops[x].ts, a.ops[y].ts) })
		out[i] = ids
	}
	return out
}

// nodeSource is the source carried onto the pos-th kernel of the replay-th
// graph launch, and how it got there.
func nodeSource(t *testing.T, a *analyzer, replay, pos int, kernelPrefix string) (source, uint8) {
	t.Helper()
	r := replayOps(a)
	if replay >= len(r) || pos >= len(r[replay]) {
		t.Fatalf("no node %d of replay %d", pos, replay)
	}
	p := &a.ops[r[replay][pos]]
	if k := a.canons[p.canon]; !strings.HasPrefix(k, kernelPrefix) {
		t.Fatalf("replay %d node %d is %s, want %s…", replay, pos, k, kernelPrefix)
	}
	return a.srcs.get(p.src), p.via
}

func mapRow(t *testing.T, r *Result, prefix string) MapRow {
	t.Helper()
	for _, m := range r.KernelMap() {
		if strings.HasPrefix(m.Kernel, prefix) {
			return m
		}
	}
	t.Fatalf("kernel %s… not in the kernel map", prefix)
	return MapRow{}
}

func checkSource(t *testing.T, what string, got source, via uint8, op, scope, annot string) {
	t.Helper()
	if via != viaCapture {
		t.Errorf("%s: mapped via %d, want capture", what, via)
	}
	if got.LaunchOp != op || got.Scope != scope || !strings.Contains(got.Annot, annot) {
		t.Errorf("%s: op %q scope %q annot %q\nwant op %q scope %q annot ∋ %q", what, got.LaunchOp, got.Scope, got.Annot, op, scope, annot)
	}
}

func checkCoverage(t *testing.T, r *Result, replays, kernels int) {
	t.Helper()
	s := r.Summary
	t.Logf("coverage %.4f python %.4f direct %.4f capture %.4f sequence %.4f name %.4f via %s; captures %d, replays %d by capture %d aligned %d",
		s.MappingCoverage, s.PythonCoverage, s.Direct, s.ByCapture, s.BySequence, s.ByName, s.MappedVia,
		s.MappingCaptures, s.GraphReplays, s.ReplaysByCapture, s.ReplaysAligned)
	if s.GraphReplays != replays || s.GraphKernels != kernels {
		t.Errorf("formal: %d replays of %d kernels, want %d of %d", s.GraphReplays, s.GraphKernels, replays, kernels)
	}
	if s.MappingCoverage < 0.9 || s.PythonCoverage < 0.9 {
		t.Errorf("mapping coverage %.4f, Python coverage %.4f: want ≥ 90 %% of formal GPU time", s.MappingCoverage, s.PythonCoverage)
	}
	if s.ReplaysByCapture != replays || s.MappedVia != "capture" {
		t.Errorf("%d of %d replays aligned with a capture, mapped via %s", s.ReplaysByCapture, replays, s.MappedVia)
	}
}

// TestCaptureSGLang: MI300X SGLang decode, one hipGraphLaunch replaying 544
// kernels, mapped through its bs=32 capture trace (no executed kernels to
// speak of: 2).
func TestCaptureSGLang(t *testing.T) {
	formal, mapping := load(t, sgDecode), load(t, sgCapture)
	r, a := analyze(formal, mapping, Options{Timelines: -1})
	checkCoverage(t, r, 1, 544)
	if r.Summary.MappingCaptures != 1 || r.Summary.ReplaysAligned != 1 {
		t.Errorf("%d captures, %d exact", r.Summary.MappingCaptures, r.Summary.ReplaysAligned)
	}
	// Node 9 of the replay is layer 0's paged-attention kernel. The
	// capture's 10th launch (hipLaunchKernel, External id 157779) names the
	// same kernel; its cpu_op is sglang_profiler::attention_paged_attention_
	// ragged_100 and the innermost sglang frame at the launch is
	// aiter_backend.py(2435) forward_decode (checked with a JSON reader:
	// qwen3 → base_attn_backend.py(80) forward → aiter_backend.py(2435)
	// forward_decode → kernel_shape_profiler.py(326) dispatch_wrapper, the
	// profiler wrapper being ranked below layer code).
	src, via := nodeSource(t, a, 0, 9, "paged_attention_ll4mi_QKV_mfma16_kernel")
	checkSource(t, "paged attention", src, via, "sglang_profiler::attention_paged_attention_ragged_100",
		"sglang/srt/layers/attention/aiter_backend.py(2435): forward_decode", "capture_32_DECODE")
	// Node 2: the QKV projection GEMM (Tensile MT64x32x256) — launch 3 of the
	// capture (hipExtModuleLaunchKernel, External id 157725) under
	// aten::linear › aten::matmul › aten::mm, called from qwen3.py(263)
	// forward → linear.py(461) forward → unquant.py(136) apply.
	src, via = nodeSource(t, a, 0, 2, "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256")
	checkSource(t, "QKV GEMM", src, via, "aten::mm", "sglang/srt/layers/quantization/unquant.py(136): apply", "capture_32_DECODE")
	if src.OpChain != "aten::linear › aten::matmul › aten::mm" {
		t.Errorf("QKV GEMM op chain %q", src.OpChain)
	}
	// Node 7: RoPE, launched by sgl_kernel::rotary_embedding from
	// rotary_embedding/base.py(335) forward_cuda (External id 157762).
	src, via = nodeSource(t, a, 0, 7, "rotary_embedding_kernel<c10::BFloat16, true>")
	checkSource(t, "rope", src, via, "sgl_kernel::rotary_embedding", "sglang/srt/layers/rotary_embedding/base.py(335): forward_cuda", "capture_32_DECODE")
	// The 36 layers all map the same way: the kernel map's row for it has
	// one source for all its time.
	if m := mapRow(t, r, "paged_attention_ll4mi_QKV_mfma16_kernel"); m.Launches != 36 || m.SourceShare != 1 || m.MappedBy != "capture" {
		t.Errorf("paged attention kernel map row %+v", m)
	}
}

// TestCaptureVLLMFull: vLLM FULL graph (gpt-oss, MXFP4 MoE): one replay of
// 421 kernels ↔ one capture of 421 launches (plus 7 outside the capture).
func TestCaptureVLLMFull(t *testing.T) {
	formal, mapping := load(t, vlFull), load(t, vlFullCap)
	r, a := analyze(formal, mapping, Options{Timelines: -1})
	checkCoverage(t, r, 1, 421)
	// Node 4: the KV-cache write of layer 0 (capture launch 5, External id
	// 45127: _C_cache_ops::reshape_and_cache_flash inside
	// vllm::unified_kv_cache_update; innermost vLLM frame _custom_ops.py(2519)).
	src, via := nodeSource(t, a, 0, 4, "vllm::reshape_and_cache_flash_kernel")
	checkSource(t, "kv cache write", src, via, "_C_cache_ops::reshape_and_cache_flash", "vllm/_custom_ops.py(2519): reshape_and_cache_flash", "capture_32_FULL")
	if src.OpChain != "vllm::unified_kv_cache_update › _C_cache_ops::reshape_and_cache_flash" {
		t.Errorf("kv cache op chain %q", src.OpChain)
	}
	// Node 14: the MoE gate/up GEMM with fused SwiGLU, a Triton kernel
	// launched (hipModuleLaunchKernel, External id 45168) inside the custom
	// op vllm::moe_forward; at the launch the innermost vLLM frame is
	// gpt_oss_triton_kernels_moe.py(269) triton_kernel_fused_experts (under
	// it only triton_kernels/ and triton/ runtime frames). At the op's
	// start that frame has not begun yet: the launch time is what finds it.
	src, via = nodeSource(t, a, 0, 14, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu")
	checkSource(t, "MoE GEMM", src, via, "vllm::moe_forward",
		"vllm/model_executor/layers/fused_moe/gpt_oss_triton_kernels_moe.py(269): triton_kernel_fused_experts", "## Call CompiledFxGraph")
}

// TestCaptureVLLMPiecewise: 25 piecewise graph launches, interleaved with
// eager attention, each mapped to its own captured piece.
func TestCaptureVLLMPiecewise(t *testing.T) {
	formal, mapping := load(t, vlPW), load(t, vlPWCap)
	r, a := analyze(formal, mapping, Options{Timelines: -1})
	checkCoverage(t, r, 25, 361)
	if r.Summary.MappingCaptures != 25 || r.Summary.ReplaysAligned != 25 {
		t.Errorf("%d captures, %d exact", r.Summary.MappingCaptures, r.Summary.ReplaysAligned)
	}
	// The pieces are told apart by their compiled FX graph: the first
	// piece (4 nodes: triton_poi_fused_0, RMSNorm, QKV GEMM, RoPE) was
	// captured under "## Call CompiledFxGraph fyz7apwg… ##", the 23 middle
	// ones under fb3en3pm…, the last (12 nodes, ending in the final
	// RMSNorm) under fvcpdjt7…. Each replay must take its own piece's
	// sources, which the record_function path shows.
	src, via := nodeSource(t, a, 0, 0, "triton_poi_fused_0")
	checkSource(t, "first piece", src, via, "triton_poi_fused_0", "vllm/model_executor/models/gpt_oss.py(293): forward", "fyz7apwggefcoutrlark3qtyeu7opqswesu2fg5qtto56df27ggw")
	src, via = nodeSource(t, a, 12, 14, "vllm::rotary_embedding_kernel")
	checkSource(t, "middle piece", src, via, "_C::rotary_embedding", "vllm/model_executor/models/gpt_oss.py(293): forward", "fb3en3pmdtsn2pziyq6jiyhnewghozxvyb5vy5kk6ejlfff7gc3n")
	src, via = nodeSource(t, a, 24, 11, "ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd")
	checkSource(t, "last piece", src, via, "aiter::rmsnorm2d_fwd_with_add_ck", "vllm/_aiter_ops.py(529): _rocm_aiter_rmsnorm2d_fwd_with_add_impl", "fvcpdjt7")
	// The eager attention between pieces maps directly (formal trace's own
	// cpu_ops): kernel_unified_attention_2d under
	// vllm::unified_attention_with_output.
	if m := mapRow(t, r, "kernel_unified_attention_2d"); m.MappedBy != "direct" || m.LaunchOp != "vllm::unified_attention_with_output" {
		t.Errorf("eager attention kernel map row %+v", m)
	}
}

// TestCaptureTolerance: the alignment survives a capture that differs from
// the replay — launches missing, a kernel whose template arguments differ,
// an extra copy node — as an edit-distance alignment must.
func TestCaptureTolerance(t *testing.T) {
	formal, mapping := load(t, sgDecode), load(t, sgCapture)
	caps := findCaptures(mapping)
	if len(caps) != 1 || len(caps[0].launches) != 544 {
		t.Fatalf("captures %d", len(caps))
	}
	ls := caps[0].launches
	// Drop 3 RoPE launches (layers 1-3), so every later node shifts.
	dropped := 0
	for _, l := range ls {
		if s := &mapping.CPU[l]; dropped < 3 && l != ls[7] && strings.HasPrefix(mapping.Name(s.Kernel), "void rotary_embedding_kernel") {
			s.Kind = trace.KindOther
			dropped++
		}
	}
	// Layer 0's paged attention: other template arguments.
	pa := &mapping.CPU[ls[9]]
	pa.Kernel = mapping.Intern(strings.Replace(mapping.Name(pa.Kernel), "paged_attention_ll4mi_QKV_mfma16_kernel<0,", "paged_attention_ll4mi_QKV_mfma16_kernel<1,", 1))
	// A copy node recorded in the capture but not replayed: turn the last
	// launch into a hipMemcpyAsync.
	mapping.CPU[ls[len(ls)-1]].Name = mapping.Intern("hipMemcpyAsync")
	mapping.CPU[ls[len(ls)-1]].Kernel = 0

	r, a := analyze(formal, mapping, Options{Timelines: -1})
	checkCoverage(t, r, 1, 544)
	if r.Summary.ReplaysAligned != 0 {
		t.Error("a perturbed capture cannot match exactly")
	}
	if r.Summary.ByCapture < 0.95 {
		t.Errorf("by capture %.4f", r.Summary.ByCapture)
	}
	src, via := nodeSource(t, a, 0, 9, "paged_attention_ll4mi_QKV_mfma16_kernel")
	checkSource(t, "paged attention (other template args)", src, via, "sglang_profiler::attention_paged_attention_ragged_100",
		"sglang/srt/layers/attention/aiter_backend.py(2435): forward_decode", "capture_32_DECODE")
	// Layer 5's attention comes after the dropped launches: still its own.
	src, via = nodeSource(t, a, 0, 9+15*5, "paged_attention_ll4mi_QKV_mfma16_kernel")
	checkSource(t, "paged attention, layer 5", src, via, "sglang_profiler::attention_paged_attention_ragged_100",
		"sglang/srt/layers/attention/aiter_backend.py(2435): forward_decode", "capture_32_DECODE")
	// A dropped RoPE node falls back to the name's dominant source.
	src, via = nodeSource(t, a, 0, 7+15, "rotary_embedding_kernel")
	if via != viaName || src.LaunchOp != "sgl_kernel::rotary_embedding" {
		t.Errorf("dropped RoPE: via %d op %q", via, src.LaunchOp)
	}
}

func TestAlign(t *testing.T) {
	a := &analyzer{loose: []int32{0, 1, 2, 3, 4, 4}} // canons 4 and 5 differ only in template args
	cases := []struct {
		x, y  []int32
		match []int32
		score int
	}{
		{[]int32{0, 1, 2}, []int32{0, 1, 2}, []int32{0, 1, 2}, 9},
		{[]int32{0, 1, 2, 3}, []int32{0, 2, 3}, []int32{0, -1, 1, 2}, 9},                // node missing from the capture
		{[]int32{0, 2, 3}, []int32{0, tokMemcpy, 2, 3}, []int32{0, 2, 3}, 9},            // extra copy node in the capture
		{[]int32{0, 4, 3}, []int32{0, 5, 3}, []int32{0, 1, 2}, 8},                       // template args differ
		{[]int32{0, 1, 3}, []int32{0, tokUnnamed, 3}, []int32{0, 1, 2}, 7},              // unnamed launch
		{[]int32{tokMemcpy, 1}, []int32{tokUnnamed, 1}, []int32{-1, 1}, 3},              // a copy is not a kernel
		{[]int32{1, 2, 1, 2, 3}, []int32{1, 2, 3, 1, 2, 3}, []int32{0, 1, 3, 4, 5}, 15}, // repeated blocks
		{[]int32{2, 1, 0}, []int32{0, 1, 2}, []int32{2, -1, -1}, 3},                     // reversed: one node
	}
	for i, c := range cases {
		m, s := a.align(c.x, c.y)
		if !slices.Equal(m, c.match) || s != c.score {
			t.Errorf("case %d: match %v score %d, want %v %d", i, m, s, c.match, c.score)
		}
		g := make([]int32, len(c.x))
		for k := range g {
			g[k] = -1
		}
		if gs := a.alignGreedy(c.x, c.y, g, 0); gs > s {
			t.Errorf("case %d: greedy %d beats the optimum %d", i, gs, s)
		}
	}
}
