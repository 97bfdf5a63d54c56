package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// reSlurmCancel: slurmstepd's banner when the scheduler ends a job or step —
// "slurmstepd: error: *** JOB 867816 ON c0700a-s1 CANCELLED AT
// 2021-05-11T12:06:17 DUE TO TIME LIMIT ***", the step's "*** STEP
// 32233190.0 ON nid01934 CANCELLED AT … ***", the older "*** JOB 830329
// CANCELLED AT … DUE TO TIME LIMIT on n447 ***" and a user's scancel
// without a reason ("*** JOB 1479012 CANCELLED AT … *** on sh-2-3").
var reSlurmCancel = lazyre.New(`\*\*\* (JOB|STEP) (\S+)(?: ON (\S+))? CANCELLED AT (\S+)(?: DUE TO ([A-Z][A-Z ]*[A-Z]))?(?: on (\S+))? \*\*\*`)

// slurmCancel is one such banner: what was cancelled and why ("TIME
// LIMIT", "NODE FAILURE", "PREEMPTION"; "" for a user's scancel).
type slurmCancel struct {
	what, id, node, reason string
}

func extractSlurmCancel(t string) (slurmCancel, bool) {
	m := findIf(t, " CANCELLED AT ", reSlurmCancel)
	if m == nil {
		return slurmCancel{}, false
	}
	node := m[3]
	if node == "" {
		node = m[6]
	}
	return slurmCancel{what: m[1], id: m[2], node: node, reason: m[5]}, true
}

// applySlurmCancel records that the scheduler, not a crash, ended the job:
// the SIGTERM / SIGKILL its tasks then die of ("srun: error: nid01934:
// tasks 2,4-5,7: Terminated", a bare "Killed", exit 137) are Slurm's, so
// no host_oom_kill comes of them without a record of memory pressure
// (schedulerKill). A job at its time limit was slow or hung, a node
// failure is the node's: neither is a GPU crash class of its own.
func (s *Session) applySlurmCancel(l *line, c slurmCancel) {
	s.format("slurm")
	f := &s.b.facts
	if f.schedCancel == nil {
		ev := l.ev(s)
		f.schedCancel = &ev
	}
	why := "by a user (scancel)"
	switch c.reason {
	case "TIME LIMIT":
		why = "at its time limit: the job ran longer than it was allowed (slow, or hung without an error of its own)"
	case "NODE FAILURE":
		why = "because its node failed: the processes died with the node"
	case "":
	default:
		why = "due to " + c.reason
	}
	f.notes = appendCap(f.notes, "Slurm cancelled "+lowerASCII(c.what)+" "+c.id+" (line "+itoa(l.no)+") "+why, 8)
}

// schedulerKill: a SIGKILL that names no process after Slurm cancelled the
// job is the scheduler's, unless a record of memory pressure backs an OOM
// kill (slurmstepd's oom_kill events, the kernel's OOM killer).
func schedulerKill(f *facts, oom *agg) bool {
	return f.schedCancel != nil && (oom == nil || !oom.memProof)
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
