package crash

import "testing"

func TestTorchGolden(t *testing.T) {
	d := goldenCase(t, "torch_s04.golden.json", "shared:s04_hip_oom_fragmentation_comfyui_pytorch138002.log")
	if f := hasClass(d, ClassVRAMOOM); f == nil || f.SubKind != "fragmentation" || f.RequestedBytesText != "6.64 GiB" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "torch_assert_async.golden.json", "gpu:a_index_copy_async.stderr.txt")
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Details["assert_threads"] != "128" || hasClass(d, ClassAsyncRace) == nil {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "torch_assert_blocking.golden.json", "gpu:a_index_copy_blocking.stderr.txt")
	if hasClass(d, ClassAsyncRace) != nil || hasClass(d, ClassDeviceAssert).Location == "" {
		t.Fatalf("%s", d.JSON())
	}
	goldenCase(t, "torch_s13.golden.json", "shared:s13_hip_illegal_address_terminate_c10_accelerator_error_rocm6003.log")
	goldenCase(t, "torch_not_gpu.golden.json", "testdata/not_gpu.log")
}

func TestOOMSubKinds(t *testing.T) {
	g := float64(1 << 30)
	cases := map[string][5]float64{
		"device_capacity": {16 * g, 15.24 * g, 15.09 * g, 0, 0},
		"fragmentation":   {6.64 * g, 19.92 * g, 6.22 * g, 5.34 * g, 7.10 * g},
		"exhaustion":      {4 * g, 79.18 * g, 2.66 * g, 76 * g, 0},
	}
	for want, c := range cases {
		if got := oomSubKind(c[0], c[1], c[2], c[3], c[4], false); got != want {
			t.Errorf("%v: got %s want %s", c, got, want)
		}
	}
	if parseSize("10240.00 GiB") != 10240*g || parseSize("0 bytes") != 0 {
		t.Fatal("parseSize")
	}
}

func FuzzTorch(f *testing.F) {
	seedFuzz(f, "shared:s03_hip_invalid_device_function_torch_hip_dsa_openoasis27.log", "shared:s04_hip_oom_fragmentation_comfyui_pytorch138002.log", "shared:s13_hip_illegal_address_terminate_c10_accelerator_error_rocm6003.log", "gpu:a_index_copy_async.stderr.txt", "gpu:e_segv.stderr.txt")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &torchParser{s: s} }), data, cut)
	})
}
