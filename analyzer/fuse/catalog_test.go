package fuse

import (
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

const (
	gEager   = "gpu/traces/eager_graph_off.trace.json.gz"
	gFP8     = "gpu/traces/fp8_scaled_mm.trace.json.gz"
	sgDecode = "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz"
	vlFull   = "traces/tracelens/inference/vllm_decode_full/graph_execution.json.gz"
	b200     = "traces/tracelens/b200/eager_trace.json.gz"
	xdit     = "traces/tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz"
	a100G    = "traces/hta/negative_queue_length_values_check/rank0.json.gz"
)

var analyzed = map[string]*Result{}

// result analyses one shared trace (mapping itself), once per test binary.
func result(t *testing.T, rel string) *Result {
	t.Helper()
	if r, ok := analyzed[rel]; ok {
		return r
	}
	st := load(t, rel)
	r := analyze(t, st, st)
	analyzed[rel] = r
	return r
}

func rowsOf(r *Result, rule string) []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Rule == rule {
			out = append(out, row)
		}
	}
	return out
}

// TestCatalogData: every rule is complete, unique, and has a detector.
func TestCatalogData(t *testing.T) {
	seen := map[string]bool{}
	detectors := map[string]bool{"allreduce-then-norm": true, "two-norms-then-rope": true, "producer-then-quant": true,
		"light-run-between-compute": true, "copy-run": true, "splitk-then-reduce": true, "lm-head-then-sampling": true,
		"moe-routing-run": true, "fused-add-norm": true, "fused-qknorm-rope": true}
	for _, r := range Catalog {
		if seen[r.ID] || r.Pattern == "" || r.Rationale == "" || !detectors[r.Detector] {
			t.Errorf("rule %+v incomplete or duplicated", r)
		}
		// Every recommendation has a framework-independent path for both
		// runtimes, so a plain PyTorch trace is never told to edit SGLang.
		for _, rocm := range []bool{false, true} {
			got := r.Candidate.For(rocm, FrameworkPyTorch, "pointwise")
			if !r.Fused && got == "—" || strings.Contains(strings.ToLower(got), "sglang") || strings.Contains(strings.ToLower(got), "vllm") {
				t.Errorf("%s (rocm=%v) for plain PyTorch: %q", r.ID, rocm, got)
			}
		}
		seen[r.ID] = true
		if ruleByID(r.ID) == nil {
			t.Errorf("%s not found by ID", r.ID)
		}
	}
	if n := len(Catalog); n < 8 {
		t.Errorf("%d rules", n)
	}
}

// TestCatalogFires: each rule on a real trace where it fires (with the
// evidence that makes it right) and one where it must not.
func TestCatalogFires(t *testing.T) {
	cases := []struct {
		rule, fires, stage, conf string
		evidence                 string // a kernel the row must name
		not                      string // a trace where the rule must stay silent
		why                      string
	}{
		{RuleAllReduceNorm, b200, "prefill", Likely, "multimem_all_reduce_kernel", sgDecode,
			"B200 vLLM TP=8: the symmetric-memory all-reduce is followed by vllm::fused_add_rms_norm_kernel on stream 7 (all-reduce ≥ 4 % of prefill); SGLang decode runs TP=1, no collective at all"},
		{RuleQKNormRoPE, sgDecode, "decode", Conditional, "rotary_embedding_kernel", gEager,
			"Qwen3 normalises Q and K heads (two AITER rmsnorm kernels) right before rotary_embedding_kernel in each of 36 layers; the Llama-like H100 model has no Q/K norm"},
		{RuleQuantize, b200, "prefill", Likely, "scaled_fp8_quant_kernel_strided", sgDecode,
			"vLLM B200: rotary_embedding → copy → scaled_fp8_quant (FP8 query for the FP8 attention) and copy → quantize_with_block_size (MXFP4 MoE input); SGLang's MI300X decode quantizes inside aiter add_rmsnorm_quant, never standalone"},
		{RuleChain, gEager, "decode", Likely, "reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps", sgDecode,
			"eager PyTorch RMSNorm is pow → mean → add → rsqrt → mul → cast → mul between the GEMMs; the SGLang decode uses fused AITER norms and sgl_kernel activations, no chain of ≥ 3 pointwise kernels between compute kernels"},
		{RuleCopyChain, a100G, "all", Likely, "Memcpy HtoD (Pinned -> Device)", gEager,
			"the A100 training step stages its sparse features with runs of HtoD/DtoD copies and memsets (57 runs); the H100 llama trace has no three copies in a row"},
		{RuleSplitK, gEager, "decode", Conditional, "cublasLt::splitKreduce_kernel", sgDecode,
			"nvjet_…_splitK_TNT (o_proj/down_proj at batch 8) is followed by cublasLt::splitKreduce_kernel and the residual add; hipBLASLt on MI300X reduces in-kernel (GSU1), no separate reduction kernel"},
		{RuleSampling, sgDecode, "decode", Conditional, "ArgMaxOps", xdit,
			"after the lm_head GEMM (Tensile MT256x48x64): bfloat16→float32 copy of the logits, then argmax; FLUX diffusion has no LM head nor token sampling"},
		{RuleMoERouting, vlFull, "decode", Likely, "_sum_bitmatrix_rows", sgDecode,
			"gpt-oss routing in triton_kernels: pad → _topk_forward → _sum_bitmatrix_rows → _combined_routing_memset → _combined_routing_compute before every _matmul_ogs; Qwen3-8B is dense"},
		{RuleAddNormQuant, sgDecode, "decode", AlreadyFused, "aiter::add_rmsnorm_quant_kernel", gEager,
			"AITER add_rmsnorm_quant already fuses residual add + RMSNorm (+ quant): reported as already fused; the eager model has no such kernel"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			rows := rowsOf(result(t, c.fires), c.rule)
			var hit *Row
			for i := range rows {
				if rows[i].Stage != c.stage {
					continue
				}
				for _, e := range rows[i].Evidence {
					if hit == nil && strings.Contains(e.Kernel, c.evidence) {
						hit = &rows[i]
					}
				}
			}
			if hit == nil {
				t.Fatalf("%s does not fire on %s (%s) with %s: %s", c.rule, c.fires, c.stage, c.evidence, c.why)
			}
			if hit.Confidence != c.conf || hit.Share <= 0 || hit.Candidate == "" || hit.Rationale == "" || len(hit.Evidence) == 0 {
				t.Errorf("row %+v", *hit)
			}
			if rows := rowsOf(result(t, c.not), c.rule); len(rows) > 0 {
				t.Errorf("%s must not fire on %s: %+v", c.rule, c.not, rows[0])
			}
		})
	}
}

// TestFusedQKNormRoPE: no shared trace runs a fused Q/K-norm + RoPE kernel,
// so the rule is checked on the SGLang decode trace with its RoPE kernel
// renamed to SGLang's fused kernel; on the real trace it must stay silent.
func TestFusedQKNormRoPE(t *testing.T) {
	if rows := rowsOf(result(t, sgDecode), RuleQKNormRoPEDone); len(rows) > 0 {
		t.Errorf("unfused trace: %+v", rows[0])
	}
	st := load(t, sgDecode)
	for i := range st.GPU {
		if strings.HasPrefix(st.Name(st.GPU[i].Name), "void rotary_embedding_kernel") {
			st.GPU[i].Name = st.Intern("void sgl_kernel::fused_qknorm_rope_kernel<__hip_bfloat16, 128>(float*)")
			st.GPU[i].Kind = trace.KindKernel
		}
	}
	r := Analyze(st, Options{})
	rows := rowsOf(r, RuleQKNormRoPEDone)
	if len(rows) != 1 || rows[0].Confidence != AlreadyFused || rows[0].Occurrences != 36 {
		t.Errorf("fused rows %+v", rows)
	}
}
