package crash

import "testing"

// SGLang's scheduler logs its traceback as one record: the prefix with the
// rank stands on the first line only; the error at the bottom is that
// rank's.
func TestRecordRankCarry(t *testing.T) {
	for _, c := range []struct {
		src, log, class string
		rank            int
	}{
		{"https://github.com/sgl-project/sglang/issues/5775 (TP0 header and frames; the bottom line replaced by an illegal access, a class that names its rank)",
			"[2025-04-27 07:30:56 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2001, in run_scheduler_process\n" +
				"    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n" +
				"RuntimeError: HIP error: an illegal memory access was encountered\n", ClassGPUMemoryFault, 0},
		{"https://github.com/sgl-project/sglang/issues/36377 ('TP4 EP4' tags; an OOM at the bottom)",
			"[2026-08-25 08:53:41 TP4 EP4] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 5060, in run_scheduler_process\n" +
				"    scheduler.run_event_loop()\n" +
				"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 4 has a total capacity of 79.19 GiB of which 1.10 GiB is free. Of the allocated memory 76.02 GiB is allocated by PyTorch, and 402.50 MiB is reserved by PyTorch but unallocated.\n", ClassVRAMOOM, 4},
	} {
		d := diagnoseWhole("sglang.log", []byte(c.log))
		f := hasClass(d, c.class)
		if f == nil {
			t.Errorf("%s: no %s: %v", c.src, c.class, classesOf(d))
			continue
		}
		if f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != c.rank {
			t.Errorf("%s: culprit %+v, want rank %d", c.src, f.Culprit, c.rank)
		}
	}
	// a prefixed record without a traceback carries nothing: the unprefixed
	// error after it is nobody's
	d := diagnoseWhole("sglang.log", []byte("[2025-04-27 07:30:56 TP3] Load weight end.\nRuntimeError: HIP error: an illegal memory access was encountered\n"))
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Culprit != nil && f.Culprit.Rank != nil {
		t.Errorf("rank carried from a record without a traceback: %+v", f)
	}
}
