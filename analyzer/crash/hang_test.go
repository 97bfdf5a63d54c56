package crash

import "testing"

func TestHangGolden(t *testing.T) {
	d := goldenCase(t, "hang_s11.golden.json", "shared:s11_sglang_watchdog_timeout_pyspy_missing_7783.log")
	f := hasClass(d, ClassCPUHang)
	if f == nil || f.Details["batch_size"] != "109" || !contains(d.Inputs[0].Quality, "redacted") {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "hang_pyspy_gpu_wait.golden.json", "testdata/pyspy_gpu_wait.log")
	if hasClass(d, ClassGPUKernelHang) == nil {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "hang_pyspy_collective.golden.json", "testdata/pyspy_collective.log")
	if hasClass(d, ClassCPUHang) == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzHang(f *testing.F) {
	seedFuzz(f, "shared:s11_sglang_watchdog_timeout_pyspy_missing_7783.log", "testdata/pyspy_gpu_wait.log", "testdata/pyspy_collective.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &hangParser{s: s} }), data, cut)
	})
}
