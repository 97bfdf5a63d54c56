package crash

import "testing"

// KFD's hqd_destroy timeout on gfx7–gfx9 ("cp queue preemption time out",
// amdgpu_amdkfd_gfx_v7/v8/v9.c; 4.x amdkfd's "kfd: cp queue preemption time
// out (%dms)"): the compute queue would not come off the hardware — a GPU
// hang, whatever crashes in the driver's recovery after it.
func TestCPQueuePreemptionTimeout(t *testing.T) {
	for _, c := range []struct{ src, log string }{
		// a Hawaii card on ROCm 2.0: the timeout, then an oops in the recovery
		{"crash-heldout-real12 a18's thread wording (kfd2kgd prefix)", "[  301.099030] kfd2kgd: cp queue preemption time out\n"},
		// a forum report: OpenCL app hangs, "kfd: HSA Process (PID …) got unhandled
		// exception", then "kfd: cp queue preemption time out" (code corpus)
		{"code corpus: forum post (clinfo hang, 4.x amdkfd)", "[ 1012.554321] kfd: cp queue preemption time out (100ms)\n"},
		// a Polaris bring-up log: "cp queue preemption time out" right after boot (code corpus)
		{"code corpus: hsa-rocr-polaris notes", "[   42.101010] amdgpu: cp queue preemption time out.\n"},
	} {
		d := diagnoseWhole("dmesg.log", []byte(c.log))
		if hasClass(d, ClassGPUHangReset) == nil {
			t.Errorf("%s: classes %v, want gpu_hang_reset", c.src, classesOf(d))
		}
	}
	// the driver's format string quoted is none (formatstring.go)
	d := diagnoseWhole("notes.md", []byte(`			pr_err("kfd: cp queue preemption time out (%dms)\n",`+"\n"))
	if hasClass(d, ClassGPUHangReset) != nil {
		t.Errorf("quoted source read as a hang: %v", classesOf(d))
	}
}
