package kernels

import (
	"fmt"
	"regexp"
	"strings"
)

// rules is the classification table; the first match wins. The order is
// that of trace-format.md §11 (communication → memory by cat → GEMM
// libraries → attention families → CK / AITER → Triton → MIOpen → op
// keywords → ATen → other) with two changes:
//   - TorchInductor kernels come first: their names list the ATen ops they
//     fused, and those can spell any library's name
//     ("triton_poi_fused__scaled_dot_product_cudnn_attention_…" is a Triton
//     pointwise kernel, not cuDNN attention);
//   - ATen comes before the bare op keywords, so that its kernels keep their
//     provider; it takes its category from the same keywords.
//
// seen names test traces with such kernels, by the labels of
// trace-format.md §0.
var rules = []rule{
	// TorchInductor: refined by the fused ops, defaulting by kernel kind.
	refined(`^triton_poi_`, CategoryElementwise, ProviderTriton, inductorOps, "g-compiled, xdit, vl-*, b200, a100-triton"),
	refined(`^triton_(?:red|per)_`, CategoryReduction, ProviderTriton, inductorOps, "g-compiled, xdit, mi300-triton"),
	// Inductor templates are GEMM, conv or attention templates with fused
	// epilogues: triton_tem_fused_addmm_relu_… is a GEMM, not an activation.
	refined(`^triton_(?:tem|mm|bmm)_`, CategoryGEMM, ProviderTriton, templateOps, "—"),
	named(`^triton__\d`, CategoryElementwise, ProviderTriton, "a100-graph"), // pre-2023 Inductor names carry no ops

	// Communication, by name whatever the stream: g-tp0 runs blocking NCCL on the compute stream.
	named(`multimem_all_reduce|(?:one|two)_shot_all_reduce|symm_mem`, CategoryCommunication, ProviderSymmMem, "b200"),
	named(`(?i)mscclpp`, CategoryCommunication, ProviderMSCCLPP, "—"), // before RCCL: "msccl" alone is RCCL's MSCCL
	named(`(?i)quick_?reduce|quick_?all_?reduce`, CategoryCommunication, ProviderQuickReduce, "—"),
	named(`(?i)nccl|rccl|msccl`, CategoryCommunication, ProviderNCCL, "mi300-ddp, a100-nccl, g-tp*"),
	named(`cross_device_reduce|custom_?all_?reduce`, CategoryCommunication, ProviderCustomAllReduce, "—"),
	named(`(?i)(?:^|[^a-z])(?:all_?reduce|all_?gather|reduce_?scatter|all_?to_?all)|deepep|mooncake`, CategoryCommunication, ProviderUnknown, "—"),

	// Memory: copy-engine activities, by their category only. Kernels named
	// *memset* or *Copy* (_combined_routing_memset, CatArrayBatchedCopy) stay kernels.
	activity(CatMemcpy, "most traces"),
	activity(CatMemset, "most traces"),
	// The HIP runtime (ROCclr) implements hipMemcpy/hipMemset on device
	// memory with its own blit kernels: memory, though they run on shaders.
	named(`^__amd_rocclr_(?:fill|copy|streamOpsWrite)`, CategoryMemory, ProviderROCclr, "—"),
	named(`^__amd_rocclr_`, CategoryOther, ProviderROCclr, "—"), // stream waits, the device scheduler

	// GEMM libraries. cuDNN goes first: its conv kernels are also named
	// volta_scudnn_…, cutlass_cudnn_…, sm80_xmma_…_cudnn_infer.
	// Tensile kernels: rocBLAS and hipBLASLt both launch them with
	// hipExtModuleLaunchKernel, so the library shows only in the solution
	// name. TensileLite (hipBLASLt) writes UserArgs, ScaleAlphaVec (SAV),
	// Bias/activation (HA, HAS), MIWT and 3-factor MI (MI16x16x1) tokens;
	// rocBLAS's Tensile writes 4-factor MI (MI16x16x16x1) and APM, AF0EM,
	// AMAS, 1LDSB, KLA, SNLL, USFGRO, TTm_n tokens. Both write GRVW, LBSPP.
	named(`^(?:Custom_)?Cijk_\w*?(?:_UserArgs|_SAV_|_Bias|_HAS?_|_MIWT\d|_PostGSU|_MI\d+x\d+x\d+_)`, CategoryGEMM, ProviderHipBLASLt, "sg-*, vl-*, xdit, mi300-*, mi210, mi250"),
	named(`^Cijk_\w*?(?:_MI\d+x\d+x\d+x\d+_|_APM\d|_AF0EM\d|_AMAS\d|_1LDSB\d|_KLA_|_SNLL\d|_USFGRO\d|_TT\d+_\d+_)`, CategoryGEMM, ProviderRocBLAS, "xdit, mi300-resnet"),
	named(`^Cijk_`, CategoryGEMM, ProviderTensile, "—"),
	named(`(?i)hipblaslt`, CategoryGEMM, ProviderHipBLASLt, "—"),
	refined(`(?:^|[ :])rocblas_`, CategoryGEMM, ProviderRocBLAS, ops, "—"),
	named(`cudnn::bn_|\bbn_(?:fw|bw)_`, CategoryNorm, ProviderCuDNN, "legacy-2021, v100-ns, a100-nccl"),
	named(`cudnn\w*(?:sdpa|attention|flash)`, CategoryAttention, ProviderCuDNN, "g-eager, g-graph, g-stack"),
	named(`cudnn::ops::|\b(?:nchwToNhwc|nhwcToNchw)Kernel`, CategoryElementwise, ProviderCuDNN, "legacy-2021, v100-ns, a100-nccl"),
	named(`cudnn::fusion::lean_reduction`, CategoryReduction, ProviderCuDNN, "g-tp*"),
	named(`cudnn|cask_|\b(?:implicit|explicit)_convolve_sgemm|\bwgrad_alg\d`, CategoryConv, ProviderCuDNN, "legacy-2021, a100-nccl, v100-ns"),
	named(`^nvjet_|xmma_gemm|(?:^|_)(?:maxwell|volta|turing|ampere|hopper)_\w*gemm|cublas|sgemm_largek`, CategoryGEMM, ProviderCuBLAS, "g-*, b200, h100-qwen, a100-*, v100-ns"),
	refined(`(?:^|[ :])cutlass::(?:Kernel\d?|device_kernel)<`, CategoryGEMM, ProviderCUTLASS, ops, "a100-*, sampled-*, h100-qwen"),
	named(`^bmm_\w*dynBatch`, CategoryMoE, ProviderTRTLLM, "b200"), // trtllm-gen MoE expert GEMMs (per-expert dynamic batch)
	named(`^bmm_\w*_sm\d+`, CategoryGEMM, ProviderTRTLLM, "—"),

	// Attention families, before CK (AITER's paged attention carries
	// ck_tile::ComposedAttention in its template arguments). vLLM
	// (csrc/rocm/attention.cu) and AITER (csrc/kernels/attention*.cu,
	// csrc/cpp_itfs/pa/) both define paged_attention_ll4mi_* in the global
	// namespace. Only AITER's ragged kernels take an attention variant
	// (ck_tile::ComposedAttention); AITER's own namespace says AITER too.
	// Any other ll4mi name is either's: the trace's launch context decides
	// (ByContext), else the provider says both.
	named(`(?:^|[^A-Za-z0-9])(?:aiter::|_ZN5aiter|N5aiter).*paged_attention|paged_attention.*(?:aiter::|N5aiter)`, CategoryAttention, ProviderAITER, "—"),
	named(`paged_attention_ll4mi_.*ComposedAttention`, CategoryAttention, ProviderAITER, "sg-decode"),
	named(`^(?:void )?paged_attention_ll4mi_|^_Z\d+paged_attention_ll4mi_`, CategoryAttention, ProviderAITERorVLLM, "sg-decode"),
	named(`paged_attention`, CategoryAttention, ProviderVLLM, "—"),
	named(`^(?:kernel_unified_attention_\w+|reduce_segments|_?attn_(?:fwd|bwd)\w*|sage_fwd\w*|_fwd_(?:grouped_)?kernel_stage\d\w*)$`, CategoryAttention, ProviderTriton, "vl-*, xdit, mi300-*"), // attn_fwd on ROCm eager is AOTriton
	named(`pytorch_flash::|\bflash::|flash_fwd|flash_bwd|flash_attn`, CategoryAttention, ProviderFlashAttention, "h100-qwen"),
	named(`^fmhaSm\d|fmha_v2_|xqa_kernel|mmha::`, CategoryAttention, ProviderTRTLLM, "b200"),
	// Scheduler/metadata Triton kernels; create_flashinfer_kv_indices_triton is not FlashInfer.
	named(`^(?:create_flashinfer_kv_indices_triton|_copy_page_indices_kernel|compute_position_kernel)$`, CategoryIndex, ProviderTriton, "sg-*, b200"),
	refined(kernelIn("flashinfer"), CategoryAttention, ProviderFlashInfer, ops, "—"),

	// CK / AITER and the other library namespaces, refined by op keywords.
	named(`groupnorm_kernel_dispatch_(?:up|down)`, CategoryNorm, ProviderAITER, "xdit"), // aiter/csrc/kernels/groupnorm.cu, anonymous namespace
	refined(kernelIn("aiter"), CategoryOther, ProviderAITER, ops, "sg-*"),
	refined(kernelIn("ck_tile"), CategoryOther, ProviderCKTile, ops, "sg-mixed, vl-*"),
	refined(kernelIn("ck"), CategoryOther, ProviderCK, ops, "xdit, mi300-ddp"),
	refined(kernelIn("sgl_hip", "sgl_kernel", "sglang"), CategoryOther, ProviderSGLKernel, ops, "sg-*"),
	// SGLang JIT kernels (python/sglang/jit_kernel), in an anonymous namespace.
	named(`store_kvcache<|resolve_future_token_ids_kernel|clamp_position_kernel`, CategoryIndex, ProviderSGLKernel, "sg-*"),
	refined(kernelIn("vllm", "_moe_C"), CategoryOther, ProviderVLLM, ops, "vl-*, b200"),
	// vLLM's ROCm skinny GEMMs (csrc/rocm/skinny_gemms.cu), global namespace;
	// AITER's copies live in aiter:: and are caught above.
	named(`(?:^|[^A-Za-z])(?:wvSpli?tK|LLGemm|LLMM1)`, CategoryGEMM, ProviderVLLM, "—"), // also mangled: _Z16wvSplitK_hf_sml_I…
	refined(kernelIn("tensorrt_llm", "trtllm", "moe::dev"), CategoryOther, ProviderTRTLLM, ops, "b200"),
	refined(`fbgemm_gpu|split_embedding_|bounds_check_indices|linearize_index|permute_pooled_embs|recat_copy`, CategoryIndex, ProviderFBGEMM, fbgemmOps, "a100-graph, a100-oldflow, sampled-*"),
	named(`AdamFunctor|LAMBStage|adamMode_t`, CategoryElementwise, ProviderApex, "a100-graph, a100-oldflow"), // apex FusedAdam/FusedLAMB

	// Triton kernels known by name: the triton_kernels MoE stack (vLLM's
	// gpt-oss path, matmul_ogs = gather/scatter expert GEMM), fused_moe, quantizers.
	named(`^(?:_matmul_ogs_|_finalize_matmul|_combined_routing_|_sum_bitmatrix|_topk_forward|_routing_|_compute_expt_data|fused_moe_kernel)`, CategoryMoE, ProviderTriton, "vl-*"),
	named(`^sage_quant_kernel$|^_?(?:per_token|dynamic)_\w*quant\w*$`, CategoryQuantization, ProviderTriton, "xdit"),
	// Triton Gluon kernels (AITER's gfx950 MoE and attention) are named gluon_….
	refined(`^_?gluon_`, CategoryOther, ProviderGluon, ops, "—"),

	// MIOpen.
	named(`^MIOpen\w*Norm`, CategoryNorm, ProviderMIOpen, "mi300-norm"),
	// Convolutions: HIP/OpenCL kernels and the assembly ones (miopenSp3AsmConv…, miopenGcnAsmConv…).
	named(`^(?:igemm_(?:fwd|bwd|wrw)_|Im[23]d2Col|Col2Im|naive_conv_|gridwise_convolution|ConvHipImplicitGemm|(?i:miopen\w*conv|gcnasmconv|sp3asmconv|miopencv))`, CategoryConv, ProviderMIOpen, "mi210, mi300-*, xdit"),
	named(`^(?:batched_transpose_|transpose_(?:NCHW2CNHW|CNHW2NCHW)|SubTensorOp|Op[1-5]dTensor)`, CategoryElementwise, ProviderMIOpen, "mi210, mi300-*, xdit"),
	refined(`^(?i:miopen)`, CategoryOther, ProviderMIOpen, ops, "—"),

	// rocPRIM / CUB device-wide scans and sorts (behind ATen's cumsum, sort, unique).
	named(`\bcub::|rocprim::|hipcub::`, CategoryReduction, ProviderCUB, "sg-*, a100-*, sampled-*"),

	// ATen, after the library rules: its templates wrap other libraries' functors.
	named(`softmax_warp_(?:forward|backward)|cunn_SoftMax`, CategoryReduction, ProviderATen, "a100-nccl, v100-ns, xdit"),
	refined(`^(?:void )?at::|at::native::|^void cunn_|^void compute_cuda_kernel<`, CategoryElementwise, ProviderATen, ops, "every PyTorch trace"),

	// Anything else whose name still says what it does.
	refined(`.`, "", ProviderUnknown, ops, "sg-* rotary_embedding_kernel"),
}

// ops refines library kernels (CK, AITER, vLLM, ATen, …) by what the name
// says they do. It is matched against the lower-cased canonical name,
// template arguments included, because the op often sits there
// (elementwise_kernel<…silu_kernel…>, kentry<…Rmsnorm2dFwd…>). First match
// wins, so the order settles fused kernels:
//   - norm before quant: add_rmsnorm_quant is a norm with a quantized epilogue;
//   - index before quant: reshape_and_cache<…Fp8KVCacheDataType…> is a cache write;
//   - conv and gemm before activation: CK GEMMs carry epilogues such as FastGelu,
//     and CK convolutions are built from GridwiseGemm.
var ops = []opKeyword{
	// mla is a token (aiter::mla_dec_stage1_…, mla_pfl_…, kn_mla_reduce);
	// pa_ starts AITER's assembly paged attention (aiter::pa_bf16_…).
	kw(CategoryAttention, `fmha|attention|attn|flash_(?:fwd|bwd|fprop|bprop)|mha_(?:fwd|bwd|batch)|sdpa|(?:^|[^a-z])mla(?:[^a-z]|$)|(?:^|:)pa_`),
	kw(CategoryMoE, `moe|topk_?softmax|grouped_topk|expert`),
	kw(CategoryIndex, `reshape_and_cache|kv_?cache|kv_indices|page_indices|block_table`),
	kw(CategoryNorm, `rms_?norm|layer_?norm|group_?norm|batch_?norm|instance_?norm|l2_?norm|`+
		// ATen layer/group-norm helpers
		`gammabeta|rowwisemoments|fusedparams|internalgradients`),
	// conv(?:…) leaves "_typeConvert" alone; CK names conv backward-weight
	// kernels kernel_batched_gemm_xdlops_bwd_weight.
	kw(CategoryConv, `conv(?:olution|_|\d|$)|im2col|col2im|winograd|fprop|dgrad|wgrad|bwd_weight`),
	kw(CategoryGEMM, `gemm|gemv|matmul|\bbmm|wvspli?tk|llmm1`), // wvSplitK: ROCm skinny GEMMs
	kw(CategoryRoPE, `\brope|_rope|rope_|rotary|pos_encoding`),
	kw(CategoryQuantization, `quant|fp8|float8|fp4|mxfp|nvfp`),
	kw(CategoryActivation, `act_and_mul|silu|gelu|swiglu|relu|sigmoid|tanh|softplus|mish|hardswish|threshold_kernel`),
	kw(CategoryReduction, `softmax|reduce_kernel|reduction|argmax|argmin|topk|top_k|sampling|radix_?sort|scan|cumsum|criterion|nll|cross_entropy|max_?pool|avg_?pool|adaptive_\w*pool|pooling`),
}

// inductorOps refines TorchInductor kernels ("triton_poi_fused_<aten ops>_N"),
// whose names list the fused ATen ops in alphabetical order. Pointwise
// kernels never do attention or GEMM math, whatever ops they list (addmm =
// the bias add, _scaled_dot_product_… = a layout copy feeding SDPA).
var inductorOps = []opKeyword{
	kw(CategoryNorm, `_rsqrt_|layer_norm|group_norm|batch_norm|rms_norm`),
	kw(CategoryQuantization, `_abs_(?:.*_)?amax_|quant|fp8`), // dynamic scaling: amax(abs(x))
	kw(CategoryReduction, `softmax|_argmax_|_argmin_|_topk_|_sort_|_cumsum_`),
	// cos/sin build the rotary table; neg + cat/stack is rotate_half.
	kw(CategoryRoPE, `_cos_(?:.*_)?sin_|rotary|rope|_neg_(?:.*_)?(?:slice|stack)_`),
	kw(CategoryActivation, `_(?:silu|gelu|relu|sigmoid|tanh|glu|mish|hardswish|softplus)_`),
	kw(CategoryMoE, `_moe_`),
}

// templateOps refines TorchInductor template kernels (triton_tem_…): the
// template is the op, the epilogue ops (relu, add, quant scales) are not.
var templateOps = []opKeyword{
	kw(CategoryAttention, `flex_attention|flex_decoding|attention|sdpa`),
	kw(CategoryConv, `convolution|conv`),
}

// fbgemmOps refines FBGEMM, whose own name contains "gemm": its kernels are
// embedding-table (TBE) and sparse-feature index work unless they quantize.
var fbgemmOps = []opKeyword{kw(CategoryQuantization, `quant|fp8|qparam`)}

func kw(category, pattern string) opKeyword {
	return opKeyword{category, newPattern(pattern)}
}

func named(pattern, category, provider, seen string) rule {
	return rule{re: newPattern(pattern), category: category, provider: provider, seen: seen}
}

// refined is named with the category refined by an op-keyword table.
func refined(pattern, fallback, provider string, table []opKeyword, seen string) rule {
	r := named(pattern, fallback, provider, seen)
	r.refine = table
	return r
}

func activity(cat, seen string) rule {
	return rule{cat: cat, category: CategoryMemory, provider: ProviderCopyEngine, seen: seen}
}

// kernelIn matches kernels whose own name, not a template argument or a
// parameter type, lives in one of the namespaces. The mangled spelling
// (_ZN5aiter…) keeps names that fail to demangle, e.g. truncated ones,
// in their library.
func kernelIn(namespaces ...string) string {
	var plain, mangled []string
	for _, ns := range namespaces {
		plain = append(plain, regexp.QuoteMeta(ns))
		var m strings.Builder
		for _, part := range strings.Split(ns, "::") {
			fmt.Fprintf(&m, "%d%s", len(part), part)
		}
		mangled = append(mangled, m.String())
	}
	return `^(?:void |std::enable_if<.*>::type )?(?:` + strings.Join(plain, "|") + `)::` +
		`|^_ZN(?:` + strings.Join(mangled, "|") + `)\d`
}
