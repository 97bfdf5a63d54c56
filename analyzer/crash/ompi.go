package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// Open MPI's launcher reports the rank a signal killed, with its pid (0 when
// the daemon never learnt it) and node:
//
//	mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9 (Killed).
//	Mpirun noticed that process rank 2 with PID 0 on node aodexiusi exited on signal 9 (Killed).
//
// The rank is MPI's global rank; the signal decides the class as any death
// by signal does (deathSignal).
var reOMPIDeath = lazyre.New(`(?i)\b(?:mpirun|mpiexec|orterun|prterun|prun) noticed that process rank (\d+) with PID (\S+) on node (\S+) exited on signal (\d+)`)

type ompiDeath struct {
	rank, pid int
	node, sig string
}

func extractOMPIDeath(t string) (ompiDeath, bool) {
	m := findFoldIf(t, "noticed that process rank", reOMPIDeath)
	if m == nil {
		return ompiDeath{}, false
	}
	sig := signalNames[atoiDef(m[4], 0)]
	if sig == "" {
		return ompiDeath{}, false
	}
	return ompiDeath{rank: atoiDef(m[1], -1), pid: atoiDef(m[2], 0), node: m[3], sig: sig}, true
}

// applyOMPIDeath: the rank Open MPI names is the dead process; its finding
// names that rank (and the pid when known).
func (s *Session) applyOMPIDeath(l *line, x ompiDeath) {
	s.format("openmpi")
	code := 128 + signalCode[x.sig]
	s.deathSignal(l, x.sig, code, false, x.node, "MPI rank "+itoa(x.rank))
	var a *agg
	switch x.sig {
	case "SIGKILL", "SIGBUS":
		a = s.b.get(ClassHostOOMKill)
	case "SIGSEGV":
		a = s.b.get(ClassHostSegfault)
	}
	if a != nil {
		a.rank(x.rank)
		a.setPID(x.pid)
	}
	if f := &s.b.facts; len(f.exits) < 32 {
		f.exits = append(f.exits, exitFact{code: code, hasCode: true, signal: x.sig, rank: x.rank, pid: x.pid, host: x.node, task: "MPI rank " + itoa(x.rank), ev: l.ev(s)})
	}
}
