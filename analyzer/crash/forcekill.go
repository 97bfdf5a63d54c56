package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// torchelastic's teardown: after a worker failed it SIGTERMs the others and,
// 30 s later, SIGKILLs the ones still alive ("Unable to shutdown process
// 4422 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL";
// torch <2.2: "Unable to shutdown processes via 15, forcefully exitting via
// 9", no pid). The failure table then lists that pid with exitcode -9: the
// launcher's own kill, not the OOM killer.
var reForceKill = lazyre.New(`Unable to shutdown process(?:es)? (?:(\d+) )?via (?:Signals\.SIGTERM|15), forcefully exit+ing via (?:Signals\.SIGKILL|9)`)

// extractForceKill: the pid the launcher force-killed (0 when the older
// wording names none); ok when the line is the launcher's force kill.
func extractForceKill(t string) (pid int, ok bool) {
	m := findIf(t, "forcefully exit", reForceKill)
	if m == nil {
		return 0, false
	}
	return atoiDef(m[1], 0), true
}

// applyForceKill records the force-killed pid; the line is itself a child
// failure (the launcher tears its workers down only after one failed).
func (s *Session) applyForceKill(l *line, pid int) {
	f := &s.b.facts
	if f.childFailure == nil {
		ev := l.ev(s)
		f.childFailure = &ev
	}
	if pid > 0 && len(f.forceKilled) < 64 {
		f.forceKilled = append(f.forceKilled, pid)
	}
}

// launcherKilled: the launcher's own force kill named this pid.
func (f *facts) launcherKilled(pid int) bool {
	for _, p := range f.forceKilled {
		if p == pid && pid > 0 {
			return true
		}
	}
	return false
}
