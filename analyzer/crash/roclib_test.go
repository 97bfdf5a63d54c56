package crash

import "testing"

// ROCm math-library statuses as frameworks print them: each catalog row
// with a class gives it first; a status of no class (miopenStatusUnknownError
// — a kernel that did not build, a workspace MIOpen could not size, bad
// parameters — and hipBLASLt's NOT_SUPPORTED) gives no GPU class.
func TestRocLibStatuses(t *testing.T) {
	cases := []struct{ src, text, want string }{
		{"https://github.com/ROCm/TheRock/issues/1708", "RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`", ClassVRAMOOM},
		{"https://github.com/Comfy-Org/ComfyUI/issues/3698", "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `HIPBLAS_STATUS_NOT_SUPPORTED`", ""},
		{"https://github.com/ROCm/legacy-rocm-build/issues/2587", "RuntimeError: miopenStatusUnknownError", ""},
		{"https://github.com/ROCm/TheRock/issues/1229", "RuntimeError: miopenStatusUnknownError", ""},
		{"https://github.com/ROCm/MIOpen/issues/78", "and I got  `rb_status = rocblas_status_internal_error` when calling `rocblas_gemm_ex`.", ""},
		// the catalog's own names (rocblas-types.h, hipblas.h, miopen.h)
		{"rocblas-types.h", "rocBLAS error: rocblas_status_memory_error", ClassVRAMOOM},
		{"rocblas-types.h", "rocBLAS error: rocblas_status_arch_mismatch", ClassArchMismatch},
		{"rocblas-types.h", "rocBLAS error: rocblas_status_check_numerics_fail", ClassNumericalNaN},
		{"hipblas.h", "RuntimeError: CUDA error: HIPBLAS_STATUS_EXECUTION_FAILED when calling `hipblasGemmEx( handle, opa, opb, m, n, k, &falpha, a, HIPBLAS_R_16F, lda, b)`", ClassGPUMemoryFault},
		{"hipblas.h", "RuntimeError: CUDA error: HIPBLAS_STATUS_ARCH_MISMATCH when calling `hipblasLtMatmul(...)`", ClassArchMismatch},
		{"miopen.h", "RuntimeError: miopenStatusAllocFailed", ClassVRAMOOM},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		got := ""
		if len(d.Findings) > 0 {
			got = d.Findings[0].Class
		}
		if c.want != "" && got != c.want || c.want == "" && got != "" && got != ClassNotGPU {
			t.Errorf("%s: %q: %v, want %q", c.src, c.text, classesOf(d), c.want)
		}
	}
	// a name inside a longer identifier is no status
	if _, ok := extractRocLibStatus("my_rocblas_status_memory_error_count = 0"); ok {
		t.Error("identifier read as a status")
	}
	for name, st := range rocLibStatuses {
		if x, ok := extractRocLibStatus("error: " + name); !ok || x.name != name || x.st != st {
			t.Errorf("%s not read back", name)
		}
	}
}
