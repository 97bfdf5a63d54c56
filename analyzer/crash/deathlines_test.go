package crash

import "testing"

// Deaths by signal as other shells, gdb on a core, PyTorch's DataLoader and
// the Go runtime print them, each wording from public threads.
func TestSignalDeathLines(t *testing.T) {
	cases := []struct {
		src, text string
		class     string
		pid       int // the culprit the line names (0: none)
	}{
		{"https://github.com/SeanNaren/deepspeech.pytorch/issues/172", "[1]    83815 segmentation fault  python train.py --train_manifest  --val_manifest  --batch_size 64 --cuda", ClassHostSegfault, 83815},
		{"a triton build script's note (macOS)", `# [1]    19509 segmentation fault  python -c "import triton._C.libtriton"`, "", 0}, // a comment quoting it is no evidence
		{"https://github.com/python/cpython/issues/121047", "zsh: segmentation fault  python src/toolkit/app.py", ClassHostSegfault, 0},
		{"https://github.com/MhLiao/DB/issues/94", "RuntimeError: DataLoader worker (pid 25902) is killed by signal: Segmentation fault", ClassHostSegfault, 25902},
		{"https://github.com/ymoslem/OpenNMT-Tutorial/issues/6", "RuntimeError: DataLoader worker (pid 629) is killed by signal: Killed.", ClassHostOOMKill, 629},
		{"https://github.com/mjiUST/SurfaceNet/issues/5", "Program terminated with signal SIGSEGV, Segmentation fault.", ClassHostSegfault, 0},
		{"https://github.com/glotzerlab/hoomd-blue/issues/171", "Program terminated with signal 11, Segmentation fault.", ClassHostSegfault, 0},
		{"https://github.com/NVIDIA/nvidia-container-toolkit/issues/809", "docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 2, stdout: , stderr: SIGSEGV: segmentation violation                         PC=0x5613aba74000 m=0 sigcode=2 addr=0x5613aba74000", ClassHostSegfault, 0},
		{"https://github.com/AbdBarho/stable-diffusion-webui-docker/issues/498", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x8 pc=0x7f83bd62f3dd]", ClassHostSegfault, 0},
		// bash's job line names the pid too (exit.go extractShellDeath)
		{"https://github.com/PTRFRLL/nv-docker-trex/issues/26", "init.sh: line 7: 9 Segmentation fault ./t-rex -c /config/config.json", ClassHostSegfault, 9},
		{"https://github.com/datong-new/Point-GNN.pytorch/issues/12", "train.sh: line 2: 48996 Segmentation fault      (core dumped) python3 mytrain.py configs/car_auto_T3_train_train_config configs/car_auto_T3_train_config --dataset_root_dir data", ClassHostSegfault, 48996},
		{"https://github.com/ArjunaCluster/ArjunaUsers/issues/52", "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 main.py", ClassHostOOMKill, 8156},
		// the kernel's report of the process it signalled (dmesg / journal)
		{"https://github.com/vladmandic/sdnext/issues/2252", "[Mon Sep 25 20:37:11 2023] python3[15122]: segfault at 20 ip 00007f44bdeb40a7 sp 00007f417aa34010 error 4 in libamdhip64.so[7f44bde00000+3f3000] likely on CPU 10 (core 2, socket 0)", ClassHostSegfault, 15122},
		{"https://github.com/vladmandic/sdnext/issues/2432", "```[23596.859870] python3[119375]: segfault at 20 ip 00007f0b49eb0527 sp 00007f086bffca30 error 4 in libamdhip64.so[7f0b49e00000+3ec000] likely on CPU 9 (core 4, socket 0)", ClassHostSegfault, 119375},
		{"https://github.com/pop-os/cosmic-comp/issues/2626", "Jul 24 12:26:21 macross kernel: tokio-rt-worker[3976]: segfault at 29c ip 0000758b29614d2c sp 0000758b099fe2e0 error 6 in libwayland-client.so.0.23.1[758b29612000+6000] likely on CPU 1 (core 1, socket 0)", ClassHostSegfault, 3976},
		{"https://github.com/ROCm/legacy-rocm-build/issues/6143", "[   74.444098] traps: python[3097] general protection fault ip:7f00fdcb09df sp:7efe60cfa850 error:0 in libamdhip64.so.7.2.70201[2b09df,7f00fda23000+481000]", ClassHostSegfault, 3097},
		{"https://github.com/vladmandic/sdnext/issues/913", `audit[40923]: ANOM_ABEND auid=1000 uid=1000 gid=1000 ses=2 subj=unconfined pid=40923 comm="python3" exe="/usr/bin/python3.10" sig=11 res=1`, ClassHostSegfault, 40923},
		// Google's failure signal handlers (glog, absl), as TensorFlow, Paddle and Ray print them
		{"https://github.com/PaddlePaddle/Paddle/issues/9245 (glog)", "*** SIGSEGV (@0x8) received by PID 298 (TID 0x7f0b2f5fe700) from PID 8; stack trace: ***", ClassHostSegfault, 298},
		{"https://github.com/PaddlePaddle/PaddleSpeech/issues/444 (glog behind Paddle's own glog prefix)", "W0411 14:10:20.248174    38 init.cc:217] *** SIGSEGV (@0x7f20ad805b40) received by PID 38 (TID 0x7f2907a4cf40) from PID 18446744072325454656; stack trace: ***", ClassHostSegfault, 38},
		{"https://github.com/opendatalab/PDF-Extract-Kit/issues/74 (Paddle's error summary)", "  [SignalInfo: *** SIGSEGV (@0x0) received by PID 5695 (TID 0x7f370f34f280) from PID 0 ***]", ClassHostSegfault, 5695},
		// absl's line names no pid, but Ray's relay prefix does: the
		// handler prints in the dying worker (culprit.go's worker-prefix rule)
		{"https://github.com/vllm-project/vllm/issues/6783 (absl behind Ray's relay and logging.cc)", "(RayWorkerWrapper pid=24036) [2024-07-25 10:46:00,050 E 24036 24036] logging.cc:440: *** SIGSEGV received at time=1721904360 on cpu 140 ***", ClassHostSegfault, 24036},
		{"https://github.com/ray-project/ray/issues/43456 (absl)", "[2024-02-27 18:08:15,439 E 73667 73667] logging.cc:361: *** SIGSEGV received at time=1709028495 on cpu 22 ***", ClassHostSegfault, 0},
		{"https://github.com/vllm-project/vllm/issues/1091 (absl SIGBUS: shared memory, sigbus.go)", "(RayWorker pid=1451) *** SIGBUS received at time=1695144916 on cpu 3 ***", ClassHostOOMKill, 0},
		{"https://github.com/komikndr/raylight/issues/102 (a SIGABRT decides nothing here)", "*** SIGABRT received at time=1786031662 on cpu 10 ***", "", 0},
		// UCX's handler: [host:pid:thread:tid], the older [host:pid :thread], or no bracket
		{"https://github.com/PHAREHUB/PHARE/issues/878", "[node024:53956:0:53956] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x18)", ClassHostSegfault, 53956},
		{"https://github.com/openucx/ucx/issues/1542", "17:53:48 [hpc-test-node2:6294 :2] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))", ClassHostSegfault, 6294},
		{"https://github.com/fmihpc/vlasiator/issues/751", "Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)", ClassHostSegfault, 0},
		// Open MPI's handler: "[host:pid] Signal: Segmentation fault (11)"
		{"https://github.com/NVIDIA/nccl/issues/20", "[nhri:08445] Signal: Segmentation fault (11)", ClassHostSegfault, 8445},
		{"https://github.com/open-mpi/ompi/issues/1999", "[drossetti-ivy5:15288] Signal: Segmentation fault (11)", ClassHostSegfault, 15288},
		{"https://github.com/chainer/chainermn/issues/64", "[nelson-lab0:04968] Signal: Segmentation fault (11)", ClassHostSegfault, 4968},
		{"Open MPI's handler, another signal (no crash by itself)", "[nhri:08445] Signal: Aborted (6)", "", 0},
		// a kernel oops' own GPF header names no user process
		{"https://github.com/ROCm/legacy-rocm-build/issues/484 (oops form)", "[  193.780892] general protection fault: 0000 [#1] SMP NOPTI", "", 0},
		// prose about the signal is none
		{"prose", "The segmentation violation happens when the program reads a freed pointer.", "", 0},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if c.class == "" {
			if hasClass(d, ClassHostSegfault) != nil || hasClass(d, ClassHostOOMKill) != nil {
				t.Errorf("%s: %q: %v, want no death", c.src, c.text, classesOf(d))
			}
			continue
		}
		f := hasClass(d, c.class)
		if f == nil {
			t.Errorf("%s: %q: %v, want %s", c.src, c.text, classesOf(d), c.class)
			continue
		}
		got := 0
		if f.Culprit != nil && f.Culprit.PID != nil {
			got = *f.Culprit.PID
		}
		if got != c.pid {
			t.Errorf("%s: %q: culprit pid %d, want %d", c.src, c.text, got, c.pid)
		}
	}
}
