package collectives

import (
	"strconv"
	"strings"
)

// kindOfArg normalises PyTorch's "Collective name" (allreduce,
// _allgather_base, all_gather_into_tensor_coalesced, reduce_scatter_tensor,
// alltoall_base, send, recv …) to one kind per NCCL operation.
func kindOfArg(name string) string {
	l := strings.ToLower(strings.TrimLeft(name, "_"))
	for _, suf := range []string{"_coalesced", "_base", "_into_tensor", "_tensor"} {
		l = strings.TrimSuffix(l, suf)
	}
	l = strings.ReplaceAll(l, "_", "")
	switch l {
	case "":
		return ""
	case "send", "recv", "sendrecv":
		return "sendrecv"
	case "alltoallv", "alltoall":
		return "alltoall"
	}
	return l
}

// kindOfKernel reads the kind from a collective kernel's name:
// ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(…), ncclDevKernel_AllReduce_Sum_bf16_RING_LL(…).
func kindOfKernel(name string) string {
	l := strings.ToLower(name)
	if customAllReduce(l) {
		return "custom_allreduce"
	}
	for _, k := range []struct{ frag, kind string }{
		{"allreduce", "allreduce"}, {"all_reduce", "allreduce"},
		{"reducescatter", "reducescatter"}, {"reduce_scatter", "reducescatter"},
		{"allgather", "allgather"}, {"all_gather", "allgather"},
		{"alltoall", "alltoall"}, {"all_to_all", "alltoall"},
		{"sendrecv", "sendrecv"}, {"broadcast", "broadcast"},
		{"_send", "sendrecv"}, {"_recv", "sendrecv"},
		{"_reduce_", "reduce"},
	} {
		if strings.Contains(l, k.frag) {
			return k.kind
		}
	}
	return "collective"
}

// BusFactor is NCCL's bus-bandwidth factor for a kind on n ranks
// (nccl-tests doc/PERFORMANCE.md): busbw = algbw × factor.
func BusFactor(kind string, n int) float64 {
	if n <= 1 {
		return 1
	}
	f := float64(n)
	switch kind {
	case "allreduce", "custom_allreduce":
		return 2 * (f - 1) / f
	case "allgather", "reducescatter", "alltoall":
		return (f - 1) / f
	}
	return 1 // broadcast, reduce, send/recv
}

// customFrags name the all-reduce kernels that bypass NCCL/RCCL (no
// record_param_comms, no process group): AITER's and vLLM's/SGLang's
// custom all-reduce (aiter::cross_device_reduce_2stage<bf16,8,false>,
// vllm::cross_device_reduce_1stage), PyTorch symmetric memory
// (multimem_all_reduce_kernel, one_shot_all_reduce_kernel,
// two_shot_all_reduce_kernel), ROCm QuickReduce
// (quickreduce::allreduce_prototype_twoshot) and TensorRT-LLM/FlashInfer's
// fused all-reduce (allreduce_fusion_kernel_oneshot_lamport).
var customFrags = []string{"cross_device_reduce", "multimem_all_reduce", "one_shot_all_reduce", "two_shot_all_reduce",
	"quickreduce", "allreduce_prototype", "allreduce_fusion"}

// customAllReduce reports a custom all-reduce kernel by its lower-cased name.
func customAllReduce(l string) bool {
	for _, f := range customFrags {
		if strings.Contains(l, f) {
			return true
		}
	}
	return false
}

// dtypeSize is the bytes of one element of a PyTorch dtype as the profiler
// names it (c10's ScalarType names), 0 if unknown.
func dtypeSize(d string) int64 {
	switch d {
	case "Bool", "Byte", "Char", "QInt8", "QUInt8", "Float8_e4m3fn", "Float8_e5m2", "Float8_e4m3fnuz", "Float8_e5m2fnuz", "Float8_e8m0fnu", "UInt8", "Int8":
		return 1
	case "Short", "Half", "BFloat16", "UInt16", "Int16":
		return 2
	case "Int", "Float", "QInt32", "UInt32", "ComplexHalf":
		return 4
	case "Long", "Double", "ComplexFloat", "UInt64":
		return 8
	case "ComplexDouble":
		return 16
	}
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }

func short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
