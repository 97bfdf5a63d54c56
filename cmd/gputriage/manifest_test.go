package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gputriage/gputriage/schemas"
)

// An -o folder holds artifacts.json listing every file of the run with its
// sha256 and the run_id; reusing the folder for another run removes the
// previous run's files that this run did not write, and only those.
func TestManifestAndStaleFiles(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	runIt := func(args ...string) manifest {
		t.Helper()
		var so, se bytes.Buffer
		if code := run(append(args, "--engine", "native", "-q", "-o", out, tr), nil, &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, se.String())
		}
		b, err := os.ReadFile(filepath.Join(out, manifestName))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.Validate(manifestName, b); err != nil {
			t.Error(err)
		}
		var m manifest
		json.Unmarshal(b, &m)
		return m
	}
	m := runIt("triage")
	var names []string
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(out, f.Name))
		sum := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(b)) != f.Bytes {
			t.Errorf("%s: listed %d bytes %s, on disk %d bytes %x (%v)", f.Name, f.Bytes, f.SHA256, len(b), sum, err)
		}
		names = append(names, f.Name)
	}
	if !slices.Contains(names, "overlap_opportunities.json") || slices.Contains(names, "notes.txt") {
		t.Errorf("triage manifest: %q", names)
	}
	var meta struct {
		RunID string `json:"run_id"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "profile_metadata.json"))
	json.Unmarshal(b, &meta)
	if m.RunID == "" || m.RunID != meta.RunID {
		t.Errorf("manifest run_id %q, profile_metadata's %q", m.RunID, meta.RunID)
	}
	// breakdown into the same folder: triage's overlap/fuse tables go.
	runIt("breakdown")
	for _, stale := range []string{"overlap_opportunities.json", "fuse_opportunities.json"} {
		if _, err := os.Stat(filepath.Join(out, stale)); err == nil {
			t.Errorf("%s of the previous run is still in the folder", stale)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Errorf("a file gputriage did not write was removed: %v", err)
	}
}

// A manifest naming files outside the folder removes nothing there.
func TestManifestStaysInFolder(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	victim := filepath.Join(root, "victim.txt")
	os.WriteFile(victim, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(out, manifestName), []byte(`{"files":[{"name":"../victim.txt"},{"name":"`+victim+`"}]}`), 0o644)
	if err := writeManifest(out, "r", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("a file outside the folder was removed: %v", err)
	}
}
