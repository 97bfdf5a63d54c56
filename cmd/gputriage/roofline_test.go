package main

import (
	"encoding/json"
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
	if !strings.HasPrefix(lines[0], "- decode: step p50 10.367 ms") || !strings.Contains(lines[0], "GPU busy 93.5 %") {
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
