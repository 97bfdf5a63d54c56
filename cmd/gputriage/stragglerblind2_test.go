package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	type keyCase struct {
		Name   string   `json:"name"`
		Traces []string `json:"traces"`
		Source []string `json:"source"`
		Sha    string   `json:"instances_sha256"`
	}
	var keys, committed struct {
		Cases []keyCase `json:"cases"`
	}
	kb, err := os.ReadFile(filepath.Join(work, "plant", "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(kb, &keys); err != nil {
		t.Fatal(err)
	}
	if len(keys.Cases) != len(stragglerBlind2Cases) {
		t.Fatalf("keys.json holds %d cases, want %d", len(keys.Cases), len(stragglerBlind2Cases))
	}
	// The key the tool wrote now is the one committed before gputriage first ran on the set.
	cb, err := os.ReadFile(filepath.Join("..", "..", "testdata", "straggler-blind2", "keys.plants.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(cb, &committed); err != nil {
		t.Fatal(err)
	}
	sha := map[string]string{}
	for _, c := range committed.Cases {
		sha[c.Name] = c.Sha
	}
	for _, c := range keys.Cases {
		if sha[c.Name] != c.Sha {
			t.Errorf("%s: the planted instances' SHA-256 is %s, keys.plants.json says %s (the planter changed: re-key and say why in the README)", c.Name, c.Sha, sha[c.Name])
		}
	}
	for _, c := range keys.Cases {
		var files []string
		for _, f := range c.Traces {
			files = append(files, filepath.Join(work, "plant", f))
		}
		if len(files) == 0 { // a control: the real traces
			for _, f := range c.Source {
				files = append(files, filepath.Join(sharedRoot, f))
			}
		}
		var errb bytes.Buffer
		args := append([]string{"breakdown", "-q", "-o", filepath.Join(work, "out", c.Name)}, files...)
		if code := run(args, strings.NewReader(""), io.Discard, &errb); code != 0 {
			t.Fatalf("breakdown %s: exit %d: %s", c.Name, code, errb.String())
		}
		if len(c.Traces) > 0 { // the planted H200 pair is 2 × 79 MB of JSON
			os.RemoveAll(filepath.Join(work, "plant", c.Name))
		}
	}
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
