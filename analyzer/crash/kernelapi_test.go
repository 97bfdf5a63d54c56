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

// SGLang's logger notes "Tensor dump skipped: CUDA graph capture in
// progress" right after a call's arguments: the note is a fact of the run
// (the dumps cannot help while graphs are captured), not a field of the last
// argument. A level-10 run whose dumps were skipped is told to rerun in eager
// mode — never to set the level it already has.
func TestKAPIGraphCaptureSkip(t *testing.T) {
	log := "SGLANG_KERNEL_API_LOGLEVEL=10 SGLANG_KERNEL_API_DUMP_DIR=/workspace/crash_dumps\n" +
		"================================================================================\n" +
		"[2026-11-26 11:20:05] SGLang Kernel API Call: sglang.custom_op.fused_moe_ck\n" +
		"Positional input arguments:\n" +
		"  arg[0]=Tensor(\n      shape=(8, 7168)\n      dtype=torch.bfloat16\n      device=cuda:0\n      is_contiguous=True\n    )\n" +
		"Tensor dump skipped: CUDA graph capture in progress\n" +
		"Fatal Python error: Segmentation fault\n"
	f := hasClass(diagnoseWhole("run.log", []byte(log)), ClassHostSegfault)
	if f == nil {
		t.Fatal("no host_segfault")
	}
	steps := strings.ToLower(strings.Join(f.NextSteps, "\n"))
	if !strings.Contains(steps, "eager mode") || strings.Contains(steps, "loglevel=10") {
		t.Errorf("steps: %q", f.NextSteps)
	}
}

// FlashInfer prints a call's return value unnamed under "Output value:"
// (flashinfer/api_logging.py _log_function_outputs: "Output value:", the
// value at indent 1 — "  Tensor(" and its fields — then "="×80; the format
// of flashinfer-ai/flashinfer#2108). Its level-5 NaN count is the output's:
// a call with clean inputs and a NaN output is where NaN first appears.
func TestKAPIFlashInferUnnamedOutput(t *testing.T) {
	rec := func(name, inNaN, outNaN string) string {
		return "================================================================================\n" +
			"[2026-11-22 18:30:41] FlashInfer API Call: " + name + "\n" +
			"--------------------------------------------------------------------------------\n" +
			"Positional input arguments:\n  arg[0]:\n    Tensor(\n      shape=(64, 2560)\n      dtype=torch.bfloat16\n      nan_count=" + inNaN + "\n      inf_count=0\n    )\n" +
			"Output value:\n  Tensor(\n    shape=(64, 13824)\n    dtype=torch.bfloat16\n    min=nan\n    nan_count=" + outNaN + "\n    inf_count=0\n  )\n" +
			"================================================================================\n\n"
	}
	d := diagnoseWhole("fi.log", []byte(rec("fp4_quantize", "0", "0")+rec("mm_fp4", "0", "884736")+rec("silu_and_mul", "884736", "442368")))
	f := hasClass(d, ClassNumericalNaN)
	if f == nil || !strings.Contains(f.Reason, "mm_fp4") {
		t.Fatalf("first NaN output: %v %+v", classesOf(d), f)
	}
	// a clean output is no NaN finding
	if f := hasClass(diagnoseWhole("fi.log", []byte(rec("mm_fp4", "0", "0"))), ClassNumericalNaN); f != nil {
		t.Errorf("clean: %+v", f)
	}
}

// FlashInfer's paged / ragged KV-cache wrappers are attention calls by
// their cache (BatchDecodeWithPagedKVCacheWrapper.run …): a level-10 dump of
// one that saved its inputs and no outputs is a crash inside attention, and
// the advice names the inputs.pt to replay. A non-attention call that died
// the same way is no attention finding.
func TestKAPICrashedKVCacheWrapper(t *testing.T) {
	meta := func(fn string) string {
		return `{"function_name": "` + fn + `", "module": "flashinfer.decode", "call_sequence": 312, "process_id": 48810,
  "tensor_info": {"input_tensor_keys": ["arg_0", "arg_1"], "output_tensor_keys": []}, "execution_status": "inputs_saved"}`
	}
	run := func(fn string) *Diagnosis {
		s := New()
		s.BeginFile("dumps/20261104_112201_164_" + fn + "_call0312/metadata.json")
		s.Write([]byte(meta(fn)))
		s.EndFile()
		return s.Diagnosis()
	}
	for _, fn := range []string{"BatchDecodeWithPagedKVCacheWrapper.run", "BatchPrefillWithRaggedKVCacheWrapper.run", "single_decode_with_kv_cache"} {
		f := hasClass(run(fn), ClassFP8AttentionCrash)
		if f == nil || !strings.Contains(strings.Join(f.NextSteps, " "), "inputs.pt") {
			t.Errorf("%s: %+v", fn, f)
		}
	}
	if f := hasClass(run("top_k_top_p_sampling_from_probs"), ClassFP8AttentionCrash); f != nil {
		t.Errorf("sampling: %+v", f)
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

// Level-10 dumps of several processes where one call raised: SGLang writes
// execution_status "exception" with the exception's type and message (seed
// 000 step 1; crash-formats §9.2). That process is the culprit of the class
// its message implies — a launch refused ("HIP error: invalid configuration
// argument") as much as a GPU fault; with a second raising pid, none.
func TestLevel10ExceptionDumpNamesTheRaisingPid(t *testing.T) {
	dump := func(pid int, status, exc string) map[string]string {
		dir := "crash_dumps/20260917_101544_11" + itoa(pid%10) + "_pid" + itoa(pid) + "_sglang.custom_op.moe_align_block_size_call0412/"
		meta := `{"function_name": "sglang.custom_op.moe_align_block_size", "timestamp": "2026-09-17T10:15:44", "process_id": ` + itoa(pid) + `, "execution_status": "` + status + `"`
		if exc != "" {
			meta += `, "exception": {"type": "RuntimeError", "message": "` + exc + `"}`
		}
		m := map[string]string{dir + "metadata.json": meta + "}", dir + "inputs.pt": "placeholder"}
		if status == "completed" {
			m[dir+"outputs.pt"] = "placeholder"
		}
		return m
	}
	run := func(parts ...map[string]string) *Diagnosis {
		all := map[string]string{}
		for _, p := range parts {
			for n, c := range p {
				all[n] = c
			}
		}
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
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
	const cfg = "HIP error: invalid configuration argument"
	d := run(dump(30211, "exception", cfg), dump(30212, "completed", ""))
	f := hasClass(d, ClassInvalidLaunch)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 30211 {
		t.Fatalf("one raising pid among two: want culprit 30211: %v %+v", classesOf(d), f)
	}
	d = run(dump(30211, "exception", cfg), dump(30212, "exception", cfg))
	if f := hasClass(d, ClassInvalidLaunch); f != nil && f.Culprit != nil && f.Culprit.PID != nil {
		t.Fatalf("two raising pids name no culprit: %+v", f.Culprit)
	}
}

// One process's level-10 dump that saved inputs and no outputs, and a
// SIGSEGV (seed 000 step 8: 139 → level 10): the dumping process died in
// that call and is the segfault's culprit (a GPU error of one process's
// dumps still names no one, above).
func TestLevel10OneDumpNamesTheSegfaultedPid(t *testing.T) {
	dir := "crash_dumps/20261127_013802_114_pid7710_sglang.custom_op.moe_fused_gate_call0041/"
	s := New()
	for _, f := range []struct{ n, c string }{
		{dir + "metadata.json", `{"function_name": "sglang.custom_op.moe_fused_gate", "timestamp": "2026-11-27T01:38:02.114", "process_id": 7710, "execution_status": "inputs_saved", "input_tensor_keys": ["arg_0", "arg_1"]}`},
		{dir + "inputs.pt", "placeholder"},
		{"run.log", "Fatal Python error: Segmentation fault\n"},
	} {
		s.BeginFile(f.n)
		s.Write([]byte(f.c))
		s.EndFile()
	}
	d := s.Diagnosis()
	f := hasClass(d, ClassHostSegfault)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 7710 {
		t.Fatalf("want host_segfault with culprit pid 7710: %s", d.JSON())
	}
}
