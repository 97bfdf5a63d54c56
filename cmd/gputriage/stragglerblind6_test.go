package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/internal/fixture"
	ps "github.com/gputriage/gputriage/tools/plantstraggler6"
)

// The sixth blind planted-straggler set of issue 19 (testdata/straggler-blind6/README.md):
// stragglers planted by tools/plantstraggler6's monotone clock maps into jobs made from one
// real rank of 8-rank runs, keyed from the written files by the definitions before
// the analyzer's code was read. The golden holds the score, misses included.
const stragglerBlind6Golden = "../../testdata/golden/straggler_blind6_score.txt"

// stragglerBlind6Cases: the B200 job (symmetric-memory all-reduces, one stream). The td8
// cases write 8 × 20 MB of JSON each; `go run ./tools/plantstraggler6/cmd run` runs them.
var stragglerBlind6Cases = []string{
	"b8_ctrl", "b8_host_r3", "b8_gemm_r6", "b8_extra_r1", "b8_ag_r7", "b8_two_r2_r5", "b8_slow",
}

func TestStragglerBlind6Score(t *testing.T) {
	shared := fixture.Shared()
	for _, f := range ps.SourceFiles(stragglerBlind6Cases) {
		if _, err := os.Stat(filepath.Join(shared, f)); err != nil {
			fixture.Missing(t, "%v", err)
		}
	}
	var committed ps.KeyFile
	raw, err := os.ReadFile("../../testdata/straggler-blind6/keys.plants.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &committed); err != nil {
		t.Fatal(err)
	}
	keyed := map[string]*ps.CaseKey{}
	for _, c := range committed.Cases {
		keyed[c.Name] = c
	}
	work := t.TempDir()
	kf, err := ps.PlantAll(shared, work, stragglerBlind6Cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(kf.Cases) != len(stragglerBlind6Cases) {
		t.Fatalf("planted %d of %d cases", len(kf.Cases), len(stragglerBlind6Cases))
	}
	for _, k := range kf.Cases {
		// the planter today is the planter that keyed the set before gputriage first ran on it
		want := keyed[k.Name]
		if want == nil || want.Hash != k.Hash || strings.Join(want.SHA, ",") != strings.Join(k.SHA, ",") {
			t.Errorf("%s: planted files or instances differ from keys.plants.json (the planter changed: re-key and say why in the README)", k.Name)
		}
		var files []string
		for _, f := range k.Files {
			files = append(files, filepath.Join(work, "traces", f))
		}
		out := filepath.Join(work, "out", k.Name)
		var errb bytes.Buffer
		if code := run(append([]string{"breakdown", "-q", "-o", out}, files...), strings.NewReader(""), io.Discard, &errb); code != 0 {
			t.Fatalf("breakdown %s: exit %d: %s", k.Name, code, errb.String())
		}
		for _, f := range files {
			os.Remove(f)
		}
	}
	got, err := ps.ScoreAll(kf, filepath.Join(work, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(stragglerBlind6Golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(stragglerBlind6Golden)
	if err != nil {
		t.Fatalf("%v (run go test -run StragglerBlind6Score -update)", err)
	}
	if string(want) != got {
		t.Errorf("the sixth blind straggler score changed (a named plant missed or a new false stall is a regression; fixes: rewrite with -update)\n%s", lineDiff(string(want), got))
	}
}
