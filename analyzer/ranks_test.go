package analyzer

import (
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
