package crash

import (
	"strconv"
	"strings"
	"testing"
)

func TestLaunchGolden(t *testing.T) {
	d := goldenCase(t, "launch_fx08.golden.json", "shared:fx08_hip_launch_failure_and_device_limit_messages_rocmforge_docs.txt")
	f := hasClass(d, ClassInvalidLaunch)
	if f == nil || f.Kernel != "transpose_kernel" || f.HIPError != "hipErrorInvalidValue" || len(f.Notes) == 0 {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "launch_s17.golden.json", "shared:s17_hip_invalid_device_function_amd_log_level3_rocm2527.log")
	if hasClass(d, ClassInvalidLaunch) != nil || hasClass(d, ClassArchMismatch) == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func TestLaunchViolations(t *testing.T) {
	s := New()
	ok := launchConfig{grid: [3]int64{57, 1, 1}, block: [3]int64{256, 1, 1}}
	if v := s.launchViolations(ok); len(v) != 0 {
		t.Fatal(v)
	}
	bad := launchConfig{grid: [3]int64{2800, 1, 1}, block: [3]int64{64, 64, 1}, shared: 70000}
	if v := s.launchViolations(bad); len(v) != 2 {
		t.Fatal(v)
	}
	zero := launchConfig{grid: [3]int64{0, 1, 1}, block: [3]int64{1, 1, 1}}
	if v := s.launchViolations(zero); len(v) != 1 {
		t.Fatal(v)
	}
}

func FuzzLaunch(f *testing.F) {
	seedFuzz(f, "shared:fx08_hip_launch_failure_and_device_limit_messages_rocmforge_docs.txt", "testdata/hip_trace_launch.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &launchParser{s: s} }), data, cut)
	})
}

// Device-limit lines in real wordings; each row names its source.
func TestExtractDeviceLimits(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      threadLimits
	}{
		// rocmforge docs (../shared/testdata/crash/SOURCES.md fx08, seed 002): the HIP driver's zero dimensions
		{"rocmforge driver bug", "Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 0, 0]", threadLimits{maxThreads: 1024, hasDim: true, dim: [3]int64{1024, 0, 0}, dimText: [3]string{"1024", "0", "0"}}},
		{"rocmforge sane", "INFO rocmforge::backend::hip_backend::backend: Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 1024, 1024], maxGridSize=[2147483647, 65535, 65535]", threadLimits{maxThreads: 1024, hasDim: true, dim: [3]int64{1024, 1024, 1024}, dimText: [3]string{"1024", "1024", "1024"}}},
		{"parenthesised, colon", "maxThreadsPerBlock: 256 maxThreadsDim: (256, 256, 64)", threadLimits{maxThreads: 256, hasDim: true, dim: [3]int64{256, 256, 64}, dimText: [3]string{"256", "256", "64"}}},
		{"threads only", "maxThreadsPerBlock=1024", threadLimits{maxThreads: 1024}},
	} {
		if got := extractThreadLimits(c.line); got != c.want {
			t.Errorf("%s: got %+v", c.src, got)
		}
	}
	// rocminfo agent blocks as pasted in https://github.com/ROCm/rocHPCG/issues/80 and https://github.com/hypre-space/hypre/issues/781
	if v := extractWGMax("  Workgroup Max Size:      1024(0x400)                        "); v != 1024 {
		t.Errorf("rocminfo workgroup max: %d", v)
	}
	if v := extractWGMax("  Workgroup Max Size per Dimension:"); v != 0 {
		t.Errorf("per-dimension header: %d", v)
	}
	for line, want := range map[string]int64{
		"maxSharedMemoryPerBlock=65536":        65536,
		"maxSharedMemoryPerBlock: 163840":      163840,
		"sharedMemPerBlock is not in this one": 0,      // no "=" or ":" after the name
		"sharedMemPerBlock=163840":             163840, // hipDeviceProp_t spelling (lower-case s), seed 002 limits lines
		"LDS: 65536":                           0,
	} {
		if got := extractLDSLimit(line); got != want {
			t.Errorf("%q: got %d", line, got)
		}
	}
}

// Launch-failure lines in real wordings; each row names its source.
func TestExtractLaunchFailure(t *testing.T) {
	g := func(x, y, z int64) [3]int64 { return [3]int64{x, y, z} }
	for _, c := range []struct {
		src, line string
		want      launchFact
	}{
		// ROCmForge's HIP debugging guide (../shared/testdata/crash fx08, seed 002)
		{"rocmforge launch failed", "Kernel 'transpose_kernel' launch failed: hipErrorInvalidValue (grid=(2800,1,1), block=(64,64,1))",
			launchFact{kind: lfLaunchFailed, kernel: "transpose_kernel", err: "hipErrorInvalidValue", cfg: launchConfig{kernel: "transpose_kernel", grid: g(2800, 1, 1), block: g(64, 64, 1), set: true}}},
		{"launch failed, no geometry", "Kernel 'rope_f32' launch failed: hipErrorNotFound",
			launchFact{kind: lfLaunchFailed, kernel: "rope_f32", err: "hipErrorNotFound"}},
		{"rocmforge launch log", "DEBUG Launch: kernel=dequantize_q4_0, grid=(140,1,1), block=(64,1,1), shared=0 bytes",
			launchFact{kind: lfLaunchLog, kernel: "dequantize_q4_0", cfg: launchConfig{kernel: "dequantize_q4_0", grid: g(140, 1, 1), block: g(64, 1, 1), set: true}}},
		{"rocmforge LDS", "Shared memory 70000 bytes exceeds limit 65536", launchFact{kind: lfSharedExceeds, sharedBytes: "70000", sharedLimit: "65536"}},
		{"rocmforge grid check", "grid.x 100000 invalid (limit: 1..2147483647)", launchFact{kind: lfGridInvalid, axis: "x", value: "100000", lo: "1", hi: "2147483647"}},
		{"rocmforge load", "Error: Kernel loading failed: hipErrorNotFound", launchFact{kind: lfLoadFailed, err: "hipErrorNotFound"}},
		{"rocmforge sync after launch", "Error: Device synchronization failed after kernel 'rms_norm_f32': hipErrorIllegalAddress",
			launchFact{kind: lfSyncFailed, kernel: "rms_norm_f32", err: "hipErrorIllegalAddress"}},
		{"rocmforge async", "2026-05-12T14:41:11.311Z  WARN rocmforge::backend::hip_backend::backend: Async HIP error detected after kernel launch: code=700, msg=an illegal memory access was encountered",
			launchFact{kind: lfAsyncHIP, code: 700}},
		// https://github.com/ROCm/MIOpen/issues/3312 (MI300X, ROCm 6.1.2)
		{"MIOpen invalid configuration", "MIOpen(HIP): Error [EvaluateInvokers] /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/MLOpen/src/hipoc/hipoc_kernel.cpp:104: Failed to launch kernel: invalid configuration argument",
			launchFact{kind: lfResources, resource: "invalid configuration argument", miopen: true}},
		// HIP AMD_LOG_LEVEL=3 (testdata/crash-corpus) and https://github.com/MariusVanDerWijden/gpusnarks/issues/8
		{"hip trace out of resources", ":3:hip_module.cpp           :402 : 2214802541 us: [pid:77120 tid:0x7f4e3c9fe740] hipModuleLaunchKernel: Returned hipErrorLaunchOutOfResources : too many resources requested for launch",
			launchFact{kind: lfResources, resource: "too many resources requested"}},
		{"cuda too many resources", "CUDA error: too many resources requested for launch", launchFact{kind: lfResources, resource: "too many resources requested"}},
		{"device limits are no failure", "Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 0, 0]", launchFact{}},
	} {
		if got := extractLaunchFailure(c.line); got != c.want {
			t.Errorf("%s: got %+v", c.src, got)
		}
	}
	for _, c := range []struct{ line, want string }{
		// crash-corpus kernel-not-found case (ROCmForge) and a HIP AMD_LOG_LEVEL=3 trace
		{"2026-05-12T14:22:10.004Z  INFO rocmforge::backend::hip_backend::backend: Loading HSACO /opt/rocmforge/kernels/rope_f32.hsaco", "/opt/rocmforge/kernels/rope_f32.hsaco"},
		{":3:hip_module.cpp           :82  : 2214798812 us: [pid:77120 tid:0x7f4e3c9fe740]  hipModuleLoad ( 0x7ffe8a1c3048, gemm_kernels.hsaco )", "gemm_kernels.hsaco"},
		{"Kernel loading failed: hipErrorNotFound", ""},
	} {
		if got := extractModulePath(c.line); got != c.want {
			t.Errorf("%q: module %q", c.line, got)
		}
	}
}

// One limits line that carries both the thread and the LDS limit: each is
// read, and launches within them (gfx950's 160 KiB LDS) make no finding;
// the same 128 KiB launch over a 64 KiB device is still a violation.
func TestLimitsLineCarriesLDS(t *testing.T) {
	const launches = "DEBUG Launch: kernel=flash_attn_prefill_f16_d128, grid=(64,32,1), block=(256,1,1), shared=131072 bytes\n" +
		"DEBUG Launch: kernel=softmax_rows_f16, grid=(8192,1,1), block=(1024,1,1), shared=4096 bytes\n" +
		"test result: ok. 4 passed; 0 failed\n"
	for _, c := range []struct {
		src, limits string
		want        bool
	}{
		{"seed 002 Device limits line with sharedMemPerBlock (crash-heldout3 e26, MI355X)", "DEBUG Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 1024, 1024], maxGridSize=[2147483647, 65535, 65535], sharedMemPerBlock=163840, gcnArchName=gfx950:sramecc+:xnack-", false},
		{"the same line order reversed", "Device limits: sharedMemPerBlock=163840, maxThreadsPerBlock=1024, maxThreadsDim=[1024, 1024, 1024]", false},
		{"a 64 KiB device (crash-heldout3 e25 limits)", "DEBUG Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 1024, 1024], maxGridSize=[2147483647, 2147483647, 2147483647], sharedMemPerBlock=65536, gcnArchName=gfx90a:sramecc+:xnack-", true},
	} {
		d := diagnoseWhole("x.log", []byte(c.limits+"\n"+launches))
		if got := hasClass(d, ClassInvalidLaunch) != nil; got != c.want {
			t.Errorf("%s: invalid_launch = %v, want %v\n%s", c.src, got, c.want, d.JSON())
		}
	}
}

// Without a limits line, the gfx target the log names sets the LDS limit:
// gfx950 holds 160 KiB per workgroup (lightseekorg/tokenspeed#119:
// sharedMemPerMultiprocessor = 163840 on MI355X; vllm-project/vllm#49778:
// Triton's "Hardware limit: 163840" on gfx950), every other target 64 KiB;
// a log naming gfx950 beside another target (a tuning table for gfx950 run
// on gfx942) keeps 64 KiB.
func TestLDSLimitFromArch(t *testing.T) {
	launch := func(b int) string {
		return "DEBUG flashbench::hip: Launch: kernel=flash_fwd_tile256_d128, grid=(32,64,1), block=(512,1,1), shared=" + strconv.Itoa(b) + " bytes\n"
	}
	for _, c := range []struct {
		name, dev string
		bytes     int
		want      bool
	}{
		{"gfx950, 128 KiB", "INFO device 0 = AMD Instinct MI355X (gfx950), 256 CUs\n", 131072, false},
		{"gfx950, 192 KiB", "INFO device 0 = AMD Instinct MI355X (gfx950), 256 CUs\n", 196608, true},
		{"gfx942, 128 KiB", "INFO device 0 = AMD Instinct MI300X (gfx942), 304 CUs\n", 131072, true},
		{"gfx942 running gfx950's table", "[tuner] running on gfx942:sramecc+:xnack- (falling back to gfx950 entries)\n", 98304, true},
		{"no arch named", "", 131072, true},
	} {
		d := diagnoseWhole("x.log", []byte(c.dev+launch(c.bytes)))
		if got := hasClass(d, ClassInvalidLaunch) != nil; got != c.want {
			t.Errorf("%s: invalid_launch = %v, want %v\n%s", c.name, got, c.want, d.JSON())
		}
	}
}

// Seed 002 "Driver Reports Invalid Limits": the zero maxThreadsDim alone is
// no failure (the seed's tests detect it and skip); beside a launch failure
// the failure names it.
func TestDriverLimitsBugNeedsAFailure(t *testing.T) {
	limits := "Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 0, 0]\n"
	skipped := limits + "test backend::launch_validation::tests::test_block_dim_y_limit ... ignored, driver reports maxThreadsDim[1]=0 (HIP driver bug)\n" +
		"test result: ok. 1 passed; 0 failed; 2 ignored; 0 measured; 55 filtered out; finished in 0.08s\n"
	if d := diagnoseWhole("skipped.log", []byte(skipped)); len(d.Findings) != 0 {
		t.Fatalf("the limits line alone made a finding: %s", d.JSON())
	}
	for _, in := range []string{
		limits + "Kernel 'matmul_tiled_f32' launch failed: hipErrorInvalidValue (grid=(128,128,1), block=(16,16,1))\n",
		// the failure before the limits line: the order of a paste is free
		"Kernel 'matmul_tiled_f32' launch failed: hipErrorInvalidValue (grid=(128,128,1), block=(16,16,1))\n" + limits,
	} {
		d := diagnoseWhole("fail.log", []byte(in))
		f := hasClass(d, ClassInvalidLaunch)
		if f == nil || !strings.Contains(f.Details["driver_limits_bug"], "maxThreadsDim=[1024, 0, 0]") || !strings.Contains(strings.Join(f.NextSteps, " "), "maxThreadsDim") {
			t.Fatalf("the launch failure does not name the driver bug: %s", d.JSON())
		}
	}
}

// A work-group over the CU's VGPR budget in the older stacks' words: the
// ROCr debug agent's queue-error state (ROCm/hip#1185) and HCC's runtime
// exception (ROCm/legacy-rocm-build#261) → invalid_launch; HCC's misleading
// HSA_STATUS_ERROR_INVALID_ISA printed with the first is its echo, not an
// arch mismatch (ROCm/hip#1185: "the original error message about
// HSA_STATUS_ERROR_INVALID_ISA is pretty misleading").
func TestVGPRBudgetWordings(t *testing.T) {
	for _, c := range []struct{ src, line, kernel string }{
		{"https://github.com/ROCm/hip/issues/1185", "Queue ID: 139980058624000 (Out of VGPRs;)", ""},
		{"https://github.com/ROCm/legacy-rocm-build/issues/261", "  what():  The number of VGPRs (153) needed by this launch (int, int, int, SGInfo*, int) exceeds HW limit due to big work group size (672) workitems!", ""},
		{"HCC's message with the kernel's signature", "  what():  The number of VGPRs (153) needed by this launch (sph_density_pass(float*, float const*, int const*, int, float)) exceeds HW limit due to big work group size (768) workitems!", "sph_density_pass"},
	} {
		x := extractLaunchFailure(c.line)
		if x.kind != lfResources || x.kernel != c.kernel {
			t.Errorf("%s: %+v", c.src, x)
		}
	}
	agent := "Queue error state in GPU agent: AMD gfx906\nNode: 1\nQueue ID: 139980058624000 (Out of VGPRs;)\n"
	hcc := "### HCC STATUS_CHECK Error: HSA_STATUS_ERROR_INVALID_ISA (0x100f) at file:mcwamp_hsa.cpp line:1192\nAborted (core dumped)\n"
	d := diagnoseWhole("run.log", []byte(agent+hcc))
	if cl := classesOf(d); len(cl) == 0 || cl[0] != ClassInvalidLaunch || hasClass(d, ClassArchMismatch) != nil {
		t.Errorf("Out of VGPRs + INVALID_ISA: %v, want invalid_launch alone", cl)
	}
	// INVALID_ISA without the VGPR verdict stays an arch mismatch
	if hasClass(diagnoseWhole("run.log", []byte(hcc)), ClassArchMismatch) == nil {
		t.Errorf("INVALID_ISA alone lost its arch_mismatch")
	}
}

// Seed 002's debug "Launch: kernel=…, grid=(x,y,z), …, shared=N bytes" line
// names the kernel whose geometry the application's check then rejects
// ("grid.x 100000 invalid (limit: 1..2147483647)", "Shared memory 70000
// bytes exceeds limit 65536": seed 002, shared fx08); a launch line whose
// grid differs names none.
func TestLaunchLineNamesRejectedKernel(t *testing.T) {
	for _, c := range []struct{ name, log, kernel string }{
		{"grid", "DEBUG Launch: kernel=rope_batched_f16, grid=(64,32,131072), block=(64,1,1), shared=0 bytes\nERROR prefill failed: grid.z 131072 invalid (limit: 1..65536)\n", "rope_batched_f16"},
		{"grid x, seed wording", "DEBUG Launch: kernel=transpose_tiles, grid=(100000,1,1), block=(64,1,1), shared=0 bytes\ngrid.x 100000 invalid (limit: 1..2147483647)\n", "transpose_tiles"},
		{"other grid", "DEBUG Launch: kernel=matmul_f32, grid=(28,1,1), block=(256,1,1), shared=0 bytes\ngrid.x 100000 invalid (limit: 1..2147483647)\n", ""},
	} {
		f := hasClass(diagnoseWhole("run.log", []byte(c.log)), ClassInvalidLaunch)
		if f == nil {
			t.Fatalf("%s: no invalid_launch", c.name)
		}
		if f.Kernel != c.kernel {
			t.Errorf("%s: kernel %q, want %q", c.name, f.Kernel, c.kernel)
		}
	}
}

// A launch whose geometry and LDS the log states gets advice in those
// numbers, not a request to log them again (crash-heldout8 k13/k14: seed
// 002's rocmforge launch lines, shared fx08).
func TestLaunchStepsUseTheLoggedLaunch(t *testing.T) {
	log := "Device limits: maxThreadsPerBlock=1024, maxThreadsDim=[1024, 1024, 1024], sharedMemPerBlock=65536\n" +
		"DEBUG rocmforge::backend::hip_backend::backend: Launch: kernel=matmul_wide, grid=(28,152,1), block=(256,1,1), shared=98304 bytes\n" +
		"Error: Kernel 'matmul_wide' launch failed: hipErrorInvalidValue (grid=(28,152,1), block=(256,1,1))\n"
	d := diagnoseWhole("a.log", []byte(log))
	f := hasClass(d, ClassInvalidLaunch)
	if f == nil {
		t.Fatalf("classes %v", classesOf(d))
	}
	steps := strings.Join(f.NextSteps, "\n")
	if !strings.Contains(steps, "98304 bytes per workgroup against 64 KiB") || strings.Contains(steps, "AMD_LOG_LEVEL=3") {
		t.Errorf("steps:\n%s", steps)
	}
	// no geometry in hand: log it
	d = diagnoseWhole("b.log", []byte("RuntimeError: HIP error: invalid configuration argument\n"))
	if f := hasClass(d, ClassInvalidLaunch); f != nil && !strings.Contains(strings.Join(f.NextSteps, "\n"), "AMD_LOG_LEVEL=3") {
		t.Errorf("no geometry, steps:\n%s", strings.Join(f.NextSteps, "\n"))
	}
}
