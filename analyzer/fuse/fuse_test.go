package fuse

import (
	"bytes"
	"encoding/json"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"

	"github.com/gputriage/gputriage/analyzer/overlap"
	"github.com/gputriage/gputriage/analyzer/trace"
)

func load(t testing.TB, rels ...string) *trace.Store { return fixture.Load(t, rels...) }

func golden(t *testing.T, name string, got []byte) { fixture.Golden(t, name, got, *update) }

var update = flag.Bool("update", false, "rewrite golden files")

var shared = fixture.Shared

// analyze wires fuse the way triage does: stages and locations from overlap
// (formal trace, graph-off mapping).
func analyze(t testing.TB, formal, mapping *trace.Store) *Result {
	stages := overlap.Stages(callsite.NewJoins(formal))
	ov := overlap.Analyze(formal, mapping, overlap.Options{Timelines: -1})
	return Analyze(formal, Options{StageOf: func(i int) string { return stages[i] }, Locate: ov.Locate})
}

func find(r *Result, stage, rule string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Stage == stage && r.Rows[i].Rule == rule {
			return &r.Rows[i]
		}
	}
	return nil
}

func logRows(t *testing.T, r *Result) {
	for _, row := range r.Rows {
		var ev []string
		for _, e := range row.Evidence {
			ev = append(ev, short(e.Kernel, 40))
		}
		t.Logf("%s | %s | %s | %s | %s us %.4f | n=%d | %v | %v", row.Stage, row.Rule, row.Pattern, row.Confidence, row.RelatedUS, row.Share, row.Occurrences, ev, row.Locations)
	}
}

// TestROCmDecode: Qwen3-8B decode on MI300X (HIP graph), mapping from the
// graph-off prefill+decode trace.
func TestROCmDecode(t *testing.T) {
	formal := load(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	mapping := load(t, "traces/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz")
	r := analyze(t, formal, mapping)
	logRows(t, r)
	if r.Vendor != "ROCm" {
		t.Errorf("vendor %s", r.Vendor)
	}
	if row := find(r, "decode", RuleQKNormRoPE); row == nil || row.Confidence != Conditional {
		t.Error("Qwen3 Q/K norm + RoPE not found")
	} else if !slices.ContainsFunc(row.Locations, func(l string) bool { return strings.Contains(l, "_reshape_for_qk_norm") }) {
		// the chain's layout copies go with it (issue 22 item 13)
		t.Errorf("Q/K norm + RoPE row leaves out the _reshape_for_qk_norm copies of its chain: %v", row.Locations)
	}
	if row := find(r, "decode", RuleAddNormQuant); row == nil || row.Confidence != AlreadyFused {
		t.Error("AITER add_rmsnorm_quant must be reported as already fused")
	}
	if find(r, "decode", RuleAllReduceNorm) != nil {
		t.Error("TP=1 trace: no all-reduce pattern may be invented")
	}
	golden(t, "rocm_decode.json", r.JSON())
	golden(t, "rocm_decode.md", r.Markdown())
}

// TestTPRank0: blocking NCCL all-reduce on the compute stream followed by
// PyTorch's unfused RMSNorm (prefill); async all-reduce on its own stream
// (decode).
func TestTPRank0(t *testing.T) {
	st := load(t, "gpu/traces/tp_rank0.trace.json.gz")
	r := analyze(t, st, st)
	logRows(t, r)
	row := find(r, "prefill", RuleAllReduceNorm)
	if row == nil {
		t.Fatal("TP all-reduce + RMSNorm not found in prefill")
	}
	if row.Confidence != Likely {
		t.Errorf("confidence %s", row.Confidence)
	}
	if find(r, "prefill", RuleQKNormRoPE) != nil || find(r, "decode", RuleQKNormRoPE) != nil {
		t.Error("Llama-style model has no Q/K norm: nothing to invent")
	}
	golden(t, "tp_rank0.json", r.JSON())
	golden(t, "tp_rank0.md", r.Markdown())
}

func TestEmpty(t *testing.T) {
	r := Analyze(trace.NewStore(), Options{})
	if !json.Valid(r.JSON()) || len(r.Rows) != 0 || !bytes.Contains(r.Markdown(), []byte("No fusion pattern")) {
		t.Error("empty store")
	}
}
