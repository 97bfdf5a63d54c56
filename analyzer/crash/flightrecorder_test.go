package crash

import (
	"fmt"
	"strings"
	"testing"
)

// frDumpJSON writes a JSON flight-recorder dump (the _dump_nccl_trace_json
// layout of testdata/fr_json) with one pg_status entry per group.
func frDumpJSON(rank int, groups [][4]string) string {
	var cfg, st []string
	for _, g := range groups { // id, ranks, enq, comp
		cfg = append(cfg, fmt.Sprintf(`%q: {"name": %q, "desc": "undefined", "ranks": %q}`, g[0], g[0], g[1]))
		st = append(st, fmt.Sprintf(`%q: {"last_enqueued_collective": %q, "last_started_collective": "-1", "last_completed_collective": %q}`, g[0], g[2], g[3]))
	}
	return fmt.Sprintf(`{"version": "2.5", "rank": %d, "pg_config": {%s}, "pg_status": {%s}, "entries": []}`, rank, strings.Join(cfg, ", "), strings.Join(st, ", "))
}

// A TP=2 × DP=2 mesh: the default group and the DP groups agree on every
// rank; in TP group "2" (ranks 2, 3) rank 3 never enqueued collective 21.
// Reading only group "0" found nothing ("no crash evidence found").
func TestFlightRecorderEveryProcessGroup(t *testing.T) {
	tp := map[int]string{0: "1", 1: "1", 2: "2", 3: "2"}
	tpRanks := map[string]string{"1": "[0, 1]", "2": "[2, 3]"}
	dp := map[int]string{0: "3", 2: "3", 1: "4", 3: "4"}
	dpRanks := map[string]string{"3": "[0, 2]", "4": "[1, 3]"}
	s := New()
	for r := 0; r < 4; r++ {
		enq := "21"
		if r == 3 {
			enq = "20"
		}
		g := [][4]string{{"0", "[0, 1, 2, 3]", "10", "10"}, {tp[r], tpRanks[tp[r]], enq, "20"}, {dp[r], dpRanks[dp[r]], "7", "7"}}
		if tp[r] == "1" {
			g[1][2] = "30" // the other TP group moved on
			g[1][3] = "30"
		}
		s.BeginFile(fmt.Sprintf("fr_dump_rank_%d.json", r))
		s.Write([]byte(frDumpJSON(r, g)))
		s.EndFile()
	}
	d := s.Diagnosis()
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 3 || !strings.Contains(f.Culprit.Reason, "process group 2") {
		t.Fatalf("%s", d.JSON())
	}
}

func TestExtractFRGroups(t *testing.T) {
	doc := map[string]any{
		"pg_config": map[string]any{"10": map[string]any{"ranks": "[0, 1]", "desc": "tp"}, "0": map[string]any{"ranks": "[0, 1, 2, 3]", "desc": "default_pg"}},
		"pg_status": map[string]any{"10": map[string]any{"last_enqueued_collective": "5", "last_completed_collective": "4"}, "0": map[string]any{"last_enqueued_collective": int64(2), "last_completed_collective": int64(2)}},
	}
	got := extractFRGroups(doc)
	if len(got) != 2 || got[0].id != "0" || got[1].id != "10" || got[1].enq != 5 || got[1].comp != 4 || got[1].ranks != "[0, 1]" || got[0].desc != "default_pg" {
		t.Fatalf("%+v", got)
	}
}
