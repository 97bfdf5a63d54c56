package crash

import (
	"strings"
	"testing"
)

// CLR's launch-bounds refusal in real wordings: ggml-org/llama.cpp#10610 (the
// line with "please add __launch_bounds__ …"), ROCm/rocm-libraries#5156
// (hipErrorLaunchFailure "due to launch params being larger than launch
// bounds"), ROCm/hip#1672 (the check that returns hipErrorLaunchFailure); a
// level-1 trace with the padded "for      kernel", and a paste that wrapped
// "for kernel …" onto the next line.
func TestExtractLaunchBounds(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      launchBoundsFact
	}{
		{"llama.cpp#10610", "Launch params (1024, 1, 1) are larger than launch bounds (256) for kernel _ZL12rms_norm_f32ILi1024EEvPKfPfif please add __launch_bounds__ to kernel define or use --gpu-max-threads-per-block recompile program !",
			launchBoundsFact{block: [3]int64{1024, 1, 1}, bound: 256, kernel: "_ZL12rms_norm_f32ILi1024EEvPKfPfif"}},
		{"level-1 trace, padded", ":1:hip_module.cpp           :254 : 2227377768572 us: Launch params (1024, 1, 1) are larger than launch bounds (64) for      kernel _Z8MyKerneliPd",
			launchBoundsFact{block: [3]int64{1024, 1, 1}, bound: 64, kernel: "_Z8MyKerneliPd"}},
		{"wrapped paste", ":1:hip_module.cpp:311 : Launch params (64, 4, 1) are larger than launch bounds (128)",
			launchBoundsFact{block: [3]int64{64, 4, 1}, bound: 128}},
	} {
		got, ok := extractLaunchBounds(c.line)
		if !ok || got != c.want {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
	if _, ok := extractLaunchBounds("Launch params: grid=(2800,1,1), block=(64,64,1)"); ok {
		t.Error("a launch log without the bounds check read as a refusal")
	}
}

// The refusal is the launch error; the torch "unspecified launch failure"
// after it is its echo, not a device-side assert.
func TestLaunchBoundsExplainsLaunchFailure(t *testing.T) {
	log := `:1:hip_module.cpp           :310 : 771220119046 us: [pid:9021 tid:0x7f3c0a1ff740] Launch params (1024, 1, 1) are larger than launch bounds (256) for kernel _ZL12rms_norm_f32ILi1024EEvPKfPfif please add __launch_bounds__ to kernel define or use --gpu-max-threads-per-block recompile program !
RuntimeError: HIP error: unspecified launch failure
HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
`
	d := diagnoseWhole("x.log", []byte(log))
	f := hasClass(d, ClassInvalidLaunch)
	if f == nil || !strings.Contains(f.Kernel, "rms_norm_f32") || hasClass(d, ClassDeviceAssert) != nil || d.Findings[0].Class != ClassInvalidLaunch {
		t.Fatalf("%v\n%s", classesOf(d), d.JSON())
	}
	// without the refusal line, 719 stays a kernel exception
	d = diagnoseWhole("x.log", []byte("RuntimeError: HIP error: unspecified launch failure\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Fatalf("%v", classesOf(d))
	}
}

// XLA's launch failures: the CUDA form of jaxleyverse/jaxley#53 and
// openxla/xla#15945 ("… with block dimensions: 160x1x1 and grid dimensions:
// 1x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: …") and the ROCm form whose status is
// "hipError_t(N)" (an XLA ROCm build on MI250X: "Failed to launch ROCm kernel:
// gemm_fusion_dot_605 with block dimensions: 256x1x1: hipError_t(9)").
func TestExtractXLALaunch(t *testing.T) {
	for _, c := range []struct {
		src, line, kernel, err string
		block                  [3]int64
	}{
		{"jaxley#53", "INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: Failed to launch CUDA kernel: fusion_1560 with block dimensions: 160x1x1 and grid dimensions: 1x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.", "fusion_1560", "hipErrorIllegalAddress", [3]int64{160, 1, 1}},
		{"xla#15945", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: Failed to launch CUDA kernel: add with block dimensions: 128x1x1 and grid dimensions: 448x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.", "add", "hipErrorIllegalAddress", [3]int64{128, 1, 1}},
		{"ROCm hipError_t", "Could not predict 1IH7.7. Not Enough GPU memory? INTERNAL: Failed to launch ROCm kernel: gemm_fusion_dot_605 with block dimensions: 256x1x1: hipError_t(9)", "gemm_fusion_dot_605", "hipErrorInvalidConfiguration", [3]int64{256, 1, 1}},
		{"ROCm driver code", "Failed to launch ROCm kernel: loop_add_broadcast_fusion with block dimensions: 8x1x1: ROCM_ERROR_ILLEGAL_ADDRESS", "loop_add_broadcast_fusion", "hipErrorIllegalAddress", [3]int64{8, 1, 1}},
	} {
		x, ok := extractXLALaunch(c.line)
		if !ok || x.kernel != c.kernel || x.block != c.block || x.err == nil || x.err.name != c.err {
			t.Errorf("%s: got %+v %v", c.src, x, ok)
		}
	}
}

// A configuration status is a refused launch of that fusion; a sticky fault
// reported at a launch is not (the fusion only met an earlier kernel's error).
func TestXLALaunchRefused(t *testing.T) {
	d := diagnoseWhole("x.log", []byte("2025-06-30 13:53:51,864 Could not predict 1IH7.7. Not Enough GPU memory? INTERNAL: Failed to launch ROCm kernel: gemm_fusion_dot_605 with block dimensions: 256x1x1: hipError_t(9)\n"))
	if f := hasClass(d, ClassInvalidLaunch); f == nil || f.Kernel != "gemm_fusion_dot_605" || hasClass(d, ClassVRAMOOM) != nil {
		t.Fatalf("%v\n%s", classesOf(d), d.JSON())
	}
	d = diagnoseWhole("x.log", []byte("Failed to launch ROCm kernel: loop_add_broadcast_fusion with block dimensions: 8x1x1: ROCM_ERROR_ILLEGAL_ADDRESS\n"))
	if f := hasClass(d, ClassInvalidLaunch); f != nil {
		t.Fatalf("a sticky fault read as a refused launch: %s", d.JSON())
	}
}
