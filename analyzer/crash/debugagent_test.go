package crash

import "testing"

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
