package crash

import "testing"

func TestKernelAPIGolden(t *testing.T) {
	d := goldenCase(t, "kernelapi_fx06.golden.json", "shared:fx06_sglang_kernel_api_log_levels_and_dump_metadata.txt")
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Details["last_kernel_api_call"] != "sglang_llm_crash.mock_llm_cuda_crash" || f.Details["kernel_api_exception"] == "" {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "kernelapi_fx07.golden.json", "shared:fx07_flashinfer_api_logging_doc_excerpts.txt")
	if len(d.Findings) != 0 {
		t.Fatalf("fx07 has no crash: %s", d.JSON())
	}
}

// seed 000's crash_diagnostics.json plus a dump metadata.json in one session.
func TestCrashDiagnosticsJSON(t *testing.T) {
	d := goldenCase(t, "kernelapi_crash_diagnostics.golden.json", "testdata/crash_diagnostics.json", "testdata/metadata.json")
	f := hasClass(d, ClassHostSegfault)
	if f == nil || *f.ExitCode != 139 || f.Details["last_kernel_api_call"] != "sglang.custom_op.fused_moe" || f.Details["gpu_arch_in_log"] != "gfx950" {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzKernelAPI(f *testing.F) {
	seedFuzz(f, "shared:fx06_sglang_kernel_api_log_levels_and_dump_metadata.txt", "shared:fx07_flashinfer_api_logging_doc_excerpts.txt", "testdata/crash_diagnostics.json", "testdata/metadata.json")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &kernelAPIParser{s: s} }), data, cut)
	})
}
