package crash

import "testing"

// torchelastic's teardown wordings: pytorch/pytorch#115219 (the pid form,
// torch >= 2.2), pytorch/pytorch#61602 (the older "processes via 15" form);
// the elastic agent SIGKILLs workers that ignore SIGTERM by design
// (pytorch/pytorch#149739, #160908).
func TestExtractForceKill(t *testing.T) {
	for _, c := range []struct {
		line string
		pid  int
		ok   bool
	}{
		{"[WARNING] Unable to shutdown process 4422 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL", 4422, true},
		{"W0716 19:03:18.301000 91220 torch/distributed/elastic/multiprocessing/api.py:916] Unable to shutdown process 91241 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL", 91241, true},
		{"05:54:35 Unable to shutdown processes via 15, forcefully exitting via 9", 0, true},
		{"W0227 17:39:41.936000 293814 api.py:766] Closing process 293866 via signal SIGTERM", 0, false},
	} {
		pid, ok := extractForceKill(c.line)
		if pid != c.pid || ok != c.ok {
			t.Errorf("%q: got (%d, %v), want (%d, %v)", c.line, pid, ok, c.pid, c.ok)
		}
	}
}

// A failure-table entry "exitcode : -9" for a pid the launcher force-killed
// is the teardown after the root cause, not the OOM killer; the same entry
// without the force-kill line, or with a kernel OOM record, stays one.
func TestForceKilledWorkerIsNotOOM(t *testing.T) {
	segv := "[rank2]: Fatal Python error: Segmentation fault\n" +
		"W0716 19:02:48.223000 91220 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 91241 closing signal SIGTERM\n"
	force := "W0716 19:03:18.301000 91220 torch/distributed/elastic/multiprocessing/api.py:916] Unable to shutdown process 91241 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL\n"
	table := "Failures:\n[1]:\n  time      : 2026-07-16_19:03:18\n  host      : node11\n  rank      : 0 (local_rank: 0)\n  exitcode  : -9 (pid: 91241)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 91241\n" +
		"------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n  time      : 2026-07-16_19:02:48\n  host      : node11\n  rank      : 2 (local_rank: 2)\n  exitcode  : -11 (pid: 91243)\n  error_file: <N/A>\n  traceback : Signal 11 (SIGSEGV) received by PID 91243\n"
	oomRecord := "[412233.118412] Out of memory: Killed process 91241 (python3) total-vm:412883412kB, anon-rss:221102948kB, file-rss:102400kB, shmem-rss:16384kB, UID:1000 pgtables:440212kB oom_score_adj:0\n"
	for _, c := range []struct {
		name, log string
		oom       bool
	}{
		{"force-killed pid in the table", segv + force + table, false},
		{"no force kill: the -9 is unexplained", segv + table, true},
		{"force kill but the kernel's OOM record", segv + force + oomRecord + table, true},
	} {
		d := diagnoseWhole("torchrun.log", []byte(c.log))
		if got := hasClass(d, ClassHostOOMKill) != nil; got != c.oom {
			t.Errorf("%s: host_oom_kill %v, want %v: %v", c.name, got, c.oom, classesOf(d))
		}
		if hasClass(d, ClassHostSegfault) == nil {
			t.Errorf("%s: no host_segfault: %v", c.name, classesOf(d))
		}
	}
}
