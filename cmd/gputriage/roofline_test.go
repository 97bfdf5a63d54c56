package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
)

// The roofline through the whole job: triage of the SGLang HIP-graph decode
// trace with its capture trace names the top GEMM's share of MI300X's bf16
// peak among the summary's first takeaways (after why the GPU idles), and the overrides replace the roofs.
func TestRooflineTriage(t *testing.T) {
	dir := filepath.Join(shared, "traces/tracelens/inference/sglang_decode")
	formal := filepath.Join(dir, "sglang_Qwen3-8B_decode.json.gz")
	capture := filepath.Join(dir, "capture_traces/bs_32_rank0.json.gz")
	res := analyze(t, "native", analyzer.Options{Command: "triage"}, formal, capture)
	md, _ := res.Artifact("profile_summary.md")
	_, takeaways, _ := strings.Cut(md, "## Takeaways\n\n")
	// The first takeaways: the step figures (steps.json), the projection
	// onto the target, why the GPU idles and the launch verdict
	// (idle.json, launch_stats.json), then the roofline's.
	lines := strings.SplitN(takeaways, "\n", 6)
	first := strings.Join(lines[:min(5, len(lines))], "\n")
	if !strings.Contains(first, "top GEMM") || !strings.Contains(first, "of MI300X's bf16 peak") || !strings.Contains(first, "memory-bound") {
		t.Errorf("first takeaways: %q", first)
	}
	// Issue 22 item 3: the in-step figures lead (idle.json's 0.67 ms idle
	// in the 10.37 ms step, 59 % of it host-bound) and name SGLang's frame.
	if !strings.HasPrefix(lines[0], "- decode: step p50 10.367 ms") || !strings.Contains(lines[0], "GPU busy 93.5 %") ||
		!strings.Contains(lines[0], "0.673 ms idle: 59 % host-bound in `sglang/srt/layers/attention/aiter_backend.py(1654): init_forward_metadata_replay_cuda_graph`") {
		t.Errorf("first takeaway: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "- decode: on MI355X a decode step's modelled ops need ≥ ") {
		t.Errorf("second takeaway: %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "- decode: GPU idle") {
		t.Errorf("third takeaway: %q", lines[2])
	}
	if !strings.Contains(md, "## Roofline") {
		t.Error("no Roofline section")
	}
	var rl struct {
		Partial bool `json:"partial"`
		Device  struct {
			Key string `json:"key"`
		} `json:"device"`
		Stages []struct {
			Mapped float64 `json:"graph_mapped_us"`
		} `json:"stages"`
		Rows []struct {
			Model      *string  `json:"model"`
			Efficiency *float64 `json:"efficiency"`
			PeakGBPS   *float64 `json:"peak_gbps"`
		} `json:"rows"`
	}
	artifact(t, res, "roofline.json", &rl)
	if rl.Device.Key != "MI300X" || len(rl.Stages) == 0 || rl.Stages[0].Mapped <= 0 {
		t.Errorf("device %q stages %+v", rl.Device.Key, rl.Stages)
	}
	over := analyze(t, "native", analyzer.Options{Command: "breakdown", PeakTFLOPS: 100, PeakGBPS: 1000},
		filepath.Join(shared, "gpu/perfmodel/roofline.trace.json.gz"))
	text, _ := over.Artifact("roofline.json")
	if err := json.Unmarshal([]byte(text), &rl); err != nil {
		t.Fatal(err)
	}
	for _, r := range rl.Rows {
		if r.PeakGBPS == nil || *r.PeakGBPS != 1000 {
			t.Fatalf("override not applied: %s", text[:min(len(text), 600)])
		}
	}
}

// On every shared MI300X serving trace (with its capture trace where it
// has one), each stage's first takeaways lead with its step figures (the
// stage's steps.json wall-time p50) and then its bound on the target,
// naming the top op, its efficiency on the trace's GPU (its roofline.json
// row) and its bound on MI355X (the row's target_bound_us per step).
func TestServingFirstTakeaways(t *testing.T) {
	dir := filepath.Join(shared, "traces/tracelens/inference")
	for _, c := range []struct{ formal, capture, stage string }{
		{"sglang_decode/sglang_Qwen3-8B_decode.json.gz", "sglang_decode/capture_traces/bs_32_rank0.json.gz", "decode"},
		{"sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz", "", "prefill"},
		{"vllm_decode_full/graph_execution.json.gz", "vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz", "decode"},
		{"vllm_prefilldecode_piecewise/graph_execution.json.gz", "vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz", "mixed"},
	} {
		files := []string{filepath.Join(dir, c.formal)}
		if c.capture != "" {
			files = append(files, filepath.Join(dir, c.capture))
		}
		res := analyze(t, "native", analyzer.Options{Command: "triage"}, files...)
		md, _ := res.Artifact("profile_summary.md")
		_, takeaways, _ := strings.Cut(md, "## Takeaways\n\n")
		var mine []string
		for _, l := range strings.Split(takeaways, "\n") {
			if strings.HasPrefix(l, "- "+c.stage+": ") {
				mine = append(mine, strings.TrimPrefix(l, "- "+c.stage+": "))
			}
		}
		var steps struct {
			Stages []struct {
				Stage string
				Steps int
				Wall  struct{ P50 float64 } `json:"wall_us"`
			}
		}
		artifact(t, res, "steps.json", &steps)
		var rl struct {
			Rows []struct {
				Stage       string
				Op          string
				KernelTime  float64 `json:"kernel_time_us"`
				Share       float64 `json:"modelled_share"`
				Bound       *string
				Efficiency  *float64
				TargetBound float64 `json:"target_bound_us"`
			}
		}
		artifact(t, res, "roofline.json", &rl)
		if len(steps.Stages) != 1 || steps.Stages[0].Stage != c.stage || steps.Stages[0].Steps == 0 || len(mine) < 2 {
			t.Errorf("%s: steps %+v, takeaways %q", c.formal, steps.Stages, mine)
			continue
		}
		s := steps.Stages[0]
		if want := fmt.Sprintf("step p50 %.3f ms", s.Wall.P50/1e3); !strings.HasPrefix(mine[0], want) {
			t.Errorf("%s: first takeaway %q, want it to start %q", c.formal, mine[0], want)
		}
		top := -1
		for i, r := range rl.Rows {
			if r.Stage == c.stage && r.Share > 0 && r.Bound != nil && (top < 0 || r.KernelTime > rl.Rows[top].KernelTime) {
				top = i
			}
		}
		if top < 0 {
			t.Errorf("%s: no modelled row", c.formal)
			continue
		}
		r := rl.Rows[top]
		want := fmt.Sprintf("the top op `%s` runs at %.1f %% of its %s roof on MI300X and needs ≥ %.3f ms of its %.3f ms on MI355X",
			r.Op, *r.Efficiency*100, *r.Bound, r.TargetBound/1e3/float64(s.Steps), r.KernelTime/1e3/float64(s.Steps))
		if !strings.HasPrefix(mine[1], "on MI355X a "+c.stage+" step's modelled ops need ≥ ") || !strings.Contains(mine[1], want) {
			t.Errorf("%s: second takeaway %q, want %q in it", c.formal, mine[1], want)
		}
	}
}
