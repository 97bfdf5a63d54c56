package crash

import "testing"

// The SIGQUIT command in the agent's own wording ("kill -s SIGQUIT <pid>",
// ROCdebug-agent user guide, quoted in ROCm/rocr_debug_agent#12) and the
// shell's other spellings of the same signal.
func TestExtractSigquitTarget(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{"$ kill -s SIGQUIT 66108        # TP6 scheduler", 66108},
		{"$ sleep 120; kill -s SIGQUIT 250117", 250117},
		{"kill -QUIT 4410", 4410},
		{"kill -SIGQUIT 4410", 4410},
		{"kill -3 4410", 4410},
		{"kill -9 4410", 0},
		{"Received sigquit from a child process. It usually means the child failed.", 0},
	} {
		if got := extractSigquitTarget(c.line); got != c.want {
			t.Errorf("extractSigquitTarget(%q) = %d, want %d", c.line, got, c.want)
		}
	}
}

// The (running) waves of a SIGQUIT dump belong to the process the command
// named: it is the hang's culprit.
func TestSigquitDumpCulprit(t *testing.T) {
	log := "$ kill -s SIGQUIT 250117\n--------------------------------------------------------\n" +
		"wave_3: pc=0x7f0e1c60a3f0 (kernel_code_entry=0x7f0e1c609000 <void lookback_scan_kernel<long>(long*)>, kernargs=0x7f0e08a00000) (running)\n\n"
	d := diagnoseWhole("x.log", []byte(log))
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 250117 {
		t.Fatalf("%s", d.JSON())
	}
}
