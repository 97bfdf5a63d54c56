package crash

import (
	"strings"
	"testing"
)

// A launch the runtime refused with invalid-value is an invalid launch, in
// each real wording; other "invalid" launch errors keep their own reading.
func TestLaunchRefusedValue(t *testing.T) {
	for _, c := range []struct{ name, log, hip string }{
		// onnxruntime#20203: MIOpen's batch-norm launch on ROCm
		{"miopen", "MIOpen Error: /src/extlibs/MLOpen/src/hipoc/hipoc_kernel.cpp:104: Failed to launch kernel: invalid argument\n", ""},
		// HigherOrderCO/HVM1#383: a shared-memory request over an RTX 2060S's
		{"hvm", "Failed to launch kernels. Error code: invalid argument.\nErrors: Failed to parse result from HVM.\n", ""},
		// xla#8692: JAX's HIP graph launch
		{"xla-graph", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch HIP graph: HIP_ERROR_InvalidValue\n", "hipErrorInvalidValue"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassInvalidLaunch)
		if f == nil {
			t.Errorf("%s: classes %v, want invalid_launch", c.name, classesOf(d))
			continue
		}
		if f.HIPError != c.hip {
			t.Errorf("%s: hip_error %q, want %q", c.name, f.HIPError, c.hip)
		}
	}
	// MIOpen#3483's configuration wording stays the resource reading
	d := diagnoseWhole("run.log", []byte("MIOpen(HIP): Error [EvaluateInvokers] /MIOpen/src/hipoc/hipoc_kernel.cpp:106: Failed to launch kernel: invalid configuration argument\n"))
	if f := hasClass(d, ClassInvalidLaunch); f == nil || f.HIPError != "hipErrorInvalidConfiguration" {
		t.Errorf("configuration wording: %+v", f)
	}
	// an argument error that names no launch is not this rule's
	d = diagnoseWhole("run.log", []byte("ValueError: Failed to parse config: invalid argument\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("no launch named, got %v", classesOf(d))
	}
}

// PyTorch's runtime check "HIP/CUDA error: invalid argument" with nothing
// else in the file is an invalid launch, less sure; a memory API call named
// in the file, or another finding, takes that reading away.
func TestTorchInvalidValue(t *testing.T) {
	banner := "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
	for _, c := range []struct{ src, log string }{
		{"https://github.com/Comfy-Org/ComfyUI/issues/10862", "RuntimeError: CUDA error: invalid argument\n" + banner},
		{"https://github.com/xorbitsai/inference/issues/1220", "2024-03-29 18:28:51,875 xinference.api.restful_api 8 ERROR    [address=0.0.0.0:43266, pid=897] CUDA error: invalid argument\n" + banner},
		{"https://github.com/NVlabs/curobo/issues/352", "     74     step_v = R[0].view(step_vec.shape)\n\nRuntimeError: CUDA error: invalid argument\n" + banner},
		{"https://github.com/smthemex/ComfyUI_DiffuEraser/issues/38 (xformers flash fwd)", "    out, softmax_lse, p, rng_state = _C_flashattention.fwd(\ntorch.AcceleratorError: CUDA error: invalid argument\nSearch for `cudaErrorInvalidValue' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n" + banner},
		{"https://github.com/ROCm/TheRock/issues/2707", "!!! Exception during processing !!! HIP error: invalid argument\nSearch for `hipErrorInvalidValue' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__HIPRT__TYPES.html for more information.\n"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassInvalidLaunch)
		if f == nil || f.Confidence > 0.5 || f.HIPError != "hipErrorInvalidValue" {
			t.Errorf("%s: %s", c.src, d.JSON())
			continue
		}
		if hasClass(d, ClassNotGPU) != nil {
			t.Errorf("%s: not_gpu beside the runtime's error: %v", c.src, classesOf(d))
		}
		if !hasStep(f, "Serialize launches") {
			t.Errorf("%s: no step naming the call: %q", c.src, f.NextSteps)
		}
	}
	// a copy named in the file: the error is the copy's (llama.cpp#6201's shape, PyTorch's words)
	d := diagnoseWhole("run.log", []byte("  hipMemcpyAsync(dst, src, 4096, hipMemcpyHostToDevice, stream)\nRuntimeError: HIP error: invalid argument\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("a copy's invalid argument read as a launch: %v", classesOf(d))
	}
	// another finding explains the file: the invalid argument follows it
	d = diagnoseWhole("run.log", []byte("RuntimeError: HIP out of memory. Tried to allocate 2.00 GiB (GPU 0; 63.98 GiB total capacity; 61.2 GiB already allocated)\nRuntimeError: HIP error: invalid argument\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("invalid argument after an OOM read as a launch: %v", classesOf(d))
	}
}

func hasStep(f *Finding, prefix string) bool {
	for _, s := range f.NextSteps {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
