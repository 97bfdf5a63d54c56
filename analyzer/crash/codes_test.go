package crash

import "testing"

// CUDA error strings as frameworks print them, each wording from public
// threads: the runtime's text keeps its case ("ECC"), and an error HIP has no
// twin for (cudaErrorIllegalInstruction, 715) is CUDA's whoever prints it.
func TestCUDAErrorStrings(t *testing.T) {
	cases := []struct {
		src, text, want string
	}{
		// uncorrectable ECC (cudaErrorECCUncorrectable, 214): hardware
		{"https://github.com/huggingface/accelerate/issues/1192", "RuntimeError: CUDA error: uncorrectable ECC error encountered", ClassECCRAS},
		{"https://github.com/tloen/alpaca-lora/issues/123", "RuntimeError: CUDA error: uncorrectable ECC error encountered", ClassECCRAS},
		{"https://github.com/NVIDIA/semantic-segmentation/issues/33", "RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265", ClassECCRAS},
		{"https://github.com/nagadit/DeepFaceLab_Linux/issues/89", "F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling error Internal: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered", ClassECCRAS},
		{"https://github.com/JuliaGPU/CUDAdrv.jl/issues/106", "  CUDA error: uncorrectable ECC error encountered (code #214, ERROR_ECC_UNCORRECTABLE)", ClassECCRAS},
		// an illegal instruction (cudaErrorIllegalInstruction, 715)
		{"https://github.com/NVIDIA/TensorRT-LLM/issues/11313", "[02/05/2026-06:58:48] [TRT-LLM] [E] Encountered an error in forward function: CUDA error: an illegal instruction was encountered", ClassIllegalInstruction},
		{"https://github.com/lllyasviel/Fooocus/issues/530", "RuntimeError: CUDA error: an illegal instruction was encountered", ClassIllegalInstruction},
		{"https://github.com/fireice-uk/xmr-stak/issues/1414", "libc++abi.dylib: terminating with uncaught exception of type std::runtime_error: [CUDA] Error: an illegal instruction was encountered", ClassIllegalInstruction},
		{"https://github.com/AlexeyAB/darknet/issues/8656", " CUDA Error: an illegal instruction was encountered", ClassIllegalInstruction},
		// the error already read as before
		{"https://github.com/vllm-project/vllm/issues/6976", "RuntimeError: CUDA error: an illegal memory access was encountered", ClassGPUMemoryFault},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if len(d.Findings) == 0 || d.Findings[0].Class != c.want {
			t.Errorf("%s: %q: %v, want %s first", c.src, c.text, classesOf(d), c.want)
		}
	}
	// prose naming the error is no finding of it
	d := diagnoseWhole("x.log", []byte("I never had this \"illegal instruction\" error from CUDA, so it's hard to guess.\n"))
	if hasClass(d, ClassIllegalInstruction) != nil {
		t.Errorf("prose: %v", classesOf(d))
	}
}

// XLA's HIP status by number (sources per row).
func TestHIPErrorNumberName(t *testing.T) {
	cases := []struct{ src, text, want string }{
		{"https://github.com/ROCm/xla/pull/185 (Navi, kernels built for gfx90a only)", "INTERNAL: Failed call to hipGetFuncBySymbol: hipError_t(98)", "hipErrorInvalidDeviceFunction"},
		{"https://github.com/ROCm/ROCm/issues/4311 (jax wheel from PyPI)", "Status: INTERNAL: Failed to launch ROCm kernel: RepeatBufferKernel with block dimensions: 256x1x1: hipError_t(303)", "hipErrorSharedObjectInitFailed"},
		{"https://github.com/ROCmSoftwarePlatform/hiptensorflow/issues/62 (a number the catalog lacks)", "mnist.py: failed to allocate 8.00G from device: hipError_t(1002)", ""},
		{"no number: the type's name alone", "static_cast<hipError_t>(err)", ""},
	}
	for _, c := range cases {
		if got := hipErrorNumberName(c.text); got != c.want {
			t.Errorf("%s\n%q: got %q, want %q", c.src, c.text, got, c.want)
		}
	}
}
