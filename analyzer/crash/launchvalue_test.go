package crash

import "testing"

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
		// an RDNA4 test log: an 80 KB dynamic shared-memory request, the
		// AMD_LOG_LEVEL trace's launch returns invalid-value
		{"clr-trace", "hipFuncSetAttribute: Returned hipErrorInvalidValue\nhipLaunchKernel: Returned hipErrorInvalidValue\n", "hipErrorInvalidValue"},
		// an application's check of hipModuleLaunchKernel (cupy#9751: the
		// runtime's opaque invalid-value for launch values past the device's)
		{"app-check", "hipModuleLaunchKernel(stencil) failed: hipErrorInvalidValue (1) \"invalid argument\"\n", "hipErrorInvalidValue"},
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
	// an invalid value an API other than a launch returned is not this rule's
	d = diagnoseWhole("run.log", []byte("hipMemcpy(dst, src, n, kind) failed: hipErrorInvalidValue\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("a copy's invalid value read as a launch: %v", classesOf(d))
	}
	// an argument error that names no launch is not this rule's
	d = diagnoseWhole("run.log", []byte("ValueError: Failed to parse config: invalid argument\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("no launch named, got %v", classesOf(d))
	}
}
