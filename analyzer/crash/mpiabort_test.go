package crash

import "testing"

// MPI_Abort reports of Open MPI and MPICH (URLs per row).
func TestExtractMPIAbort(t *testing.T) {
	for _, c := range []struct {
		src, text string
		want      mpiAbort
		ok        bool
	}{
		{"https://github.com/open-mpi/ompi/issues/12503", "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD with errorcode 1.",
			mpiAbort{rank: 0, comm: "MPI_COMM_WORLD", code: "1"}, true},
		{"https://github.com/geoschem/geos-chem/issues/266 (errorcode wrapped)", "   MPI_ABORT was invoked on rank 344 in communicator MPI_COMM_WORLD",
			mpiAbort{rank: 344, comm: "MPI_COMM_WORLD"}, true},
		{"https://github.com/UCL/hemelb/issues/4 (errorcode wrapped)", "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD ",
			mpiAbort{rank: 0, comm: "MPI_COMM_WORLD"}, true},
		{"https://github.com/pmodels/mpich/issues/270", "application called MPI_Abort(MPI_COMM_WORLD, 0) - process 3[cli_3]: aborting",
			mpiAbort{rank: 3, comm: "MPI_COMM_WORLD", code: "0"}, true},
		{"prose", "Ensure abort_mpi does not return", mpiAbort{}, false},
	} {
		got, ok := extractMPIAbort(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractMPIAbort(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// After a rank called MPI_Abort, mpirun's kills of the others are its
// teardown, no host_oom_kill; without the abort the same line is one.
func TestMPIAbortTeardown(t *testing.T) {
	kill := "mpirun noticed that process rank 2 with PID 21183 on node host01 exited on signal 9 (Killed).\n"
	d := diagnoseWhole("mpi.log", []byte("MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\nwith errorcode 1.\n"+kill))
	if hasClass(d, ClassHostOOMKill) != nil {
		t.Errorf("mpirun's teardown read as host_oom_kill: %v", classesOf(d))
	}
	d = diagnoseWhole("mpi.log", []byte(kill))
	if hasClass(d, ClassHostOOMKill) == nil {
		t.Errorf("the lone SIGKILL lost: %v", classesOf(d))
	}
}
