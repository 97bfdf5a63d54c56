package crash

import (
	"reflect"
	"strings"
	"testing"
)

// Real kernel-API wordings, each with its source:
//   - sgl-project/sglang python/sglang/api_logging.py (PR #20910): "%s SGLang
//     Kernel API Call: %s", "Positional input arguments:", "arg[i]=…";
//   - sglang's debug-cuda-crash skill reference and BBuf's H100 crash run, as
//     quoted in ../shared/testdata/crash/fx06_…txt (levels 1, 3, 5, 10);
//   - flashinfer-ai/flashinfer flashinfer/api_logging.py (_log_function_inputs:
//     "FlashInfer API Call: {func_name}", "  {key}=") and docs/logging.rst's
//     listing (batch_decode_with_padded_kv_cache, %i log files).
func TestExtractKAPILine(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      kapiLineFacts
	}{
		{"sglang level 1", "[2026-03-19 00:47:06] SGLang Kernel API Call: RMSNorm.forward",
			kapiLineFacts{call: &kapiCall{source: "SGLang", name: "RMSNorm.forward"}, boundary: true}},
		{"flashinfer docs", "[2025-12-18 10:30:46] FlashInfer API Call: batch_decode_with_padded_kv_cache",
			kapiLineFacts{call: &kapiCall{source: "FlashInfer", name: "batch_decode_with_padded_kv_cache"}, boundary: true}},
		{"BBuf H100 crash", "[2026-04-01 15:42:32] SGLang Kernel API Exception: sglang_llm_crash.mock_llm_cuda_crash",
			kapiLineFacts{exc: &kapiExc{api: "sglang_llm_crash.mock_llm_cuda_crash"}, boundary: true}},
		{"exception with type", "SGLang Kernel API Exception: fused_moe (AcceleratorError: CUDA error: an illegal memory access was encountered)",
			kapiLineFacts{exc: &kapiExc{api: "fused_moe", msg: "AcceleratorError: CUDA error: an illegal memory access was encountered"}, boundary: true}},
		{"call without a name", "SGLang Kernel API Call:", kapiLineFacts{boundary: true}},
		{"level 10 listing", "/tmp/dumps/20260401_154232_118_pid950349_RotaryEmbedding.forward_call0001/inputs.pt",
			kapiLineFacts{dump: &kapiDumpRef{dir: "/tmp/dumps/20260401_154232_118_pid950349_RotaryEmbedding.forward_call0001", inputs: true}}},
		{"listing metadata", "/tmp/sglang_kernel_api_demo/run/metadata.json",
			kapiLineFacts{dump: &kapiDumpRef{dir: "/tmp/sglang_kernel_api_demo/run", metadata: true}}},
		{"documented layout", "<dump_dir>/<YYYYMMDD_HHMMSS_mmm>_pid<pid>_RotaryEmbedding.forward_call0001/inputs.pt", kapiLineFacts{}},
		{"logger line", "Dumped inputs to: /tmp/fi/20251218_103046_001_pid4242_mm_fp8_call0003.",
			kapiLineFacts{dump: &kapiDumpRef{dir: "/tmp/fi/20251218_103046_001_pid4242_mm_fp8_call0003", inputs: true, logged: true}}},
		{"graph capture", "Tensor dump skipped: CUDA graph capture in progress", kapiLineFacts{graphSkip: true}},
		{"settings", `export SGLANG_KERNEL_API_LOGLEVEL=10 SGLANG_KERNEL_API_DUMP_INCLUDE="*fused_moe*"`,
			kapiLineFacts{filter: "SGLANG_KERNEL_API_DUMP_INCLUDE=*fused_moe*", envLevel: 10}},
		{"flashinfer level", "export FLASHINFER_LOGLEVEL=3", kapiLineFacts{envLevel: 3}},
		{"metadata function", `  "function_name": "sglang_llm_crash.mock_llm_cuda_crash",`,
			kapiLineFacts{function: "sglang_llm_crash.mock_llm_cuda_crash", hasFunction: true}},
		{"metadata status", `  "execution_status": "exception",`, kapiLineFacts{status: "exception", hasStatus: true}},
		{"metadata exception", `  "exception": {"type": "AcceleratorError", "message": "CUDA error: device-side assert triggered"}`,
			kapiLineFacts{exception: "AcceleratorError: CUDA error: device-side assert triggered"}},
		{"%i log file", "/tmp/sglang_kernel_api_validation_multi/qwen_qwen2_5_0_5b_instruct_level3_950349.log",
			kapiLineFacts{logPID: "950349"}},
	} {
		if got := extractKAPILine(c.line); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v", c.src, got)
		}
	}
}

func TestExtractKAPILogName(t *testing.T) {
	for _, c := range []struct {
		name       string
		pid, level int
	}{
		{"qwen_qwen2_5_0_5b_instruct_level3_950349.log", 950349, 3}, // sglang %i files (fx06)
		{"logs/kernel_api_rank12345.log", 12345, 0},                 // seed 000's kernel_api_rank%i.log
		{"flashinfer_log_12345.log", 12345, 0},                      // flashinfer docs: flashinfer_log_%i
		{"debug.log", 0, 0},
	} {
		if pid, lv := extractKAPILogName(c.name); pid != c.pid || lv != c.level {
			t.Errorf("%s: pid %d level %d", c.name, pid, lv)
		}
	}
}

func TestExtractKAPIRow(t *testing.T) {
	for _, c := range []struct {
		line string
		want kapiRow
	}{
		{"Positional input arguments:", kapiRow{kind: rowInputs}},
		{"Keyword input arguments:", kapiRow{kind: rowInputs}},
		{"Output:", kapiRow{kind: rowOutput}},
		{"Output value:", kapiRow{kind: rowOutput}}, // flashinfer tests/test_api_logging.py
		{"--------------------------------------------------------------------------------", kapiRow{kind: rowSkip}},
		{"================================================================================", kapiRow{kind: rowRule}},
		{"arg[1]=Tensor(", kapiRow{kind: rowArg, name: "arg[1]", value: "Tensor("}},
		{"arg[0]:", kapiRow{kind: rowArg, name: "arg[0]"}},
		{"kv_cache=", kapiRow{kind: rowArg, name: "kv_cache"}},
		{"arg[1]=Tensor(shape=(4, 8), dtype=torch.float16, device=cuda:0)", kapiRow{kind: rowArg, name: "arg[1]", value: "Tensor(shape=(4, 8), dtype=torch.float16, device=cuda:0)",
			fields: kapiArgFields{shape: "(4, 8)", dtype: "torch.float16"}}},
		{"shape=(1, 77, 768)", kapiRow{fields: kapiArgFields{shape: "(1, 77, 768)"}}},
		{"is_contiguous=True", kapiRow{fields: kapiArgFields{contiguous: "True"}}},
		{"nan_count=0", kapiRow{fields: kapiArgFields{hasNaN: true}}},
		{"inf_count=12", kapiRow{fields: kapiArgFields{inf: 12, hasInf: true}}},
		{")", kapiRow{kind: rowClose}},
		{"[2026-04-01 15:42:32] SGLang Kernel API Exception: x", kapiRow{kind: rowBoundary}},
	} {
		if got := extractKAPIRow(c.line); got != c.want {
			t.Errorf("%q: got %+v", c.line, got)
		}
	}
}

// The assembler turns fx06's level-5 record (an output gone NaN, inputs
// clean), closed by FlashInfer's rule after the output, into one call
// record; it decides no class.
func TestKAPIRecord(t *testing.T) {
	var r kapiRecord
	r.start("diffusion.quant_method.UnquantizedLinearMethod.apply", Evidence{Line: 3})
	var done *kapiCallRecord
	for _, l := range strings.Split(`Positional input arguments:
  arg[1]=Tensor(
      shape=(1, 77, 768)
      dtype=torch.bfloat16
      is_contiguous=True
      nan_count=0
      inf_count=0
    )
Output:
  return=Tensor(
      shape=(1, 77, 2304)
      nan_count=3
      inf_count=0
    )
================================================================================`, "\n") {
		consumed, d := r.row(strings.TrimSpace(l))
		if d != nil {
			done = d
		}
		if !consumed && d == nil {
			t.Fatalf("%q handed back without closing", l)
		}
	}
	want := &kapiCallRecord{call: "diffusion.quant_method.UnquantizedLinearMethod.apply", ev: Evidence{Line: 3},
		args: []string{"arg[1]: Tensor shape=(1, 77, 768) dtype=torch.bfloat16 contiguous=True"},
		done: true, badOutput: "return: nan_count=3", level: 5}
	if !reflect.DeepEqual(done, want) || r.open {
		t.Fatalf("got %+v", done)
	}
}
