package overlap

import (
	"strings"
	"testing"
)

// Issue 22 item 4: overlap headroom must be reachable. On the H100
// graph-on trace every op runs on one stream (facts: dev0/stream7 only):
// nothing can run beside a norm or copy, so no row may promise a gain.
// On TP rank 0 the all-reduce (stream 17) can at most hide under the work
// of the other streams (facts: gpu_ops_per_stream), not its whole time.
func TestGainReachable(t *testing.T) {
	on := load(t, "gpu/traces/graph_on.trace.json.gz")
	if ps := facts(t, "graph_on")["gpu_ops_per_stream"].(map[string]any); len(ps) != 1 {
		t.Fatalf("graph_on facts: %d streams, the test needs one", len(ps))
	}
	off := load(t, "gpu/traces/eager_graph_off.trace.json.gz")
	r := Analyze(on, off, Options{})
	for _, row := range r.Rows {
		if row.Verdict != "dominant" && (row.OverlapGainUS != 0 || row.ConcurrentWorkUS != 0) {
			t.Errorf("single stream: %s %s %s gain %s us, concurrent work %s us (want 0)", row.Stage, row.Verdict, short(row.Kernel, 50), row.OverlapGainUS, row.ConcurrentWorkUS)
		}
	}

	st := load(t, "gpu/traces/tp_rank0.trace.json.gz")
	var other float64 // µs of GPU ops on streams other than NCCL's
	for k, v := range facts(t, "tp_rank0")["gpu_ops_per_stream"].(map[string]any) {
		if strings.HasSuffix(k, "/stream17") {
			continue
		}
		for _, kind := range v.(map[string]any) {
			other += kind.(map[string]any)["total_dur_us"].(float64)
		}
	}
	r = Analyze(st, st, Options{})
	seen := false
	for _, row := range r.Rows {
		if !strings.Contains(row.Kernel, "AllReduce") || row.Stage != "decode" {
			continue
		}
		seen = true
		µs := func(v us) float64 { return float64(v) / 1e3 }
		excl := µs(row.TotalUS) * float64(row.ExclusiveRatio)
		if g, c := µs(row.OverlapGainUS), µs(row.ConcurrentWorkUS); g > c+1e-3 || c > other+1e-3 || g >= excl-1 {
			t.Errorf("decode all-reduce: gain %s us, concurrent work %s us, other streams' ops %.3f us, exclusive %.3f us (want gain ≤ concurrent ≤ other, < exclusive)",
				row.OverlapGainUS, row.ConcurrentWorkUS, other, excl)
		}
	}
	if !seen {
		t.Error("no decode all-reduce row")
	}
}
