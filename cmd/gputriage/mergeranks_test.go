package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/fixture"
)

// breakdown --merge-ranks over a job's two rank files writes one Perfetto
// process per rank on the common clock: every rank's GPU ops, and its
// slice of each matched collective where collectives.json says it is.
func TestMergeRanks(t *testing.T) {
	tp, _ := filepath.Glob(filepath.Join(shared, "gpu/traces/tp_rank*.trace.json.gz"))
	if len(tp) != 2 {
		fixture.Missing(t, "TP=2 rank traces: %d files", len(tp))
	}
	opts := analyzer.Options{Command: "breakdown", MergeRanks: true}
	res := analyze(t, "native", opts, tp...)
	text := artifact(t, res, analyzer.MergedTraceName, nil)
	if w, _ := analyze(t, "wasm", opts, tp...).Artifact(analyzer.MergedTraceName); !bytes.Equal([]byte(w), []byte(text)) {
		t.Error("native and wasm merged traces differ")
	}
	if _, ok := analyze(t, "native", analyzer.Options{Command: "breakdown"}, tp...).Artifact(analyzer.MergedTraceName); ok {
		t.Error("merged trace written without merge_ranks")
	}
	// triage matches the ranks on its own path: the same trace
	if tr, _ := analyze(t, "native", analyzer.Options{Command: "triage", MergeRanks: true}, tp...).Artifact(analyzer.MergedTraceName); tr != text {
		t.Errorf("triage's merged trace (%d bytes) is not breakdown's (%d)", len(tr), len(text))
	}
	// the CLI flag, on and off; a run without it removes the last one's
	out := t.TempDir()
	for _, c := range []struct {
		flag string
		want bool
	}{{"--merge-ranks", true}, {"--merge-ranks=false", false}} {
		var so, se bytes.Buffer
		if code := run(append([]string{"breakdown", "-q", "--engine", "native", c.flag, "-o", out}, tp...), nil, &so, &se); code != 0 {
			t.Fatalf("breakdown %s: exit %d %s", c.flag, code, se.String())
		}
		b, err := os.ReadFile(filepath.Join(out, analyzer.MergedTraceName))
		if got := err == nil; got != c.want || (got && !bytes.Equal(b, []byte(text))) {
			t.Errorf("breakdown %s: %s written %v (same bytes as the engine's: %v), want %v", c.flag, analyzer.MergedTraceName, got, bytes.Equal(b, []byte(text)), c.want)
		}
	}

	type ev struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Cat  string  `json:"cat"`
		PID  int     `json:"pid"`
		TID  int64   `json:"tid"`
		TS   float64 `json:"ts"`
		Dur  float64 `json:"dur"`
		Args struct {
			Name  string  `json:"name"`
			PG    string  `json:"pg"`
			Kind  string  `json:"kind"`
			Index int     `json:"index"`
			Skew  float64 `json:"skew_us"`
			Last  int     `json:"last_rank"`
		} `json:"args"`
	}
	var m struct {
		Events []ev `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	procs := map[int]string{}
	ops := map[int]int{}
	starts := map[int]map[float64]bool{} // GPU op starts per rank
	type key struct {
		pg, kind string
		index    int
	}
	coll := map[key]map[int]float64{} // instance → rank → slice start
	for _, e := range m.Events {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			procs[e.PID] = e.Args.Name
		case e.Ph == "X" && e.Cat == "collective":
			k := key{e.Args.PG, e.Args.Kind, e.Args.Index}
			if coll[k] == nil {
				coll[k] = map[int]float64{}
			}
			coll[k][e.PID] = e.TS
		case e.Ph == "X":
			ops[e.PID]++
			if starts[e.PID] == nil {
				starts[e.PID] = map[float64]bool{}
			}
			starts[e.PID][e.TS] = true
		}
	}
	if len(procs) != 2 || procs[0] != "rank 0" || procs[1] != "rank 1" {
		t.Errorf("processes %v, want rank 0 and rank 1", procs)
	}
	for r := range 2 {
		var b struct {
			Stages []struct {
				Count int `json:"kernel_count"`
			} `json:"stages"`
		}
		artifact(t, res, analyzer.RankDir(r)+"/breakdown.json", &b)
		want := 0
		for _, s := range b.Stages {
			want += s.Count
		}
		if want == 0 || ops[r] != want {
			t.Errorf("rank %d: %d GPU ops in the merged trace, its breakdown.json counts %d", r, ops[r], want)
		}
	}
	var co struct {
		Rows []struct {
			PG    string  `json:"pg"`
			Kind  string  `json:"kind"`
			Index int     `json:"index"`
			Skew  float64 `json:"skew_us"`
			Last  int     `json:"last_rank"`
		} `json:"rows"`
	}
	artifact(t, res, "collectives.json", &co)
	if len(co.Rows) == 0 || len(coll) != len(co.Rows) {
		t.Fatalf("%d collective instances in the merged trace, %d in collectives.json", len(coll), len(co.Rows))
	}
	checked := 0
	for _, row := range co.Rows {
		at := coll[key{row.PG, row.Kind, row.Index}]
		if len(at) != 2 {
			t.Errorf("%s #%d: slices on %d ranks", row.Kind, row.Index, len(at))
			continue
		}
		first := math.Min(at[0], at[1])
		if d := at[row.Last] - first; math.Abs(d-row.Skew) > 1 {
			t.Errorf("%s #%d: late rank %d starts %.3f µs after the first, skew_us %.3f", row.Kind, row.Index, row.Last, d, row.Skew)
		}
		// the slice is the rank's own kernel moved onto the common clock
		for r, ts := range at {
			if !starts[r][ts] {
				t.Errorf("%s #%d: rank %d's slice at %.3f starts no GPU op of the rank", row.Kind, row.Index, r, ts)
			}
		}
		if checked++; t.Failed() && checked > 5 {
			break
		}
	}
}
