package crash

import "testing"

// systemd's own OOM wordings on a unit's journal → host_oom_kill.
func TestSystemdOOM(t *testing.T) {
	for _, c := range []struct{ src, text, unit string }{
		{"https://github.com/ollama/ollama/issues/11231", "Jun 28 08:09:51 nixos systemd[1]: ollama.service: Failed with result 'oom-kill'.", "ollama.service"},
		{"public erigon journal excerpt (find_string)", "Sep 23 14:09:18 ip-172-31-16-253 systemd[1]: erigon.service: A process of this unit has been killed by the OOM killer.", "erigon.service"},
		{"public desktop journal excerpt (find_string)", "19:50:59 systemd: user@1000.service: A process of this unit has been killed by the OOM killer.", "user@1000.service"},
	} {
		x, ok := extractSystemdOOM(c.text)
		if !ok || x.unit != c.unit {
			t.Errorf("%s: extractSystemdOOM = %+v, %v", c.src, x, ok)
		}
		d := diagnoseWhole("journal.log", []byte(c.text+"\n"))
		if hasClass(d, ClassHostOOMKill) == nil {
			t.Errorf("%s: no host_oom_kill: %v", c.src, classesOf(d))
		}
	}
	// a unit that exited by SIGKILL without systemd naming the OOM killer
	// (docker stop, kill -9) is no OOM finding
	d := diagnoseWhole("journal.log", []byte("Nov 26 22:07:58 gpu-box systemd[1]: vllm.service: Main process exited, code=killed, status=9/KILL\n"))
	if hasClass(d, ClassHostOOMKill) != nil {
		t.Errorf("bare status=9/KILL read as OOM: %v", classesOf(d))
	}
}

// A unit's main process ended by a crash signal, in systemd's words: the
// process segfaulted; systemd's own pid in the journal prefix is no culprit.
func TestSystemdSignal(t *testing.T) {
	for _, c := range []struct{ src, text, unit, sig string }{
		{"https://github.com/ollama/ollama/issues/1148", "Nov 15 21:48:43 ai-desktop systemd[1]: ollama.service: Main process exited, code=dumped, status=11/SEGV", "ollama.service", "SIGSEGV"},
		{"https://github.com/NVIDIA/DCGM/issues/155 (no core: code=killed)", "Feb 28 16:29:14 gx01 systemd[1]: nvidia-dcgm.service: Main process exited, code=killed, status=11/SEGV", "nvidia-dcgm.service", "SIGSEGV"},
		{"https://github.com/systemd/systemd/issues/13574 (older systemd, lower case)", "Feb 24 14:28:21 huawei systemd[1]: iot.service: main process exited, code=dumped, status=11/SEGV", "iot.service", "SIGSEGV"},
	} {
		unit, sig, ok := extractSystemdSignal(c.text)
		if !ok || unit != c.unit || sig != c.sig {
			t.Errorf("%s: extractSystemdSignal = %q %q %v", c.src, unit, sig, ok)
		}
		d := diagnoseWhole("journal.log", []byte(c.text+"\n"))
		f := hasClass(d, ClassHostSegfault)
		if f == nil {
			t.Errorf("%s: no host_segfault: %v", c.src, classesOf(d))
			continue
		}
		if f.Culprit != nil && f.Culprit.PID != nil && *f.Culprit.PID == 1 {
			t.Errorf("%s: systemd's own pid 1 named as the culprit", c.src)
		}
	}
	// systemd's stop, its stop timeout's SIGKILL and an exit code are no crash
	for _, s := range []string{
		"Nov 26 22:07:58 gpu-box systemd[1]: vllm.service: Main process exited, code=killed, status=15/TERM",
		"Nov 26 22:07:58 gpu-box systemd[1]: vllm.service: Main process exited, code=killed, status=9/KILL",
		"Jan 10 22:38:05 czj-Vector-GP76-12UGSO systemd[1]: ollama.service: Main process exited, code=exited, status=1/FAILURE", // ollama/ollama#8372
	} {
		d := diagnoseWhole("journal.log", []byte(s+"\n"))
		if hasClass(d, ClassHostSegfault) != nil || hasClass(d, ClassHostOOMKill) != nil {
			t.Errorf("%q: %v, want no death finding", s, classesOf(d))
		}
	}
}
