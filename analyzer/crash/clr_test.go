package crash

import (
	"strings"
	"testing"
)

func TestCLRGolden(t *testing.T) {
	d := goldenCase(t, "clr_s14.golden.json", "shared:s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log")
	f := hasClass(d, ClassIllegalInstruction)
	if f == nil || f.Details["kernel_isa"] != "gfx908" || f.Queue != "0x7387a8e00000" || f.HSACode != "0x2a" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "clr_s12.golden.json", "shared:s12_hsa_exception_0x1016_tp8_no_kernel_atom.log")
	if f := hasClass(d, ClassDeviceAssert); f == nil || f.QueueCount != 8 || f.ExitCode == nil || *f.ExitCode != -6 {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "clr_hip_trace.golden.json", "testdata/hip_trace_launch.log")
	if hasClass(d, ClassInvalidLaunch) == nil || hasClass(d, ClassArchMismatch) == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func TestHIPTables(t *testing.T) {
	if e := lookupHIPName("cudaErrorIllegalAddress"); e == nil || e.name != "hipErrorIllegalAddress" || e.code != 700 {
		t.Fatal(e)
	}
	if e := lookupHIPName("hipErrorInvalidLaunchConfig"); e == nil || e.code != 9 {
		t.Fatal(e)
	}
	if e := lookupHIPText("invalid device function  "); e == nil || e.code != 98 {
		t.Fatal(e)
	}
	if st := lookupHSA("HSA_STATUS_ERROR_EXCEPTION"); st == nil || st.code != "0x1016" {
		t.Fatal(st)
	}
}

func FuzzCLR(f *testing.F) {
	seedFuzz(f, "shared:s12_hsa_exception_0x1016_tp8_no_kernel_atom.log", "shared:s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log", "shared:s17_hip_invalid_device_function_amd_log_level3_rocm2527.log", "testdata/hip_trace_launch.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &clrParser{s: s} }), data, cut)
	})
}

// ROCm prints the queue abort first and CLR's dispatch dump after it; the
// dump names the aborted kernel unless it belongs to another pid.
func TestKernelNameAfterQueueAbort(t *testing.T) {
	abort := ":0:rocdevice.cpp            :3020: 8812033411 us: [pid:44017 tid:0x7f9a5bfff640] Callback: Queue 0x7f98d3c00000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29\n"
	dump := func(pid string) string {
		return ":1:rocvirtual.cpp           :3417: 8812033428 us: [pid:" + pid + " tid:0x7f9a5bfff640] Kernel Name: _Z22scatter_add_rows_kernelPKfPKlPfii\n"
	}
	for _, c := range []struct {
		pid  string
		want bool
	}{{"44017", true}, {"50000", false}} {
		s := New()
		s.BeginFile("hip.log")
		s.Write([]byte(abort + dump(c.pid)))
		s.EndFile()
		f := hasClass(s.Diagnosis(), ClassGPUMemoryFault)
		if f == nil || strings.Contains(f.Kernel+f.KernelMangled, "scatter_add_rows_kernel") != c.want {
			t.Errorf("pid %s: %+v", c.pid, f)
		}
	}
}

// HSA status wordings across ROCm versions (sources per row).
func TestExtractHSAStatus(t *testing.T) {
	cases := []struct {
		src, text, name, code string
		abort                 bool
	}{
		{"https://github.com/ROCm/legacy-rocm-build/issues/1393 (ROCm 3.x/4.0: code only)",
			":0:rocdevice.cpp            :2303: 768423197593 us: Device::callbackQueue aborting with status: 0x100f", "HSA_STATUS_ERROR_INVALID_ISA", "0x100f", true},
		{"https://github.com/ROCm/hip/issues/2482 (ROCm 5.x Device::callbackQueue with name)",
			":0:rocdevice.cpp            :2603: 2338244645597 us: 305  : [tid:0x7f194a44e700] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016", "HSA_STATUS_ERROR_EXCEPTION", "0x1016", true},
		{"ROCm 6.x/7.x CLR 'Callback: Queue … aborting' (crash-heldout b15 wording)",
			":0:rocdevice.cpp            :3020: 8812033411 us: [pid:44017 tid:0x7f9a5bfff640] Callback: Queue 0x7f98d3c00000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29", "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "0x29", true},
	}
	for _, c := range cases {
		f, ok := extractHSAStatus(c.text)
		if !ok || f.name != c.name || f.code != c.code || f.abort != c.abort {
			t.Errorf("%s\n got %+v ok=%v", c.src, f, ok)
		}
	}
	// Quoted mentions: a shell check of a log, a Python marker tuple (both
	// seen in public repositories' crash-triage scripts), an on-call note
	// (crash-heldout2 d36). Never a finding; the runtime's own print is.
	for _, q := range []string{
		`    if grep -q "HSA_STATUS_ERROR_EXCEPTION" "$ITER_LOG" 2>/dev/null; then`,
		`_FAULT_MARKERS = ("FAILED", "HSA_STATUS_ERROR_EXCEPTION", "Memory access fault", "core dumped")`,
		`Conclusion: no "Memory access fault", no 'HSA_STATUS_ERROR_EXCEPTION', no OOM kill -- the`,
	} {
		if f, ok := extractHSAStatus(q); !ok || !f.quoted {
			t.Errorf("quoted mention not flagged: %q %+v", q, f)
		}
		if d := diagnoseWhole("note.log", []byte(q+"\n")); len(d.Findings) != 0 {
			t.Errorf("quoted mention became a finding: %q\n%s", q, d.JSON())
		}
	}
	if f, _ := extractHSAStatus(cases[1].text); f.quoted {
		t.Errorf("runtime print taken for a quote: %+v", f)
	}
	if f, ok := extractHSAStatus("HSA_STATUS_ alone, HSA_STATUS_0x1016"); ok {
		t.Errorf("a bare prefix is no status: %+v", f) // and never a panic
	}
	if f, ok := extractHSAStatus("status HSA_STATUS_SUCCESS"); ok {
		t.Errorf("success is no fact: %+v", f)
	}
	d := diagnoseWhole("rocm3.log", []byte(cases[0].text+"\n"))
	if f := hasClass(d, ClassArchMismatch); f == nil || f.HSAStatus != "HSA_STATUS_ERROR_INVALID_ISA" {
		t.Errorf("code-only abort: %s", d.JSON())
	}
}

// A status an HSA API call returned at start-up, as rocminfo reports it, is
// a setup problem (permissions, /dev/kfd, unsupported GPU), not a GPU
// failure; the same status in a queue abort still is one.
func TestHSAStartupStatusIsNotAFailure(t *testing.T) {
	for _, c := range []struct {
		src, log string
		want     string // "" no finding
	}{
		// ROCm 2.9 rocminfo on an iGPU laptop (ROCm#930)
		{"rocm930", "hsa api call failure at: /data/jenkins_workspace/compute-rocm-rel-2.9/rocminfo/rocminfo.cc:1102\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.\n", ""},
		// after "Unable to open /dev/kfd read-write: Cannot allocate memory" (ROCm#2232, PITCAIRN)
		{"rocm2232", "ROCk module is loaded\nUnable to open /dev/kfd read-write: Cannot allocate memory\nigor is member of render group\nhsa api call failure at: /src/rocminfo/rocminfo.cc:1142\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.\n", ""},
		// under strace, the write(1, …) of the same report (ROCm#1088)
		{"rocm1088", "openat(AT_FDCWD, \"/dev/kfd\", O_RDWR|O_CLOEXEC) = -1 ENOMEM (Cannot allocate memory)\nwrite(1, \"\\33[31mhsa api call failure at: /d\"..., 101hsa api call failure at: /data/jenkins-workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\n) = 101\nwrite(1, \"\\33[31mCall returned HSA_STATUS_ER\"..., 228Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.\n) = 228\n", ""},
		// a queue abort with the same status is the runtime's own failure (Legion#1339)
		{"legion1339", ":0:rocdevice.cpp            :2652: 4238358292712 us: 48946: [tid:0x7fffd023f700] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events. code: 0x1008\n", ClassVRAMOOM},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		switch {
		case c.want == "" && len(d.Findings) > 0:
			t.Errorf("%s: want no finding\n%s", c.src, d.JSON())
		case c.want != "" && hasClass(d, c.want) == nil:
			t.Errorf("%s: want %s\n%s", c.src, c.want, d.JSON())
		}
	}
}

// The CLR status line's own facts beside the status: the queue and the
// pid of CLR's stamp wherever the stamp stands — at the line start, behind
// a benchmark runner's prefix (mila-iqia/milabench#335), a bug title's
// "[Bug]: " (AUTOMATIC1111/stable-diffusion-webui#9283) or a backtick
// (parthenon-hpc-lab/parthenon#1101), ROCm 5's "us: N: [tid:" and ROCm 6's
// "us: [pid:N tid:" — and none from a line without a stamp
// (ggml-org/whisper.cpp#3576).
func TestExtractHSAStatusFacts(t *testing.T) {
	cases := []struct {
		src, text, queue string
		pid              int
	}{
		{"https://github.com/mila-iqia/milabench/issues/335", "brax.0 [stderr] :0:rocdevice.cpp            :2984: 159730272363 us: [pid:403868 tid:0x7f37b81ff640] Callback: Queue 0x7ef728200000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29", "0x7ef728200000", 403868},
		{"https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9283", "[Bug]: :0:rocdevice.cpp :2673: 1263352162 us: 21870: [tid:0x7f64e3eff640] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory b", "", 21870},
		{"https://github.com/parthenon-hpc-lab/parthenon/issues/1101", "`:0:rocdevice.cpp            :2660: 556940992572 us: 32834: [tid:0x7f9e41945700] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29`", "", 32834},
		{"https://github.com/ROCm/legacy-rocm-build/issues/2153", ":0:rocdevice.cpp :2672: 0696142325 us: 5999 : [tid:0x7f676e4c7640] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29", "", 5999},
		{"https://github.com/ggml-org/whisper.cpp/issues/3576", "rocdevice.cpp Callback: Queue 0x7fc220400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29", "0x7fc220400000", 0},
	}
	for _, c := range cases {
		f, ok := extractHSAStatus(c.text)
		if !ok || f.queue != c.queue || f.pid != c.pid || !f.abort {
			t.Errorf("%s\n got %+v ok=%v; want queue %q pid %d", c.src, f, ok, c.queue, c.pid)
		}
	}
	d := diagnoseWhole("m.log", []byte(cases[0].text+"\n"))
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 403868 {
		t.Errorf("the stamp's pid behind a runner prefix is the culprit: %s", d.JSON())
	}
}

// CLR's queue-error dump lines (ROCm/TheRock#1844, crash-heldout2 d32's
// AMD_LOG_LEVEL=4 one-line packet) as facts.
func TestExtractPacketLine(t *testing.T) {
	cases := []struct {
		src, text string
		want      packetLine
		ok        bool
	}{
		{"https://github.com/ROCm/TheRock/issues/1844", "Kernel Name: Cijk_Ailk_Bljk_BBS_BH_MT128x96x32_ISA908_WG128_2_1_WGM2",
			packetLine{start: true, kernel: "Cijk_Ailk_Bljk_BBS_BH_MT128x96x32_ISA908_WG128_2_1_WGM2"}, true},
		{"https://github.com/ROCm/TheRock/issues/1844", "VGPU=0x3279ee90 SWq=0x738a0ff8c000, HWq=0x7387a8e00000, id=1",
			packetLine{hwq: "0x7387a8e00000", swq: "0x738a0ff8c000"}, true},
		{"https://github.com/ROCm/TheRock/issues/1844", "        grid=[27136, 46, 1], workgroup=[256, 1, 1]",
			packetLine{grid: "[27136,46,1]", wg: "[256,1,1]"}, true},
		{"crash-heldout2 d32 (AMD_LOG_LEVEL=4, one line)", "VGPU=0x55a9c6e10b40 SWq=0x7f91d0a12000, HWq=0x7f91c2200000, id=1, Dispatch Header = 0xb02 (type=2, barrier=1, acquire=1, release=1), setup=3, grid=[262144, 64, 1], workgroup=[256, 1, 1], private_seg_size=0, group_seg_size=33792, kernel_obj=0x7f91b9a1e0c0, kernarg_address=0x0x7f91b5c00000, completion_signal=0x0, correlation_id=0, rptr=17, wptr=17",
			packetLine{hwq: "0x7f91c2200000", swq: "0x7f91d0a12000", grid: "[262144,64,1]", wg: "[256,1,1]", privSeg: "0", groupSeg: "33792", rw: "rptr=17 wptr=17"}, true},
		{"no dump", "Callback: Queue 0x7ef728200000 aborting with error", packetLine{}, false},
	}
	for _, c := range cases {
		got, ok := extractPacketLine(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractPacketLine(%q) =\n %+v, %v; want\n %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// CLR's "Cannot find Symbol with name: X" (hip_global.cpp, DeviceFunc): the
// host registered kernel X but the code object loaded for this GPU lacks
// it — device code missing for the gfx target (arch_mismatch) and the
// failure it causes (kernel_not_found), in the wordings of several ROCm
// releases (the file:line moves: :109, :114, :117); AMReX's HIP+OpenMP build
// (https://github.com/AMReX-Codes/amrex/issues/5574) fails the same way.
func TestCLRMissingDeviceSymbol(t *testing.T) {
	for _, c := range []struct{ src, log, sym string }{
		{"https://github.com/ROCm/composable_kernel/issues/3095 (CK-Tile fp8 WMMA GEMM not built for the device)",
			":0:/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/clr/hipamd/src/hip_global.cpp:117 : 2498557848212 us:  Cannot find Symbol with name: _ZN7ck_tile6kentryILi1ENS_10GemmKernelIEEEvDpT1_\nAborted (core dumped)\n",
			"_ZN7ck_tile6kentryILi1ENS_10GemmKernelIEEEvDpT1_"},
		{"a DaCe slurm log on gfx942 (pid in the prefix, the shell's Aborted after)",
			":0:/long_pathname_so_that_rpms_can_package_the_debug_info/src/external/clr/hipamd/src/hip_global.cpp:114 : 2813161128841 us: [pid:165941 tid:0x14a21b4cab80] Cannot find Symbol with name: _Z20GPU_DeviceMap_0_0_13PKN6thrust7complexIfEES3_PS1_iii\n/var/spool/slurmd/job109282/slurm_script: line 41: 165941 Aborted                 (core dumped) python complex_gemm.py\n",
			"_Z20GPU_DeviceMap_0_0_13PKN6thrust7complexIfEES3_PS1_iii"},
		{"campaign notes: a gfx950-only prebuilt .so run on an MI300X (gfx942)",
			"hip_global.cpp:109 : Cannot find Symbol with name: _ZN12primus_turbo25compute_group_offs_deviceIlEEv\ntimeout: the monitored command dumped core\n",
			"_ZN12primus_turbo25compute_group_offs_deviceIlEEv"},
		{"https://github.com/AMReX-Codes/amrex/issues/5574 (HIP + OpenMP build, an internalized kernel)",
			"hip_global.cpp:109 : 1074451131 us:  Cannot find Symbol with name: _ZN5amrex13launch_globalILi256EEvv.intern.800e83b42e498690\n",
			"_ZN5amrex13launch_globalILi256EEvv.intern.800e83b42e498690"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassArchMismatch)
		if f == nil || f.Details["missing_symbol"] != c.sym || f.Kernel == "" {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
		// the failure itself: the kernel is not in the code object, caused by the arch
		if k := hasClass(d, ClassKernelNotFound); k == nil || k.ConsequenceOf != ClassArchMismatch || k.Details["missing_symbol"] != c.sym {
			t.Errorf("%s: no kernel_not_found consequence of arch_mismatch: %s", c.src, d.JSON())
		}
	}
	// other "cannot find symbol" texts (a compiler's, a SYCL runtime's) are not CLR's
	for _, l := range []string{"Cannot find symbol with name 'x'", "error: cannot find symbol: class Foo"} {
		if _, ok := extractMissingDeviceSymbol(l); ok {
			t.Errorf("%q read as CLR's missing device symbol", l)
		}
	}
}
