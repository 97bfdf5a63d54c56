package collectives

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

// summaries reads each shared trace into its own store and extracts it.
func summaries(t testing.TB, rels ...string) []*Summary {
	t.Helper()
	var out []*Summary
	for _, rel := range rels {
		st := fixture.Load(t, rel)
		var d struct {
			Rank  int `json:"rank"`
			World int `json:"world_size"`
		}
		if err := json.Unmarshal(st.Files[0].Header["distributedInfo"], &d); err != nil {
			t.Fatalf("%s: distributedInfo: %v", rel, err)
		}
		out = append(out, Extract(st, 0, d.Rank, d.World, callsite.NewJoins(st)))
	}
	return out
}

func dlrmFiles(t testing.TB) []string {
	m, _ := filepath.Glob(filepath.Join(fixture.Shared, "traces2/param_dlrm_v100_8rank/*.json.gz"))
	if len(m) != 8 {
		if os.Getenv("CI") != "" {
			t.Fatalf("DLRM traces: %d files", len(m))
		}
		t.Skip("DLRM traces not available")
	}
	var rels []string
	for _, p := range m {
		rel, _ := filepath.Rel(fixture.Shared, p)
		rels = append(rels, rel)
	}
	return rels
}

// TestDLRMKey checks every matched instance against the shared answer key
// (dlrm_collectives.key.json), computed independently from the raw JSON.
func TestDLRMKey(t *testing.T) {
	res := Match(summaries(t, dlrmFiles(t)...))
	var key struct {
		Instances []struct {
			Kind     string             `json:"kind"`
			Index    int                `json:"index"`
			Step     string             `json:"profiler_step"`
			Start    map[string]float64 `json:"start"`
			End      map[string]float64 `json:"end"`
			Skew     float64            `json:"arrival_skew_us"`
			First    int                `json:"first_rank"`
			Last     int                `json:"last_rank"`
			Wait     map[string]float64 `json:"wait_us"`
			Transfer float64            `json:"transfer_us"`
		} `json:"instances"`
	}
	b, err := os.ReadFile(filepath.Join(fixture.Shared, "traces2/dlrm_collectives.key.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &key); err != nil {
		t.Fatal(err)
	}
	if len(res.Instances) != len(key.Instances) {
		t.Fatalf("%d instances, key has %d", len(res.Instances), len(key.Instances))
	}
	us := func(u US) float64 { f, _ := strconv.ParseFloat(u.String(), 64); return f }
	for _, k := range key.Instances {
		var in *Instance
		for i := range res.Instances {
			if res.Instances[i].Kind == k.Kind && res.Instances[i].Index == k.Index {
				in = &res.Instances[i]
			}
		}
		if in == nil {
			t.Errorf("%s #%d: not matched", k.Kind, k.Index)
			continue
		}
		name := fmt.Sprintf("%s #%d", k.Kind, k.Index)
		if in.MatchedBy != "order" || in.Step != k.Step {
			t.Errorf("%s: matched by %s in step %q, want order in %q", name, in.MatchedBy, in.Step, k.Step)
		}
		if us(in.Skew) != k.Skew || us(in.Transfer) != k.Transfer || in.LastRank != k.Last || in.FirstRank != k.First {
			t.Errorf("%s: skew %s transfer %s first %d last %d; key %v %v %d %d", name, in.Skew, in.Transfer, in.FirstRank, in.LastRank, k.Skew, k.Transfer, k.First, k.Last)
		}
		for _, r := range in.Ranks {
			rk := strconv.Itoa(r.Rank)
			if us(r.Start) != k.Start[rk] || us(r.End) != k.End[rk] || us(r.Wait) != k.Wait[rk] {
				t.Errorf("%s rank %d: start %s end %s wait %s; key %v %v %v", name, r.Rank, r.Start, r.End, r.Wait, k.Start[rk], k.End[rk], k.Wait[rk])
			}
		}
		if in.Bytes != nil || in.BusBW != nil {
			t.Errorf("%s: bytes/busbw without args in the trace", name)
		}
	}
	// rank 7 is last at 4 of the 8 with 8.3 ms of the 11.3 ms skew
	if s := res.Straggler; s == nil || s.Rank == nil || *s.Rank != 7 {
		t.Fatalf("straggler %+v, want rank 7", res.Straggler)
	}
	if len(res.Steps) != 1 || res.Steps[0].Step != "ProfilerStep#10" || res.Steps[0].StragglerRank != 7 {
		t.Errorf("steps %+v", res.Steps)
	}
}

// TestTP2Independent recomputes the H200 TP=2 instances straight from the
// JSON (encoding/json, the kernels' own args) and compares skew, wait and
// busbw per instance; per-rank NCCL totals are the README's keys.
func TestTP2Independent(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 158 MB of JSON twice")
	}
	rels := []string{"gpu/traces/tp_rank0.trace.json.gz", "gpu/traces/tp_rank1.trace.json.gz"}
	res := Match(summaries(t, rels...))
	// README keys: 1,073 NCCL kernels per rank, summed 121,840.682 / 788,608.114 µs
	wantNCCL := []string{"121840.682", "788608.114"}
	for i, r := range res.Ranks {
		if r.Collective.String() != wantNCCL[i] || r.Collectives != 1073 {
			t.Errorf("rank %d: %d collectives, %s µs; README: 1073, %s", r.Rank, r.Collectives, r.Collective, wantNCCL[i])
		}
	}
	type kern struct {
		ts, dur float64
		corr    int64
		coll    string
		n       int64
	}
	var per [2]map[string][]kern
	for r, rel := range rels {
		var doc struct {
			TraceEvents []struct {
				Cat  string  `json:"cat"`
				Ts   float64 `json:"ts"`
				Dur  float64 `json:"dur"`
				Args struct {
					Corr  int64  `json:"correlation"`
					Coll  string `json:"Collective name"`
					Out   int64  `json:"Out msg nelems"`
					Dtype string `json:"dtype"`
				} `json:"args"`
			} `json:"traceEvents"`
		}
		if err := json.Unmarshal(fixture.Read(t, rel), &doc); err != nil {
			t.Fatal(err)
		}
		per[r] = map[string][]kern{}
		for _, e := range doc.TraceEvents {
			if e.Cat == "kernel" && e.Args.Coll != "" {
				per[r][e.Args.Coll] = append(per[r][e.Args.Coll], kern{e.Ts, e.Dur, e.Args.Corr, e.Args.Coll, e.Args.Out})
			}
		}
		for _, ks := range per[r] {
			sort.Slice(ks, func(a, b int) bool { return ks[a].corr < ks[b].corr })
		}
	}
	kinds := map[string]string{"allreduce": "allreduce", "_allgather_base": "allgather"}
	checked := 0
	worst := 0.0
	for coll, kind := range kinds {
		a, b := per[0][coll], per[1][coll]
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%s: %d vs %d kernels", coll, len(a), len(b))
		}
		for i := range a {
			var in *Instance
			for j := range res.Instances {
				if res.Instances[j].Kind == kind && res.Instances[j].Index == i {
					in = &res.Instances[j]
				}
			}
			if in == nil {
				t.Fatalf("%s #%d not matched", kind, i)
			}
			latest := math.Max(a[i].ts, b[i].ts)
			skew := math.Abs(a[i].ts - b[i].ts)
			transfer := math.Min(a[i].ts+a[i].dur, b[i].ts+b[i].dur) - latest
			bus := float64(a[i].n*2) / (transfer * 1e3) * BusFactor(kind, 2)
			rel := func(got, want float64) float64 {
				if want == 0 {
					return math.Abs(got)
				}
				return math.Abs(got-want) / math.Abs(want)
			}
			us := func(u US) float64 { f, _ := strconv.ParseFloat(u.String(), 64); return f }
			errs := []float64{rel(us(in.Skew), skew), rel(us(in.Ranks[0].Wait), latest-a[i].ts), rel(us(in.Ranks[1].Wait), latest-b[i].ts)}
			if in.BusBW != nil {
				errs = append(errs, rel(*in.BusBW, bus))
			} else if transfer > 0 {
				t.Errorf("%s #%d: no busbw", kind, i)
			}
			for _, e := range errs {
				worst = math.Max(worst, e)
				if e > 0.02 && math.Abs(us(in.Skew)-skew) > 0.002 {
					t.Errorf("%s #%d: off by %.3f %%: skew %s vs %.3f", kind, i, e*100, in.Skew, skew)
				}
			}
			checked++
		}
	}
	t.Logf("%d instances checked, worst relative difference %.2g", checked, worst)
	if s := res.Straggler; s == nil || s.Rank == nil {
		t.Errorf("no straggler")
	} else {
		t.Logf("straggler: %s", s.Reason)
	}
}

// TestSummaryRoundTrip: a summary written and read back reduces to the
// same bytes (the map/reduce contract).
func TestSummaryRoundTrip(t *testing.T) {
	sums := summaries(t, dlrmFiles(t)...)
	direct := Match(sums)
	var back []*Summary
	for _, s := range sums {
		b, _ := json.Marshal(s)
		var x Summary
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		back = append(back, &x)
	}
	again := Match(back)
	if string(direct.JSON("t", "v")) != string(again.JSON("t", "v")) || string(direct.RanksJSON("t", "v")) != string(again.RanksJSON("t", "v")) {
		t.Errorf("reduce over decoded summaries differs")
	}
}

func TestPrintDLRM(t *testing.T) {
	if os.Getenv("PRINT") == "" {
		t.Skip()
	}
	res := Match(summaries(t, dlrmFiles(t)...))
	t.Log(res.Markdown())
	t.Log(string(res.RanksJSON("t", "v")))
}
