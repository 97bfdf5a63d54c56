package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// extract on each rank (the map, one process per rank as a job array runs
// it) and ranks over the output folders (the reduce) write the bytes that
// breakdown over the whole folder writes.
func TestExtractRanksCLI(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared, "traces2/param_dlrm_v100_8rank/*.json.gz"))
	if len(files) != 8 {
		if os.Getenv("CI") != "" {
			t.Fatal("DLRM traces missing")
		}
		t.Skip("DLRM traces not available")
	}
	dir := t.TempDir()
	var so, se bytes.Buffer
	for i, f := range files {
		out := filepath.Join(dir, "map", string(rune('a'+i)))
		if code := run([]string{"extract", "-q", "--engine", "native", f, "-o", out}, nil, &so, &se); code != 0 {
			t.Fatalf("extract %s: exit %d %s", f, code, se.String())
		}
	}
	if code := run([]string{"ranks", "-q", filepath.Join(dir, "map"), "-o", filepath.Join(dir, "reduce")}, nil, &so, &se); code != 0 {
		t.Fatalf("ranks: exit %d %s", code, se.String())
	}
	if !strings.Contains(so.String(), "rank 7 is the straggler") {
		t.Errorf("ranks printed no verdict")
	}
	if code := run([]string{"breakdown", "-q", "--engine", "native", "-o", filepath.Join(dir, "one")}, nil, &so, &se); code == 0 {
		t.Fatal("breakdown without inputs succeeded")
	}
	if code := run(append([]string{"breakdown", "-q", "--engine", "native", "-o", filepath.Join(dir, "one")}, files...), nil, &so, &se); code != 0 {
		t.Fatalf("breakdown: exit %d %s", code, se.String())
	}
	for _, a := range []string{"collectives.json", "ranks.json", "collectives.csv", "ranks.csv"} {
		x, _ := os.ReadFile(filepath.Join(dir, "one", a))
		y, err := os.ReadFile(filepath.Join(dir, "reduce", a))
		if err != nil || len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: reduce differs from the one-machine run (%v)", a, err)
		}
	}
	// a folder without summaries is a clear usage error
	se.Reset()
	if code := run([]string{"ranks", "-q", filepath.Join(shared, "traces2/param_dlrm_v100_8rank")}, nil, &so, &se); code != 2 || !strings.Contains(se.String(), "rank_summary.json") {
		t.Errorf("ranks on a trace folder: exit %d %q", code, se.String())
	}
}
