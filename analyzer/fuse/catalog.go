package fuse

// Rule is one entry of the fusion catalog: what a detector looks for, when
// its row is shown, what to do about it and why. The detectors (scan) only
// collect occurrences under a rule's ID; everything a reader sees comes
// from this table.
type Rule struct {
	ID      string
	Pattern string // the table's Pattern column
	// Detector names the matcher in scan that feeds the rule.
	Detector string
	// MinShare: the row is shown from this share of the stage's GPU time.
	MinShare float64
	// LikelyShare: Likely from this share of the stage's GPU time (of the
	// rule's own time, or of the all-reduce time for the TP rule); 0 means
	// always Conditional.
	LikelyShare float64
	// Fused rules report a family that already runs as one kernel.
	Fused     bool
	Candidate Paths
	// Rationale opens the row's rationale; detectors append what they saw.
	Rationale string
}

// Rule IDs.
const (
	RuleAllReduceNorm  = "tp-allreduce-residual-rmsnorm"
	RuleQKNormRoPE     = "qk-norm-rope"
	RuleQuantize       = "producer-quantize"
	RuleChain          = "elementwise-chain"
	RuleCopyChain      = "copy-chain"
	RuleSplitK         = "splitk-reduce-tail"
	RuleSampling       = "sampling-tail"
	RuleMoERouting     = "moe-routing-chain"
	RuleAddNormQuant   = "add-rmsnorm-quant-fused"
	RuleQKNormRoPEDone = "qk-norm-rope-fused"
)

// Catalog is the fusion rule table, in the order rows are built.
var Catalog = []Rule{
	{
		ID: RuleAllReduceNorm, Pattern: "TP all-reduce + residual/RMSNorm", Detector: "allreduce-then-norm",
		MinShare: 0, LikelyShare: 0.04,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkSGLang, Text: "sglang/srt/layers/layernorm.py forward_with_allreduce_fusion → FlashInfer allreduce_fusion (kARResidualRMSNorm); sglang/srt/distributed/communication_op.py tensor_model_parallel_fused_allreduce_rmsnorm"},
				{Framework: FrameworkVLLM, Text: "the AllReduceFusionPass of torch.compile (compilation_config pass_config enable_fi_allreduce_fusion)"},
				{Text: "one kernel for all-reduce + residual add + RMSNorm (FlashInfer allreduce_fusion kARResidualRMSNorm)"},
			},
			ROCm: []Path{
				{Framework: FrameworkSGLang, Text: "sglang/srt/layers/communicator.py apply_aiter_all_reduce_fusion → sglang/srt/distributed/communication_op.py tensor_model_parallel_fused_allreduce_rmsnorm (AITER all-reduce + RMSNorm)"},
				{Text: "one kernel for all-reduce + residual add + RMSNorm (AITER's custom all-reduce with fused RMSNorm)"},
			},
		},
		Rationale: "An all-reduce is followed on the same stream by the residual add and the RMSNorm; one kernel can reduce, add and normalise while the data is in registers (upstream rule: Likely when all-reduce is ≥ 4 % of the stage).",
	},
	{
		ID: RuleQKNormRoPE, Pattern: "Q/K RMSNorm + RoPE before attention", Detector: "two-norms-then-rope",
		MinShare: 0.01,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkSGLang, Text: "sglang/srt/models/utils.py apply_qk_norm → sglang/jit_kernel/fused_qknorm_rope.py fused_qk_norm_rope_out (as in sglang/srt/models/qwen3_moe.py apply_qk_norm_rope)"},
				{Framework: FrameworkVLLM, Text: "the QK-norm + RoPE fusion pass of torch.compile (pass_config enable_qk_norm_rope_fusion)"},
				{Text: "one kernel for the Q/K RMSNorm and RoPE (torch.compile fuses them when no graph break separates them)"},
			},
			ROCm: []Path{
				{Framework: FrameworkSGLang, Text: "the fused QK-norm + (m)RoPE + KV-cache-write decode path of sglang/srt/models/qwen3.py (AITER)"},
				{Text: "one kernel for the Q/K RMSNorm and RoPE (torch.compile fuses them when no graph break separates them)"},
			},
		},
		Rationale: "Two RMSNorms (Q and K heads, Qwen3-style) are followed by a RoPE kernel on the same stream; one fused kernel would read Q/K once (the layout copies that reshape Q/K for the norms, counted in the row when present, go with them).",
	},
	{
		ID: RuleQuantize, Pattern: "Standalone quantization after its producer (act-and-mul / norm / RoPE → quant)", Detector: "producer-then-quant",
		MinShare: 0.005, LikelyShare: 0.03,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkVLLM, Text: "vLLM silu_and_mul_quant / rms_norm_dynamic_per_token_quant (the torch.compile ActivationQuantFusionPass / RMSNormQuantFusionPass)"},
				{Framework: FrameworkSGLang, Text: "sgl_kernel fused act-and-mul with FP8 output"},
				{Text: "fold the quantization into its producer's epilogue"},
				{KVCache: true, Text: "quantize inside the KV-cache write for an FP8 KV cache"},
			},
			ROCm: []Path{
				{Text: "AITER fused producers with quantized output: act_mul_and_fp8_group_quant, rmsnorm2d_fwd_with_dynamicquant / add_rmsnorm_quant"},
				{KVCache: true, Text: "AITER's fused RoPE + FP8 KV-cache write"},
			},
		},
		Rationale: "A quantization kernel reads back what the previous pointwise kernel just wrote (activation, norm, RoPE or a copy); writing the quantized tensor directly saves a round trip through memory and a launch.",
	},
	{
		ID: RuleChain, Pattern: "Elementwise chain between GEMMs", Detector: "light-run-between-compute",
		MinShare: 0.01, LikelyShare: 0.04,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkSGLang, Kind: "rmsnorm", Text: "sglang/srt/layers/layernorm.py RMSNorm → sgl_kernel fused_add_rmsnorm"},
				{Framework: FrameworkVLLM, Kind: "rmsnorm", Text: "vLLM's RMSNorm custom op (fused_add_rms_norm)"},
				{Framework: FrameworkSGLang, Kind: "swiglu", Text: "sglang/srt/layers/activation.py SiluAndMul"},
				{Framework: FrameworkVLLM, Kind: "swiglu", Text: "vLLM SiluAndMul"},
				{Kind: "rmsnorm", Text: "a fused RMSNorm kernel (torch.compile, or Apex/FlashInfer rmsnorm)"},
				{Kind: "rmsnorm", Text: inductorFusion},
				{Kind: "swiglu", Text: inductorFusion},
				{Kind: "pointwise", Text: inductorFusion},
				{Kind: "inductor", Text: inductorAlready},
			},
			ROCm: []Path{
				{Framework: FrameworkSGLang, Kind: "rmsnorm", Text: "sglang/srt/layers/layernorm.py forward_hip (AITER rmsnorm2d_fwd_with_add)"},
				{Framework: FrameworkVLLM, Kind: "rmsnorm", Text: "vLLM's RMSNorm custom op with AITER (VLLM_ROCM_USE_AITER=1)"},
				{Framework: FrameworkSGLang, Kind: "swiglu", Text: "sgl_kernel silu_and_mul (sgl_hip act_and_mul)"},
				{Framework: FrameworkVLLM, Kind: "swiglu", Text: "vLLM SiluAndMul"},
				{Kind: "rmsnorm", Text: "AITER rmsnorm2d_fwd / rmsnorm2d_fwd_with_add"},
				{Kind: "rmsnorm", Text: inductorFusion},
				{Kind: "swiglu", Text: inductorFusion},
				{Kind: "pointwise", Text: inductorFusion},
				{Kind: "inductor", Text: inductorAlready},
			},
		},
		Rationale: "Consecutive small pointwise/reduce kernels sit between two compute kernels; each launch re-reads the activation from memory.",
	},
	{
		ID: RuleCopyChain, Pattern: "Chain of memcpy/memset operations", Detector: "copy-run",
		MinShare: 0.005, LikelyShare: 0.05,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkVLLM, Text: "vLLM CpuGpuBuffer staging"},
				{Framework: FrameworkSGLang, Text: "SGLang ForwardBatch preparation"},
				{Text: "pack the step's host inputs into one pinned staging buffer and copy once, keep device-to-device copies inside a CUDA graph, or replace zero-fills by writes in the consumer"},
			},
			ROCm: []Path{
				{Text: "pack host inputs into one pinned buffer and copy once (hipMemcpyAsync from pinned memory), keep device-to-device copies inside a HIP graph, or drop zero-fills the consumer overwrites"},
			},
		},
		Rationale: "Three or more copies/fills run back to back on one stream with no kernel between them: each pays launch and DMA setup latency for little data.",
	},
	{
		ID: RuleSplitK, Pattern: "Split-K GEMM + separate reduction kernel", Detector: "splitk-then-reduce",
		MinShare: 0.005, LikelyShare: 0.03,
		Candidate: Paths{
			CUDA: []Path{{Text: "a GEMM algorithm without split-K or with in-kernel (stream-K) reduction: cuBLASLt heuristics / PyTorch TunableOp (PYTORCH_TUNABLEOP_ENABLED=1), or a Triton/CUTLASS GEMM whose epilogue also adds the residual"}},
			ROCm: []Path{{Text: "hipBLASLt solutions without GSU > 1 (hipBLASLt tuning / PyTorch TunableOp), or AITER tuned GEMMs (aiter/configs tuned_gemm.csv) for these shapes"}},
		},
		Rationale: "The GEMM is split along K and a second kernel reduces the partial sums (cuBLASLt splitKreduce / hipBLASLt PostGSU); at decode sizes the extra launch and the partial-sum round trip cost about as much as the split saves.",
	},
	{
		ID: RuleSampling, Pattern: "Per-token sampling chain after the LM head", Detector: "lm-head-then-sampling",
		MinShare: 0.005, LikelyShare: 0.03,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkSGLang, Text: "sglang/srt/layers/sampler.py with FlashInfer sampling (top_k_top_p_sampling_from_logits, min_p)"},
				{Framework: FrameworkVLLM, Text: "vllm/v1/sample/ops/topk_topp_sampler.py with FlashInfer sampling"},
				{Text: "a fused sampler; for greedy decoding one argmax on the bf16 logits without the fp32 copy"},
			},
			ROCm: []Path{
				{Framework: FrameworkSGLang, Text: "sglang/srt/layers/sampler.py with the AITER/Triton sampling kernels"},
				{Framework: FrameworkVLLM, Text: "vLLM's ROCm top-k/top-p sampler"},
				{Text: "for greedy decoding one argmax on the bf16 logits without the fp32 copy"},
			},
		},
		Rationale: "After the LM-head GEMM, several small kernels (dtype casts, argmax / top-k / softmax, masks, index updates) run one after another per decoding step, each on the whole vocabulary row or on a handful of tokens.",
	},
	{
		ID: RuleMoERouting, Pattern: "MoE routing as a chain of small kernels", Detector: "moe-routing-run",
		MinShare: 0.01, LikelyShare: 0.04,
		Candidate: Paths{
			CUDA: []Path{
				{Framework: FrameworkVLLM, Text: "vLLM fused_topk / FlashInfer-TRT-LLM routing (RoutingMethodType with fused histogram + offsets)"},
				{Framework: FrameworkSGLang, Text: "sgl_kernel topk_softmax + moe_align_block_size or moe_fused_gate"},
				{Text: "one fused routing kernel (top-k, histogram and offsets together)"},
			},
			ROCm: []Path{
				{Framework: FrameworkVLLM, Text: "vLLM's ROCm AITER MoE path (VLLM_ROCM_USE_AITER_MOE=1)"},
				{Text: "AITER fused_moe with its fused topk_softmax / biased_grouped_topk routing (aiter/fused_moe.py)"},
			},
		},
		Rationale: "Expert routing (top-k, histograms, offsets, memsets, padding) runs as three or more consecutive small kernels before the expert GEMMs; at decode batch sizes they are launch-bound.",
	},
	{
		ID: RuleAddNormQuant, Pattern: "Residual add + RMSNorm (+quant)", Detector: "fused-add-norm",
		MinShare: 0.001, Fused: true,
		Candidate: Paths{},
		Rationale: "Residual add and RMSNorm already run as one kernel",
	},
	{
		ID: RuleQKNormRoPEDone, Pattern: "Q/K RMSNorm + RoPE (fused kernel)", Detector: "fused-qknorm-rope",
		MinShare: 0.001, Fused: true,
		Candidate: Paths{},
		Rationale: "Q/K norm and RoPE already run in one kernel.",
	},
}

// Chain candidates: Inductor fusion, unless Inductor generated the chain.
const (
	inductorFusion  = "torch.compile (Inductor) pointwise fusion or the neighbouring GEMM's epilogue"
	inductorAlready = "already Inductor kernels: fewer graph breaks around the ops that separate them (torch._dynamo.explain shows where), or one hand-written kernel"
)

func ruleByID(id string) *Rule {
	for i := range Catalog {
		if Catalog[i].ID == id {
			return &Catalog[i]
		}
	}
	return nil
}
