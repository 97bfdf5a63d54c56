package crash

import "testing"

// The attribute call as applications log it: its kernel argument (casts and
// & removed), the bytes, and whether the line carries the runtime's
// invalid-value answer. The call shape is the one in ROCm/hip#3122
// (hipFuncSetAttribute(reinterpret_cast<const void*>(&vectorAdd),
// hipFuncAttributeMaxDynamicSharedMemorySize, SIZE)) and Vahe1994/AQLM#25
// (cudaFuncSetAttribute(Code2x8MatVec, cudaFuncAttributeMaxDynamicSharedMemorySize, shared)).
func TestExtractSmemAttr(t *testing.T) {
	for _, c := range []struct {
		in      string
		kernel  string
		bytes   int64
		refused bool
		hip     bool
	}{
		{"hipFuncSetAttribute(reinterpret_cast<const void*>(&vectorAdd), hipFuncAttributeMaxDynamicSharedMemorySize, 81920) returned hipErrorInvalidValue", "vectorAdd", 81920, true, true},
		{"cudaFuncSetAttribute(Code2x8MatVec, cudaFuncAttributeMaxDynamicSharedMemorySize, 70144): invalid argument", "Code2x8MatVec", 70144, true, false},
		{"cudaFuncSetAttribute(fmha_fwd_sm90_kernel<256,176,3>, cudaFuncAttributeMaxDynamicSharedMemorySize, 233472) -> cudaErrorInvalidValue", "fmha_fwd_sm90_kernel<256,176,3>", 233472, true, false},
		{"cuFuncSetAttribute((void*)k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 98304) = CUDA_ERROR_INVALID_VALUE", "k", 98304, true, false},
		{"[gemm] hipFuncSetAttribute(gemm_tile_kernel, hipFuncAttributeMaxDynamicSharedMemorySize, 98304)", "gemm_tile_kernel", 98304, false, true},
		{"cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100)", "", 0, false, false},
	} {
		r, ok := extractSmemAttr(c.in)
		if ok != (c.bytes > 0) || r.kernel != c.kernel || r.bytes != c.bytes || r.refused != c.refused || r.hip != c.hip {
			t.Errorf("extractSmemAttr(%q) = %+v, %v", c.in, r, ok)
		}
	}
}

// The request is an invalid launch when the runtime refused it on its line,
// or when it asks more than the AMD device's LDS per workgroup (a tuning
// for gfx950's 160 KiB run on a 64 KiB gfx942); a request within the limit
// and no refusal is nothing, and an NVIDIA request without the runtime's
// answer or a printed limit is nothing.
func TestSmemAttrRule(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     bool
		kernel   string
	}{
		{"refused (NVIDIA)", "cudaFuncSetAttribute(sgemm_bigtile, MaxDynamicSharedMemorySize, 110592): invalid argument\n", true, "sgemm_bigtile"},
		{"over gfx942's LDS", "device gfx942:sramecc+:xnack-\n[gemm] hipFuncSetAttribute(gemm_tile_kernel, hipFuncAttributeMaxDynamicSharedMemorySize, 98304)\n", true, "gemm_tile_kernel"},
		{"within gfx950's LDS", "device gfx950:sramecc+:xnack-\n[gemm] hipFuncSetAttribute(gemm_tile_kernel, hipFuncAttributeMaxDynamicSharedMemorySize, 98304)\nall tests passed\n", false, ""},
		{"over the printed opt-in", "cudaDevAttrMaxSharedMemoryPerBlockOptin = 101376\ncudaFuncSetAttribute(sgemm_bigtile, cudaFuncAttributeMaxDynamicSharedMemorySize, 110592)\n", true, "sgemm_bigtile"},
		{"NVIDIA, no answer, no limit", "cudaFuncSetAttribute(attn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 110592)\nstep 10 loss 1.2\n", false, ""},
	} {
		d := diagnoseWhole("x.log", []byte(c.in))
		f := hasClass(d, ClassInvalidLaunch)
		if (f != nil) != c.want || (f != nil && f.Kernel != c.kernel) {
			t.Errorf("%s: %s", c.name, d.JSON())
		}
	}
}
