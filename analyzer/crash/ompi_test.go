package crash

import (
	"strings"
	"testing"
)

// Open MPI's "mpirun noticed that process rank N with PID P on node H
// exited on signal S": the signal's class, culprit rank N.
func TestOMPIDeath(t *testing.T) {
	for _, c := range []struct {
		src, text, class string
		rank, pid        int
	}{
		{"https://github.com/open-mpi/ompi/issues/2661", "mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9 (Killed).", ClassHostOOMKill, 0, 21183},
		{"https://github.com/compas/grasp/issues/118", "Mpirun noticed that process rank 2 with PID 0 on node aodexiusi exited on signal 9 (Killed).", ClassHostOOMKill, 2, 0},
		{"https://github.com/Kay1794/Aware-of-the-history/issues/2 (pid and node redacted)", "mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 (Killed).", ClassHostOOMKill, 1, 0},
		// PRRTE's help text and terminals wrap the notice after "exited on"
		{"https://github.com/adda-team/adda/issues/151 (wrapped, trailing space)", "mpiexec noticed that process rank 0 with PID 10313 on node proton exited on \nsignal 6 (Aborted).", "", 0, 10313},
		{"public Open MPI 5 paste (find_string, prterun, wrapped)", "prterun noticed that process rank 17 with PID 3063175 on node cn517 exited on\nsignal 9 (Killed).", ClassHostOOMKill, 17, 3063175},
		{"https://github.com/adda-team/adda/issues/151 (one line)", "mpiexec noticed that process rank 0 with PID 53845 on node 10 exited on signal 11 (Segmentation fault).", ClassHostSegfault, 0, 53845},
	} {
		x, ok := extractOMPIDeath(strings.Join(strings.Fields(c.text), " "))
		if !ok || x.rank != c.rank || x.pid != c.pid {
			t.Errorf("%s: extractOMPIDeath = %+v, %v", c.src, x, ok)
		}
		if c.class == "" {
			continue // SIGABRT alone implies no class; the joined notice is what is tested
		}
		d := diagnoseWhole("mpi.log", []byte(c.text+"\n"))
		f := hasClass(d, c.class)
		if f == nil {
			t.Errorf("%s: no %s: %v", c.src, c.class, classesOf(d))
			continue
		}
		if f.Culprit == nil || (f.Culprit.Rank == nil || *f.Culprit.Rank != c.rank) && !containsInt(f.Culprit.Ranks, c.rank) {
			t.Errorf("%s: culprit %+v, want rank %d", c.src, f.Culprit, c.rank)
		}
	}
}
