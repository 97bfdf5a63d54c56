package crash

import "testing"

func TestLaunchGolden(t *testing.T) {
	d := goldenCase(t, "launch_fx08.golden.json", "shared:fx08_hip_launch_failure_and_device_limit_messages_rocmforge_docs.txt")
	f := hasClass(d, ClassInvalidLaunch)
	if f == nil || f.Kernel != "transpose_kernel" || f.HIPError != "hipErrorInvalidValue" || len(f.Notes) == 0 {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "launch_s17.golden.json", "shared:s17_hip_invalid_device_function_amd_log_level3_rocm2527.log")
	if hasClass(d, ClassInvalidLaunch) != nil || hasClass(d, ClassArchMismatch) == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func TestLaunchViolations(t *testing.T) {
	s := New()
	ok := launchConfig{grid: [3]int64{57, 1, 1}, block: [3]int64{256, 1, 1}}
	if v := s.launchViolations(ok); len(v) != 0 {
		t.Fatal(v)
	}
	bad := launchConfig{grid: [3]int64{2800, 1, 1}, block: [3]int64{64, 64, 1}, shared: 70000}
	if v := s.launchViolations(bad); len(v) != 2 {
		t.Fatal(v)
	}
	zero := launchConfig{grid: [3]int64{0, 1, 1}, block: [3]int64{1, 1, 1}}
	if v := s.launchViolations(zero); len(v) != 1 {
		t.Fatal(v)
	}
}

func FuzzLaunch(f *testing.F) {
	seedFuzz(f, "shared:fx08_hip_launch_failure_and_device_limit_messages_rocmforge_docs.txt", "testdata/hip_trace_launch.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &launchParser{s: s} }), data, cut)
	})
}

// Device-limit lines in real wordings; each row names its source.
func TestExtractDeviceLimits(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      threadLimits
	}{
		// rocmforge docs (../shared/testdata/crash/SOURCES.md fx08, seed 002): the HIP driver's zero dimensions
		{"rocmforge driver bug", "Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 0, 0]", threadLimits{maxThreads: 1024, hasDim: true, dim: [3]int64{1024, 0, 0}, dimText: [3]string{"1024", "0", "0"}}},
		{"rocmforge sane", "INFO rocmforge::backend::hip_backend::backend: Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 1024, 1024], maxGridSize=[2147483647, 65535, 65535]", threadLimits{maxThreads: 1024, hasDim: true, dim: [3]int64{1024, 1024, 1024}, dimText: [3]string{"1024", "1024", "1024"}}},
		{"parenthesised, colon", "maxThreadsPerBlock: 256 maxThreadsDim: (256, 256, 64)", threadLimits{maxThreads: 256, hasDim: true, dim: [3]int64{256, 256, 64}, dimText: [3]string{"256", "256", "64"}}},
		{"threads only", "maxThreadsPerBlock=1024", threadLimits{maxThreads: 1024}},
	} {
		if got := extractThreadLimits(c.line); got != c.want {
			t.Errorf("%s: got %+v", c.src, got)
		}
	}
	// rocminfo agent blocks as pasted in https://github.com/ROCm/rocHPCG/issues/80 and https://github.com/hypre-space/hypre/issues/781
	if v := extractWGMax("  Workgroup Max Size:      1024(0x400)                        "); v != 1024 {
		t.Errorf("rocminfo workgroup max: %d", v)
	}
	if v := extractWGMax("  Workgroup Max Size per Dimension:"); v != 0 {
		t.Errorf("per-dimension header: %d", v)
	}
	for line, want := range map[string]int64{
		"maxSharedMemoryPerBlock=65536":        65536,
		"maxSharedMemoryPerBlock: 163840":      163840,
		"sharedMemPerBlock is not in this one": 0, // gated on "SharedMem" (case-sensitive) as before the split
		"LDS: 65536":                           0,
	} {
		if got := extractLDSLimit(line); got != want {
			t.Errorf("%q: got %d", line, got)
		}
	}
}
