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

// The world rank that called MPI_Abort after a GPU error names the error's
// rank: applications abort where their check failed (UCL/hemelb#4: "HemeLB
// will print an error message immediately before calling MPI_Abort";
// 3dem/relion#257: GPU motion correction, "MPI_ABORT was invoked on rank 1";
// open-mpi/ompi#1530: rank 0 calls MPI_Abort from its error handler). An
// abort before the error, or in another communicator, names no one.
func TestMPIAbortNamesErrorRank(t *testing.T) {
	hipErr := "HIP_CHECK failed: hipDeviceSynchronize() returned hipErrorAssert (device-side assert triggered) at solver.cpp:318\n"
	abort := func(rank, comm string) string {
		return "--------------------------------------------------------------------------\n" +
			"MPI_ABORT was invoked on rank " + rank + " in communicator " + comm + "\nwith errorcode 1.\n\n" +
			"NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n"
	}
	d := diagnoseWhole("solver.log", []byte(hipErr+abort("1", "MPI_COMM_WORLD")))
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 1 {
		t.Fatalf("want device_assert on rank 1, got %v / %+v", classesOf(d), f)
	}
	for name, text := range map[string]string{
		"abort before the error": abort("1", "MPI_COMM_WORLD") + hipErr,
		"another communicator":   hipErr + abort("1", "comm_split_3"),
	} {
		d := diagnoseWhole("solver.log", []byte(text))
		if f := hasClass(d, ClassDeviceAssert); f == nil || f.Culprit != nil && f.Culprit.Rank != nil {
			t.Errorf("%s: want device_assert without a rank, got %v / %+v", name, classesOf(d), f)
		}
	}
}
