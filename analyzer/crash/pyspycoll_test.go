package crash

import "testing"

func TestDistCollective(t *testing.T) {
	yes := []pyFrame{
		{"all_gather_into_tensor", "torch/distributed/distributed_c10d.py:2709"}, // accelerate#3104
		{"all_gather_into_tensor", "deepspeed/comm/comm.py:305"},                 // accelerate#3104
		{"all_reduce", "torch/distributed/distributed_c10d.py:2806"},             // returnn#1484
		{"barrier", "torch/distributed/distributed_c10d.py:4622"},
		{"broadcast_object_list", "torch/distributed/distributed_c10d.py:3480"},
	}
	no := []pyFrame{
		{"wait", "threading.py:324"},
		{"recv", "redis/_compat.py:79"},
		{"c10d::ProcessGroupGloo::RecvWork::wait", "libtorch_cpu.so"},
		{"all_reduce", "vllm/distributed/device_communicators/cuda_communicator.py:62"},
		{"wrapper", "torch/distributed/c10d_logger.py:72"},
	}
	for _, f := range yes {
		if !distCollective(f) {
			t.Errorf("%+v: want a distributed collective", f)
		}
	}
	for _, f := range no {
		if distCollective(f) {
			t.Errorf("%+v: not a distributed collective", f)
		}
	}
}

// The rule: a py-spy dump whose thread waits in a distributed collective,
// nothing else → collective_timeout; generic waits, or another finding,
// keep cpu_hang.
func TestPyspyCollectiveHang(t *testing.T) {
	zero3 := `Thread 42 (idle): "MainThread"
    backward (torch/autograd/__init__.py:266)
    backward (accelerate/accelerator.py:2126)
Thread 4079 (active)
    all_gather_into_tensor (torch/distributed/distributed_c10d.py:2709)
    wrapper (torch/distributed/c10d_logger.py:72)
    all_gather_into_tensor (deepspeed/comm/comm.py:305)
`
	generic := `Thread 0x7F768F77C740 (idle): "MainThread"
    wait (threading.py:295)
    result (_base.py:427)
    main (main.py:841)
`
	cases := []struct{ name, log, want string }{
		{"ZeRO-3 all-gather wait (accelerate#3104)", zero3, ClassCollectiveTimeout},
		{"a future's wait (gprofiler#612)", generic, ClassCPUHang},
		{"SGLang's watchdog owns the hang", "[2025-01-01 10:00:00] Watchdog timeout (self.watchdog_timeout=300)\n" + zero3, ClassCPUHang},
	}
	for _, c := range cases {
		d := diagnoseWhole("pyspy.txt", []byte(c.log))
		if len(d.Findings) == 0 || d.Findings[0].Class != c.want {
			t.Errorf("%s: got %+v, want %s", c.name, d.Findings, c.want)
		}
	}
}

// py-spy dumps in one file per rank read as one dump of all ranks does
// (crash-seedcases c07, crash-heldout3 e12): the rank waiting for the GPU
// is the hang, the ranks waiting in the collective are its consequence.
// Without the GPU wait the collective waits stay a hang of their own.
func TestPySpyPerRankFilesGPUWaitExplainsCollectiveWaiters(t *testing.T) {
	coll := func(pid string) string {
		return "Process " + pid + ": python3 train.py\nPython v3.12.3 (/usr/bin/python3.12)\n\nThread " + pid + " (idle): \"MainThread\"\n    pthread_cond_timedwait@@GLIBC_2.3.2 (libc.so.6)\n    c10d::ProcessGroupNCCL::WorkNCCL::wait (libtorch_hip.so)\n    all_reduce (torch/distributed/distributed_c10d.py:2806)\n    train_step (train.py:212)\n"
	}
	gpu := "Process 60121: python3 train.py\nPython v3.12.3 (/usr/bin/python3.12)\n\nThread 60121 (idle): \"MainThread\"\n    hsa_signal_wait_scacquire (libhsa-runtime64.so.1)\n    hipDeviceSynchronize (libamdhip64.so.6)\n    synchronize (torch/cuda/__init__.py:985)\n    train_step (train.py:219)\n"
	run := func(files ...string) *Diagnosis {
		s := New()
		for i, f := range files {
			s.BeginFile("rank" + itoa(i) + ".pyspy")
			s.Write([]byte(f))
			s.EndFile()
		}
		return s.Diagnosis()
	}
	d := run(coll("60120"), gpu, coll("60122"), coll("60123"))
	if hasClass(d, ClassGPUKernelHang) == nil || hasClass(d, ClassCPUHang) != nil {
		t.Errorf("per-rank files, one in synchronize: want gpu_kernel_hang alone, got %v", classesOf(d))
	}
	if d := run(coll("60120"), coll("60122")); hasClass(d, ClassGPUKernelHang) != nil || len(d.Findings) == 0 {
		t.Errorf("collective waits alone: got %v", classesOf(d))
	}
}
