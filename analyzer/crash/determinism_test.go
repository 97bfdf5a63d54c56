package crash

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"testing"
)

// The same evidence gives the same bytes, every run: all shared logs in one
// session (the case where map order once leaked into the chosen disassembly
// block), diagnosed many times.
func TestDeterministic(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../../shared/testdata/crash", "../../../shared/testdata/gpu/crash"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.*"))
		files = append(files, m...)
	}
	if len(files) < 20 {
		fixture.Missing(t, "shared testdata not found")
	}
	run := func() []byte {
		s := New()
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s.BeginFile(filepath.Base(f))
			s.Write(b)
			s.EndFile()
		}
		d := s.Diagnosis()
		return append(d.JSON(), d.Markdown()...)
	}
	want := run()
	for i := 0; i < 40; i++ {
		if got := run(); !bytes.Equal(got, want) {
			t.Fatalf("run %d differs from run 0", i+1)
		}
	}
}

// Each case of the repo's crash sets alone, many times: a rule that takes
// ranks from a map once picked a different evidence line per run (x06's
// eight watchdog lines, the majority's first rank).
func TestDeterministicEachCase(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/crash-*/*.*")
	if len(files) < 50 {
		fixture.Missing(t, "testdata/crash-* not found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		run := func() []byte {
			s := New()
			s.BeginFile(filepath.Base(f))
			s.Write(b)
			s.EndFile()
			return s.Diagnosis().JSON()
		}
		want := run()
		for i := 0; i < 12; i++ {
			if got := run(); !bytes.Equal(got, want) {
				t.Fatalf("%s: run %d differs from run 0", f, i+1)
			}
		}
	}
}
