package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// An MPI rank that calls MPI_Abort: Open MPI's help text "MPI_ABORT was
// invoked on rank 344 in communicator MPI_COMM_WORLD with errorcode -1."
// (the errorcode often wrapped to the next line), MPICH's "application
// called MPI_Abort(MPI_COMM_WORLD, 0) - process 1". The application chose
// to stop on that rank; Open MPI then kills every other process (its
// "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes").
var (
	reOMPIAbort  = lazyre.New(`MPI_ABORT was invoked on rank (\d+) in communicator (\S+)(?:\s+with errorcode (-?\d+))?`)
	reMPICHAbort = lazyre.New(`application called MPI_Abort\((\w+), (-?\d+)\) - process (\d+)`)
)

type mpiAbort struct {
	rank int
	comm string
	code string // "" when wrapped away
}

func extractMPIAbort(t string) (mpiAbort, bool) {
	if m := findIf(t, "MPI_ABORT was invoked", reOMPIAbort); m != nil {
		return mpiAbort{rank: atoiDef(m[1], -1), comm: m[2], code: m[3]}, true
	}
	if m := findIf(t, "called MPI_Abort(", reMPICHAbort); m != nil {
		return mpiAbort{rank: atoiDef(m[3], -1), comm: m[1], code: m[2]}, true
	}
	return mpiAbort{}, false
}

// applyMPIAbort records the aborting rank (the first rank that gave up,
// a note with its communicator and code); the kills mpirun then reports
// are its teardown (mpiTeardown).
func (s *Session) applyMPIAbort(l *line, x mpiAbort) {
	s.format("mpi_abort")
	f := &s.b.facts
	if f.mpiAbort != nil {
		return
	}
	ev := l.ev(s)
	f.mpiAbort = &ev
	f.mpiAbortRank = -1
	if x.comm == "MPI_COMM_WORLD" {
		f.mpiAbortRank = x.rank
	}
	msg := "rank " + itoa(x.rank) + " called MPI_Abort on " + x.comm
	if x.code != "" {
		msg += " with error code " + x.code
	}
	f.notes = appendCap(f.notes, msg+" (line "+itoa(l.no)+"): the application stopped itself there; the other ranks' deaths that follow are mpirun killing the job", 8)
}

// mpiTeardown: a SIGKILL / SIGTERM death after a rank called MPI_Abort is
// the launcher killing the job, not the OOM killer, unless memory pressure
// is on record.
func mpiTeardown(f *facts, oom *agg, sig string) bool {
	return f.mpiAbort != nil && (sig == "SIGKILL" || sig == "SIGTERM") && (oom == nil || !oom.memProof)
}

// abortCulprit: the world rank that called MPI_Abort after a GPU error of
// the same file is the rank that hit it — an application aborts where its
// check failed (HemeLB "will print an error message immediately before
// calling MPI_Abort", UCL/hemelb#4; RELION's GPU motion correction on rank 1,
// 3dem/relion#257; an Errhandler abort on rank 0, open-mpi/ompi#1530). Only
// for a finding whose lines name no rank and that came before the abort; a
// segfault or an OOM kill never calls MPI_Abort.
func abortCulprit(f *facts, a *agg) (int, bool) {
	if f.mpiAbort == nil || f.mpiAbortRank < 0 || len(a.ranks) > 0 || len(a.evFirst) == 0 {
		return 0, false
	}
	first := a.evFirst[0]
	if first.File != f.mpiAbort.File || first.Line > f.mpiAbort.Line {
		return 0, false
	}
	return f.mpiAbortRank, true
}

// abortNamed: the classes abortCulprit may name (culprit.go).
func abortNamed(f *facts, class string, a *agg) bool {
	switch class {
	case ClassVRAMOOM, ClassInvalidLaunch, ClassArchMismatch, ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassGPUKernelHang:
		_, ok := abortCulprit(f, a)
		return ok
	}
	return false
}
