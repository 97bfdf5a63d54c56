package crash

import (
	"strings"
	"testing"
)

// Real wordings of PyTorch's runtime-error block (URLs per row) and the
// facts the torch extractors read from them.

func TestExtractTraceFrame(t *testing.T) {
	cases := []struct {
		src, text string
		want      traceFrame
		ok        bool
	}{
		{"https://github.com/etched-ai/open-oasis/issues/27",
			`  File "/home/arch/Desktop/open-oasis/generate.py", line 70, in <module>`,
			traceFrame{"/home/arch/Desktop/open-oasis/generate.py", "70", "<module>"}, true},
		{"https://github.com/zai-org/CodeGeeX/issues/160",
			`  File "/data1/anaconda/env/ysj_llm/lib/python3.10/site-packages/torch/cuda/__init__.py", line 566, in synchronize`,
			traceFrame{"/data1/anaconda/env/ysj_llm/lib/python3.10/site-packages/torch/cuda/__init__.py", "566", "synchronize"}, true},
		{"https://github.com/ROCm/legacy-rocm-build/issues/4208", `  File "<string>", line 1, in <module>`,
			traceFrame{"<string>", "1", "<module>"}, true},
		{"the code line under a frame", `    x = vae.encode(x * 2 - 1).mean * scaling_factor`, traceFrame{}, false},
	}
	for _, c := range cases {
		got, ok := extractTraceFrame(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractTraceFrame(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
	if got := (traceFrame{"a.py", "3", "f"}).loc(); got != "a.py:3 in f" {
		t.Errorf("loc = %q", got)
	}
}

func TestExtractPyException(t *testing.T) {
	cases := []struct {
		src, text string
		ok        bool
	}{
		{"https://github.com/etched-ai/open-oasis/issues/27", "RuntimeError: HIP error: invalid device function", true},
		{"https://github.com/pytorch/pytorch/issues/164346", "torch.AcceleratorError: HIP error: invalid device function", true},
		{"https://github.com/zai-org/CodeGeeX/issues/160", "RuntimeError: CUDA error: an illegal memory access was encountered", true},
		// indented: part of a frame or a message body, not the exception line
		{"indented", "    RuntimeError: CUDA error: an illegal memory access was encountered", false},
		{"https://github.com/ROCm/TheRock/issues/2707 (no exception name)", "!!! Exception during processing !!! HIP error: invalid argument", false},
	}
	for _, c := range cases {
		got, ok := extractPyException(c.text)
		if ok != c.ok || ok && got != c.text {
			t.Errorf("%s: extractPyException(%q) = %q, %v; want ok=%v", c.src, c.text, got, ok, c.ok)
		}
	}
}

func TestExtractLaunchBlockingAndHints(t *testing.T) {
	// the runtime's suggestion is not a setting in effect
	for _, c := range []struct{ src, text, setting string }{
		{"https://github.com/etched-ai/open-oasis/issues/27", "For debugging consider passing AMD_SERIALIZE_KERNEL=3", "AMD_SERIALIZE_KERNEL=3"},
		{"https://github.com/evo-design/evo/issues/136", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=1"},
		{"https://github.com/yewzijian/RegTR/issues/33", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.", "CUDA_LAUNCH_BLOCKING=1"},
	} {
		if extractLaunchBlocking(c.text, c.text) {
			t.Errorf("%s: %q read as a launch-blocking setting", c.src, c.text)
		}
		if got := extractDebugSetting(c.text); got != c.setting {
			t.Errorf("%s: extractDebugSetting(%q) = %q, want %q", c.src, c.text, got, c.setting)
		}
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"CUDA_LAUNCH_BLOCKING=1 python train.py", true},
		{"export HIP_LAUNCH_BLOCKING=1", true},
		{"AMD_SERIALIZE_KERNEL=3 torchrun --nproc-per-node 8 train.py", true},
		{"CUDA_LAUNCH_BLOCKING=0 python train.py", false},
	} {
		if got := extractLaunchBlocking(c.text, c.text); got != c.want {
			t.Errorf("extractLaunchBlocking(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	for _, c := range []struct{ src, text string }{
		{"https://github.com/etched-ai/open-oasis/issues/27", "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect."},
		{"https://github.com/yewzijian/RegTR/issues/33", "CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect."},
	} {
		if !extractAsyncHint(c.text) {
			t.Errorf("%s: extractAsyncHint(%q) = false", c.src, c.text)
		}
	}
}

func TestExtractTorchError(t *testing.T) {
	cases := []struct {
		src, text string
		want      torchErrFact
	}{
		{"https://github.com/etched-ai/open-oasis/issues/27", "RuntimeError: HIP error: invalid device function",
			torchErrFact{text: "invalid device function", phrase: "invalid device function"}},
		{"https://github.com/zai-org/CodeGeeX/issues/160", "RuntimeError: CUDA error: an illegal memory access was encountered",
			torchErrFact{cuda: true, text: "an illegal memory access was encountered", phrase: "an illegal memory access was encountered"}},
		{"https://github.com/ROCm/TheRock/issues/2707", "Search for `hipErrorInvalidValue' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__HIPRT__TYPES.html for more information.",
			torchErrFact{search: "hipErrorInvalidValue", name: "hipErrorInvalidValue"}},
		{"https://github.com/pytorch/pytorch/issues/164346", "Search for `hipErrorInvalidDeviceFunction' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__HIPRT__TYPES.html for more information.",
			torchErrFact{search: "hipErrorInvalidDeviceFunction", name: "hipErrorInvalidDeviceFunction"}},
		// an API trace line: the name is the call's status, not an error raised here
		{"https://github.com/ROCm/legacy-rocm-build/issues/4208", ":3:hip_module.cpp           :678 : 795019406319 us: [pid:3785  tid:0x1546faa1c080] hipLaunchKernel: Returned hipErrorInvalidDeviceFunction :",
			torchErrFact{}},
		{"https://github.com/llnl/smith/issues/1586", `C++ exception with description "scan failed on 2nd step: hipErrorInvalidDeviceFunction: invalid device function" thrown in SetUp().`,
			torchErrFact{name: "hipErrorInvalidDeviceFunction", phrase: "invalid device function"}},
		// ggml's own prefix ("ROCm error: %s", the build's backend name) is a
		// runtime's prefix like "HIP error: ": its text is read, also the
		// short ones no phrase holds (hipErrorInvalidImage, 200)
		{"https://github.com/oobabooga/textgen/issues/7546", "ROCm error: device kernel image is invalid",
			torchErrFact{text: "device kernel image is invalid", phrase: "device kernel image is invalid"}},
		{"https://github.com/AtomicBot-ai/atomic-llama-cpp-turboquant/issues/81", "E ROCm error: device kernel image is invalid",
			torchErrFact{text: "device kernel image is invalid", phrase: "device kernel image is invalid"}},
		{"https://github.com/ggml-org/llama.cpp/issues/23934 (title)", "Eval bug: ROCm error: device kernel image is invalid",
			torchErrFact{text: "device kernel image is invalid", phrase: "device kernel image is invalid"}},
		// THC's check names no vendor word but is CUDA's own
		{"https://github.com/pytorch/pytorch/issues/21276", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=271 error=4 : unspecified launch failure       x",
			torchErrFact{cuda: true, phrase: "unspecified launch failure"}},
		// THC's "cuda runtime error (N)" and the driver API's CUDA_ERROR_X names are CUDA's wordings
		{"https://github.com/pytorch/pytorch/issues/2567", "RuntimeError: cuda runtime error (4) : unspecified launch failure at /home/ubuntu/pytorch/torch/lib/THC/THCTensorCopy.cu:85",
			torchErrFact{cuda: true, phrase: "unspecified launch failure"}},
		{"https://github.com/numba/numba/issues/4351", "numba.cuda.cudadrv.driver.CudaAPIError: [702] Call to cuMemcpyDtoH results in CUDA_ERROR_LAUNCH_TIMEOUT",
			torchErrFact{cuda: true, name: "CUDA_ERROR_LAUNCH_TIMEOUT"}},
		{"https://github.com/tensorflow/tensorflow/issues/25866", "E tensorflow/stream_executor/cuda/cuda_driver.cc:1011] could not synchronize on CUDA context: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure ::",
			torchErrFact{cuda: true, name: "CUDA_ERROR_LAUNCH_FAILED", phrase: "unspecified launch failure"}},
		{"CUDA runtime name", "RuntimeError: CUDA error: an illegal memory access was encountered (cudaErrorIllegalAddress)",
			torchErrFact{cuda: true, text: "an illegal memory access was encountered (cudaErrorIllegalAddress)", name: "cudaErrorIllegalAddress", phrase: "an illegal memory access was encountered", cudaName: "cudaErrorIllegalAddress"}},
	}
	for _, c := range cases {
		if got := extractTorchError(c.text); got != c.want {
			t.Errorf("%s: extractTorchError(%q) =\n %+v, want\n %+v", c.src, c.text, got, c.want)
		}
	}
}

// faulthandler's dump after "Fatal Python error: Segmentation fault": the
// crashing thread is the "Current thread" block, not the first thread
// printed (Genesis-Embodied-AI/Genesis#492; the same layout in CPython's
// faulthandler docs and py-spy-less crash reports).
func TestFaulthandlerCurrentThread(t *testing.T) {
	log := `Fatal Python error: Segmentation fault

Thread 0x00007fa040e2b700 (most recent call first):
  File "/usr/lib/python3.10/threading.py", line 324 in wait
  File "/usr/lib/python3.10/queue.py", line 180 in get

Current thread 0x00007fa2972464c0 (most recent call first):
  File "/home/u/Genesis/examples/locomotion/reward_wrapper.py", line 88 in _reward_feet_air_time
  File "/home/u/Genesis/examples/locomotion/env.py", line 498 in compute_reward
`
	d := diagnoseWhole("fh.log", []byte(log))
	f := hasClass(d, ClassHostSegfault)
	if f == nil || !strings.Contains(f.Location, "reward_wrapper.py") {
		t.Fatalf("want the current thread's frame as location: %s", d.JSON())
	}
}

// The class those CUDA wordings lead to: a launch timeout is the watchdog
// killing a kernel (gpu_hang_reset), CUDA's launch failure a device
// exception (gpu_memory_fault) — THC's "cuda runtime error (4)" included,
// which HIP's reading (a trap without assert text) must not take.
func TestCUDAWordingClasses(t *testing.T) {
	for _, c := range []struct{ src, log, class string }{
		{"https://github.com/numba/numba/issues/4351", "numba.cuda.cudadrv.driver.CudaAPIError: [702] Call to cuMemcpyDtoH results in CUDA_ERROR_LAUNCH_TIMEOUT\n", ClassGPUHangReset},
		{"https://github.com/numba/numba/issues/9381 (title wording)", "Unexpected \"CUDA error: the launch timed out and was terminated\" or `CUDA_ERROR_LAUNCH_TIMEOUT`\n", ClassGPUHangReset},
		{"https://github.com/tensorflow/tensorflow/issues/25866", "2019-02-19 13:19:12.200064: E tensorflow/stream_executor/event.cc:34] error destroying CUDA event in context 000001A6735E4ED0: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure\n", ClassGPUMemoryFault},
		{"https://github.com/pytorch/pytorch/issues/2567", "RuntimeError: cuda runtime error (4) : unspecified launch failure at /home/ubuntu/pytorch/torch/lib/THC/THCTensorCopy.cu:85\nterminate called after throwing an instance of 'std::runtime_error'\n", ClassGPUMemoryFault},
	} {
		d := diagnoseWhole("x.log", []byte(c.log))
		if hasClass(d, c.class) == nil {
			t.Errorf("%s: want %s: %s", c.src, c.class, d.JSON())
		}
		if c.class == ClassGPUMemoryFault && hasClass(d, ClassDeviceAssert) != nil {
			t.Errorf("%s: CUDA's launch failure read as a device assert: %s", c.src, d.JSON())
		}
	}
}
