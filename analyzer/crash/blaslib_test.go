package crash

import "testing"

// hipBLASLt's per-arch kernel library missing is a warning alone (rocBLAS
// falls back to Tensile) and the cause once a BLAS call then fails or the
// runtime raises hipErrorFileNotFound — wordings from public threads.
func TestBlasLibMissing(t *testing.T) {
	cases := []struct {
		src, text string
		arch      bool
		lib       string
	}{
		{"https://github.com/ROCm/TheRock/issues/2847", `rocblaslt error: Could not load "C:\\ComfyUI\\venv\\Lib\\site-packages\\_rocm_sdk_libraries_gfx110X_all\\bin\\hipblaslt\\library\\TensileLibrary_lazy_gfx1102.dat"
hipModuleLoad failed: C:\ComfyUI\venv\Lib\site-packages\_rocm_sdk_libraries_gfx110X_all\bin\hipblaslt\library/Kernels.so-000-gfx1102.hsaco
 error: file not found
!!! Exception during processing !!! CUDA error: HIPBLAS_STATUS_INVALID_VALUE when calling ` + "`hipblasLtMatmulAlgoGetHeuristic( ltHandle, computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor(), Cdesc.descriptor(), Cdesc.descriptor(), preference.descriptor(), 1, &heuristicResult, &returnedResult)`", true, "gfx1102"},
		{"https://github.com/vladmandic/sdnext/issues/4574", `rocblaslt error: Could not load "C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\hipblaslt\\library\\TensileLibrary_lazy_gfx1030.dat"
15:30:32-897234 ERROR    Prompt parser encode: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling`, true, "gfx1030"},
		// alone, or with rocBLAS falling back, it is no finding
		{"https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1234", `rocblaslt error: Cannot read /home/jgreven/.lmstudio/extensions/backends/vendor/linux-llama-rocm-vendor-v3/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat: No such file or directory

rocblaslt error: Could not load /home/jgreven/.lmstudio/extensions/backends/vendor/linux-llama-rocm-vendor-v3/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat
 rocBLAS warning: hipBlasLT failed, falling back to tensile. `, false, ""},
		{"https://github.com/ROCm/TheRock/issues/6175", `rocblaslt error: Cannot read "TensileLibrary_lazy_gfx906.dat" (or .zlib variant): No such file or directory

rocblaslt error: Could not load "TensileLibrary_lazy_gfx906.dat"
hipModuleLoad failed: Kernels.so-000-gfx906.hsaco
 error: file not found`, false, ""},
		// a failed hipBLASLt call, then the runtime's file not found
		{"https://github.com/AMDResearch/hpcfund/issues/86", `<stdin>:4: UserWarning: bgemm_internal_cublaslt error: HIPBLAS_STATUS_INTERNAL_ERROR when calling hipblasLtMatmul with transpose_mat1 n transpose_mat2 n m 1024 n 1024 k 1024 lda 1024 ldb 1024 ldc 1024 abType 0 cType 0 computeType 2 scaleType 0. Will attempt to recover by calling cublas instead. (Triggered internally at /pytorch/aten/src/ATen/hip/HIPBlas.cpp:575.)
torch.AcceleratorError: CUDA error: file not found`, true, ""},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		f := hasClass(d, ClassArchMismatch)
		if (f != nil) != c.arch || f != nil && f.Details["missing_arch_library"] != c.lib {
			t.Errorf("%s: %v %v", c.src, classesOf(d), f)
		}
	}
	// file not found with no BLAS failure before it is no arch finding
	if d := diagnoseWhole("x.log", []byte("RuntimeError: HIP error: file not found\n")); hasClass(d, ClassArchMismatch) != nil {
		t.Errorf("a lone file-not-found read as arch mismatch: %v", classesOf(d))
	}
}
