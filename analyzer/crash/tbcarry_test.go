package crash

import "testing"

// A ranked record that opens a traceback names the rank of the bare lines
// after it: SGLang's scheduler exception (sgl-project/sglang#8336, #6624
// with a DP group too).
func TestTracebackCarriesRecordRank(t *testing.T) {
	tb := "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2311, in run_scheduler_process\n" +
		"    scheduler.event_loop_overlap()\n" +
		"RuntimeError: CUDA error: an illegal memory access was encountered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	cases := []struct {
		name, log string
		rank      int // -1: no rank named
	}{
		{"sglang#6624", "[2025-05-26 07:48:17 DP0 TP0] Prefill batch. #new-seq: 1, #new-token: 208\n" +
			"[2025-05-26 07:48:17 DP1 TP2] Scheduler hit an exception: Traceback (most recent call last):\n" + tb, 2},
		{"sglang#8336", "[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):\n" + tb, 2},
		// a blank line ends the record: the error after it is nobody's
		{"blank line", "[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):\n\n" + tb, -1},
		// another record header ends it too
		{"next record", "[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):\n" +
			"[2025-07-25 07:53:09] Received sigquit from a child process. It usually means the child failed.\n" + tb, -1},
		// a ranked line that opens no traceback carries nothing
		{"no traceback", "[2025-07-25 07:53:08 TP2] Decode batch. #running-req: 5\n" + tb, -1},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.log))
		f := hasClass(d, ClassGPUMemoryFault)
		if f == nil {
			t.Fatalf("%s: no gpu_memory_fault: %v", c.name, classesOf(d))
		}
		got := -1
		if f.Culprit != nil && f.Culprit.Rank != nil {
			got = *f.Culprit.Rank
		}
		if got != c.rank {
			t.Errorf("%s: culprit rank %d, want %d (%+v)", c.name, got, c.rank, f.Culprit)
		}
	}
}
