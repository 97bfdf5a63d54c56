package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// The second blind planted-straggler set of issue 19 (testdata/straggler-blind2/README.md): other
// planting methods (a whole-rank freeze, a slower compute phase, a synthetic GEMM, a persistently
// slow rank, several stragglers at once) by tools/plantstraggler2/plant.py, keyed by that tool from
// the definitions before the analyzer's cross-rank code was read, scored by its score.py.
// The golden holds one line per plant and per case: a change either way fails, so a regression
// shows and a fix is recorded with -update.
const stragglerBlind2Golden = "../../testdata/golden/straggler_blind2_score.txt"

// stragglerBlind2Cases: every DLRM case (small) and one H200 TP=2 case (three plants, three
// methods); the TP pair costs Python minutes per case on a loaded machine, run.sh runs the rest.
var stragglerBlind2Cases = []string{
	"dlrm_ctrl", "dlrm_freeze_r5", "dlrm_freeze_r4", "dlrm_stretch_r4_ar1", "dlrm_stretch_r1_sr4",
	"dlrm_gemm_r5_sr3", "dlrm_gemm_r7_small", "dlrm_persistent_r2", "dlrm_two_r3_r6",
	"tp_multi",
}

func TestStragglerBlind2Score(t *testing.T) {
	py, work, sharedRoot, tools := plantBlind(t, "straggler-blind2", "plantstraggler2", stragglerBlind2Cases)
	breakdownBlind(t, "straggler-blind2", work, sharedRoot, stragglerBlind2Cases, true)
	out, said := scoreBlind(t, py, tools, work)
	var sc struct {
		Cases []struct {
			Name   string `json:"name"`
			Error  string `json:"error"`
			Plants []struct {
				Rank    int     `json:"rank"`
				Method  string  `json:"method"`
				Kind    string  `json:"kind"`
				Index   *int    `json:"index"`
				Step    string  `json:"step"`
				Us      float64 `json:"us"`
				Verdict string  `json:"verdict"`
			} `json:"plants"`
			Instances    int               `json:"instances"`
			InstanceFail []json.RawMessage `json:"instance_fail"`
			False        []json.RawMessage `json:"false"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(out, &sc); err != nil {
		t.Fatalf("score.py --json: %v\n%s", err, said)
	}
	var lines []string
	for _, c := range sc.Cases {
		if c.Error != "" {
			t.Errorf("%s: %s", c.Name, c.Error)
		}
		lines = append(lines, fmt.Sprintf("%s instances-within-2%% %d/%d false-stalls %d", c.Name, c.Instances-len(c.InstanceFail), c.Instances, len(c.False)))
		for _, pl := range c.Plants {
			at := pl.Kind + " every"
			if pl.Index != nil {
				at = fmt.Sprintf("%s #%d", pl.Kind, *pl.Index)
			}
			lines = append(lines, fmt.Sprintf("%s plant r%d %s %gus %s %s: %s", c.Name, pl.Rank, pl.Method, pl.Us, at, pl.Step, pl.Verdict))
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(stragglerBlind2Golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(stragglerBlind2Golden)
	if err != nil {
		t.Fatalf("%v (run go test -run StragglerBlind2Score -update)", err)
	}
	if string(want) != got {
		t.Errorf("the second blind straggler score changed (a named plant missed, an instance off or a new false stall is a regression; fixes: rewrite with -update)\n%s\nscore.py said:\n%s", lineDiff(string(want), got), said)
	}
}
