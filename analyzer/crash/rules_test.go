package crash

import (
	"strings"
	"testing"
)

// ROCr's "Memory critical error … Memory in use" is the driver refusing to
// free / map memory (container SELinux, --ipc=host): not a shader fault.
func TestMemoryCriticalErrorIsDriverPath(t *testing.T) {
	// wording: ROCm/amdgpu#188 (RISC-V host), ROCm/ROCm#6182 (gfx1151)
	d := diagnoseWhole("run.log", []byte("Memory critical error by agent node-1 (Agent handle: 0x2aecc9cfe0) on address 0x3f8b182000. Reason: Memory in use.\nAborted (core dumped)\n"))
	f := hasClass(d, ClassDMADriverFault)
	if f == nil || hasClass(d, ClassGPUMemoryFault) != nil || f.Address != "0x3f8b182000" || f.Node == nil || *f.Node != 1 {
		t.Fatalf("%s", d.JSON())
	}
	if !strings.Contains(strings.Join(f.NextSteps, " "), "--ipc=host") {
		t.Fatalf("advice: %q", f.NextSteps)
	}
}

// A py-spy dump whose active thread is inside Triton's compiler is a Triton
// compile hang (seed 000 pattern 4), the watchdog its consequence.
func TestTritonCompileHang(t *testing.T) {
	log := `[2026-05-12 10:20:05 TP0] Watchdog timeout (self.watchdog_timeout=300)
Process 4242: sglang::scheduler_TP0
Python v3.10.12 (/usr/bin/python3.10)

Thread 4242 (active): "MainThread"
    _compile (triton/backends/amd/compiler.py:412)
    make_hsaco (triton/backends/amd/compiler.py:398)
    compile (triton/compiler/compiler.py:300)
    run (triton/runtime/jit.py:662)
    forward (sglang/srt/model_executor/model_runner.py:1000)
`
	d := diagnoseWhole("hang.log", []byte(log))
	if len(d.Findings) == 0 || d.Findings[0].Class != ClassTritonCompile {
		t.Fatalf("%s", d.JSON())
	}
}

// Defeater: watchdogs from ranks 0 and 7 without the world size do not prove
// ranks 1–6 missing (a truncated paste looks the same).
func TestMissingRanksNeedWorldSize(t *testing.T) {
	w := func(r string) string {
		return "[rank" + r + "]:[E1126 10:00:00.000000000 ProcessGroupNCCL.cpp:616] [Rank " + r + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n"
	}
	d := diagnoseWhole("w.log", []byte(w("0")+w("7")))
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.Culprit != nil && (len(f.Culprit.Ranks) > 0 || f.Culprit.Rank != nil) {
		t.Fatalf("a partial paste named culprits: %s", d.JSON())
	}
	// one rank missing among seven reporting is still the straggler
	var all string
	for _, r := range []string{"0", "1", "2", "4", "5", "6", "7"} {
		all += w(r)
	}
	d = diagnoseWhole("w.log", []byte(all))
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 3 {
		t.Fatalf("%s", d.JSON())
	}
}

// rocm-smi at 100 % with nothing else failing is a livelock candidate; next
// to a crash it is only context.
func TestSMIBusyLivelock(t *testing.T) {
	smi := "GPU[0]\t\t: GPU use (%): 100\nGPU[1]\t\t: GPU use (%): 100\n"
	d := diagnoseWhole("smi.log", []byte(smi))
	if len(d.Findings) != 1 || d.Findings[0].Class != ClassGPUKernelHang || !strings.Contains(strings.Join(d.Findings[0].NextSteps, " "), "info dispatches") {
		t.Fatalf("%s", d.JSON())
	}
	d = diagnoseWhole("smi.log", []byte(smi+"Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f0000001000. Reason: Page not present or supervisor privilege.\n"))
	if hasClass(d, ClassGPUKernelHang) != nil {
		t.Fatalf("a busy GPU next to a fault became a hang: %s", d.JSON())
	}
}

// The container's name fills the docker command of the advice.
func TestContainerNameInAdvice(t *testing.T) {
	d := diagnoseWhole("run.log", []byte("[pilot] trial 1 started: container trial-7b\n[pilot] trial 1 finished: container exited with signal 137 (SIGKILL)\n"))
	f := hasClass(d, ClassHostOOMKill)
	if f == nil || !strings.Contains(strings.Join(f.NextSteps, " "), "trial-7b") {
		t.Fatalf("%s", d.JSON())
	}
}

// Inductor's "compiled module X.py could not be loaded" names the kernel.
func TestTritonCacheModuleKernel(t *testing.T) {
	d := diagnoseWhole("r.log", []byte("[rank2]:E0512 15:20:44.118000 88213 site-packages/torch/_inductor/runtime/triton_heuristics.py:810] [0/0] Triton cache error: compiled module triton_poi_fused_add_0.py could not be loaded\n"))
	if f := hasClass(d, ClassTritonCompile); f == nil || f.Kernel != "triton_poi_fused_add_0" {
		t.Fatalf("%s", d.JSON())
	}
}

// A traceback through Inductor's _precompile_config is a Triton compile
// failure even when the paste stops before the exception text.
func TestPrecompileTracebackIsTritonCompile(t *testing.T) {
	d := diagnoseWhole("r.log", []byte("[rank6]:E1211 16:33:14.602000 1463070 site-packages/torch/_inductor/runtime/triton_heuristics.py:810] [0/0] Traceback (most recent call last):\n[rank6]:E1211 16:33:14.602000 1463070 site-packages/torch/_inductor/runtime/triton_heuristics.py:810] [0/0]   File \"/x/site-packages/torch/_inductor/runtime/triton_heuristics.py\", line 808, in _precompile_config\n"))
	if f := hasClass(d, ClassTritonCompile); f == nil || len(f.Ranks) != 1 || f.Ranks[0] != 6 {
		t.Fatalf("%s", d.JSON())
	}
}

// The process the kernel's own line names is the culprit when no other rule
// names one: the OOM killer's victim, the owner of a timed-out GPU job, the
// process whose GPU address space a page-fault decode names. Two
// different processes named leave no single culprit.
func TestKernelNamedProcessIsCulprit(t *testing.T) {
	for _, c := range []struct {
		src, class, log string
		pid             int // 0: no culprit process
	}{
		// dmesg -T, thousands separators in the kB figures (AutoVOD#7)
		{"autovod7", ClassHostOOMKill, "Killed\n[Sun Mar 30 08:24:00 2025] Out of memory: Killed process 7899 (python) total-vm:26,184,840kB, anon-rss:153,700,88kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:38964kB oom_score_adj:0\n", 7899},
		// dmesg --time-format iso (ert#7797)
		{"ert7797", ClassHostOOMKill, "2023-05-02T10:15:01,123456+00:00 Out of memory: Killed process 1440763 (perl) total-vm:60000000kB, anon-rss:59000000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:120000kB oom_score_adj:0\n", 1440763},
		// kernels before 4.19: the victim line without "Out of memory:" after
		// "Kill process N (x) score S or sacrifice child" (platform-resource-manager#42)
		{"prm42", ClassHostOOMKill, "[Thu Mar 14 01:57:55 2019] Out of memory: Kill process 89746 (python) score 1031 or sacrifice child\n[Thu Mar 14 01:57:55 2019] Killed process 89746 (python) total-vm:118026216kB, anon-rss:109819332kB, file-rss:3324kB, shmem-rss:0kB\n", 89746},
		// syslog prefix, the victim line alone (systemd#6966)
		{"systemd6966", ClassHostOOMKill, "Aug 18 03:19:11 169 kernel: Killed process 7748 (python) total-vm:12907828kB, anon-rss:11500204kB, file-rss:0kB\n", 7748},
		// syslog with a dmesg stamp, the victim line alone (cadvisor
		// utils/oomparser/oomparser_test.go endLine)
		{"cadvisor oomparser", ClassHostOOMKill, "Jan 21 22:01:49 localhost kernel: [62279.421192] Killed process 19667 (evilprogram2) total-vm:1460016kB, anon-rss:1414008kB, file-rss:4kB\n", 19667},
		// a kill loop over several processes: no single culprit
		{"kill loop", ClassHostOOMKill, "[  100.1] Out of memory: Killed process 2100 (containerd) total-vm:100kB, anon-rss:50kB\n[  101.4] Out of memory: Killed process 2200 (dockerd) total-vm:100kB, anon-rss:50kB\n", 0},
		// 5.x "Process information:" wording (picom#1390)
		{"picom1390", ClassGPUHangReset, "Nov 14 10:46:51 leviathan kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=5235351, emitted seq=5235353\nNov 14 10:46:51 leviathan kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process picom pid 37593 thread picom:cs0 pid 37625\nNov 14 10:46:51 leviathan kernel: amdgpu 0000:0c:00.0: amdgpu: GPU reset begin!\n", 37593},
		// 6.x " Process … pid" wording (SteamOS#2802)
		{"steamos2802", ClassGPUHangReset, "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1203, emitted seq=1205\namdgpu 0000:03:00.0: amdgpu:  Process WoWClassic.exe pid 47714 thread WoWClassic:cs0 pid 47720\namdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n", 47714},
		// the page-fault decode names the faulting address space's process:
		// 5.x "for process … pid" inside the header (tensorflow-upstream#998)
		{"tfupstream998", ClassGPUMemoryFault, "[  797.904843] amdgpu 0000:03:00.0: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:8 pasid:32779, for process python3 pid 11287 thread python3 pid 11287)\n[  797.904847] amdgpu 0000:03:00.0:   in page starting at address 0x000000000000d000 from client 27\n[  797.904850] amdgpu 0000:03:00.0: VM_L2_PROTECTION_FAULT_STATUS:0x00841051\n", 11287},
		// 6.x "Process … pid" on its own line, dmesg -T (ROCm#5745)
		{"rocm5745", ClassGPUMemoryFault, "[Tue Dec  9 17:04:29 2025] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32771)\n[Tue Dec  9 17:04:29 2025] amdgpu 0000:c1:00.0: amdgpu:  Process python pid 135872 thread python pid 135872\n[Tue Dec  9 17:04:29 2025] amdgpu 0000:c1:00.0: amdgpu:   in page starting at address 0x00007fc0ae772000 from client 10\n[Tue Dec  9 17:04:29 2025] amdgpu 0000:c1:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n", 135872},
		// newest " in process … pid" line, journal (cosmic-greeter#344)
		{"cosmicgreeter344", ClassGPUMemoryFault, "nov 04 13:30:18 odys25 kernel: amdgpu 0000:0d:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32770)\nnov 04 13:30:18 odys25 kernel: amdgpu 0000:0d:00.0: amdgpu:  in process cosmic-comp pid 4732 thread cosmic-com:cs0 pid 4753)\nnov 04 13:30:18 odys25 kernel: amdgpu 0000:0d:00.0: amdgpu:   in page starting at address 0x00008001089f0000 from client 10\nnov 04 13:30:18 odys25 kernel: amdgpu 0000:0d:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00301031\n", 4732},
		// FreeBSD "drmn0:" with an empty process name (drm-kmod#78)
		{"drmkmod78", ClassGPUMemoryFault, "Jun  9 19:25:15 verdandi kernel: drmn0: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:3 pasid:32770, for process  pid 101779 thread  pid 101779)\nJun  9 19:25:15 verdandi kernel: drmn0:   in page starting at address 0x000080011e074000 from client 27\nJun  9 19:25:15 verdandi kernel: drmn0: VM_L2_PROTECTION_FAULT_STATUS:0x00341051\n", 101779},
		// two processes fault: no single culprit
		{"two faulting processes", ClassGPUMemoryFault, "[  629.844077] amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process python pid 1796 thread python pid 1796)\n[  629.844087] amdgpu 0000:0b:00.0: amdgpu:   in page starting at address 0x00007f5279bab000 from client 0x1b (UTCL2)\n[  629.844090] amdgpu 0000:0b:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n[  630.844077] amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:9 pasid:32771, for process python pid 1900 thread python pid 1900)\n[  630.844087] amdgpu 0000:0b:00.0: amdgpu:   in page starting at address 0x00007f5279bac000 from client 0x1b (UTCL2)\n[  630.844090] amdgpu 0000:0b:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n", 0},
	} {
		d := diagnoseWhole("dmesg.log", []byte(c.log))
		f := hasClass(d, c.class)
		if f == nil {
			t.Fatalf("%s: no %s\n%s", c.src, c.class, d.JSON())
		}
		got := 0
		if f.Culprit != nil && f.Culprit.PID != nil {
			got = *f.Culprit.PID
		}
		if got != c.pid {
			t.Errorf("%s: culprit pid %d, want %d\n%s", c.src, got, c.pid, d.JSON())
		}
	}
}

// rocBLAS without a Tensile library for the device's arch is an arch
// mismatch: named ("for GPU arch : gfxN"), or in the 5.2–5.7 wording where
// rocBLAS fell back to the generic TensileLibrary.dat (arch unnamed, any
// errno); a per-arch library file or another rocBLAS error is not this.
func TestTensileLibraryForArch(t *testing.T) {
	for _, c := range []struct{ src, log, arch string }{
		{"brknsoul/ROCmLibs#4", `rocBLAS error: Cannot read C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1103` + "\n", "gfx1103"},
		{"llama.cpp#14421", "rocBLAS error: Cannot read /opt/rocm-6.4.1/lib/llvm/bin/../../../lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036\nAborted (core dumped)\n", "gfx1036"},
		{"FramePack-ZLUDA#4", `ocBLAS error: Cannot read C:\Program Files\AMD\ROCm\6.2\bin\/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1201` + "\nrocBLAS error: Could not initialize Tensile host:\n", "gfx1201"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		if f := hasClass(d, ClassArchMismatch); f == nil || f.Details["missing_isa"] != c.arch {
			t.Errorf("%s: want arch_mismatch for %s\n%s", c.src, c.arch, d.JSON())
		}
	}
	for _, c := range []struct {
		src, log string
		want     bool
	}{
		{"https://github.com/ROCm/Tensile/issues/1936 (ROCm 5.4)", "rocBLAS error: Cannot read /opt/rocm-5.4.0/lib/rocblas/library/TensileLibrary.dat: Illegal seek\nAborted (core dumped)\n", true},
		{"https://github.com/ROCm/rocBLAS/issues/1339 (torch wheel, gdb)", "rocBLAS error: Cannot read /home/redacted/venv/lib/python3.10/site-packages/torch/lib/rocblas/library/TensileLibrary.dat: Illegal seek\n\nThread 1 \"python3\" received signal SIGABRT, Aborted.\n", true},
		{"https://github.com/ROCm/rocBLAS/issues/1299 (title)", "rocBLAS error: Cannot read /home/chen/.local/lib/python3.8/site-packages/torch/lib/rocblas/library/TensileLibrary.dat: No such file or directory\n", true},
		// a per-arch file or the Tensile host init are other failures
		{"per-arch library", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary_gfx90a.dat: No such file or directory\n", false},
		{"https://github.com/githubcto/FramePack-ZLUDA/issues/4", "rocBLAS error: Could not initialize Tensile host:\nregex_error(error_backref): The expression contained an invalid back reference.\n", false},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassArchMismatch)
		if (f != nil) != c.want || f != nil && f.Details["missing_isa"] != "" {
			t.Errorf("%s: arch_mismatch %v, want %v\n%s", c.src, f != nil, c.want, d.JSON())
		}
	}
}

// A page fault in vmid 0 with no process is the driver's own VM (kernel
// GART: firmware, copy, display engines, module load), not an application
// kernel's memory fault; during a reset it is the reset's debris.
func TestKernelVMFaultIsDriverPath(t *testing.T) {
	for _, c := range []struct {
		src, log, class string
	}{
		// 5.x header with an empty process, client CPC, every OpenCL event fine (ROCm#2766, gfx1102)
		{"rocm2766", "[428921.293036] amdgpu 0000:83:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:0 pasid:0, for process  pid 0 thread  pid 0)\n[428921.293048] amdgpu 0000:83:00.0: amdgpu:   in page starting at address 0x00000000e8601000 from client 10\n[428921.293053] amdgpu 0000:83:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00000B32\n[428921.293058] amdgpu 0000:83:00.0: amdgpu: \t Faulty UTCL2 client ID: CPC (0x5)\n[428921.293067] amdgpu 0000:83:00.0: amdgpu: \t WALKER_ERROR: 0x1\n", ClassDMADriverFault},
		// the same thread's second report, dmesg -H relative stamps (ROCm 6.0, gfx1100)
		{"rocm2766 7900xtx", "[Dez26 08:58] amdgpu 0000:09:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:0 pasid:0, for process  pid 0 thread  pid 0)\n[  +0,000007] amdgpu 0000:09:00.0: amdgpu:   in page starting at address 0x0000000000b91000 from client 10\n", ClassDMADriverFault},
		// 6.x header with no process line, an app (MIGraphX) running (ROCm#5670, gfx1101)
		{"rocm5670", "[10265.148838] amdgpu 0000:28:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:0 pasid:0)\n", ClassDMADriverFault},
		// 4.1x "VMC page fault … vm_id:0 pas_id:0" at module load (FreeBSD kms-drm#76)
		{"kmsdrm76", "drmn0: [mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)\ndrmn0:   at page 0x00005b7199707000 from 18\ndrmn0: VM_L2_PROTECTION_FAULT_STATUS:0x00000000\n", ClassDMADriverFault},
		// after a compute ring reset: the reset's debris (ROCm#5997)
		{"rocm5997", "Feb 25 19:15:17 minty kernel: amdgpu 0000:03:00.0: amdgpu: ring comp_1.1.0 timeout, signaled seq=125, emitted seq=129\nFeb 25 19:15:17 minty kernel: amdgpu 0000:03:00.0: amdgpu:  Process firefox-bin pid 7401 thread firefox:cs0 pid 7453\nFeb 25 19:15:17 minty kernel: amdgpu 0000:03:00.0: amdgpu: Starting comp_1.1.0 ring reset\nFeb 25 19:15:17 minty kernel: amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:32 vmid:0 pasid:0)\nFeb 25 19:15:17 minty kernel: amdgpu 0000:03:00.0: amdgpu:   in page starting at address 0x0000000000000000 from client 10\nFeb 25 19:15:17 minty kernel: amdgpu 0000:03:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00040A40\n", ClassGPUHangReset},
	} {
		d := diagnoseWhole("dmesg.log", []byte(c.log))
		if hasClass(d, c.class) == nil || hasClass(d, ClassGPUMemoryFault) != nil {
			t.Errorf("%s: want %s and no %s\n%s", c.src, c.class, ClassGPUMemoryFault, d.JSON())
		}
	}
}
