package overlap

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	sharedfix "github.com/gputriage/gputriage/internal/fixture"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"

	"github.com/gputriage/gputriage/analyzer/trace"
)

func load(t testing.TB, rels ...string) *trace.Store { return fixture.Load(t, rels...) }

func golden(t *testing.T, name string, got []byte) { fixture.Golden(t, name, got, *update) }

var update = flag.Bool("update", false, "rewrite golden files")

var shared = fixture.Shared

func facts(t testing.TB, name string) map[string]any {
	b, err := os.ReadFile(filepath.Join(shared, "gpu/facts", name+".facts.json"))
	if err != nil {
		sharedfix.Missing(t, "%v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func relEq(got us, want float64) bool {
	g := float64(got) / 1000
	return math.Abs(g-want) <= 1e-5*math.Max(math.Abs(want), 1e-9)
}

func logRows(t *testing.T, r *Result) {
	s := r.Summary
	t.Logf("ops %d streams %v busy %s overlap %s peak %d comm∩compute %s graph %d/%d coverage %.4f python %.4f direct %.4f seq %.4f name %.4f",
		s.Ops, s.Streams, s.BusyUS, s.OverlapUS, s.PeakStreams, s.CommComputeUS, s.GraphKernels, s.GraphReplays,
		s.MappingCoverage, s.PythonCoverage, s.Direct, s.BySequence, s.ByName)
	for _, row := range r.Rows {
		t.Logf("%s %s %s %s [%s] scope=%q op=%q %s us share %.3f excl %.2f hid %.2f by %s dep %s → %s (%s)",
			row.Stage, row.Priority, row.Verdict, short(row.Kernel, 60), row.Category, row.PythonScope, row.LaunchOp,
			row.TotalUS, row.Share, row.ExclusiveRatio, row.HiddenRatio, row.HiddenBy, row.DepRisk, row.Recommendation, row.MappedBy)
	}
}

// TestTPRank0: NCCL on stream 17 overlaps compute on stream 7.
func TestTPRank0(t *testing.T) {
	st := load(t, "gpu/traces/tp_rank0.trace.json.gz")
	f := facts(t, "tp_rank0")
	r := Analyze(st, st, Options{})
	logRows(t, r)
	// The answer key's 5980.839 was summed in float64 over epoch-scale
	// timestamps (≈4.4e12 µs, ulp ≈ 0.001 µs); the exact decimal value,
	// checked independently with Python's Decimal, is 5980.750 µs
	// (1.5e-5 relative below the key).
	if r.Summary.CommComputeUS != 5980750 {
		t.Errorf("comm ∩ compute %s us, want 5980.750 (exact)", r.Summary.CommComputeUS)
	}
	if want := f["nccl_compute_overlap_us"].(float64); math.Abs(float64(r.Summary.CommComputeUS)/1000-want) > 2e-5*want {
		t.Errorf("comm ∩ compute %s us, answer key %v", r.Summary.CommComputeUS, want)
	}
	if want := f["gpu_busy_union_us"].(float64); !relEq(r.Summary.BusyUS, want) {
		t.Errorf("busy %s us, want %v", r.Summary.BusyUS, want)
	}
	if r.Summary.PeakStreams < 2 {
		t.Errorf("peak streams %d", r.Summary.PeakStreams)
	}
	// NCCL on stream 17 runs under compute on stream 7: hidden comm.
	hiddenComm := false
	for _, row := range r.Rows {
		if row.Category == "communication" && row.Stage == "decode" && row.HiddenRatio > 0.01 && row.HiddenBy != "" && row.HiddenBy != "communication" {
			hiddenComm = true
		}
	}
	if !hiddenComm {
		t.Error("no hidden communication row in decode")
	}
	golden(t, "tp_rank0.json", r.JSON())
	golden(t, "tp_rank0.md", r.Markdown())
}

// TestGraphPair: graph-off mapping + graph-on formal (H100).
func TestGraphPair(t *testing.T) {
	mapping := load(t, "gpu/traces/eager_graph_off.trace.json.gz")
	formal := load(t, "gpu/traces/graph_on.trace.json.gz")
	f := facts(t, "graph_on")
	r := Analyze(formal, mapping, Options{})
	logRows(t, r)
	if want := f["gpu_busy_union_us"].(float64); !relEq(r.Summary.BusyUS, want) {
		t.Errorf("busy %s us, want %v", r.Summary.BusyUS, want)
	}
	if r.Summary.GraphReplays != 32 || r.Summary.GraphKernels != 11616 {
		t.Errorf("graph %d replays %d kernels", r.Summary.GraphReplays, r.Summary.GraphKernels)
	}
	if r.Summary.ReplaysAligned != 32 {
		t.Errorf("%d replays aligned exactly, want 32", r.Summary.ReplaysAligned)
	}
	if r.Summary.MappingCoverage < 0.99 {
		t.Errorf("mapping coverage %.4f", r.Summary.MappingCoverage)
	}
	golden(t, "graph_pair.json", r.JSON())
	golden(t, "graph_pair.md", r.Markdown())
}

// TestROCmPair: MI300X SGLang decode (HIP graph) with the graph-off
// prefill+decode trace as mapping.
func TestROCmPair(t *testing.T) {
	mapping := load(t, "traces/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz")
	formal := load(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	r := Analyze(formal, mapping, Options{})
	logRows(t, r)
	if r.Summary.GraphKernels != 544 || r.Summary.GraphReplays != 1 {
		t.Errorf("graph %d replays %d kernels", r.Summary.GraphReplays, r.Summary.GraphKernels)
	}
	// Issue 10: on this single-stream replay the GEMMs and attention hold
	// most of the time; they must appear, saying overlap cannot buy
	// anything here, below the exposed norm/RoPE rows in priority only as
	// an overlap lever.
	var dominant []Row
	for _, row := range r.Rows {
		if row.Verdict == "dominant" {
			dominant = append(dominant, row)
		}
	}
	var held float64
	for _, row := range dominant {
		held += float64(row.Share)
		if row.StageStreams != 1 || row.OverlapGainUS != 0 || row.Priority != "P3" || row.Category != "compute" {
			t.Errorf("dominant row %s: streams %d gain %s priority %s", short(row.Kernel, 40), row.StageStreams, row.OverlapGainUS, row.Priority)
		}
	}
	if len(dominant) != 3 || held < 0.5 || !strings.HasPrefix(dominant[0].Kernel, "Cijk_") {
		t.Errorf("%d dominant rows holding %.2f of decode", len(dominant), held)
	}
	golden(t, "rocm_pair.json", r.JSON())
	golden(t, "rocm_pair.md", r.Markdown())
}

func TestEmpty(t *testing.T) {
	st := trace.NewStore()
	r := Analyze(st, nil, Options{})
	if !json.Valid(r.JSON()) || len(r.Rows) != 0 || len(r.Markdown()) == 0 {
		t.Error("empty store")
	}
}

// Stage files whose clocks span 3.9·10¹⁸ ns each cannot follow one another
// inside int64: the third file's shifted times saturate at int64's end
// instead of wrapping to before the first file's (issue 24).
func TestFileShiftsSaturate(t *testing.T) {
	st := trace.NewStore()
	for i := range 3 {
		r := st.NewReader(fmt.Sprintf("1700000000-TP-0-%d.trace.json", i))
		r.Write([]byte(`{"traceEvents":[` +
			`{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":3900000000000000,"dur":5,"args":{"stream":7}}]}`))
		if f := r.Close(); !f.Complete {
			t.Fatal(f.Problem)
		}
	}
	devOf := st.HeaviestDevices()
	shift := fileShifts(st, devOf)
	const start, end int64 = 10_000, 3_900_000_000_000_005_000 // ns
	s1 := end - start + 1000
	if s2 := end + s1 - start + 1000; shift[0] != 0 || shift[1] != s1 || shift[2] != s2 {
		t.Fatalf("shifts %v, want 0, %d, %d", shift, s1, s2)
	}
	r, a := analyze(st, nil, Options{})
	for k, o := range a.ops {
		if o.ts < start || o.end < o.ts {
			t.Errorf("op %d: %d → %d", k, o.ts, o.end)
		}
		if k > 0 && o.ts < a.ops[k-1].ts {
			t.Errorf("op %d at %d before op %d at %d", k, o.ts, k-1, a.ops[k-1].ts)
		}
	}
	// the third file's last kernel is at int64's end, 0 long
	if s := r.Summary; s.Ops != 6 || s.BusyUS != 25_000 || s.OverlapUS != 0 {
		t.Errorf("summary %+v", s)
	}
	for _, b := range [][]byte{r.JSON(), r.Markdown()} {
		if bytes.Contains(b, []byte("-92233720368547")) || bytes.Contains(b, []byte("-67467")) {
			t.Errorf("a wrapped-around time: %.2000s", b)
		}
	}
}
