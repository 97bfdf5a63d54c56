package crash

import "testing"

func TestTritonGolden(t *testing.T) {
	d := goldenCase(t, "triton_s16.golden.json", "shared:s16_triton_amdgpu_pass_failure_rocm720_sglang29864.log")
	f := hasClass(d, ClassTritonCompile)
	if f == nil || f.Kernel != "store_cache_4d_kernel" || f.Details["failed_pass"] != "TritonAMDGPUCanonicalizePointers" {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzTriton(f *testing.F) {
	seedFuzz(f, "shared:s16_triton_amdgpu_pass_failure_rocm720_sglang29864.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &tritonParser{s: s} }), data, cut)
	})
}
