package analyzer

import (
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/overlap"
)

// A graph-replayed ll4mi kernel whose name both vLLM and AITER ship takes
// its provider from the capture trace's launch context (sg-capture:
// aiter/ops/attention.py(598): paged_attention_ragged; vLLM:
// _rocm_C::paged_attention), the stage's provider shares move with it,
// and the reduce kernel launched with it follows.
func TestMappingContextSettlesSharedProvider(t *testing.T) {
	const qkv = "paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, __hip_bfloat16, 16, 128, 256, false, 4>"
	const reduce = "paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 1>"
	for _, c := range []struct {
		ops, frames, want string
	}{
		{"sglang_profiler::attention_paged_attention_ragged_100", "sglang/srt/utils/kernel_shape_profiler.py(302): impl -> aiter/ops/attention.py(598): paged_attention_ragged -> pa/pa_ragged.py(65): paged_attention_ragged", kernels.ProviderAITER},
		{"vllm::unified_attention_with_output › _rocm_C::paged_attention", "vllm/v1/attention/backends/rocm_attn.py(301): forward -> vllm/_custom_ops.py(171): paged_attention_rocm", kernels.ProviderVLLM},
		{"attention", "model.py(10): forward", kernels.ProviderAITERorVLLM},
	} {
		bd := &breakdown.Result{
			Stages: []breakdown.Stage{{Stage: "decode", KernelTime: 300, Providers: []breakdown.Share{{Name: kernels.ProviderAITERorVLLM, GPUTime: 300, Share: 1}}}},
			Rows: []breakdown.Row{
				{Stage: "decode", Kernel: qkv, Provider: kernels.ProviderAITERorVLLM, GPUTime: 200, Graph: true},
				{Stage: "decode", Kernel: reduce, Provider: kernels.ProviderAITERorVLLM, GPUTime: 100, Graph: true},
			},
		}
		fillFromMapping(bd, []overlap.MapRow{{Kernel: qkv, LaunchOp: "x", OpChain: c.ops, CallChain: c.frames, MappedBy: "capture", SourceShare: 1}})
		for _, r := range bd.Rows {
			if r.Provider != c.want {
				t.Errorf("%s: %s provider %q, want %q", c.frames, r.Kernel[:20], r.Provider, c.want)
			}
		}
		if p := bd.Stages[0].Providers; len(p) != 1 || p[0].Name != c.want || p[0].GPUTime != 300 || p[0].Share != 1 {
			t.Errorf("%s: stage providers %+v, want all %q", c.frames, p, c.want)
		}
	}
}
