//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Only regular files are read from folders: a named pipe named like a trace
// (reading waits for a writer for ever) or a symlink to /dev/zero (never
// ends) is refused by name, on both engines.
func TestBoundsSpecialFiles(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	for _, c := range []struct {
		name string
		make func(p string) error
		want string
	}{
		{"fifo.json", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a named pipe"},
		{"zero.json", func(p string) error { return os.Symlink("/dev/zero", p) }, "a character device"},
	} {
		dir := t.TempDir()
		b, _ := os.ReadFile(tr)
		os.WriteFile(filepath.Join(dir, "a.json.gz"), b, 0o644)
		if err := c.make(filepath.Join(dir, c.name)); err != nil {
			t.Fatal(err)
		}
		for _, eng := range []string{"native", "wasm"} {
			var so, se bytes.Buffer
			code := run([]string{"breakdown", "--engine", eng, "-q", "-o", t.TempDir(), dir}, nil, &so, &se)
			if code != 2 || !strings.Contains(se.String(), c.name+": not a regular file ("+c.want+"): refused") {
				t.Errorf("%s (%s): exit %d %s", c.name, eng, code, se.String())
			}
		}
	}
}

// gputriage ranks reads every rank_summary.json under a folder: a named
// pipe so named (reading waited for a writer for ever, tools/hostile
// ranks-fifo) or a symlink to /dev/zero is refused by name, on both engines.
func TestBoundsRanksSpecialFiles(t *testing.T) {
	sum := []byte(`{"version":"gputriage.rank_summary/1","rank":0,"world_size":2,"steps":[],"ops":[]}`)
	for _, c := range []struct {
		make func(p string) error
		want string
	}{
		{func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a named pipe"},
		{func(p string) error { return os.Symlink("/dev/zero", p) }, "a character device"},
	} {
		dir := t.TempDir()
		for _, r := range []string{"a", "b", "c"} {
			os.MkdirAll(filepath.Join(dir, r), 0o755)
		}
		os.WriteFile(filepath.Join(dir, "a", "rank_summary.json"), sum, 0o644)
		os.WriteFile(filepath.Join(dir, "b", "rank_summary.json"), sum, 0o644)
		if err := c.make(filepath.Join(dir, "c", "rank_summary.json")); err != nil {
			t.Fatal(err)
		}
		for _, eng := range []string{"native", "wasm"} {
			var so, se bytes.Buffer
			code := run([]string{"ranks", "--engine", eng, "-q", "-o", t.TempDir(), dir}, nil, &so, &se)
			if code != 2 || !strings.Contains(se.String(), "rank_summary.json: not a regular file ("+c.want+"): refused") {
				t.Errorf("%s (%s): exit %d %s", c.want, eng, code, se.String())
			}
		}
	}
}

// A named pipe left in profile's trace folder is refused by name, within
// --timeout (opening it to check completeness, or to analyse it, waited for
// a writer for ever).
func TestBoundsProfileFIFO(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	s := &standIn{t: t, kind: "vllm", traces: []string{tr}, vllmDir: t.TempDir()}
	if err := syscall.Mkfifo(filepath.Join(s.vllmDir, "left.pt.trace.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, msg := profileRun(t, s, "--output-dir", s.vllmDir, "--timeout", "5s", "--num-steps", "2", "--engine", "native", "-q")
	if code != 2 || !strings.Contains(msg, "left.pt.trace.json: not a regular file (a named pipe): refused") {
		t.Errorf("exit %d, %q", code, msg)
	}
}
