package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/crashkey"
	"github.com/gputriage/gputriage/internal/fixture"
)

// Metamorphic testing of diagnose (issue 18): a log that reaches us through
// a launcher, a container runtime, a log shipper or a terminal keeps its
// diagnosis. Every keyed case of crashScoreSets is diagnosed as it is and
// under each wrapping of crashwrap_test.go; a case that passes as it is and
// fails wrapped is a reader that depends on how the line was delivered.
// The cases that still do are the golden below, one "transform set/file" a
// line: a new one fails the test (a regression), a listed one that passes
// fails it too until -update rewrites the list, so it only shrinks on purpose.
const crashMetaGolden = "../../testdata/golden/crash_metamorphic_misses.txt"

// metaInput is one file of a case: the name diagnose is given and its
// (decompressed) bytes.
type metaInput struct {
	name string
	data []byte
}

// metaCase is one keyed entry with its files read once.
type metaCase struct {
	id    string // set/file, as in crash_score_misses.txt
	entry crashkey.ScoreEntry
	files []metaInput
}

// loadMetaCases reads every stored keyed case of crashScoreSets, gunzipped
// as the CLI's host does before the analyzer sees the bytes.
func loadMetaCases(t *testing.T) []metaCase {
	t.Helper()
	var cases []metaCase
	for _, dir := range crashScoreSets {
		ans, err := os.ReadFile(filepath.Join(dir, "answers.json"))
		if err != nil {
			fixture.Missing(t, "%v", err)
		}
		entries, err := crashkey.ScoreEntries(ans)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.File)
			st, err := os.Stat(p)
			if err != nil {
				continue // generated cases are not stored (TestCrashScore skips them too)
			}
			var paths []string
			if st.IsDir() {
				filepath.Walk(p, func(q string, info os.FileInfo, err error) error {
					if err == nil && !info.IsDir() {
						paths = append(paths, q)
					}
					return nil
				})
				sort.Strings(paths)
			} else {
				paths = []string{p}
			}
			c := metaCase{id: filepath.Base(dir) + "/" + e.File, entry: e}
			for _, q := range paths {
				b, err := os.ReadFile(q)
				if err != nil {
					t.Fatal(err)
				}
				if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
					if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
						if d, err := io.ReadAll(zr); err == nil {
							b = d
						}
					}
				}
				c.files = append(c.files, metaInput{name: q, data: b})
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// diagnoseInputs runs the analyzer's diagnose job in process, as the native
// engine does, and returns the exit status and crash_diagnosis.json.
func diagnoseInputs(files []metaInput) (int, []byte) {
	job, err := analyzer.New(analyzer.Options{Command: "diagnose"})
	if err != nil {
		return analyzer.ExitUsage, nil
	}
	if len(files) > 1 {
		var n int64
		for _, f := range files {
			n += int64(len(f.data))
		}
		job.ExpectBytes(n)
	}
	for _, f := range files {
		job.BeginFile(f.name)
		job.FileSize(int64(len(f.data)))
		for p := f.data; len(p) > 0; {
			n := min(len(p), chunk)
			if _, err := job.Write(p[:n]); err != nil {
				break // a limit was reached
			}
			p = p[n:]
		}
		job.EndFile()
	}
	res := job.Finish()
	d, ok := res.Artifact("crash_diagnosis.json")
	if !ok {
		return res.ExitCode, nil
	}
	return res.ExitCode, []byte(d)
}

// metaMisses diagnoses every case under tr on all cores and returns the
// ids of the cases that miss their key.
func metaMisses(cases []metaCase, tr wrapTransform) map[string]string {
	var mu sync.Mutex
	miss := map[string]string{}
	work := make(chan *metaCase)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				code, diag := diagnoseInputs(tr.applyCtx(c.files, keyCtx(c.entry)))
				if bad := crashkey.Score(c.entry, code, diag); bad != nil {
					if dir := os.Getenv("GPUTRIAGE_META_DUMP"); dir != "" {
						dumpWrapped(dir, tr, c)
					}
					mu.Lock()
					miss[c.id] = strings.Join(bad, ", ")
					mu.Unlock()
				}
			}
		}()
	}
	for i := range cases {
		work <- &cases[i]
	}
	close(work)
	wg.Wait()
	return miss
}

// keyCtx is the rank and pid a wrapper names for a case: the key's culprit
// when it has one (3 and 1234 otherwise).
func keyCtx(e crashkey.ScoreEntry) wrapCtx {
	c := wrapCtx{rank: 3, pid: 1234}
	if v, ok := e.Must["culprit_rank"]; ok {
		json.Unmarshal(v, &c.rank)
	}
	if v, ok := e.Must["culprit_pid"]; ok {
		json.Unmarshal(v, &c.pid)
	}
	return c
}

// Each wrapping of every keyed case keeps the diagnosis the case has
// unwrapped. The unwrapped misses are TestCrashScore's: the in-process run
// must agree with the CLI's, or this test measures something else.
func TestCrashMetamorphic(t *testing.T) {
	cases := loadMetaCases(t)
	base := metaMisses(cases, wrapTransforms[0])
	var baseIDs []string
	for id := range base {
		baseIDs = append(baseIDs, id)
	}
	sort.Strings(baseIDs)
	if b, err := os.ReadFile(crashMissesGolden); err == nil {
		want := strings.Fields(string(b))
		sort.Strings(want)
		if d := goldenDiff(strings.Join(want, "\n"), strings.Join(baseIDs, "\n")); d != "" {
			t.Errorf("in-process diagnose disagrees with %s:\n%s", crashMissesGolden, d)
		}
	}
	var lines []string
	for _, tr := range wrapTransforms[1:] {
		miss := metaMisses(cases, tr)
		var ids []string
		for id, why := range miss {
			if _, before := base[id]; before {
				continue
			}
			ids = append(ids, id)
			t.Logf("%s %s: %s", tr.name, id, why)
		}
		sort.Strings(ids)
		t.Logf("%-14s %4d/%d keyed passes fail wrapped", tr.name, len(ids), len(cases)-len(base))
		for _, id := range ids {
			lines = append(lines, tr.name+" "+id)
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		os.WriteFile(crashMetaGolden, []byte(got), 0o644)
		return
	}
	want, err := os.ReadFile(crashMetaGolden)
	if err != nil {
		t.Fatalf("%v (run go test -run CrashMetamorphic -update)", err)
	}
	if string(want) != got {
		t.Errorf("the wrapped misses changed (new ones are regressions; fixed ones: rewrite with -update)\n%s", goldenDiff(string(want), got))
	}
}

// goldenDiff lists the lines only one side has.
func goldenDiff(want, got string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = l != ""
	}
	for _, l := range strings.Split(got, "\n") {
		g[l] = l != ""
	}
	var b strings.Builder
	for _, l := range strings.Split(got, "\n") {
		if g[l] && !w[l] {
			fmt.Fprintf(&b, "new miss: %s\n", l)
		}
	}
	for _, l := range strings.Split(want, "\n") {
		if w[l] && !g[l] {
			fmt.Fprintf(&b, "now passes: %s\n", l)
		}
	}
	return b.String()
}

// dumpWrapped writes a missed case's wrapped files under dir/<transform>/<id>
// (GPUTRIAGE_META_DUMP), to run the CLI on them by hand.
func dumpWrapped(dir string, tr wrapTransform, c *metaCase) {
	for i, f := range tr.applyCtx(c.files, keyCtx(c.entry)) {
		p := filepath.Join(dir, tr.name, c.id, fmt.Sprintf("%d-%s", i, filepath.Base(f.name)))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, f.data, 0o644)
	}
}
