package crash

import "testing"

// slurmstepd's cancellation banners (URLs per row).
func TestExtractSlurmCancel(t *testing.T) {
	for _, c := range []struct {
		src, text string
		want      slurmCancel
		ok        bool
	}{
		{"https://github.com/Nextomics/NextDenovo/issues/114", "slurmstepd: error: *** JOB 867816 ON c0700a-s1 CANCELLED AT 2021-05-11T12:06:17 DUE TO TIME LIMIT ***",
			slurmCancel{what: "JOB", id: "867816", node: "c0700a-s1", reason: "TIME LIMIT"}, true},
		{"https://github.com/desihub/desitarget/issues/628", "slurmstepd: error: *** STEP 32233190.0 ON nid01934 CANCELLED AT 2020-07-03T02:59:56 DUE TO TIME LIMIT ***",
			slurmCancel{what: "STEP", id: "32233190.0", node: "nid01934", reason: "TIME LIMIT"}, true},
		{"https://github.com/marbl/canu/issues/1067", "slurmstepd: *** JOB 830329 CANCELLED AT 2018-08-06T17:21:44 DUE TO TIME LIMIT on n447 ***",
			slurmCancel{what: "JOB", id: "830329", node: "n447", reason: "TIME LIMIT"}, true},
		{"https://github.com/DataBiosphere/toil/issues/4706", "slurmstepd-phoenix-07: error: *** JOB 1449736 ON phoenix-07 CANCELLED AT 2023-12-03T12:47:09 DUE TO TIME LIMIT ***",
			slurmCancel{what: "JOB", id: "1449736", node: "phoenix-07", reason: "TIME LIMIT"}, true},
		// a user's scancel: no reason
		{"https://github.com/bcbio/bcbio-nextgen/issues/741", "slurmstepd: *** JOB 1479012 CANCELLED AT 2015-02-04T06:33:25 *** on sh-2-3",
			slurmCancel{what: "JOB", id: "1479012"}, true},
		// Slurm's NODE_FAIL banner, the same format with its reason (slurmstepd's req.c wording)
		{"slurmstepd format, reason NODE FAILURE", "slurmstepd: error: *** JOB 2369366 ON gpu-1-9 CANCELLED AT 2014-09-18T10:00:00 DUE TO NODE FAILURE ***",
			slurmCancel{what: "JOB", id: "2369366", node: "gpu-1-9", reason: "NODE FAILURE"}, true},
		{"https://github.com/Nextomics/NextPolish/issues/122 (title prose)", "slurmstepd: error: JOB CANCELLED DUE TO TIME LIMIT", slurmCancel{}, false},
	} {
		got, ok := extractSlurmCancel(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractSlurmCancel(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// The tasks Slurm ends at the time limit are no OOM kills; slurmstepd's
// own oom_kill record still is one.
func TestSlurmCancelDefeatsKill(t *testing.T) {
	// desitarget#628's order: the banner, then srun's task deaths
	d := diagnoseWhole("slurm.out", []byte("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"+
		"slurmstepd: error: *** STEP 32233190.0 ON nid01934 CANCELLED AT 2020-07-03T02:59:56 DUE TO TIME LIMIT ***\n"+
		"srun: error: nid01934: task 2: Killed\nKilled\n"))
	if hasClass(d, ClassHostOOMKill) != nil {
		t.Errorf("a time-limit kill read as host_oom_kill: %v", classesOf(d))
	}
	d = diagnoseWhole("slurm.out", []byte("slurmstepd: error: *** JOB 1 ON n1 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n"+
		"slurmstepd: error: Detected 1 oom_kill event in StepId=1.0. Some of the step tasks have been OOM Killed.\n"+
		"srun: error: n1: task 0: Out Of Memory\n"))
	if hasClass(d, ClassHostOOMKill) == nil {
		t.Errorf("slurmstepd's oom_kill record lost: %v", classesOf(d))
	}
}

// A task the step's cgroup OOM-killed never joins the next collective: the
// others' watchdogs after it are its consequence, and the OOM kill leads.
// Wordings: nextflow-io/nextflow#5932 (slurmstepd + srun), the c10d
// watchdog of shared s08.
func TestSlurmOOMBeforeWatchdogsLeads(t *testing.T) {
	log := "slurmstepd: error: Detected 1 oom_kill event in StepId=11300781.0. Some of the step tasks have been OOM Killed.\n" +
		"srun: error: sdumont6156: task 3: Out Of Memory\n" +
		"[rank1]:[E1121 02:41:19.331910012 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=90211, OpType=_ALLGATHER_BASE, NumelIn=262144000, NumelOut=2097152000, Timeout(ms)=600000) ran for 600201 milliseconds before timing out.\n"
	d := diagnoseWhole("slurm.out", []byte(log))
	if len(d.Findings) < 2 || d.Findings[0].Class != ClassHostOOMKill {
		t.Fatalf("want host_oom_kill first: %v", classesOf(d))
	}
	if c := d.Findings[0].Culprit; c == nil || c.Rank == nil || *c.Rank != 3 {
		t.Errorf("the OOM kill does not name task 3: %+v", c)
	}
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || f.ConsequenceOf != ClassHostOOMKill {
		t.Errorf("watchdog not a consequence of the OOM kill: %+v", f)
	}
	// a bare "Killed" after the watchdog (the launcher's teardown, no
	// record of memory pressure) explains nothing
	d = diagnoseWhole("run.log", []byte("[rank1]:[E1121 02:41:19.331910012 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=90211, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600201 milliseconds before timing out.\nKilled\n"))
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || f.ConsequenceOf != "" {
		t.Errorf("a bare Killed after the watchdog demoted it: %v", classesOf(d))
	}
}
