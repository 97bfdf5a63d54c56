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
