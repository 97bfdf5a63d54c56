package kernels

import "regexp"

// Launch-context evidence for a kernel whose name two libraries ship
// (ProviderAITERorVLLM). vLLM reaches its own ROCm paged attention through
// vllm/_custom_ops.py paged_attention_rocm → torch.ops._rocm_C.paged_attention
// (csrc/rocm/torch_bindings.cpp); AITER's copies run under its torch ops
// (aiter::…, e.g. aiter::paged_attention_rocm) and its Python package
// (aiter/ops/attention.py, the JIT interfaces csrc/cpp_itfs/pa/*.py), as
// SGLang's aiter backend calls them (sg-capture: aiter/ops/attention.py(598):
// paged_attention_ragged → csrc/cpp_itfs/pa/pa_ragged.py(65)). Framework
// frames (vllm/…, sglang/…) are no evidence: both frameworks call AITER.
var (
	vllmContext  = regexp.MustCompile(`(?:^|[/\\])vllm[/\\]_custom_ops\.py|(?:^|[^A-Za-z0-9_])_rocm_C::`)
	aiterContext = regexp.MustCompile(`(?:^|[/\\])aiter[/\\]\w|(?:^|[/\\])csrc[/\\]cpp_itfs[/\\]|^aiter::`)
)

// ByContext names the provider of a kernel classified ProviderAITERorVLLM
// from the CPU ops and Python frames around its launch, innermost first:
// the first that says AITER or vLLM wins ("" when none does). Other
// providers are returned unchanged.
func ByContext(provider string, context func(yield func(string) bool)) string {
	if provider != ProviderAITERorVLLM {
		return provider
	}
	found := ""
	context(func(s string) bool {
		switch {
		case vllmContext.MatchString(s):
			found = ProviderVLLM
		case aiterContext.MatchString(s):
			found = ProviderAITER
		}
		return found == ""
	})
	return found
}

// SameLauncher reports two kernels that one library call launches
// together, so that they come from the same library: the ll4mi paged
// attention QKV kernel (mfma16, mfma4, wmma) and its reduce kernel, in
// vLLM (csrc/rocm/attention.cu paged_attention_custom_launcher) as in
// AITER (csrc/cpp_itfs/pa/pa_ragged.cpp.jinja).
func SameLauncher(a, b string) bool {
	return ll4mi.MatchString(a) && ll4mi.MatchString(b)
}

var ll4mi = regexp.MustCompile(`^(?:void )?(?:aiter::)?paged_attention_ll4mi_|^_Z(?:N5aiter)?\d+paged_attention_ll4mi_`)
