package breakdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// The ll4mi paged attention kernels are defined, in the global namespace,
// by vLLM (csrc/rocm/attention.cu) and by AITER (csrc/kernels/attention*.cu,
// csrc/cpp_itfs/pa/): a name without AITER's attention variant says
// neither. What launched it does: vLLM's _custom_ops.paged_attention_rocm
// → _rocm_C::paged_attention, AITER's Python package or aiter:: ops. With
// nothing, the provider says both; the reduce kernel follows its QKV kernel.
func TestSharedNameProviderByContext(t *testing.T) {
	const qkv = "void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, __hip_bfloat16, 16, 128, 256, false, 4>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, int, float, int const*, int const*, int, float const*, int, int, int, float*, float*, __hip_bfloat16*, __hip_bfloat16*, int, float const*, float const*)"
	const reduce = "void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 1>(__hip_bfloat16*, float const*, float const*, __hip_bfloat16 const*, int const*, int)"
	for _, c := range []struct {
		why        string
		ops, py    []string // outermost first
		kernels    []string
		want       string
		wantReduce string
	}{
		{"vLLM's own ROCm kernel", []string{"_rocm_C::paged_attention"}, []string{"vllm/v1/attention/backends/rocm_attn.py(301): forward", "vllm/_custom_ops.py(171): paged_attention_rocm"}, []string{qkv, reduce}, kernels.ProviderVLLM, kernels.ProviderVLLM},
		{"AITER's, called by vLLM's AITER backend", []string{"aiter::paged_attention_rocm"}, []string{"vllm/attention/ops/rocm_aiter_paged_attn.py(120): forward_decode", "aiter/ops/attention.py(85): paged_attention_rocm"}, []string{qkv, reduce}, kernels.ProviderAITER, kernels.ProviderAITER},
		{"AITER's, Python frames only", []string{"sglang_profiler::attention_paged_attention_ragged_100"}, []string{"sglang/srt/layers/attention/aiter_backend.py(2435): forward_decode", "aiter/ops/attention.py(598): paged_attention_ragged", "csrc/cpp_itfs/pa/pa_ragged.py(65): paged_attention_ragged"}, []string{qkv, reduce}, kernels.ProviderAITER, kernels.ProviderAITER},
		{"nothing tells", []string{"attention_op"}, []string{"model.py(10): forward"}, []string{qkv, reduce}, kernels.ProviderAITERorVLLM, kernels.ProviderAITERorVLLM},
		{"framework frames are no evidence", nil, []string{"vllm/model_executor/models/llama.py(200): forward"}, []string{qkv, reduce}, kernels.ProviderAITERorVLLM, kernels.ProviderAITERorVLLM},
	} {
		t.Run(c.why, func(t *testing.T) {
			st := contextTrace(t, c.ops, c.py, c.kernels)
			res := Analyze(st, Options{})
			got := map[string]string{}
			for _, r := range res.Rows {
				got[r.Kernel[:strings.IndexByte(r.Kernel, '<')]] = r.Provider
			}
			if got["paged_attention_ll4mi_QKV_mfma16_kernel"] != c.want || got["paged_attention_ll4mi_reduce_kernel"] != c.wantReduce {
				t.Errorf("providers %v, want QKV %q, reduce %q", got, c.want, c.wantReduce)
			}
			for _, s := range res.Stages {
				for _, p := range s.Providers {
					if p.Name != c.want {
						t.Errorf("stage %s provider share %q, want only %q", s.Stage, p.Name, c.want)
					}
				}
			}
		})
	}
}

// The reduce kernel launched after AITER's ragged QKV kernel (which its
// attention variant names) is AITER's, with no launch context at all
// (sg-decode replays both from a HIP graph).
func TestSharedNameProviderBySibling(t *testing.T) {
	const qkv = "void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1, ck_tile::ComposedAttention<0u, false> >(__hip_bfloat16 const*, ck_tile::ComposedAttention<0u, false> const*)"
	const reduce = "void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 3, false>(__hip_bfloat16*, float const*, float const*, __hip_bfloat16 const*, int const*, int const*, int, int, float const*)"
	res := Analyze(contextTrace(t, nil, nil, []string{qkv, reduce}), Options{})
	for _, r := range res.Rows {
		if r.Provider != kernels.ProviderAITER {
			t.Errorf("%s: provider %q, want AITER", r.Kernel, r.Provider)
		}
	}
}

// On the real SGLang decode trace (aiter attention backend, HIP graph
// replay) both ll4mi kernels are AITER's; they read vLLM before.
func TestSGLangPagedAttentionIsAITER(t *testing.T) {
	st := fixture.Load(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	n := 0
	for _, r := range Analyze(st, Options{}).Rows {
		if strings.HasPrefix(r.Kernel, "paged_attention_ll4mi_") {
			n++
			if r.Provider != kernels.ProviderAITER {
				t.Errorf("%s: provider %q, want AITER", r.Kernel, r.Provider)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d ll4mi rows, want 2 (QKV and reduce)", n)
	}
}

// contextTrace is one thread running the CPU ops and Python frames (each
// inside the previous) around one launch per kernel.
func contextTrace(t *testing.T, ops, py, names []string) *trace.Store {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	for i, name := range py {
		fmt.Fprintf(&b, `{"ph":"X","cat":"python_function","name":%q,"pid":1,"tid":1,"ts":%d,"dur":%d,"args":{}},`, name, 10+i, 1000-2*i)
	}
	for i, name := range ops {
		fmt.Fprintf(&b, `{"ph":"X","cat":"cpu_op","name":%q,"pid":1,"tid":1,"ts":%d,"dur":%d,"args":{"External id":%d}},`, name, 100+i, 800-2*i, 1+i)
	}
	for i, name := range names {
		fmt.Fprintf(&b, `{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":5,"args":{"correlation":%d}},`, 200+10*i, 50+i)
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":%q,"pid":0,"tid":7,"ts":%d,"dur":100,"args":{"correlation":%d,"stream":7,"device":0}},`, name, 300+200*i, 50+i)
	}
	b.WriteString(`{"ph":"i","name":"end","pid":1,"tid":1,"ts":0,"s":"t"}]}`)
	st := trace.NewStore()
	r := st.NewReader("ctx.json")
	if _, err := r.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	r.Close()
	return st
}
