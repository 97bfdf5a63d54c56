package crash

import (
	"strings"
	"testing"
)

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
	// the only evidence is a rank waiting inside torch.distributed's
	// all_reduce: a collective hang (pyspycoll.go; the shape of
	// crash-heldout-real5 p01's key), no longer a host hang
	d = goldenCase(t, "hang_pyspy_collective.golden.json", "testdata/pyspy_collective.log")
	if hasClass(d, ClassCollectiveTimeout) == nil || hasClass(d, ClassCPUHang) != nil {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzHang(f *testing.F) {
	seedFuzz(f, "shared:s11_sglang_watchdog_timeout_pyspy_missing_7783.log", "testdata/pyspy_gpu_wait.log", "testdata/pyspy_collective.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &hangParser{s: s} }), data, cut)
	})
}

// SGLang's watchdog could not dump the scheduler: py-spy is there but was
// denied ptrace (its own "Permission Denied: Try running again with
// elevated permissions …", the OS errors 13 / 1 in a container without
// CAP_SYS_PTRACE) — the advice grants the right and names the pids; a
// missing binary (s11 "/bin/dash: 1: py-spy: not found") still says install.
func TestPyspyDeniedAdvice(t *testing.T) {
	wd := "[2026-11-24 17:07:11 TP1] Watchdog timeout (self.watchdog_timeout=300)\n"
	for _, c := range []struct {
		err, want, not string
	}{
		{`Permission Denied: Try running again with elevated permissions by going 'sudo env "PATH=$PATH" !!'`, "SYS_PTRACE", "pip install py-spy"},
		{"Failed to get process executable name. Check that the process is running. Reason: Permission denied (os error 13)", "SYS_PTRACE", "pip install py-spy"},
		{"Operation not permitted (os error 1)", "SYS_PTRACE", "pip install py-spy"},
		{"/bin/dash: 1: py-spy: not found", "pip install py-spy", "SYS_PTRACE"},
	} {
		d := diagnoseWhole("server.log", []byte(wd+"[2026-11-24 17:07:11 TP1] Pyspy failed to dump PID 20533. Error: "+c.err+"\n"))
		f := hasClass(d, ClassCPUHang)
		if f == nil {
			t.Fatalf("%q: no cpu_hang: %s", c.err, d.JSON())
		}
		steps := strings.Join(f.NextSteps, " | ")
		if !strings.Contains(steps, c.want) || strings.Contains(steps, c.not) || !strings.Contains(steps, "20533") {
			t.Errorf("%q: steps %s", c.err, steps)
		}
	}
}

// SGLang's watchdog (crash-formats.md §12, s11: "[… TP6] Watchdog timeout
// (self.watchdog_timeout=300)") next to a SIGQUIT wave dump whose waves all
// run in one kernel: the GPU hang is the finding, the watchdog its symptom;
// the watchdog alone stays a cpu_hang.
func TestWatchdogOfGPUHang(t *testing.T) {
	wd := "[2026-11-24 04:03:41 TP6] Watchdog timeout (self.watchdog_timeout=300)\n"
	waves := "--------------------------------------------------------\n" +
		"wave_12: pc=0x7d51a80123c4 (kernel_code_entry=0x7d51a8011e00 <void ep_dispatch_kernel<8>(Args)>, kernargs=0x7d5190a02000) (running)\n\n" +
		"--------------------------------------------------------\n" +
		"wave_13: pc=0x7d51a80123c4 (kernel_code_entry=0x7d51a8011e00 <void ep_dispatch_kernel<8>(Args)>, kernargs=0x7d5190a02000) (running)\n\n"
	d := diagnoseWhole("x.log", []byte(wd+waves))
	if g := hasClass(d, ClassGPUKernelHang); g == nil || !strings.Contains(g.Kernel, "ep_dispatch_kernel") || hasClass(d, ClassCPUHang) != nil {
		t.Fatalf("%v\n%s", classesOf(d), d.JSON())
	}
	if d := diagnoseWhole("x.log", []byte(wd)); hasClass(d, ClassCPUHang) == nil {
		t.Fatalf("%v", classesOf(d))
	}
}
