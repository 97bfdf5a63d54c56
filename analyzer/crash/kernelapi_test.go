package crash

import (
	"sort"
	"strings"
	"testing"
)

func TestKernelAPIGolden(t *testing.T) {
	d := goldenCase(t, "kernelapi_fx06.golden.json", "shared:fx06_sglang_kernel_api_log_levels_and_dump_metadata.txt")
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Details["last_kernel_api_call"] != "sglang_llm_crash.mock_llm_cuda_crash" || f.Details["kernel_api_exception"] == "" {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "kernelapi_fx07.golden.json", "shared:fx07_flashinfer_api_logging_doc_excerpts.txt")
	if len(d.Findings) != 0 {
		t.Fatalf("fx07 has no crash: %s", d.JSON())
	}
}

// seed 000's crash_diagnostics.json plus a dump metadata.json in one session.
func TestCrashDiagnosticsJSON(t *testing.T) {
	d := goldenCase(t, "kernelapi_crash_diagnostics.golden.json", "testdata/crash_diagnostics.json", "testdata/metadata.json")
	f := hasClass(d, ClassHostSegfault)
	if f == nil || *f.ExitCode != 139 || f.Details["last_kernel_api_call"] != "sglang.custom_op.fused_moe" || f.Details["gpu_arch_in_log"] != "gfx950" {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzKernelAPI(f *testing.F) {
	seedFuzz(f, "shared:fx06_sglang_kernel_api_log_levels_and_dump_metadata.txt", "shared:fx07_flashinfer_api_logging_doc_excerpts.txt", "testdata/crash_diagnostics.json", "testdata/metadata.json")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &kernelAPIParser{s: s} }), data, cut)
	})
}

// Several per-pid level-1 logs (SGLANG_KERNEL_API_LOGDEST with %i = pid)
// and a dmesg decode whose process line names one of them (the newer
// "amdgpu: Process python3 pid N thread python3 pid N" line,
// crash-formats.md §11.1): that pid's last boundary is the failing call,
// not another worker's.
func TestKernelAPILogOfThePidDmesgNames(t *testing.T) {
	s := New()
	for _, f := range []struct{ name, text string }{
		{"kernel_api_71419.log", "[2026-11-26 18:20:41] SGLang Kernel API Call: sglang.custom_op.fused_moe_ck\n[2026-11-26 18:20:41] SGLang Kernel API Call: sglang.custom_op.all_reduce\n"},
		{"kernel_api_71420.log", "[2026-11-26 18:20:41] SGLang Kernel API Call: sglang.custom_op.fused_moe_ck\n[2026-11-26 18:20:41] SGLang Kernel API Call: sglang.custom_op.moe_align_block_size\n"},
		{"dmesg.txt", "[Thu Nov 26 18:20:41 2026] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:9 pasid:32791)\n[Thu Nov 26 18:20:41 2026] amdgpu 0000:c1:00.0: amdgpu:  Process python3 pid 71420 thread python3 pid 71420\n[Thu Nov 26 18:20:41 2026] amdgpu 0000:c1:00.0: amdgpu:   in page starting at address 0x00007f0d15a00000 from client 10\n[Thu Nov 26 18:20:41 2026] amdgpu 0000:c1:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00941051\n"},
	} {
		s.BeginFile(f.name)
		s.Write([]byte(f.text))
		s.EndFile()
	}
	d := s.Diagnosis()
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || !strings.Contains(string(d.JSON()), "moe_align_block_size") || f.Details["kernel_api_pid"] != "71420" {
		t.Fatalf("want the boundary of pid 71420's log: %s", d.JSON())
	}
}

// Level-10 dump folders of several processes (seed 000 step 1: the folder
// name carries the pid, crash-formats.md §9.2): the process whose last call
// saved its inputs and never its outputs died inside it — the culprit of
// the GPU error the log reports. One process's dumps name no one.
func TestLevel10DumpsOfSeveralPidsNameTheDeadOne(t *testing.T) {
	dump := func(stamp string, pid int, fn, call, status string, outputs bool) map[string]string {
		dir := "crash_dumps/" + stamp + "_pid" + itoa(pid) + "_sglang.custom_op." + fn + "_call" + call + "/"
		m := map[string]string{
			dir + "metadata.json": `{"function_name": "sglang.custom_op.` + fn + `", "timestamp": "2026-11-27T03:14:02", "process_id": ` + itoa(pid) + `, "execution_status": "` + status + `", "input_tensor_keys": ["arg_0"]}`,
			dir + "inputs.pt":     "placeholder",
		}
		if outputs {
			m[dir+"outputs.pt"] = "placeholder"
		}
		return m
	}
	log := map[string]string{"server.log": "[2026-11-27 03:14:02 TP1] Scheduler hit an exception: Traceback (most recent call last):\ntorch.AcceleratorError: HIP error: device-side assert triggered\n"}
	run := func(parts ...map[string]string) *Diagnosis {
		var names []string
		all := map[string]string{}
		for _, p := range parts {
			for n, c := range p {
				all[n] = c
				names = append(names, n)
			}
		}
		sort.Strings(names)
		s := New()
		for _, n := range names {
			s.BeginFile(n)
			s.Write([]byte(all[n]))
			s.EndFile()
		}
		return s.Diagnosis()
	}
	d := run(log, dump("20261127_031402_117", 9120, "moe_align_block_size", "0882", "completed", true), dump("20261127_031402_125", 9121, "moe_align_block_size", "0882", "inputs_saved", false))
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 9121 {
		t.Fatalf("two pids: want culprit pid 9121: %s", d.JSON())
	}
	d = run(log, dump("20261127_031402_125", 9121, "moe_align_block_size", "0882", "inputs_saved", false))
	if f := hasClass(d, ClassDeviceAssert); f == nil || f.Culprit != nil && f.Culprit.PID != nil {
		t.Fatalf("one pid's dumps name no culprit: %s", d.JSON())
	}
}
