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
	ps "github.com/gputriage/gputriage/tools/plantstraggler4"
)

// The fourth blind planted-straggler set of issue 19 (testdata/straggler-blind4/README.md):
// stragglers planted by tools/plantstraggler4's replay into the real DLRM 8-rank job and into
// jobs made whole from one real rank, keyed from the written files by the definitions
// before the analyzer's code was read. The golden holds the score, misses included, so a
// regression fails and a fix is recorded with -update.
const stragglerBlind4Golden = "../../testdata/golden/straggler_blind4_score.txt"

// stragglerBlind4Cases: every DLRM and A100 case (the MI300X ×8 cases write 8 × 15 MB of JSON
// each; tools/plantstraggler4/run.sh runs them).
var stragglerBlind4Cases = []string{
	"dlrm_ctrl", "dlrm_h2d_r3_sr4", "dlrm_kernels_r5_sr1", "dlrm_first_r6_sr0", "dlrm_last_r2_ar2",
	"dlrm_xfer_ar0", "dlrm_clock_r3", "dlrm_two_r1_r4",
	"a100_ctrl", "a100_hostgap_r1_ar7", "a100_window_r1", "a100_first_r0", "a100_bcast_r0", "a100_clock_r1",
}

func TestStragglerBlind4Score(t *testing.T) {
	shared := fixture.Shared()
	for _, b := range ps.Bases {
		for _, f := range b.Files {
			if _, err := os.Stat(filepath.Join(shared, f)); err != nil {
				fixture.Missing(t, "%v", err)
			}
		}
	}
	var committed ps.KeyFile
	raw, err := os.ReadFile("../../testdata/straggler-blind4/keys.plants.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &committed); err != nil {
		t.Fatal(err)
	}
	keyed := map[string]ps.CaseKey{}
	for _, c := range committed.Cases {
		keyed[c.Name] = c
	}
	work := t.TempDir()
	var sc ps.Score
	for _, name := range stragglerBlind4Cases {
		c, ok := ps.CaseByName(name)
		if !ok {
			t.Fatalf("%s: not in the plan", name)
		}
		p, err := ps.PlantCase(shared, work, c)
		if err != nil {
			t.Fatal(err)
		}
		k := p.Key(true)
		// the planter today is the planter that keyed the set before gputriage first ran on it
		if want := keyed[name]; want.InstancesSHA256 != k.InstancesSHA256 || strings.Join(want.FileSHA256, ",") != strings.Join(k.FileSHA256, ",") {
			t.Errorf("%s: planted files or instances differ from keys.plants.json (the planter changed: re-key and say why in the README)", name)
		}
		out := filepath.Join(work, name, "out")
		var errb bytes.Buffer
		if code := run(append([]string{"breakdown", "-q", "-o", out}, p.Files...), strings.NewReader(""), io.Discard, &errb); code != 0 {
			t.Fatalf("breakdown %s: exit %d: %s", name, code, errb.String())
		}
		for _, f := range p.Files {
			os.Remove(f)
		}
		cs, err := ps.ScoreCase(k, out)
		if err != nil {
			t.Fatal(err)
		}
		sc.Cases = append(sc.Cases, cs)
	}
	got := sc.Text()
	if *update {
		if err := os.WriteFile(stragglerBlind4Golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(stragglerBlind4Golden)
	if err != nil {
		t.Fatalf("%v (run go test -run StragglerBlind4Score -update)", err)
	}
	if string(want) != got {
		t.Errorf("the fourth blind straggler score changed (a named plant missed or a new false stall is a regression; fixes: rewrite with -update)\n%s", lineDiff(string(want), got))
	}
}
