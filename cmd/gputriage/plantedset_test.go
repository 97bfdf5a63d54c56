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

// scorePlantedSet plants the named cases of a blind set made with
// tools/plantstraggler6's library from the shared traces, checks that the planter
// still writes the files and instances its committed key holds, runs `breakdown`
// on each case and compares the score with the golden (misses included).
func scorePlantedSet(t *testing.T, set *ps.Set, cases []string, keysPath, golden, what string) {
	t.Helper()
	shared := fixture.Shared()
	for _, f := range set.SourceFiles(cases) {
		if _, err := os.Stat(filepath.Join(shared, f)); err != nil {
			fixture.Missing(t, "%v", err)
		}
	}
	var committed ps.KeyFile
	raw, err := os.ReadFile(keysPath)
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
	kf, err := set.PlantAll(shared, work, cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(kf.Cases) != len(cases) {
		t.Fatalf("planted %d of %d cases", len(kf.Cases), len(cases))
	}
	for _, k := range kf.Cases {
		// the planter today is the planter that keyed the set before gputriage first ran on it
		want := keyed[k.Name]
		if want == nil || want.Hash != k.Hash || strings.Join(want.SHA, ",") != strings.Join(k.SHA, ",") {
			t.Errorf("%s: planted files or instances differ from %s (the planter changed: re-key and say why in the README)", k.Name, keysPath)
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
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("the %s blind straggler score changed (a named plant missed or a new false stall is a regression; fixes: rewrite with -update)\n%s", what, lineDiff(string(want), got))
	}
}
