package crash

import (
	"strings"
	"testing"
)

// Real wordings of Slurm and shell death lines (URLs per row) and what the
// exit extractors read from them.

func TestExtractSlurmTask(t *testing.T) {
	cases := []struct {
		src, text string
		want      slurmTask
		ok        bool
	}{
		{"https://github.com/tonyyxliu/CUHKSZ-CSC4005/issues/51", "srun: error: node25: task 11: Killed",
			slurmTask{host: "node25", tasks: "11", sig: "SIGKILL", code: 137}, true},
		{"https://github.com/ArjunaCluster/ArjunaUsers/issues/48", "srun: error: c002: task 0: Killed",
			slurmTask{host: "c002", tasks: "0", sig: "SIGKILL", code: 137}, true},
		{"https://github.com/ComputationalRadiationPhysics/picongpu/issues/198", "srun: error: taurusi2031: tasks 10-11: Exited with exit code 1",
			slurmTask{host: "taurusi2031", tasks: "10-11", code: 1, hasCode: true}, true},
		{"exit code of a signal", "srun: error: gpu-node-3: tasks 0-7: Exited with exit code 139",
			slurmTask{host: "gpu-node-3", tasks: "0-7", sig: "SIGSEGV", code: 139, hasCode: true}, true},
		// Slurm's cgroup OOM verdict per task (the step's memory limit)
		{"https://github.com/hafs-community/HAFS/issues/101", "srun: error: Orion-01-01: task 4: Out Of Memory",
			slurmTask{host: "Orion-01-01", tasks: "4", sig: "SIGKILL", code: 137, oom: true}, true},
		{"https://github.com/nextflow-io/nextflow/issues/5932", "srun: error: sdumont6156: task 0: Out Of Memory",
			slurmTask{host: "sdumont6156", tasks: "0", sig: "SIGKILL", code: 137, oom: true}, true},
		{"https://github.com/snakemake/snakemake-executor-plugin-slurm/pull/371", "srun: error: NODE: task 0: Out Of Memory",
			slurmTask{host: "NODE", tasks: "0", sig: "SIGKILL", code: 137, oom: true}, true},
		{"https://github.com/hafs-community/HAFS/issues/101", "srun: error: Orion-18-69: task 289: Bus error",
			slurmTask{host: "Orion-18-69", tasks: "289", sig: "SIGBUS", code: 135}, true},
		{"https://github.com/ai4d-iasc/trixie/issues/58 (a launch failure, not a task death)",
			"srun: error: Task launch for 36.0 failed on node cn131: Job credential expired", slurmTask{}, false},
	}
	for _, c := range cases {
		got, ok := extractSlurmTask(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractSlurmTask(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// slurmstepd's cgroup OOM report in the wordings of Slurm 19–24 (the
// "oom-kill event(s) in step N cgroup" form before 21.08, "StepId=" after,
// "oom_kill event(s)" + "step tasks have been OOM Killed" since 23.x).
func TestExtractSlurmOOM(t *testing.T) {
	cases := []struct {
		src, text string
		want      slurmOOM
		ok        bool
	}{
		{"https://github.com/nextflow-io/nextflow/issues/5932",
			"slurmstepd: error: Detected 1 oom_kill event in StepId=11300781.0. Some of the step tasks have been OOM Killed.",
			slurmOOM{events: 1, step: "11300781.0"}, true},
		{"https://github.com/snakemake/snakemake-executor-plugin-slurm/pull/371",
			"slurmstepd: error: Detected 2 oom_kill events in StepId=JOBID.13. Some of the step tasks have been OOM Killed.",
			slurmOOM{events: 2, step: "JOBID.13"}, true},
		{"https://github.com/ArjunaCluster/ArjunaUsers/issues/52",
			"slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
			slurmOOM{events: 1, step: "191.batch"}, true},
		{"https://github.com/hafs-community/HAFS/issues/101",
			"slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
			slurmOOM{events: 1, step: "3495064.0"}, true},
		{"https://github.com/lanl/PyBNF/issues/118",
			"slurmstepd: error: Detected 2 oom-kill event(s) in step 3756240.batch cgroup.",
			slurmOOM{events: 2, step: "3756240.batch"}, true},
		{"https://github.com/nathanweeks/exonerate/issues/31 (quoted inside a sentence)",
			"I've encountered a error while running the exonerate on HPC: _slurmstepd: error: Detected 12 oom-kill event(s) in StepId=16198179.batch. Some of your processes may have been killed",
			slurmOOM{events: 12, step: "16198179.batch"}, true},
		{"the step was cancelled, no OOM", "slurmstepd: error: *** STEP 881204.0 ON gpu-r3n07 CANCELLED AT 2026-06-23T04:11:52 ***", slurmOOM{}, false},
	}
	for _, c := range cases {
		got, ok := extractSlurmOOM(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractSlurmOOM(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestExtractShellDeath(t *testing.T) {
	cases := []struct {
		src, text string
		want      shellDeath
		ok        bool
	}{
		{"https://github.com/c3nl-neuraldynamics/c3nl_cluster/issues/20", "/tmp/slurmd/job603995/slurm_script: line 9:  4727 Killed",
			shellDeath{pid: 4727, sig: "SIGKILL", whole: true}, true},
		{"https://github.com/RohanDoshi2018/ZeroshotSemanticSegmentation/issues/1", "Segmentation fault (core dumped)",
			shellDeath{sig: "SIGSEGV", whole: true}, true},
		{"https://github.com/Zerg-Overmind/Strivec/issues/5", "Aborted (core dumped)",
			shellDeath{sig: "SIGABRT", whole: true}, true},
		// bash pads the signal name to a column before "(core dumped)"
		{"https://github.com/li3cmz/GRADE/issues/1", "Segmentation fault      (core dumped)",
			shellDeath{sig: "SIGSEGV", whole: true}, true},
		{"issues corpus (stable-diffusion webui.sh, HSA event 0x1008)", `./webui.sh: line 254: 154003 Aborted                 (core dumped) "${python_cmd}" "${LAUNCH_SCRIPT}" "$@"`,
			shellDeath{pid: 154003, sig: "SIGABRT", whole: true}, true},
		{"issues corpus (Wine mtgo launcher)", `/usr/local/bin/mtgo: line 26:   852 Segmentation fault      (core dumped) "${@}"`,
			shellDeath{pid: 852, sig: "SIGSEGV", whole: true}, true},
		{"issues corpus (git check-mailmap report)", `3724814 Segmentation fault      (core dumped) git check-mailmap "bugs@company.xx"`,
			shellDeath{pid: 3724814, sig: "SIGSEGV", whole: true}, true},
		{"issues corpus (a.out under bash)", "Aborted                 (core dumped)",
			shellDeath{sig: "SIGABRT", whole: true}, true},
		// the word opens a sentence: not a report of a death
		{"prose", "Killed processes are restarted by the supervisor", shellDeath{sig: "SIGKILL"}, true},
		{"no death word", "Training finished", shellDeath{}, false},
	}
	for _, c := range cases {
		got, ok := extractShellDeath(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractShellDeath(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// Go's os/exec error text (no real log found in the issues corpus; the
// wording is ExitError.String's "signal: " + the signal's description).
func TestExtractGoSignal(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"worker failed: signal: aborted", "SIGABRT"},
		{"exec: signal: killed", "SIGKILL"},
		{"signal: segmentation fault (core dumped)", "SIGSEGV"},
		{"signal: terminated", ""},
	} {
		if got := extractGoSignal(c.text); got != c.want {
			t.Errorf("extractGoSignal(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// The Slurm OOM rule on a real step (https://github.com/hafs-community/HAFS/issues/101):
// slurmstepd's cgroup report is a host OOM kill, srun's task line names the
// rank, the advice asks sacct about the step.
func TestSlurmOOMRule(t *testing.T) {
	log := `slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.
srun: error: Orion-01-01: task 4: Out Of Memory
srun: Terminating job step 3495064.0
slurmstepd: error: *** STEP 3495064.0 ON orion-01-01 CANCELLED AT 2021-10-27T19:35:36 ***
`
	d := diagnoseWhole("slurm.log", []byte(log))
	f := hasClass(d, ClassHostOOMKill)
	if f == nil || len(d.Findings) != 1 {
		t.Fatalf("want one host_oom_kill: %s", d.JSON())
	}
	if f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 4 {
		t.Errorf("culprit: want rank 4 (task 4): %s", d.JSON())
	}
	if f.Confidence < 0.85 || f.Details["slurm_step"] != "3495064.0" {
		t.Errorf("want a high-confidence finding with the step: %s", d.JSON())
	}
	if len(f.NextSteps) == 0 || !strings.Contains(f.NextSteps[0], "sacct -j 3495064.0 --format=JobID,ReqMem,MaxRSS,State") {
		t.Errorf("next steps do not ask sacct about the step: %v", f.NextSteps)
	}
}

// torch.multiprocessing.spawn's report of a child killed by a signal (real
// wordings, URL per row).
func TestExtractSpawnDeath(t *testing.T) {
	cases := []struct {
		src, text string
		want      spawnDeath
		ok        bool
	}{
		{"https://github.com/resistzzz/Prompt4NR/issues/3",
			"torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL", spawnDeath{0, "SIGKILL"}, true},
		{"https://github.com/dingjiansw101/ZegFormer/issues/19",
			"torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL", spawnDeath{1, "SIGKILL"}, true},
		{"https://github.com/yxlu-0102/MP-SENet/issues/7",
			"torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV", spawnDeath{0, "SIGSEGV"}, true},
		{"https://github.com/rshaojimmy/MultiModal-DeepFake/issues/24",
			"torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT", spawnDeath{1, "SIGABRT"}, true},
		{"https://github.com/facebookresearch/SlowFast/issues/118 (older torch)",
			"Exception: process 0 terminated with signal SIGSEGV", spawnDeath{0, "SIGSEGV"}, true},
		// the raise statement's format string (Lightning's traceback source): not the fact
		{"https://github.com/Lightning-AI/pytorch-lightning/issues/16475",
			`    141         "process %d terminated with signal %s" %`, spawnDeath{}, false},
	}
	for _, c := range cases {
		got, ok := extractSpawnDeath(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractSpawnDeath(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// A launcher reports a worker that exited with a plain non-zero code (no
// signal) and nothing else failed: the worker's own error (not_gpu), with
// the worker as culprit. Real wordings: accelerate's "stderr: " relay of
// torchrun (hiyouga/LlamaFactory#163), torch ≥ 2.2's bracketed level
// (xiuqhou/Salience-DETR#4), the failure table's root cause
// (pytorch/pytorch#121209).
func TestAppExitRule(t *testing.T) {
	cases := []struct {
		src, log  string
		rank, pid int
	}{
		{"https://github.com/hiyouga/LlamaFactory/issues/163", `stderr: WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 153929 closing signal SIGTERM
stderr: WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 153930 closing signal SIGTERM
stderr: ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 7 (pid: 153932) of binary: /home/panww/miniconda3/tools/bin/python
stderr: Traceback (most recent call last):
`, 7, 153932},
		{"https://github.com/xiuqhou/Salience-DETR/issues/4", `[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 5938 closing signal SIGTERM
[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 5939) of binary: /home/ubuntu/anaconda3/envs/salience_detr/bin/python
`, 2, 5939},
		{"https://github.com/pytorch/pytorch/issues/121209", `torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2024-03-05_07:01:51
  host      : node1
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 69812)
  error_file: <N/A>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-03-05_07:01:51
  host      : node1
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 69811)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
`, 0, 69811},
	}
	for _, c := range cases {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassNotGPU)
		if f == nil || len(d.Findings) != 1 {
			t.Errorf("%s: want one not_gpu finding: %s", c.src, d.JSON())
			continue
		}
		if cp := f.Culprit; cp == nil || cp.PID == nil || *cp.PID != c.pid || cp.Rank == nil || *cp.Rank != c.rank {
			t.Errorf("%s: culprit: want rank %d pid %d: %s", c.src, c.rank, c.pid, d.JSON())
		}
	}
	// a signal death is not an application exit
	d := diagnoseWhole("run.log", []byte("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 407727) of binary: /fs/bin/python\n"))
	if hasClass(d, ClassNotGPU) != nil || hasClass(d, ClassHostOOMKill) == nil {
		t.Errorf("exitcode -9 (showlab/EgoVLP#21): want host_oom_kill only: %s", d.JSON())
	}
}

// A GPU error whose lines all carry one worker's pid prefix and no rank
// names that worker as culprit (real wordings, URL per case); lines from
// two workers name none.
func TestWorkerPrefixCulprit(t *testing.T) {
	cases := []struct {
		src, log string
		pid      int
	}{
		{"https://github.com/rhymes-ai/Aria/issues/24",
			"(VllmWorkerProcess pid=2421) ERROR 10-14 12:32:47 multiproc_worker_utils.py:233] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.88 GiB. GPU 3 has a total capacity of 21.96 GiB of which 1.29 GiB is free.\n", 2421},
		{"https://github.com/vllm-project/vllm/issues/15598 (Ray worker, with ip)",
			"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR 03-27 10:29:13 [worker_base.py:620] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity of 44.53 GiB of which 448.00 KiB is free.\n", 206994},
		{"two workers (vllm-project/vllm#11251 wording, pids 90 and 91)",
			"(VllmWorkerProcess pid=90) ERROR 12-16 21:40:15 multiproc_worker_utils.py:229] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n(VllmWorkerProcess pid=91) ERROR 12-16 21:40:15 multiproc_worker_utils.py:229] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n", 0},
	}
	for _, c := range cases {
		d := diagnoseWhole("vllm.log", []byte(c.log))
		f := hasClass(d, ClassVRAMOOM)
		if f == nil {
			t.Fatalf("%s: no vram_oom: %s", c.src, d.JSON())
		}
		got := 0
		if f.Culprit != nil && f.Culprit.PID != nil {
			got = *f.Culprit.PID
		}
		if got != c.pid {
			t.Errorf("%s: culprit pid %d, want %d: %s", c.src, got, c.pid, d.JSON())
		}
	}
}

// A Windows process crash, in the wordings of a crash handler, Event
// Viewer, Windows Error Reporting and an IDE (real lines, URL per row).
func TestExtractWindowsException(t *testing.T) {
	for _, c := range []struct{ src, text, want string }{
		{"https://github.com/ROCm/rocm-libraries/issues/5205", "Exception Code: 0xC0000005", "SIGSEGV"},
		{"https://github.com/aqarooni02/Comfyui-AMD-Windows-Install-Script/issues/4", "Exception Code: 0xC0000005", "SIGSEGV"},
		{"https://github.com/mhammond/pywin32/issues/2155", "Exception code: 0xc0000005", "SIGSEGV"},
		{"https://github.com/parkin/pypore/issues/14", "  Exception Code:	c0000005", "SIGSEGV"},
		{"https://github.com/WenmuZhou/PSENet.pytorch/issues/82", "Process finished with exit code -1073741819 (0xC0000005)", "SIGSEGV"},
		{"https://github.com/python/cpython/issues/79435", "Process finished with exit code -1073741795 (0xC000001D)", "SIGILL"},
		{"https://github.com/lee-zq/VesselSeg-Pytorch/issues/13", "Process finished with exit code -1073740791 (0xC0000409)", "SIGABRT"},
		// the access violation in words, without its NTSTATUS
		{"https://github.com/ROCm/ROCm/issues/3133", "amdhip64.dll -> hipMemUnmap + 340128 - Access Violation reading location 0x00000020", "SIGSEGV"},
		{"https://github.com/danielkrupinski/Osiris/issues/1130", "Access violation reading location 0x00000004.", "SIGSEGV"},
		{"https://github.com/ObjectVision/GeoDMS/issues/1127", "Exception thrown at 0x00007FF968A76140 (geos.dll) in GeoDmsGuiQt.exe: 0xC0000005: Access violation reading location 0x0000000000000000.", "SIGSEGV"},
		{"https://github.com/RedisDesktop/rdm-debug-symbols/issues/50", "Crash reason:  EXCEPTION_ACCESS_VIOLATION_READ", "SIGSEGV"},
		{"https://github.com/tmp64/BugfixedHL-Rebased/issues/159", "  Exception EXCEPTION_ACCESS_VIOLATION (0xC0000005) at address 0x76FF733D (ntdll.dll).", "SIGSEGV"},
		// source quoted with the crash in a comment; a title without an address
		{"code comment", "\tJS_XDRMemSetData(xdr2, NULL, 0); // <- Access violation reading location 0x00000000.", ""},
		{"https://github.com/ObjectVision/GeoDMS/issues/1045", "Access violation reading location", ""},
		{"prose", "an access violation reading location zero is a null dereference", ""},
		// a missing DLL (0xc0000135) is a load failure, not a crash
		{"https://github.com/pytorch/pytorch/issues/16690", "The program '[3944] example-app.exe' has exited with code -1073741515 (0xc0000135).", ""},
		{"prose", "Exception code tables list 0xC0000005 as an access violation", ""},
	} {
		if got := extractWindowsException(c.text); got != c.want {
			t.Errorf("%s: extractWindowsException(%q) = %q, want %q", c.src, c.text, got, c.want)
		}
	}
}

// The shell's job line names the process the signal killed: with the
// cgroup's OOM report it is the culprit pid (a Slurm batch script,
// https://github.com/c3nl-neuraldynamics/c3nl_cluster/issues/20 and
// https://github.com/ArjunaCluster/ArjunaUsers/issues/52).
func TestShellJobLineNamesKilledPID(t *testing.T) {
	log := `Killed
/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 main.py --epochs 400
slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.
`
	d := diagnoseWhole("slurm.log", []byte(log))
	f := hasClass(d, ClassHostOOMKill)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 8156 {
		t.Fatalf("want host_oom_kill with culprit pid 8156: %s", d.JSON())
	}
}

// DeepSpeed's launcher reports its child's return code from its signal
// handler; a negative code is the killing signal (-9 SIGKILL → the host OOM
// killer's usual mark, -11 SIGSEGV → a host segfault).
func TestExtractLauncherReturn(t *testing.T) {
	for _, c := range []struct {
		src, line string
		code      int
		class     string
	}{
		{"https://github.com/deepspeedai/DeepSpeed/issues/3232", "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=0', '--zero_stage', '2', '--deepspeed'] exits with return code = -9", -9, ClassHostOOMKill},
		{"https://github.com/deepspeedai/DeepSpeed/issues/4890", "[ERROR] [launch.py:321:sigkill_handler [xxx] exits with return code = -9", -9, ClassHostOOMKill},
		{"https://github.com/deepspeedai/DeepSpeed/issues/3989 (title wording)", "[2023-07-19 10:43:20,101] [ERROR] [launch.py:321:sigkill_handler] ['/home/u/anaconda3/envs/bit/bin/python', '-u', 'src/clip_fine_tune_deepspeed.py'] exits with return code = -11", -11, ClassHostSegfault},
	} {
		code, ok := extractLauncherReturn(c.line)
		if ok != (c.class != "") || code != c.code {
			t.Errorf("%s: extractLauncherReturn = %d, %v", c.src, code, ok)
		}
		if c.class != "" && hasClass(diagnoseWhole("ds.log", []byte(c.line+"\n")), c.class) == nil {
			t.Errorf("%s: want %s", c.src, c.class)
		}
	}
}

// faulthandler prints in the dying process: a segfault whose lines carry
// one worker's pid prefix names that worker (vllm-project/vllm#6106's and
// #20431's "(RayWorkerWrapper pid=N)" / "(WorkerDict pid=N)" wording).
func TestWorkerPrefixSegfaultCulprit(t *testing.T) {
	for _, c := range []struct {
		src, log string
		pid      int
	}{
		{"https://github.com/vllm-project/vllm/issues/6106", "(RayWorkerWrapper pid=9821) Fatal Python error: Segmentation fault\n(RayWorkerWrapper pid=9821) \n(RayWorkerWrapper pid=9821) Extension modules: msgpack._cmsgpack, torch._C (total: 41)\n", 9821},
		{"https://github.com/vllm-project/vllm/issues/20431", "(WorkerDict pid=494481) Fatal Python error: Segmentation fault\n(WorkerDict pid=494481)   File \"/home/linxiang/miniconda3/envs/DAPO/lib/python3.10/site-packages/ray/_private/worker.py\", line 953 in main_loop\n", 494481},
	} {
		d := diagnoseWhole("ray.log", []byte(c.log))
		f := hasClass(d, ClassHostSegfault)
		if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != c.pid {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
}
