package crash

import "testing"

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
	for _, l := range []string{"If exit code is -9 (SIGKILL), a common cause is the OS OOM killer.", "Killed process accounting enabled", "exit_code=0", "the thread was Killed by user request and resumed"} {
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
