package crash

import "testing"

// Real wordings of Slurm and shell death lines (URLs per row) and what the
// exit extractors read from them.

func TestExtractSlurmTask(t *testing.T) {
	cases := []struct {
		src, text string
		want      slurmTask
		ok        bool
	}{
		{"https://github.com/tonyyxliu/CUHKSZ-CSC4005/issues/51", "srun: error: node25: task 11: Killed",
			slurmTask{host: "node25", tasks: "11", sig: "SIGKILL", code: 137}, true},
		{"https://github.com/ArjunaCluster/ArjunaUsers/issues/48", "srun: error: c002: task 0: Killed",
			slurmTask{host: "c002", tasks: "0", sig: "SIGKILL", code: 137}, true},
		{"https://github.com/ComputationalRadiationPhysics/picongpu/issues/198", "srun: error: taurusi2031: tasks 10-11: Exited with exit code 1",
			slurmTask{host: "taurusi2031", tasks: "10-11", code: 1, hasCode: true}, true},
		{"exit code of a signal", "srun: error: gpu-node-3: tasks 0-7: Exited with exit code 139",
			slurmTask{host: "gpu-node-3", tasks: "0-7", sig: "SIGSEGV", code: 139, hasCode: true}, true},
		{"https://github.com/ai4d-iasc/trixie/issues/58 (a launch failure, not a task death)",
			"srun: error: Task launch for 36.0 failed on node cn131: Job credential expired", slurmTask{}, false},
	}
	for _, c := range cases {
		got, ok := extractSlurmTask(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractSlurmTask(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestExtractShellDeath(t *testing.T) {
	cases := []struct {
		src, text string
		want      shellDeath
		ok        bool
	}{
		{"https://github.com/c3nl-neuraldynamics/c3nl_cluster/issues/20", "/tmp/slurmd/job603995/slurm_script: line 9:  4727 Killed",
			shellDeath{pid: 4727, sig: "SIGKILL", whole: true}, true},
		{"https://github.com/RohanDoshi2018/ZeroshotSemanticSegmentation/issues/1", "Segmentation fault (core dumped)",
			shellDeath{sig: "SIGSEGV", whole: true}, true},
		{"https://github.com/Zerg-Overmind/Strivec/issues/5", "Aborted (core dumped)",
			shellDeath{sig: "SIGABRT", whole: true}, true},
		// known gap, kept by this behaviour-preserving refactor: bash's
		// column padding before "(core dumped)" is not read as whole
		{"https://github.com/li3cmz/GRADE/issues/1", "Segmentation fault      (core dumped)",
			shellDeath{sig: "SIGSEGV"}, true},
		// the word opens a sentence: not a report of a death
		{"prose", "Killed processes are restarted by the supervisor", shellDeath{sig: "SIGKILL"}, true},
		{"no death word", "Training finished", shellDeath{}, false},
	}
	for _, c := range cases {
		got, ok := extractShellDeath(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractShellDeath(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// Go's os/exec error text (no real log found in the issues corpus; the
// wording is ExitError.String's "signal: " + the signal's description).
func TestExtractGoSignal(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"worker failed: signal: aborted", "SIGABRT"},
		{"exec: signal: killed", "SIGKILL"},
		{"signal: segmentation fault (core dumped)", "SIGSEGV"},
		{"signal: terminated", ""},
	} {
		if got := extractGoSignal(c.text); got != c.want {
			t.Errorf("extractGoSignal(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
