package main

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
)

// observed_arch and arch_match on real traces, as trace-format.md §9 defines
// them (its table of device names, fingerprints and ISA tokens).
func TestArchRelevance(t *testing.T) {
	cases := []struct {
		trace, target, arch, match, reasonHas string
	}{
		// MI300X by name and _ISA942_ token: same vendor as the MI355X fleet → compatible.
		{"traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", "gfx950", "gfx942", "compatible", "timings"},
		{"traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", "gfx942", "gfx942", "exact", "AMD Instinct MI300X"},
		// Empty device name (vLLM): the ISA token still names gfx942.
		{"traces/tracelens/inference/vllm_decode_full/graph_execution.json.gz", "gfx942", "gfx942", "exact", "ISA"},
		// SR-IOV "MI300X VF".
		{"traces/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "gfx942", "gfx942", "exact", "MI300X VF"},
		// "AMD Radeon Graphics", cc 9.0, 104 CUs: gfx90a via its _ISA90a_ GEMMs.
		{"traces/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "gfx950", "gfx90a", "compatible", "ISA"},
		{"traces/tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz", "gfx90a", "gfx90a", "exact", "MI210"},
		// NVIDIA for an AMD target: no value of the contract fits → unknown with the reason.
		{"traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "gfx950", "sm90", "unknown", "another vendor"},
		{"traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "sm90", "sm90", "exact", "H100"},
		{"traces/tracelens/b200/eager_trace.json.gz", "sm90", "sm100", "compatible", "B200"},
		// No deviceProperties: nothing to go on.
		{"traces/hta/trace_filter/sampled_rank-0.json.gz", "gfx950", "unknown", "unknown", "no deviceProperties"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.trace)+"→"+c.target, func(t *testing.T) {
			res := analyze(t, "native", analyzer.Options{TargetArch: c.target}, filepath.Join(shared, c.trace))
			var m struct {
				Arch   string `json:"observed_arch"`
				Match  string `json:"arch_match"`
				Reason string `json:"hardware_relevance_reason"`
			}
			artifact(t, res, "profile_metadata.json", &m)
			if m.Arch != c.arch || m.Match != c.match || !strings.Contains(m.Reason, c.reasonHas) {
				t.Errorf("got %s/%s %q; want %s/%s and a reason mentioning %q", m.Arch, m.Match, m.Reason, c.arch, c.match, c.reasonHas)
			}
		})
	}
}

// Stages come from annotations (SGLang step[DECODE …], g-* prefill/decode_step),
// and --stage keeps one of them.
func TestStages(t *testing.T) {
	cases := []struct {
		trace  string
		stages string
	}{
		{"traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", "decode"},
		{"traces/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz", "prefill"},
		{"gpu/traces/graph_on.trace.json.gz", "prefill,decode"},
		{"traces/tracelens/mi300/resnet_act_checkpoint.json.gz", "all"},
	}
	for _, c := range cases {
		res := analyze(t, "native", analyzer.Options{}, filepath.Join(shared, c.trace))
		var m struct {
			Stages []string `json:"stages"`
		}
		artifact(t, res, "profile_metadata.json", &m)
		if got := strings.Join(m.Stages, ","); got != c.stages {
			t.Errorf("%s: stages %q, want %q", c.trace, got, c.stages)
		}
	}
	res := analyze(t, "native", analyzer.Options{Stage: "decode"}, filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz"))
	var bd breakdownJSON
	artifact(t, res, "breakdown.json", &bd)
	// graph_on: 32 decode replays × 363 kernels inside the decode_step ranges
	// (graph_on.annot.json: 11,616), plus the step's token copies (GPU ops
	// here count copies too; the trace has 33 memcpys in all).
	if n := bd.Stages[0].KernelCount; len(bd.Stages) != 1 || bd.Stages[0].Stage != "decode" || n < 11616 || n > 11616+33 {
		t.Errorf("--stage decode: %+v", bd.Stages)
	}
}

// A profiler folder as SGLang writes it: per-rank, per-stage files, a merged
// file and server_args.json. Every TP rank's stage files are analysed (the
// merged file is not), each stage taken from its file name.
func TestProfilerFolder(t *testing.T) {
	dir := t.TempDir()
	decode := filepath.Join(shared, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	mixed := filepath.Join(shared, "traces/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz")
	copyTo := func(src, name string) {
		b, err := os.ReadFile(src)
		if err != nil {
			fixture.Missing(t, "%v", err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	copyTo(mixed, "1732000000-TP-0-EXTEND.trace.json.gz")
	copyTo(decode, "1732000000-TP-0-DECODE.trace.json.gz")
	copyTo(decode, "1732000000-TP-1-DECODE.trace.json.gz")
	copyTo(decode, "merged-1732000000.trace.json.gz")
	os.WriteFile(filepath.Join(dir, "server_args.json"), []byte(`{"model_path":"Qwen/Qwen3-8B","tp_size":2}`), 0o644)
	out := t.TempDir()
	var so, se bytes.Buffer
	if code := run([]string{"breakdown", "-q", "-o", out, dir}, strings.NewReader(""), &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, "profile_metadata.json"))
	var m struct {
		Stages []string `json:"stages"`
		Paths  []string `json:"source_trace_paths"`
		Model  string   `json:"model_name"`
		TP     int      `json:"tp_size"`
	}
	json.Unmarshal(b, &m)
	if strings.Join(m.Stages, ",") != "prefill,decode" || len(m.Paths) != 3 || !strings.Contains(m.Paths[0], "TP-0-DECODE") ||
		!strings.Contains(m.Paths[1], "TP-0-EXTEND") || !strings.Contains(m.Paths[2], "TP-1-DECODE") {
		t.Errorf("stages %v from %v", m.Stages, m.Paths)
	}
	if m.Model != "Qwen/Qwen3-8B" || m.TP != 2 {
		t.Errorf("server_args.json: model %q tp %d", m.Model, m.TP)
	}
}
