package crash

import "testing"

func TestNvidiaGolden(t *testing.T) {
	d := goldenCase(t, "nvidia_sanitizer.golden.json", "testdata/compute_sanitizer.log")
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Address != "0x7f4a1c000ffc" || f.Location != "/app/kern.cu:12" || f.Details["cuda_block"] != "(7,0,0)" {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "nvidia_cuda_gdb.golden.json", "testdata/cuda_gdb.log")
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Kernel != "stray_store_kernel" {
		t.Fatalf("%s", d.JSON())
	}
	goldenCase(t, "nvidia_illegal_address.golden.json", "gpu:a2_illegal_address.stdout.txt", "gpu:a2_illegal_address.stderr.txt")
}

func FuzzNvidia(f *testing.F) {
	seedFuzz(f, "testdata/compute_sanitizer.log", "testdata/cuda_gdb.log", "gpu:a2_illegal_address.stderr.txt")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &nvidiaParser{s: s} }), data, cut)
	})
}
