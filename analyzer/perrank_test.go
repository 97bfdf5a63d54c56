package analyzer

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	cifix "github.com/gputriage/gputriage/internal/fixture"
)

var runIDs = regexp.MustCompile(`run-[0-9a-f]{16}`)
var rankLine = regexp.MustCompile(`Distributed: \S+ rank (\d+) of`)

// Every rank of a rank folder is analysed on its own: breakdown and triage
// write ranks/<rank>/ with the artifacts that rank's trace gives alone
// (same bytes but the run id), and the summary leads with the verdict
// across ranks, then one line per rank.
func TestEveryRankAnalysed(t *testing.T) {
	dlrm, _ := filepath.Glob(filepath.Join(fixture.Shared, "traces2/param_dlrm_v100_8rank/*.json.gz"))
	if len(dlrm) != 8 {
		cifix.Missing(t, "DLRM traces: %d files", len(dlrm))
	}
	folders := [][]string{dlrm}
	if !testing.Short() {
		folders = append(folders, []string{
			filepath.Join(fixture.Shared, "gpu/traces/tp_rank0.trace.json.gz"),
			filepath.Join(fixture.Shared, "gpu/traces/tp_rank1.trace.json.gz"),
		})
	}
	for _, files := range folders {
		var data [][]byte
		for _, f := range files {
			data = append(data, fixture.ReadPath(t, f))
		}
		for _, cmd := range []string{"breakdown", "triage"} {
			whole := runJob(t, Options{Command: cmd}, files, data)
			if whole.ExitCode != 0 {
				t.Fatalf("%s: exit %d %s", cmd, whole.ExitCode, whole.Error)
			}
			md, _ := whole.Artifact("profile_summary.md")
			if cmd == "breakdown" {
				topFromLowest(t, whole)
			}
			across, per, stages := strings.Index(md, "**Across ranks:**"), strings.Index(md, "## Per rank"), strings.Index(md, "## Stages")
			if across < 0 || per < across || stages < per {
				t.Errorf("%s: the summary does not lead with the verdict, then the ranks (%d, %d, %d)", cmd, across, per, stages)
			}
			for i, f := range files {
				alone := runJob(t, Options{Command: "breakdown"}, files[i:i+1], data[i:i+1])
				amd, _ := alone.Artifact("profile_summary.md")
				m := rankLine.FindStringSubmatch(amd)
				if m == nil {
					t.Fatalf("%s: no rank in its summary", f)
				}
				dir := RankDir(atoi(m[1])) + "/"
				if !strings.Contains(md, "| "+m[1]+" | `"+filepath.Base(f)+"` |") {
					t.Errorf("%s: no line for rank %s in the summary", cmd, m[1])
				}
				n := 0
				for _, a := range whole.Artifacts {
					if !strings.HasPrefix(a.Name, dir) {
						continue
					}
					n++
					want, ok := alone.Artifact(path.Base(a.Name))
					if !ok {
						t.Errorf("%s %s: the rank alone has no %s", cmd, a.Name, path.Base(a.Name))
						continue
					}
					if runIDs.ReplaceAllString(a.Text, "") != runIDs.ReplaceAllString(want, "") {
						t.Errorf("%s %s: differs from the rank's trace analysed alone", cmd, a.Name)
					}
				}
				if n < 11 { // 9 artifacts and 2 CSV twins
					t.Errorf("%s: %d artifacts under %s", cmd, n, dir)
				}
			}
		}
	}
	// one trace, or the stage files of one rank: no ranks/ folder
	one := runJob(t, Options{Command: "breakdown"}, dlrm[:1], [][]byte{fixture.ReadPath(t, dlrm[0])})
	for _, a := range one.Artifacts {
		if strings.Contains(a.Name, "/") {
			t.Errorf("one rank: %s", a.Name)
		}
	}
}

// topFromLowest checks a rank folder's top level: the lowest rank's own
// figures, stated (figures_rank), never summed over the ranks (steps.json
// once counted every rank's steps), beside one per-file row per rank.
func topFromLowest(t *testing.T, res *Result) {
	t.Helper()
	var meta struct {
		FiguresRank *int `json:"figures_rank"`
		Files       []struct{ Name string }
	}
	txt, _ := res.Artifact("profile_metadata.json")
	if err := json.Unmarshal([]byte(txt), &meta); err != nil || meta.FiguresRank == nil {
		t.Fatalf("profile_metadata.json: no figures_rank (%v)", err)
	}
	dir := RankDir(*meta.FiguresRank) + "/"
	for _, name := range []string{"steps.json", "kernel_table.json", "idle.json", "launch_stats.json", "roofline.json"} {
		top, _ := res.Artifact(name)
		own, ok := res.Artifact(dir + name)
		if !ok {
			t.Fatalf("no %s%s", dir, name)
		}
		top = strings.Replace(top, fmt.Sprintf("  \"figures_rank\": %d,\n", *meta.FiguresRank), "", 1)
		if runIDs.ReplaceAllString(top, "") != runIDs.ReplaceAllString(own, "") {
			t.Errorf("top-level %s is not rank %d's own (%s) with figures_rank", name, *meta.FiguresRank, dir+name)
		}
	}
	var bd struct {
		FiguresRank *int              `json:"figures_rank"`
		Files       []json.RawMessage `json:"files"`
		Ranks       struct{ Rows []struct{ Rank int } }
	}
	txt, _ = res.Artifact("breakdown.json")
	if err := json.Unmarshal([]byte(txt), &bd); err != nil || bd.FiguresRank == nil || *bd.FiguresRank != *meta.FiguresRank {
		t.Errorf("breakdown.json: figures_rank %v (%v)", bd.FiguresRank, err)
	}
	if len(bd.Files) != len(meta.Files) || len(bd.Ranks.Rows) != len(meta.Files) {
		t.Errorf("breakdown.json: %d file rows, %d rank rows for %d ranks", len(bd.Files), len(bd.Ranks.Rows), len(meta.Files))
	}
	for i, r := range bd.Ranks.Rows {
		if i > 0 && r.Rank <= bd.Ranks.Rows[i-1].Rank || i == 0 && r.Rank != *meta.FiguresRank {
			t.Errorf("breakdown.json ranks rows not by rank from the lowest: %+v", bd.Ranks.Rows)
			break
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
