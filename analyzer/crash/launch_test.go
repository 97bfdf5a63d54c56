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
