package crash

import "testing"

// MIOpen's "Preparing kernel" lines (real wordings; code corpus: a
// Kthvalue solver's validation notes and a BatchNorm NHWC reproducer's
// MIOPEN_LOG_LEVEL=6 log; ROCm/MIOpen#579 behind a logger's " INFO - ").
func TestExtractMIOpenPrepared(t *testing.T) {
	for _, c := range []struct{ src, text, want string }{
		{"https://github.com/ROCm/MIOpen/issues/579", " INFO - MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: MIOpenCvBwdWrW_rdc", "MIOpenCvBwdWrW_rdc"},
		{"code corpus: BatchNorm reproducer log", "# MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: MIOpenBatchNormFwdTrainSpatial", "MIOpenBatchNormFwdTrainSpatial"},
		{"code corpus: Kthvalue notes", "- `[PrepareInvoker] Preparing kernel: KthvalueFwd`", "KthvalueFwd"},
		// the [run] line: MIOPEN_LOG_LEVEL traces on gfx1201 (code corpus) and ROCm/MIOpen#3492's failing naive conv
		{"code corpus: gfx1201 conv trace", "MIOpen(HIP): Info2 [run] kernel_name = Im2d2Col_v2, global_work_dim = { 43008, 1, 1 }, local_work_dim = { 256, 1, 1 }", "Im2d2Col_v2"},
		{"code corpus: Kthvalue notes", "- `[run] kernel_name = KthvalueFwd, global_work_dim = {25600|51200|61440,1,1}, local_work_dim = {256,1,1}`", "KthvalueFwd"},
		{"another MIOpen line", "MIOpen(HIP): Info2 [SearchForSolutions] BnFwdTrainingSpatialSingle: Success.", ""},
	} {
		if got := extractMIOpenPrepared(c.text); got != c.want {
			t.Errorf("%s: extractMIOpenPrepared(%q) = %q, want %q", c.src, c.text, got, c.want)
		}
	}
}

// A ROCr fault that names no kernel takes MIOpen's last prepared one; a
// kernel the fault's own evidence names wins.
func TestMIOpenKernelOnFault(t *testing.T) {
	const fault = "Memory access fault by GPU node-1 (Agent handle: 0xacaf40) on address 0x7ffc7c28d000. Reason: Page not present or supervisor privilege.\n"
	d := diagnoseWhole("run.log", []byte("MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: MIOpenBatchNormFwdTrainSpatial\n"+fault))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Kernel != "MIOpenBatchNormFwdTrainSpatial" {
		t.Fatalf("want the prepared kernel on the fault, got %v %+v", classesOf(d), f)
	}
	d = diagnoseWhole("run.log", []byte(fault))
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Kernel != "" {
		t.Errorf("a kernel from nowhere: %+v", f)
	}
}

// MIOpen's own launch failure (ROCm/MIOpen#3492: "MIOpen Error: hipoc_kernel.cpp:106:
// Failed to launch kernel: invalid configuration argument") names no kernel;
// the [run] line before it does.
func TestMIOpenKernelOnLaunchFailure(t *testing.T) {
	log := "MIOpen(HIP): Info2 [run] kernel_name = naive_conv_ab_nonpacked_fwd_ndhwc_half_double_half, global_work_dim = { 67108864, 512, 1 }, local_work_dim = { 256, 1, 1 }\n" +
		"MIOpen(HIP): Error [ConvolutionForwardImmediate] MIOpen Error: /src/hipoc/hipoc_kernel.cpp:106: Failed to launch kernel: invalid configuration argument\n"
	d := diagnoseWhole("run.log", []byte(log))
	if f := hasClass(d, ClassInvalidLaunch); f == nil || f.Kernel != "naive_conv_ab_nonpacked_fwd_ndhwc_half_double_half" {
		t.Fatalf("%v\n%s", classesOf(d), d.JSON())
	}
}
