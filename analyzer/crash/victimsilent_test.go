package crash

import "testing"

// A rank the kernel's OOM killer took never joins the next collective: the
// ranks that time out waiting for it are its consequence even when the
// kernel's lines were pasted after the job log. Wordings: torchrun's
// "failed (exitcode: -9) local_rank: 3 (pid: 407727)" (showlab/EgoVLP#21),
// the OOM killer's victim line (equinor/ert#7797, 0jc1/py-autovod#7), the
// waiters' watchdogs with one rank missing (XPixelGroup/BasicSR#737).
func TestOOMVictimSilentInCollective(t *testing.T) {
	wd := func(r string) string {
		return "[rank" + r + "]:[E1125 09:41:12.778120118 ProcessGroupNCCL.cpp:632] [Rank " + r + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=903, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600019 milliseconds before timing out.\n"
	}
	log := wd("0") + wd("1") + wd("3") +
		"E1125 09:41:14.002000 5120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 2 (pid: 5133) of binary: /usr/bin/python3\n"
	oom := func(pid string) string {
		return "[88211.409902] Out of memory: Killed process " + pid + " (python3) total-vm:301223404kB, anon-rss:268110224kB, file-rss:71244kB, shmem-rss:10240kB, UID:2001 pgtables:540112kB oom_score_adj:0\n"
	}
	d := diagnoseWhole("job.log", []byte(log+oom("5133")))
	if cls := classesOf(d); len(cls) == 0 || cls[0] != ClassHostOOMKill {
		t.Fatalf("want host_oom_kill first, got %v", cls)
	}
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || f.ConsequenceOf != ClassHostOOMKill {
		t.Errorf("the waiters' timeouts are not the kill's consequence: %+v", f)
	}
	// the victim is one of the ranks that timed out: no cause of theirs
	d = diagnoseWhole("job.log", []byte(wd("0")+wd("1")+wd("2")+wd("3")+
		"E1125 09:41:14.002000 5120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 2 (pid: 5133) of binary: /usr/bin/python3\n"+oom("5133")))
	if f := hasClass(d, ClassCollectiveTimeout); f != nil && f.ConsequenceOf == ClassHostOOMKill {
		t.Errorf("a rank that reported the timeout itself was read as the silent victim: %v", classesOf(d))
	}
}
