package crash

import (
	"bytes"
	"flag"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const sharedCrash = "../../../shared/testdata/crash/"
const sharedGPU = "../../../shared/testdata/gpu/crash/"

// readInput reads a test input: a path relative to this package, or to the
// shared test data for names starting with "shared:" / "gpu:".
func readInput(t testing.TB, p string) (string, []byte) {
	t.Helper()
	switch {
	case strings.HasPrefix(p, "shared:"):
		p = sharedCrash + strings.TrimPrefix(p, "shared:")
	case strings.HasPrefix(p, "gpu:"):
		p = sharedGPU + strings.TrimPrefix(p, "gpu:")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		fixture.Missing(t, "input not available: %v", err)
	}
	return filepath.Base(p), data
}

// diagnoseFiles runs several files through one session (whole-file writes).
func diagnoseFiles(t testing.TB, paths ...string) *Diagnosis {
	s := New()
	for _, p := range paths {
		name, data := readInput(t, p)
		s.BeginFile(name)
		s.Write(data)
		s.EndFile()
	}
	return s.Diagnosis()
}

// checkGolden compares got with testdata/<name>; -update rewrites it.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("missing golden %s (run go test -update): %v", p, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -run %s -update and review the diff)\n%s", p, t.Name(), got)
	}
}

// goldenCase diagnoses inputs and compares the JSON with a golden file.
func goldenCase(t *testing.T, golden string, inputs ...string) *Diagnosis {
	t.Helper()
	d := diagnoseFiles(t, inputs...)
	checkGolden(t, golden, d.JSON())
	return d
}

func hasClass(d *Diagnosis, c string) *Finding {
	for i := range d.Findings {
		if d.Findings[i].Class == c {
			return &d.Findings[i]
		}
	}
	return nil
}

// fuzzParser runs data through a session holding only the parsers made by
// mk, in two chunkings, and checks the invariants: no panic, valid JSON,
// chunking does not change the result.
func fuzzParser(t *testing.T, mk func(*Session) []parser, data []byte, cut int) {
	run := func(chunks ...[]byte) []byte {
		s := newSession(mk)
		s.BeginFile("fuzz.log")
		for _, c := range chunks {
			s.Write(c)
		}
		s.EndFile()
		d := s.Diagnosis()
		_ = d.Markdown()
		return d.JSON()
	}
	whole := run(data)
	cut = int(uint(cut) % uint(len(data)+1))
	split := run(data[:cut], data[cut:])
	if !bytes.Equal(whole, split) {
		t.Fatalf("split at %d changes the result", cut)
	}
	if !jsonValid(whole) {
		t.Fatalf("invalid JSON: %s", whole)
	}
}

func seedFuzz(f *testing.F, paths ...string) {
	for _, p := range paths {
		_, data := readInput(f, p)
		f.Add(data, len(data)/2)
	}
}

func only(mk func(s *Session) parser) func(*Session) []parser {
	return func(s *Session) []parser { return []parser{mk(s)} }
}
