package main

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/internal/crashkey"
)

// crashScoreSets are the answer keys score_crash.py reads: the shared ones
// (never edited here), this repository's corpus of real logs, and the
// held-out sets keyed blind (testdata/crash-heldout*/README.md).
var crashScoreSets = []string{
	filepath.Join(shared, "crash"),
	filepath.Join(shared, "crash-seedcases"),
	filepath.Join(shared, "crash-bugreports"),
	filepath.Join("..", "..", "testdata", "crash-corpus"),
	filepath.Join("..", "..", "testdata", "crash-heldout"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real2"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real3"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real4"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real5"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real6"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real7"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real8"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real9"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real10"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real11"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real12"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real13"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real14"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real15"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real16"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real18"),
	filepath.Join("..", "..", "testdata", "crash-heldout-real17"),
	filepath.Join("..", "..", "testdata", "crash-heldout2"),
	filepath.Join("..", "..", "testdata", "crash-heldout3"),
	filepath.Join("..", "..", "testdata", "crash-heldout4"),
	filepath.Join("..", "..", "testdata", "crash-heldout5"),
	filepath.Join("..", "..", "testdata", "crash-heldout6"),
	filepath.Join("..", "..", "testdata", "crash-heldout7"),
	filepath.Join("..", "..", "testdata", "crash-heldout8"),
	filepath.Join("..", "..", "testdata", "crash-heldout9"),
	filepath.Join("..", "..", "testdata", "crash-heldout10"),
	filepath.Join("..", "..", "testdata", "crash-heldout11"),
	filepath.Join("..", "..", "testdata", "crash-heldout12"),
	filepath.Join("..", "..", "testdata", "crash-frameworks"),
}

// crashMissesGolden lists the keyed cases `diagnose` still misses, one
// "set/file" a line. A new miss fails the test (a regression); a listed case
// that now passes fails it too until the list is rewritten with -update, so
// the list only shrinks on purpose.
const crashMissesGolden = "../../testdata/golden/crash_score_misses.txt"

// runDiagnose runs the CLI's diagnose on a key entry (a file or every file
// under a folder, as score_crash.py does) and returns the exit status and
// crash_diagnosis.json (nil when none was written).
func runDiagnose(t *testing.T, path string) (int, []byte) {
	t.Helper()
	var args []string
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		filepath.Walk(path, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				args = append(args, p)
			}
			return nil
		})
		sort.Strings(args)
	} else {
		args = []string{path}
	}
	out := t.TempDir()
	code := run(append(append([]string{"diagnose"}, args...), "-o", out), strings.NewReader(""), io.Discard, io.Discard)
	b, err := os.ReadFile(filepath.Join(out, "crash_diagnosis.json"))
	if err != nil {
		return code, nil
	}
	return code, b
}

// Every keyed crash case, scored by score_crash.py's rules.
func TestCrashScore(t *testing.T) {
	var misses []string
	total := 0
	for _, dir := range crashScoreSets {
		ans, err := os.ReadFile(filepath.Join(dir, "answers.json"))
		if err != nil {
			fixture.Missing(t, "%v", err)
		}
		entries, err := crashkey.ScoreEntries(ans)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		set := filepath.Base(dir)
		for _, e := range entries {
			p := filepath.Join(dir, e.File)
			if _, err := os.Stat(p); err != nil {
				continue // generated cases (gen_*.py) are not stored; the scorer skips them too
			}
			total++
			code, diag := runDiagnose(t, p)
			if bad := crashkey.Score(e, code, diag); bad != nil {
				misses = append(misses, set+"/"+e.File)
				t.Logf("miss %s/%s: %s", set, e.File, strings.Join(bad, ", "))
			}
		}
	}
	got := strings.Join(misses, "\n") + "\n"
	t.Logf("%d passed, %d failed", total-len(misses), len(misses))
	if *update {
		os.WriteFile(crashMissesGolden, []byte(got), 0o644)
		return
	}
	want, err := os.ReadFile(crashMissesGolden)
	if err != nil {
		t.Fatalf("%v (run go test -run CrashScore -update)", err)
	}
	if string(want) != got {
		t.Errorf("the keyed misses changed (new misses are regressions; fixed ones: rewrite with -update)\nwant:\n%s\ngot:\n%s", want, got)
	}
}

// The Python scorer itself, on the test binary acting as the CLI, agrees
// with TestCrashScore's count. Under CI a missing python3 is a failure.
func TestCrashScorePython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		fixture.Missing(t, "python3 (runs ../shared/tools/score_crash.py)")
	}
	scorer := filepath.Join(shared, "..", "tools", "score_crash.py")
	if _, err := os.Stat(scorer); err != nil {
		fixture.Missing(t, "%v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(crashMissesGolden)
	if err != nil {
		t.Fatal(err)
	}
	wantMiss := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		if l != "" {
			wantMiss[l] = true
		}
	}
	cmd := exec.Command(py, append([]string{scorer, "--cli", self, "--out", t.TempDir()}, crashScoreSets...)...)
	cmd.Env = append(os.Environ(), "GPUTRIAGE_TEST_AS_CLI=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run()
	gotMiss := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^miss (\S+?): `).FindAllStringSubmatch(out.String(), -1) {
		gotMiss[m[1]] = true
	}
	if !regexp.MustCompile(`(?m)^\d+ passed, \d+ failed$`).Match(out.Bytes()) {
		t.Fatalf("score_crash.py gave no verdict:\n%s", out.String())
	}
	for m := range gotMiss {
		if !wantMiss[m] {
			t.Errorf("score_crash.py misses %s (not in %s)", m, crashMissesGolden)
		}
	}
	for m := range wantMiss {
		if !gotMiss[m] {
			t.Errorf("score_crash.py passes %s, listed as a miss in %s", m, crashMissesGolden)
		}
	}
	if t.Failed() {
		t.Log(out.String())
	}
}

// With GPUTRIAGE_TEST_AS_CLI=1 the test binary is the CLI, so the Python
// scorer can drive it without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("GPUTRIAGE_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
