package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/perfetto"
)

// triage of the H100 graph-off/graph-on pair: same bytes from both engines,
// the pair found without naming roles, the three tables present.
func TestTriagePair(t *testing.T) {
	off := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz")
	on := filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz")
	if _, err := os.Stat(on); err != nil {
		t.Skip(err)
	}
	w := analyze(t, "wasm", analyzer.Options{Command: "triage"}, on, off)
	n := analyze(t, "native", analyzer.Options{Command: "triage"}, on, off)
	if fmt.Sprint(w.Artifacts) != fmt.Sprint(n.Artifacts) {
		t.Fatal("triage artifacts differ between wasm and native")
	}
	named := analyze(t, "native", analyzer.Options{Command: "overlap", Mapping: []string{off}, Formal: []string{on}}, off, on)
	a, _ := w.Artifact("overlap_opportunities.json")
	b, _ := named.Artifact("overlap_opportunities.json")
	if a != b {
		t.Error("automatic pairing differs from --mapping/--formal")
	}
	var ov struct {
		Rows    []json.RawMessage `json:"rows"`
		Summary struct {
			MappingCoverage float64 `json:"mapping_coverage"`
		} `json:"summary"`
	}
	artifact(t, w, "overlap_opportunities.json", &ov)
	if len(ov.Rows) == 0 || ov.Summary.MappingCoverage < 0.9 {
		t.Errorf("overlap: %d rows, mapping coverage %.3f (want ≥ 0.9: every replayed kernel has its graph-off twin)", len(ov.Rows), ov.Summary.MappingCoverage)
	}
	var fu struct {
		Rows []json.RawMessage `json:"rows"`
	}
	artifact(t, w, "fuse_opportunities.json", &fu)
	sum := artifact(t, w, "profile_summary.md", nil)
	for _, h := range []string{"top kernels", "## Overlap opportunities", "## Fuse opportunities"} {
		if !strings.Contains(sum, h) {
			t.Errorf("profile_summary.md lacks %q", h)
		}
	}
	var meta struct {
		Paths []string `json:"source_trace_paths"`
	}
	artifact(t, w, "profile_metadata.json", &meta)
	if len(meta.Paths) != 1 || meta.Paths[0] != on {
		t.Errorf("the formal trace should be the graph-on one, got %v", meta.Paths)
	}
}

// Two ranks of the H200 TP run: rank 1 spends far more time inside NCCL
// (788,608 µs vs 121,841 µs in the answer key) because it waits for rank 0.
func TestRanks(t *testing.T) {
	r0 := filepath.Join(shared, "gpu/traces/tp_rank0.trace.json.gz")
	r1 := filepath.Join(shared, "gpu/traces/tp_rank1.trace.json.gz")
	res := analyze(t, "wasm", analyzer.Options{}, r0, r1)
	var bd struct {
		Ranks struct {
			Rows []struct {
				Rank       int             `json:"rank"`
				Collective json.RawMessage `json:"collective_time_us"`
			} `json:"rows"`
			Slowest int `json:"slowest_rank"`
			Waiting int `json:"most_waiting_rank"`
		} `json:"ranks"`
	}
	artifact(t, res, "breakdown.json", &bd)
	r := bd.Ranks
	if len(r.Rows) != 2 || r.Waiting != 1 || r.Slowest != 0 {
		t.Fatalf("ranks %+v", r)
	}
	// Answer key: nccl_kernel_total_dur_us per rank.
	if string(r.Rows[0].Collective) != "121840.682" || !strings.HasPrefix(string(r.Rows[1].Collective), "788608.") {
		t.Errorf("collective times %s / %s", r.Rows[0].Collective, r.Rows[1].Collective)
	}
	// The verdict across ranks leads: rank 0 arrives last, rank 1 waits.
	if sum := artifact(t, res, "profile_summary.md", nil); !strings.Contains(sum, "**Across ranks:** rank 0 is the straggler") {
		t.Error("summary lacks the cross-rank verdict")
	}
	var co struct {
		Rows []struct {
			Kind string `json:"kind"`
		} `json:"rows"`
	}
	artifact(t, res, "collectives.json", &co)
	if len(co.Rows) != 1073 { // 1,040 all_reduce + 33 all_gather per rank (README)
		t.Errorf("%d collective instances, want 1073", len(co.Rows))
	}
}

// perfetto-fix through the module: no same-lane crossing left, every event
// kept, the output reads back with the same kernel totals; a trace without
// crossings comes back byte-identical.
func TestPerfettoFix(t *testing.T) {
	for _, c := range []struct {
		trace     string
		crossings bool
	}{
		{"traces/tracelens/b200/eager_trace.json.gz", true},
		{"traces/hta/negative_queue_length_values_check/rank0.json.gz", true},
		{"traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", false},
	} {
		t.Run(filepath.Base(c.trace), func(t *testing.T) {
			src := filepath.Join(shared, c.trace)
			raw := gunzip(t, src)
			before := perfetto.Check(raw)
			if (before.Crossings > 0) != c.crossings {
				t.Fatalf("fixture has %d crossings", before.Crossings)
			}
			outs := map[string][]byte{}
			for _, engine := range []string{"wasm", "native"} {
				dir := t.TempDir()
				var so, se bytes.Buffer
				code := run([]string{"perfetto-fix", "-q", "--engine", engine, "-o", dir, src}, nil, &so, &se)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", engine, code, se.String())
				}
				outs[engine], _ = os.ReadFile(filepath.Join(dir, "perfetto_fixed_trace.json"))
			}
			if !bytes.Equal(outs["wasm"], outs["native"]) {
				t.Fatal("engines differ")
			}
			out := outs["wasm"]
			after := perfetto.Check(out)
			if after.Crossings != 0 || !after.Complete {
				t.Errorf("after the fix: %d crossings, complete=%v", after.Crossings, after.Complete)
			}
			if !c.crossings && !bytes.Equal(out, raw) {
				t.Error("a trace without crossings must come back unchanged")
			}
			var a, b breakdownJSON
			artifact(t, analyzeBytes(t, "native", analyzer.Options{}, []string{"in.json"}, [][]byte{raw}), "breakdown.json", &a)
			artifact(t, analyzeBytes(t, "native", analyzer.Options{}, []string{"in.json"}, [][]byte{out}), "breakdown.json", &b)
			if string(a.Files[0].KernelTime) != string(b.Files[0].KernelTime) || a.Files[0].Kernels != b.Files[0].Kernels {
				t.Errorf("kernel totals changed: %s/%d → %s/%d", a.Files[0].KernelTime, a.Files[0].Kernels, b.Files[0].KernelTime, b.Files[0].Kernels)
			}
		})
	}
}

// The ROCm and vLLM graph-on traces paired with their capture traces: the
// capture is found as the mapping, ≥ 90 % of the formal GPU time maps to a
// code location, and the kernel table carries it.
func TestTriageCapturePairs(t *testing.T) {
	base := filepath.Join(shared, "traces/tracelens/inference")
	caps := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(base, dir, "capture_traces", "*.json.gz"))
		if len(m) != 1 {
			t.Skipf("%s: %v", dir, m)
		}
		return m[0]
	}
	for _, c := range []struct{ name, formal, mapping string }{
		{"sglang decode", filepath.Join(base, "sglang_decode/sglang_Qwen3-8B_decode.json.gz"), caps("sglang_decode")},
		{"vllm full", filepath.Join(base, "vllm_decode_full/graph_execution.json.gz"), caps("vllm_decode_full")},
		{"vllm piecewise", filepath.Join(base, "vllm_prefilldecode_piecewise/graph_execution.json.gz"), caps("vllm_prefilldecode_piecewise")},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Capture first: the pairing must not depend on the order.
			w := analyze(t, "wasm", analyzer.Options{Command: "triage"}, c.mapping, c.formal)
			n := analyze(t, "native", analyzer.Options{Command: "triage"}, c.mapping, c.formal)
			if fmt.Sprint(w.Artifacts) != fmt.Sprint(n.Artifacts) {
				t.Fatal("engines differ")
			}
			var ov struct {
				Summary struct {
					Mapping float64 `json:"mapping_coverage"`
					Python  float64 `json:"python_coverage"`
				} `json:"summary"`
			}
			artifact(t, w, "overlap_opportunities.json", &ov)
			if ov.Summary.Mapping < 0.9 || ov.Summary.Python < 0.9 {
				t.Errorf("mapping coverage %.3f, python %.3f (want ≥ 0.9: the capture trace has stacks)", ov.Summary.Mapping, ov.Summary.Python)
			}
			var kt struct {
				Rows []struct {
					GPUTime float64 `json:"gpu_time_us"`
					Loc     *string `json:"python_location"`
				} `json:"rows"`
			}
			artifact(t, w, "kernel_table.json", &kt)
			var all, located float64
			for _, r := range kt.Rows {
				all += r.GPUTime
				if r.Loc != nil && !strings.Contains(*r.Loc, "graphs.py") && !strings.Contains(*r.Loc, "cuda_graph_runner") {
					located += r.GPUTime
				}
			}
			if located < 0.9*all {
				t.Errorf("kernel table: %.1f %% of GPU time has a model-code location", 100*located/all)
			}
			var meta struct {
				Paths []string `json:"source_trace_paths"`
			}
			artifact(t, w, "profile_metadata.json", &meta)
			if len(meta.Paths) != 1 || meta.Paths[0] != c.formal {
				t.Errorf("formal trace picked: %v", meta.Paths)
			}
		})
	}
}

// diff: the graph-off and graph-on runs of one workload have the same
// kernel multiset (answer key: 35 names, identical per-name counts), so every
// kernel's launch delta is 0; MI300X vs H100 is refused unless forced.
func TestDiff(t *testing.T) {
	off := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz")
	on := filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz")
	// Both runs' comparison fields known and equal: comparable.
	id := analyzer.RunIdentity{BaseImage: "img", ResourceClass: "1xH100", GPUDeviceIDs: []int{0}, ServerFlags: "f", BenchmarkConfigHash: "h"}
	w := analyze(t, "wasm", analyzer.Options{Command: "diff", Run: id}, off, on)
	n := analyze(t, "native", analyzer.Options{Command: "diff", Run: id}, off, on)
	if fmt.Sprint(w.Artifacts) != fmt.Sprint(n.Artifacts) {
		t.Fatal("engines differ")
	}
	var d struct {
		Refused bool `json:"refused"`
		Kernels []struct {
			Kernel   string `json:"kernel"`
			Launches struct {
				Delta int64 `json:"delta"`
			} `json:"launches"`
		} `json:"kernels"`
	}
	js := artifact(t, w, "diff.json", &d)
	if d.Refused || len(d.Kernels) == 0 {
		t.Fatalf("refused=%v, %d kernel rows", d.Refused, len(d.Kernels))
	}
	if !strings.Contains(js, `"launches"`) {
		t.Skip("diff.json has no per-kernel launch deltas")
	}
	for _, k := range d.Kernels {
		if k.Launches.Delta != 0 {
			t.Errorf("%s: launch delta %d", k.Kernel, k.Launches.Delta)
		}
	}
	mi := filepath.Join(shared, "traces/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
	h := filepath.Join(shared, "traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
	r := analyze(t, "native", analyzer.Options{Command: "diff"}, mi, h)
	if md := artifact(t, r, "diff.md", nil); !strings.Contains(md, "Refused") || !strings.Contains(md, "gfx942 vs sm90") {
		t.Errorf("MI300X vs H100 should be refused for the arch:\n%s", md)
	}
	r = analyze(t, "native", analyzer.Options{Command: "diff", Force: true}, mi, h)
	if md := artifact(t, r, "diff.md", nil); strings.Contains(md, "**Refused") {
		t.Error("--force should compare")
	}
}
