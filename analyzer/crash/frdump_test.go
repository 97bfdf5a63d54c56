package crash

import "testing"

// c10d's "preparing to dump debug info" in real pastes: each follows a
// watchdog's timeout in the same log (code corpus: three public training
// logs, PyTorch 2.4–2.7 wordings), and the PR test plan of
// pytorch/pytorch#120063 (2.3's wording, hard-wrapped there).
func TestExtractFRDumpStart(t *testing.T) {
	for _, c := range []struct {
		src, text string
		want      bool
	}{
		{"code corpus: training log (2.4, rank0, then a CUDA OOM)", "[rank0]:[E813 12:25:31.213316968 ProcessGroupNCCL.cpp:1536] [PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1", true},
		{"code corpus: training log (2.7, 8 ranks)", "[rank3]:[E703 15:37:17.178677976 ProcessGroupNCCL.cpp:1700] [PG ID 0 PG GUID 0(default_pg) Rank 3] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1, only active collectives: 0", true},
		{"code corpus: training log (2.7, June)", "[rank1]:[E606 09:09:08.172565154 ProcessGroupNCCL.cpp:1700] [PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1, only active collectives: 0", true},
		{"https://github.com/pytorch/pytorch/pull/120063", "[rank0]:[E ProcessGroupNCCL.cpp:1200] [PG 0 Rank 0] ProcessGroupNCCL preparing to dump debug info.", true},
		// the source line quoted, and a runbook's prose
		{"code corpus: ProcessGroupNCCL.cpp", `<< "ProcessGroupNCCL preparing to dump debug info. Include stack trace: "`, false},
		{"code corpus: a runbook", `a WorkNCCL(...) timeout line, a "preparing to dump debug info", or a SIGABRT`, false},
		{"code corpus: c10d's manual dump", "Dumping Flight Recorder trace to /tmp/nccl_trace_rank_0", false},
	} {
		if got := extractFRDumpStart(c.text); got != c.want {
			t.Errorf("%s: extractFRDumpStart(%q) = %v, want %v", c.src, c.text, got, c.want)
		}
	}
}

// Alone the dump start is a collective timeout with no culprit (the rank in
// its tag is a waiter); with the NCCL error that failed the collective it
// adds nothing.
func TestFRDumpStartRule(t *testing.T) {
	d := diagnoseWhole("trainer.log", []byte("trainer/0 [0]:E0927 12:07:22.643702 1012209 ProcessGroupNCCL.cpp:1356] [PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL preparing to dump debug info.\n"))
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil {
		t.Fatalf("classes %v, want collective_timeout", classesOf(d))
	}
	if f.Culprit != nil && f.Culprit.Rank != nil {
		t.Errorf("the dumping rank named culprit: %+v", f.Culprit)
	}
	d = diagnoseWhole("trainer.log", []byte("[rank0]:[E ProcessGroupNCCL.cpp:1200] [PG 0 Rank 0] ProcessGroupNCCL preparing to dump debug info.\nnode1:123:456 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, vendor err 129\n"))
	if hasClass(d, ClassCollectiveTimeout) != nil {
		t.Errorf("an NCCL transport error explains the dump: %v", classesOf(d))
	}
}
