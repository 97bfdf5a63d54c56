package crash

import (
	"reflect"
	"strings"
	"testing"
)

func TestDebugAgentGolden(t *testing.T) {
	d := goldenCase(t, "agent_fx01.golden.json", "shared:fx01_rocm_debug_agent_userguide_sample_assert_trap.txt")
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Reason != "ASSERT_TRAP" || f.Details["exec_mask"] != "0x0000000000000001" || f.Details["wave_size"] != "wave64" || f.Details["stop_instruction"] != "s_trap 2" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "agent_fx03.golden.json", "shared:fx03_rocm_debug_agent_rocm631_reconstructed_fixture_mfc.txt")
	f = hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Waves != 3 || len(f.StopPCs) != 2 || f.Kernel != "s_tvd_rk$m_time_steppers_$ck_L486_6" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "agent_fx04.golden.json", "shared:fx04_rocm_debug_agent_trimmed_sample_index_copy_atom_skill.txt")
	f = hasClass(d, ClassDeviceAssert)
	if f == nil || f.SavedCodeObject != "memory___2188702_offset_0x546c3060_size_4026672" || f.KernelMeaning == "" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "agent_interleaved.golden.json", "testdata/debug_agent_interleaved.log")
	if hasClass(d, ClassGPUMemoryFault) == nil || !contains(d.Inputs[0].Quality, "interleaved") {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "agent_running.golden.json", "testdata/debug_agent_sigquit_running.log")
	if hasClass(d, ClassGPUKernelHang) == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func TestHeaderKernel(t *testing.T) {
	h := "wave_1: pc=0x1 (kernel_code_entry=0x2 <void f<a, b>(int)>, kernargs=0x3) (stopped, reason: MEMORY_VIOLATION)"
	if k := headerKernel(h); k != "void f<a, b>(int)" {
		t.Fatal(k)
	}
	if k := headerKernel("wave_1: pc=0x1 (kernel_code_entry=not available) (running)"); k != "" {
		t.Fatal(k)
	}
	if got := savedCodeObjectName("file:///rocm-debug-agent/rocm-debug-agent-test#offset=14309&size=31336"); got != "file____rocm-debug-agent_rocm-debug-agent-test_offset_14309_size_31336" {
		t.Fatal(got)
	}
}

func contains(xs []string, s string) bool { return containsStr(xs, s) }

func FuzzDebugAgent(f *testing.F) {
	seedFuzz(f, "shared:fx01_rocm_debug_agent_userguide_sample_assert_trap.txt", "shared:fx02_rocm_debug_agent_rocm720_offload_fixture_mfc.txt", "shared:fx04_rocm_debug_agent_trimmed_sample_index_copy_atom_skill.txt", "shared:s15_debug_agent_disassembly_srun_hypre614.log", "testdata/debug_agent_interleaved.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &agentParser{s: s} }), data, cut)
	})
}

// Wave headers and disassembly rows in the wordings the debug agent has
// printed across ROCm versions; each row names where the wording comes from.
func TestExtractWaveHeaders(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      []waveHeader
		spliced   bool
	}{
		// ROCm 6.3.1 report quoted by MFlowCode/MFC's gpu_diagnostics test (../shared/testdata/crash/SOURCES.md fx03): no kernel_code_entry
		{"MFC ROCm 6.3.1", "wave_0: pc=0x7ff77e253408 (stopped, reason: MEMORY_VIOLATION)",
			[]waveHeader{{id: "0", pc: "0x7ff77e253408", reason: "MEMORY_VIOLATION"}}, false},
		// ROCm 7.2.0 report, same MFC test (fx02): kernel_code_entry with the symbol and kernargs
		{"MFC ROCm 7.2.0", "wave_249: pc=0x7ff734dcbf3c (kernel_code_entry=0x7ff736b8c040 <__omp_offloading_8116438_1c00689b__QMm_time_steppersPs_tvd_rk_l486>, kernargs=0x7ffb61f00000) (stopped, reason: MEMORY_VIOLATION)",
			[]waveHeader{{id: "249", pc: "0x7ff734dcbf3c", kernel: "__omp_offloading_8116438_1c00689b__QMm_time_steppersPs_tvd_rk_l486", reason: "MEMORY_VIOLATION"}}, false},
		// ROCm/rocr_debug_agent user guide sample (fx01): an assert trap
		{"rocr_debug_agent user guide", "wave_1: pc=0x7fd4f100d0e8 (stopped, reason: ASSERT_TRAP)",
			[]waveHeader{{id: "1", pc: "0x7fd4f100d0e8", reason: "ASSERT_TRAP"}}, false},
		// a templated symbol whose own text holds ">, " and "(" (ROCm/ATOM debug-agent skill sample, fx04, trimmed)
		{"ROCm/ATOM sample", "wave_27876: pc=0x7F20F5E534C4 (kernel_code_entry=0x7f20f5e52900 <void at::native::index_elementwise_kernel<128, 4, F>(long, F)>, kernargs=0x7f1) (stopped, reason: ASSERT_TRAP)",
			[]waveHeader{{id: "27876", pc: "0x7f20f5e534c4", kernel: "void at::native::index_elementwise_kernel<128, 4, F>(long, F)", reason: "ASSERT_TRAP"}}, false},
		// SIGQUIT dump: running waves, the symbol not available
		{"rocr_debug_agent SIGQUIT", "wave_3: pc=0x7f00 (kernel_code_entry=not available) (running)",
			[]waveHeader{{id: "3", pc: "0x7f00", running: true}}, false},
		// several reasons joined by "|"
		{"dbgapi reason set", "wave_7: pc=0x10 (stopped, reason: MEMORY_VIOLATION|ADDRESS_ERROR)",
			[]waveHeader{{id: "7", pc: "0x10", reason: "MEMORY_VIOLATION|ADDRESS_ERROR"}}, false},
		// character-interleaved output of two ranks: text before the header, a second header cut before its reason
		{"interleaved ranks", "[rank1] wave_2: pc=0x20 (stopped, reason: ILLEGAL_INSTRUCTION)wave_5: pc=0x30 (kern",
			[]waveHeader{{id: "2", pc: "0x20", reason: "ILLEGAL_INSTRUCTION"}, {id: "5", pc: "0x30"}}, true},
		{"not a header", "wave_count=3 pc unknown", nil, false},
	} {
		got, spliced := extractWaveHeaders(c.line)
		if !reflect.DeepEqual(got, c.want) || spliced != c.spliced {
			t.Errorf("%s: got %+v spliced=%v, want %+v spliced=%v", c.src, got, spliced, c.want, c.spliced)
		}
	}
}

func TestExtractSplicedStop(t *testing.T) {
	for _, c := range []struct {
		line, reason string
		ok           bool
	}{
		{"---- (stopped, reason: MEMORY_VIOLATION)", "MEMORY_VIOLATION", true},
		{"(stopped, reason: ", "", true}, // the shape without a surviving reason
		{"reason: Page not present or supervisor privilege.", "", false},
	} {
		r, ok := extractSplicedStop(c.line)
		if r != c.reason || ok != c.ok {
			t.Errorf("%q: got %q %v", c.line, r, ok)
		}
	}
}

func TestExtractDisasmRow(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      disasmRow
		ok        bool
	}{
		// https://github.com/hypre-space/hypre/issues/614 (ROCm 4.5, MI250X): the stop row and the row after it
		{"hypre#614 stop", " => 0x7f08e98c3e30 <+48>:    s_waitcnt lgkmcnt(0)", disasmRow{stop: true, pc: "0x7f08e98c3e30", off: "+48", insn: "s_waitcnt lgkmcnt(0)"}, true},
		{"hypre#614 next", "    0x7f08e98c3e34 <+52>:    s_mov_b32 s9, s8", disasmRow{pc: "0x7f08e98c3e34", off: "+52", insn: "s_mov_b32 s9, s8"}, true},
		// MFC ROCm 7.2.0 report (fx02)
		{"MFC ROCm 7.2.0", " => 0x7FF734DCBF3C <+7484>:    s_waitcnt vmcnt(0) lgkmcnt(0)", disasmRow{stop: true, pc: "0x7ff734dcbf3c", off: "+7484", insn: "s_waitcnt vmcnt(0) lgkmcnt(0)"}, true},
		// a row before the function start has a negative offset
		{"negative offset", "    0x7f00 <-8>:    s_nop 0", disasmRow{pc: "0x7f00", off: "-8", insn: "s_nop 0"}, true},
		{"source line", "12\t  a[i] = b[i];", disasmRow{}, false},
	} {
		got, ok := extractDisasmRow(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
}

// Running waves: a hang candidate alone (SIGQUIT dump), bystanders beside a
// stopped wave (--all prints every wave at a fault). Wordings: the agent's
// header grammar (rocr_debug_agent debug_agent.cpp: "(running)" vs
// "(stopped, reason: …)"), crash-heldout2 d01 / d03.
func TestRunningWavesBesideAFault(t *testing.T) {
	run := "--------------------------------------------------------\n" +
		"wave_0: pc=0x7f9a51e08a40 (kernel_code_entry=0x7f9a51e08100 <void fill_kernel(int)>, kernargs=0x7f9a2e000000) (running)\n\n"
	stop := "--------------------------------------------------------\n" +
		"wave_6: pc=0x7f9a4b41c19c (kernel_code_entry=0x7f9a4b41a000 <void moe_sum_reduce_kernel(int)>, kernargs=0x7f9a2e001000) (stopped, reason: MEMORY_VIOLATION)\n\n"
	for _, order := range [][]string{{run, stop}, {stop, run}} {
		d := diagnoseWhole("agent.log", []byte(order[0]+order[1]))
		if hasClass(d, ClassGPUKernelHang) != nil {
			t.Errorf("running bystander became a hang:\n%s", d.JSON())
		}
		if f := hasClass(d, ClassGPUMemoryFault); f == nil || !strings.Contains(f.Kernel, "moe_sum_reduce_kernel") {
			t.Errorf("fault lost:\n%s", d.JSON())
		}
	}
	d := diagnoseWhole("sigquit.log", []byte(run+run))
	if f := hasClass(d, ClassGPUKernelHang); f == nil || !strings.Contains(f.Kernel, "fill_kernel") {
		t.Errorf("SIGQUIT dump of running waves is a hang candidate:\n%s", d.JSON())
	}
}

// Only the agent's 56-dash rule is the agent's: FlashInfer's 80-dash rule
// under each API call (fx07, crash-heldout2 d16) must not make an NVIDIA log
// a ROCm one.
func TestAgentSeparatorWidth(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{strings.Repeat("-", 56), true},
		{strings.Repeat("-", 56) + "  ", true},
		{strings.Repeat("-", 80), false},
		{strings.Repeat("-", 20), false},
		{strings.Repeat("-", 55) + "x", false},
	} {
		if got := agentSeparator(c.text); got != c.want {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}

// A wave header the paste cut before its "(stopped, reason: …)" still names
// the kernel for the runtime's queue-error finding (seed 001's header
// grammar; shared fx04's index_copy header; crash-formats §1.3 truncation).
func TestCutWaveHeaderNamesKernel(t *testing.T) {
	log := "--------------------------------------------------------\n" +
		"wave_112: pc=0x7ee11a84d7c4 (kernel_code_entry=0x7ee11a84cb00 <void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_put_kernel_impl<at::native::Opaq\n" +
		":0:rocdevice.cpp            :3020: 80237716291 us:  Callback: Queue 0x7ee0f4a00000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n"
	d := diagnoseWhole("paste.log", []byte(log))
	if len(d.Findings) == 0 || !strings.Contains(d.Findings[0].Kernel, "index_put_kernel_impl") {
		t.Fatalf("cut header's kernel lost: %v %q", classesOf(d), func() string {
			if len(d.Findings) > 0 {
				return d.Findings[0].Kernel
			}
			return ""
		}())
	}
}
