package crash

import (
	"strings"
	"testing"
)

func TestExitStatuses(t *testing.T) {
	cases := []struct {
		line, class string
		code        int
	}{
		{"[shell] exit_code=137", ClassHostOOMKill, 137},
		{"[shell] exit_code=139", ClassHostSegfault, 139},
		{"service exited with code 137", ClassHostOOMKill, 137},
		{"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 812) of binary: /usr/bin/python", ClassHostOOMKill, -9},
		{"bash: line 1:   841 Segmentation fault      python3 x.py", ClassHostSegfault, 0},
		{"Segmentation fault (core dumped)", ClassHostSegfault, 0},
		{"Killed", ClassHostOOMKill, 0},
		{"srun: error: node7: task 3: Killed", ClassHostOOMKill, 0},
		{"Last State: Terminated Reason: OOMKilled", ClassHostOOMKill, 0},
	}
	for _, c := range cases {
		s := New()
		s.BeginFile("x")
		s.Write([]byte(c.line + "\n"))
		d := s.Diagnosis()
		f := hasClass(d, c.class)
		if f == nil || len(d.Findings) != 1 {
			t.Errorf("%q: %s", c.line, d.JSON())
			continue
		}
		if c.code != 0 && (f.ExitCode == nil || *f.ExitCode != c.code) {
			t.Errorf("%q: exit %v", c.line, f.ExitCode)
		}
	}
	// not deaths
	for _, l := range []string{"If exit code is -9 (SIGKILL), a common cause is the OS OOM killer.", "Killed process accounting enabled", "the supervisor Killed process 4242 (python) after the timeout", "exit_code=0", "the thread was Killed by user request and resumed"} {
		s := New()
		s.BeginFile("x")
		s.Write([]byte(l + "\n"))
		if d := s.Diagnosis(); len(d.Findings) != 0 {
			t.Errorf("%q: %s", l, d.JSON())
		}
	}
	if exitSignal(-6) != "SIGABRT" || exitSignal(134) != "SIGABRT" || exitSignal(1) != "" {
		t.Fatal("exitSignal")
	}
}

func FuzzExit(f *testing.F) {
	seedFuzz(f, "gpu:e_sigkill.stdout.txt", "gpu:e_sigkill.stderr.txt", "gpu:e_segv.stdout.txt", "shared:s15_debug_agent_disassembly_srun_hypre614.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &exitParser{s: s} }), data, cut)
	})
}

// Real supervisor wordings of a dead child with its pid.
func TestExtractChildExit(t *testing.T) {
	for in, want := range map[string]childExit{
		// seed 000 / SGLang ≥ 0.4.6
		"[2025-03-01 10:00:00] Child process unexpectedly failed with exitcode=134. pid=71533": {code: 134, pid: 71533},
		// sgl-project/sglang#5637 (0.4.5.post3: the raw wait status)
		"Child process unexpectedly failed with an exit code 256. pid=32885.": {code: 1, pid: 32885},
		// vLLM multiproc executor
		"ERROR 06-12 10:00:00 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 1234 died, exit code: -9": {code: -9, pid: 1234},
		// Python multiprocessing
		"RuntimeError: DataLoader worker (pid(s) 4411) exited unexpectedly: Process exitcode=-11, pid=4411": {code: -11, pid: 4411},
	} {
		got, ok := extractChildExit(in)
		if !ok || got != want {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
	if _, ok := extractChildExit("Received sigquit from a child proces. It usually means the child failed."); ok {
		t.Error("sglang#3685's sigquit line has no exit status")
	}
}

// SGLang tears its process tree down with SIGKILL after a child failed: the
// trailing "Killed" is the launcher, not the OOM killer, in both wordings
// of the sigquit line (sgl-project/sglang#3685 logs the misspelt "child
// proces."; #8741 the later "child process."), and the real error stays.
func TestSigquitThenKilledIsNotOOM(t *testing.T) {
	for _, sigquit := range []string{
		"Message: 'Received sigquit from a child proces. It usually means the child failed.'",
		"[2025-08-04 10:10:12] Received sigquit from a child process. It usually means the child failed.",
	} {
		log := "Traceback (most recent call last):\n" +
			"  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 1748, in run_scheduler_process\n" +
			"KeyError: 'model.layers.0.mlp.experts.w13_weight'\n" +
			sigquit + "\nKilled\n"
		d := diagnoseWhole("sglang.log", []byte(log))
		if hasClass(d, ClassHostOOMKill) != nil {
			t.Errorf("%q: a trailing Killed became host_oom_kill: %s", sigquit, d.JSON())
		}
		if !strings.Contains(string(d.JSON()), "KeyError") {
			t.Errorf("%q: the KeyError is lost: %s", sigquit, d.JSON())
		}
	}
}

// The job's own exit status 137 after a child failed is the same teardown as
// the bare "Killed" (a supervisor stopping its group exits 137 without any
// OOM: mozilla/addons-server#7518, balena-os/balena-supervisor#647,
// newsboat/newsboat#2517); an OOM-killer record, or a 137 that names the
// dead child, still is host_oom_kill.
func TestTeardownExitStatusIsNotOOM(t *testing.T) {
	fault := "Memory access fault by GPU node-3 (Agent handle: 0x55f1aa0b77d0) on address 0x7f33c1000000. Reason: Page not present or supervisor privilege.\n"
	sigquit := "[2026-11-20 04:11:03] Received sigquit from a child process. It usually means the child failed.\n"
	for _, c := range []struct {
		name, log string
		oom       bool
	}{
		{"job status after sigquit", fault + sigquit + "[runner] trial 3 exit code 137\n", false},
		{"compose status after sigquit", fault + sigquit + "sglang-1 exited with code 137\n", false},
		{"child named by its exit line", "[2026-11-20 04:11:03] Child process unexpectedly failed with exitcode=-9. pid=52811\n", true},
		{"no child failure", "sglang-1 exited with code 137\n", true},
		{"kernel OOM record", sigquit + "[412233.118412] Out of memory: Killed process 7747 (python3) total-vm:412883412kB, anon-rss:221102948kB, file-rss:102400kB, shmem-rss:16384kB, UID:1000 pgtables:440212kB oom_score_adj:0\nexit code 137\n", true},
	} {
		d := diagnoseWhole("trial.log", []byte(c.log))
		if got := hasClass(d, ClassHostOOMKill) != nil; got != c.oom {
			t.Errorf("%s: host_oom_kill %v, want %v: %s", c.name, got, c.oom, d.JSON())
		}
	}
}

// Hydra's (MPICH, MVAPICH, Intel MPI) banner for a dead rank: "EXIT CODE:
// 139" is 128+SIGSEGV; "EXIT STRING: Killed (signal 9)" names the signal.
func TestHydraBadTermination(t *testing.T) {
	for _, c := range []struct{ src, log, class string }{
		{"https://github.com/SPECFEM/specfem3d/issues/643", "===================================================================================\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 27636 RUNNING AT sth104\n=   EXIT CODE: 139\n=   CLEANING UP REMAINING PROCESSES\n", ClassHostSegfault},
		{"https://github.com/IntelligentSoftwareSystems/Galois/issues/37", "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 4774 RUNNING AT IIPLab-WS1\n=   EXIT CODE: 139\n", ClassHostSegfault},
		{"https://github.com/openai/jukebox/issues/155", "=   EXIT CODE: 9\n=   CLEANING UP REMAINING PROCESSES\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)\n", ClassHostOOMKill},
	} {
		if hasClass(diagnoseWhole("mpi.log", []byte(c.log)), c.class) == nil {
			t.Errorf("%s: no %s", c.src, c.class)
		}
	}
	// a terminated rank (signal 15) is collateral: no class
	d := diagnoseWhole("mpi.log", []byte("=   EXIT CODE: 15\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)\n"))
	if len(d.Findings) != 0 {
		t.Errorf("https://github.com/pyiron/executorlib/issues/192: %s", d.JSON())
	}
}

// The shell's job notice names the process an abort ended (bash's "line 14:
// 52104 Aborted (core dumped) cmd"; shared s02's "4388 Aborted"): after a
// GPU error that process is the culprit; without a pid none is named.
func TestAbortJobNoticeNamesTheGPUErrorPid(t *testing.T) {
	errs := "terminate called after throwing an instance of 'c10::AcceleratorError'\n  what():  CUDA error: an illegal memory access was encountered\n"
	for _, c := range []struct {
		name, tail string
		pid        int
	}{
		{"bash job notice", "run_trial.sh: line 14: 52104 Aborted                 (core dumped) python3 serve_bench.py\n", 52104},
		{"no pid", "Aborted (core dumped)\n", 0},
	} {
		f := hasClass(diagnoseWhole("trial.log", []byte(errs+c.tail)), ClassGPUMemoryFault)
		if f == nil {
			t.Fatalf("%s: no gpu_memory_fault", c.name)
		}
		got := 0
		if f.Culprit != nil && f.Culprit.PID != nil {
			got = *f.Culprit.PID
		}
		if got != c.pid {
			t.Errorf("%s: culprit pid %d, want %d", c.name, got, c.pid)
		}
	}
}

// Hydra's banner names the dead rank's process on the line above its exit
// code ("=   PID 27636 RUNNING AT sth104" / "=   EXIT CODE: 139"): that pid
// is the segfault's, and after a GPU error the process the abort ended.
func TestHydraBannerPID(t *testing.T) {
	for _, c := range []struct {
		src, log, class string
		pid             int
	}{
		{"https://github.com/SPECFEM/specfem3d/issues/643", "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 27636 RUNNING AT sth104\n=   EXIT CODE: 139\n", ClassHostSegfault, 27636},
		{"https://github.com/pmodels/mpich/issues/6563 (exit 139 from the os-autoinst report's banner)", "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 5318 RUNNING AT MacBook-Pro-10.local\n=   EXIT CODE: 139\n", ClassHostSegfault, 5318},
		{"a HIP check's illegal address, then the banner's 134", "error: hipStreamSynchronize(stream) returned 700 at src/force_tiles.hip:227\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 145092 RUNNING AT gn015\n=   EXIT CODE: 134\n", ClassGPUMemoryFault, 145092},
	} {
		f := hasClass(diagnoseWhole("mpi.log", []byte(c.log)), c.class)
		if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != c.pid {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
}
