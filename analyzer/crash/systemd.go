package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// systemd reports a unit whose process the kernel's OOM killer chose, in
// its own words, on the unit's journal (src/core/unit.c, service.c):
//
//	vllm.service: A process of this unit has been killed by the OOM killer.
//	ollama.service: Failed with result 'oom-kill'.
//
// Either line is the kernel's OOM killer acting inside the unit's cgroup:
// host memory, whatever the GPU was doing. "Main process exited,
// code=killed, status=9/KILL" alone is any SIGKILL and decides nothing here.
type systemdOOM struct {
	unit string
}

// extractSystemdOOM reads either wording; the unit is the text before the
// first ": " when it names one (".service", ".scope", ".slice").
func extractSystemdOOM(t string) (systemdOOM, bool) {
	i := strings.Index(t, "has been killed by the OOM killer")
	if i < 0 {
		i = strings.Index(t, "Failed with result 'oom-kill'")
	}
	if i < 0 {
		return systemdOOM{}, false
	}
	x := systemdOOM{}
	if j := strings.LastIndex(t[:i], ": "); j > 0 {
		u := t[:j]
		if k := strings.LastIndexByte(u, ' '); k >= 0 {
			u = u[k+1:]
		}
		if strings.Contains(u, ".service") || strings.Contains(u, ".scope") || strings.Contains(u, ".slice") {
			x.unit = u
		}
	}
	return x, true
}

// applySystemdOOM: the unit's process was the OOM killer's victim.
func (s *Session) applySystemdOOM(l *line, x systemdOOM) {
	s.format("systemd")
	a := s.b.add(s, ClassHostOOMKill, l, 0.9)
	a.memProof = true
	a.setStr(&a.f.Signal, "SIGKILL")
	a.addReason("systemd: the kernel's OOM killer killed a process of the unit")
	if x.unit != "" {
		a.detail("systemd_unit", x.unit)
	}
}

// systemd's report of a unit's main process a signal ended
// (src/core/service.c): "ollama.service: Main process exited,
// code=dumped, status=11/SEGV" (ollama/ollama#1148), "code=killed,
// status=11/SEGV" without a core (NVIDIA/DCGM#155), the older lower-case
// "main process exited" (systemd/systemd#13574). Only a crash signal
// counts: SIGKILL is also systemd's own stop timeout, SIGTERM its stop,
// SIGABRT usually the consequence of an error the unit logged first.
var reSystemdSignal = lazyre.New(`([\w@.:-]+\.(?:service|scope)): [Mm]ain process exited, code=(?:dumped|killed), status=\d+/(SEGV|BUS)\b`)

// extractSystemdSignal reads the unit and the signal (SIGSEGV, SIGBUS).
func extractSystemdSignal(t string) (unit, sig string, ok bool) {
	if !strings.Contains(t, "ain process exited, code=") {
		return "", "", false
	}
	m := reSystemdSignal.FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	return m[1], "SIG" + m[2], true
}
