package crash

import (
	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// reGunicornSent is gunicorn's arbiter on a worker that died by a signal
// (benoitc/gunicorn#2419, gunicorn ≥ 20.1): "Worker (pid:21) was sent
// SIGKILL! Perhaps out of memory?" names the signal; "was sent code 139!"
// is the raw wait status when it names no signal (139 = SIGSEGV with the
// core-dump bit).
var reGunicornSent = lazyre.New(`Worker \(pid:(\d+)\) was sent (?:(SIG[A-Z0-9]+)|code (\d+))!`)

// gunicornDeath is one such report: the worker's pid and its signal.
type gunicornDeath struct {
	pid int
	sig string
}

func extractGunicornDeath(t string) (gunicornDeath, bool) {
	m := findIf(t, ") was sent ", reGunicornSent)
	if m == nil {
		return gunicornDeath{}, false
	}
	x := gunicornDeath{pid: atoiDef(m[1], 0), sig: m[2]}
	if m[3] != "" {
		// a wait status: the low seven bits are the signal, 0x80 the core dump
		x.sig = signalNames[atoiDef(m[3], 0)&0x7f]
	}
	return x, x.sig != ""
}
