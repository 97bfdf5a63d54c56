package collectives

import "testing"

// Collective kernels as real traces and sources name them, and kernels that
// only look alike. Sources: the shared traces (H200 TP=2 gpu/traces/tp_rank*,
// DLRM V100 traces2/param_dlrm_v100_8rank, HTA trace_diff and nccl_parser_config,
// TraceLens mi300/resnet_act_checkpoint and b200/eager_trace); RCCL
// src/include/msccl/msccl_kernel.h (MSCCL_KERNEL_ENTRY_NAME →
// mscclKernel_<redop>_<type>_<proto>[_<fullOps>]); MI355X SGLang TP=8
// kernel tables quoted in public reports (ncclDevKernel_Generic_1,
// mscclKernel_Sum_hip_bfloat16_Simple, aiter::cross_device_reduce_2stage);
// a rocprofv3 summary (mscclKernel_Sum_half_Simple_false(ncclDevComm*,
// mscclAlgo*, mscclWork*), ncclDevKernel_Generic(ncclDevComm*, channelMasks, ncclWork*)).
func TestKernelNameWordings(t *testing.T) {
	for _, c := range []struct {
		name string
		coll bool
		kind string
	}{
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true, "allreduce"},
		{"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true, "allgather"},
		{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", true, "allreduce"},
		{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", true, "sendrecv"},
		{"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", true, "broadcast"},
		{"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true, "reducescatter"},
		// RCCL's generic kernel and MSCCL carry no kind: record_param_comms' Collective name gives it
		{"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", true, "collective"},
		{"ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", true, "collective"},
		{"ncclDevKernel_Generic(ncclDevComm*, channelMasks, ncclWork*)", true, "collective"},
		{"mscclKernel_Sum_hip_bfloat16_Simple_false", true, "collective"},
		{"mscclKernel_Sum_half_Simple_false(ncclDevComm*, mscclAlgo*, mscclWork*)", true, "collective"},
		{"void aiter::cross_device_reduce_2stage<__hip_bfloat16, 8, false>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, __hip_bfloat16*, int, int)", true, "custom_allreduce"},
		{"void vllm::cross_device_reduce_1stage<c10::BFloat16, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, c10::BFloat16*, int, int)", true, "custom_allreduce"},
		{"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned long)", true, "custom_allreduce"},
		{"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)", false, ""},
		{"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, false, float, __nv_bfloat16>(cublasLt::cublasSplitKParams<float>)", false, ""},
		{"void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 3, false>(__hip_bfloat16*)", false, ""},
		{"_finalize_matmul_scatter_bf16", false, ""},
		{"void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)", false, ""},
	} {
		if got := IsCollective(c.name); got != c.coll {
			t.Errorf("IsCollective(%q) = %v", c.name, got)
		}
		if c.coll {
			if got := kindOfKernel(c.name); got != c.kind {
				t.Errorf("kindOfKernel(%q) = %q, want %q", c.name, got, c.kind)
			}
		}
	}
	// PyTorch's Collective name wordings (ProcessGroupNCCL's RECORD_PARAM_COMMS calls; the shared traces)
	for arg, kind := range map[string]string{
		"allreduce": "allreduce", "allreduce_coalesced": "allreduce", "_allgather_base": "allgather",
		"all_gather_into_tensor_coalesced": "allgather", "allgather": "allgather", "_reduce_scatter_base": "reducescatter",
		"reduce_scatter_tensor_coalesced": "reducescatter", "alltoall_base": "alltoall", "alltoall": "alltoall",
		"broadcast": "broadcast", "send": "sendrecv", "recv": "sendrecv", "barrier": "barrier",
	} {
		if got := kindOfArg(arg); got != kind {
			t.Errorf("kindOfArg(%q) = %q, want %q", arg, got, kind)
		}
	}
}
