package crash

import "testing"

// gunicorn's own wordings for a worker killed by a signal.
func TestExtractGunicornDeath(t *testing.T) {
	cases := []struct {
		src, text string
		want      gunicornDeath
	}{
		{"https://github.com/benoitc/gunicorn/pull/2419 (docker -m 256m)", "[2020-09-12 05:37:52 +0000] [18] [ERROR] Worker (pid:21) was sent SIGKILL! Perhaps out of memory?",
			gunicornDeath{pid: 21, sig: "SIGKILL"}},
		{"https://github.com/benoitc/gunicorn/issues/3415 (--reuse-port segfaults)", "Error: `Worker (pid:52) was sent SIGSEGV!`",
			gunicornDeath{pid: 52, sig: "SIGSEGV"}},
		// the arbiter's "code N" when the status names no signal: after a
		// WORKER TIMEOUT it sends SIGABRT and the worker dumps core (6|0x80)
		{"gunicorn arbiter.py format (WORKER TIMEOUT)", "[2025-07-05 18:16:41 +0000] [1] [ERROR] Worker (pid:58) was sent code 134!",
			gunicornDeath{pid: 58, sig: "SIGABRT"}},
	}
	for _, c := range cases {
		got, ok := extractGunicornDeath(c.text)
		if !ok || got != c.want {
			t.Errorf("%s\n%q\n got %+v", c.src, c.text, got)
		}
	}
	for _, s := range []string{"[INFO] Booting worker with pid: 22", "Worker (pid:5) was sent code 0!", "the email was sent SIGKILL!"} {
		if x, ok := extractGunicornDeath(s); ok {
			t.Errorf("%q gave %+v", s, x)
		}
	}
}

// The rule: SIGKILL is the host's kill, a SIGSEGV a host segfault, both
// naming the worker's pid.
func TestGunicornDeathRule(t *testing.T) {
	d := diagnoseWhole("gunicorn.log", []byte("[2020-09-12 05:37:52 +0000] [18] [ERROR] Worker (pid:21) was sent SIGKILL! Perhaps out of memory?\n"))
	if f := hasClass(d, ClassHostOOMKill); f == nil || hasClass(d, ClassHostSegfault) != nil {
		t.Fatalf("SIGKILL: %v %s", classesOf(d), d.JSON())
	}
	d = diagnoseWhole("gunicorn.log", []byte("[2025-12-15 09:12:01 +0000] [1] [ERROR] Worker (pid:54) was sent code 139!\n"))
	if f := hasClass(d, ClassHostSegfault); f == nil || hasClass(d, ClassHostOOMKill) != nil {
		t.Fatalf("139: %v", classesOf(d))
	}
}
