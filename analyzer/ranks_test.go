package analyzer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

func runJob(t *testing.T, o Options, names []string, data [][]byte) *Result {
	t.Helper()
	j, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		j.BeginFile(n)
		j.Write(data[i])
		j.EndFile()
	}
	return j.Finish()
}

// The map/reduce split gives the one-machine bytes: extract on each rank,
// ranks over the summaries ⇒ collectives.json, ranks.json and their CSVs
// as breakdown over the folder writes them.
func TestExtractRanksIdentical(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixture.Shared, "traces2/param_dlrm_v100_8rank/*.json.gz"))
	if len(files) != 8 {
		if os.Getenv("CI") != "" {
			t.Fatal("DLRM traces missing")
		}
		t.Skip("DLRM traces not available")
	}
	var data [][]byte
	for _, f := range files {
		data = append(data, fixture.ReadPath(t, f))
	}
	whole := runJob(t, Options{Command: "breakdown"}, files, data)
	var sumNames []string
	var sums [][]byte
	for i, f := range files {
		r := runJob(t, Options{Command: "extract"}, files[i:i+1], data[i:i+1])
		s, ok := r.Artifact("rank_summary.json")
		if !ok {
			t.Fatalf("extract %s: no rank_summary.json (%s)", f, r.Error)
		}
		if _, ok := r.Artifact("breakdown.json"); !ok {
			t.Errorf("extract %s: no rank artifacts", f)
		}
		sumNames = append(sumNames, filepath.Base(f)+".rank_summary.json")
		sums = append(sums, []byte(s))
	}
	// any order of the summaries
	sumNames[0], sumNames[5] = sumNames[5], sumNames[0]
	sums[0], sums[5] = sums[5], sums[0]
	red := runJob(t, Options{Command: "ranks"}, sumNames, sums)
	if red.ExitCode != 0 {
		t.Fatalf("ranks: exit %d %s", red.ExitCode, red.Error)
	}
	for _, name := range []string{"collectives.json", "ranks.json", "collectives.csv", "ranks.csv"} {
		a, _ := whole.Artifact(name)
		b, ok := red.Artifact(name)
		if !ok || a != b || a == "" {
			t.Errorf("%s: the reduce differs from the one-machine run (%d vs %d bytes)", name, len(a), len(b))
		}
	}
	if md, _ := red.Artifact("ranks_summary.md"); !strings.Contains(md, "rank 7 is the straggler") {
		t.Errorf("ranks_summary.md lacks the verdict")
	}
	// a trace given to ranks, or a summary twice, is refused
	if r := runJob(t, Options{Command: "ranks"}, append(sumNames[:1:1], files[1]), [][]byte{sums[0], data[1]}); r.ExitCode != ExitUsage || !strings.Contains(r.Error, "extract") {
		t.Errorf("a trace given to ranks: exit %d %q", r.ExitCode, r.Error)
	}
	if r := runJob(t, Options{Command: "ranks"}, []string{"a.json", "b.json"}, [][]byte{sums[0], sums[0]}); r.ExitCode != ExitUsage || !strings.Contains(r.Error, "twice") {
		t.Errorf("a rank twice: exit %d %q", r.ExitCode, r.Error)
	}
	if r := runJob(t, Options{Command: "ranks"}, []string{"a.json", "b.json"}, [][]byte{sums[0], []byte(`{"version":"x"}`)}); r.ExitCode != ExitUsage || !strings.Contains(r.Error, "not a rank summary") {
		t.Errorf("not a summary: exit %d %q", r.ExitCode, r.Error)
	}
}

// Issue 22 item 4 (TP=2): the decode all-reduce's exclusive time on rank 0
// is 106 ms of waiting for rank 1 to arrive: triage on both ranks offers
// no overlap gain for it and says why.
func TestCollectiveWaitIsNoHeadroom(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 158 MB of JSON")
	}
	var names []string
	var data [][]byte
	for _, r := range []string{"0", "1"} {
		f := filepath.Join(fixture.Shared, "gpu/traces/tp_rank"+r+".trace.json.gz")
		names = append(names, f)
		data = append(data, fixture.ReadPath(t, f))
	}
	res := runJob(t, Options{Command: "triage"}, names, data)
	text, _ := res.Artifact("overlap_opportunities.json")
	var ov struct {
		Rows []struct {
			Stage, Kernel, Suggestion string
			Gain                      json.Number `json:"overlap_gain_us"`
			Wait                      json.Number `json:"collective_wait_us"`
			Category                  string      `json:"overlap_class"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(text), &ov); err != nil {
		t.Fatal(err)
	}
	var waited float64
	if len(ov.Rows) == 0 {
		t.Fatal("no overlap rows")
	}
	for _, r := range ov.Rows {
		g, _ := r.Gain.Float64()
		w, _ := r.Wait.Float64()
		waited += w
		if r.Category == "communication" && g > 10000 {
			t.Errorf("%s %s: overlap gain %s µs is collective wait (%s µs)", r.Stage, r.Kernel, r.Gain, r.Wait)
		}
		if w > 0 && !strings.Contains(r.Suggestion, "waiting for the last rank") {
			t.Errorf("%s %s: wait %s µs not explained", r.Stage, r.Kernel, r.Wait)
		}
	}
	// (rank 0 alone: the decode all-reduce row offers ≤ 106,267.870 µs,
	// analyzer/overlap/testdata/tp_rank0.json)
	_ = waited
}
