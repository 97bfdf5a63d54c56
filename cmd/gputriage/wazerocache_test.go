package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	cur := filepath.Join(dir, "wazero-v1.12.0-amd64-linux")
	old := filepath.Join(dir, "wazero-v1.11.0-amd64-linux")
	for _, d := range []string{cur, old} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	files := map[string]time.Duration{ // path → age
		filepath.Join(cur, "a"):                 1 * time.Minute,
		filepath.Join(cur, "b"):                 2 * time.Minute,
		filepath.Join(old, "c"):                 3 * time.Minute,
		filepath.Join(cur, "d"):                 4 * time.Minute,
		filepath.Join(old, "e"):                 5 * time.Minute,
		filepath.Join(cur, "f.123.tmp"):         10 * time.Minute, // being written
		filepath.Join(cur, "g.456.tmp"):         2 * time.Hour,    // left by a crash
		filepath.Join(dir, "not-wazero", "h"):   9 * time.Hour,    // not ours
		filepath.Join(dir, "unrelated-file-in"): 9 * time.Hour,
	}
	for p, age := range files {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	pruneCache(dir, 3)
	var left []string
	for p := range files {
		if _, err := os.Stat(p); err == nil {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, rel)
		}
	}
	slices.Sort(left)
	want := []string{"not-wazero/h", "unrelated-file-in", "wazero-v1.11.0-amd64-linux/c",
		"wazero-v1.12.0-amd64-linux/a", "wazero-v1.12.0-amd64-linux/b", "wazero-v1.12.0-amd64-linux/f.123.tmp"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q\nwant %q", left, want)
	}
}
