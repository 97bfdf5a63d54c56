package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gputriage/gputriage/internal/fixture"
)

// Issue 19's gunzip rows: native end to end against zcat of the same file,
// in the same run, on every shared real trace of 1 MB gzipped or more
// (smaller ones are the process's start), and a reference build beside it
// (GPUTRIAGE_BENCH_GUNZIP_BASE: e.g. main before a change).

const gunzipBegin, gunzipEnd = "<!-- issue 19 gunzip table -->", "<!-- /issue 19 gunzip table -->"

func gunzipTable(t *testing.T) string {
	bin, _ := filepath.Abs(filepath.Join("..", "..", "bin", "gputriage"))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: run `make build` first", bin)
	}
	root := fixture.Shared()
	var traces []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json.gz") {
			if st, err := d.Info(); err == nil && st.Size() >= 1<<20 {
				traces = append(traces, p)
			}
		}
		return nil
	})
	if len(traces) == 0 {
		fixture.Missing(t, "no gzipped trace under %s", root)
	}
	sort.Strings(traces)
	base := os.Getenv("GPUTRIAGE_BENCH_GUNZIP_BASE")
	out := t.TempDir()
	const n = 3
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Issue 19: gunzip, native end to end against zcat\n\nMeasured by `GPUTRIAGE_BENCH_GUNZIP=1 go test ./cmd/gputriage -run TestBenchGunzip` (cmd/gputriage/benchgunzip_test.go) on %s, median wall of %d runs each, in one run: `zcat FILE >/dev/null`, then `gputriage breakdown -q -o DIR FILE` (default engine, native)", gunzipBegin, time.Now().UTC().Format("2006-01-02 15:04 MST"), n)
	if base != "" {
		fmt.Fprintf(&b, " and the reference build `%s`", filepath.Base(base))
	}
	b.WriteString(" on every shared real trace of 1 MB gzipped or more. × zcat = zcat's time / gputriage's (≥ 1 is faster than zcat); goal ≥ 1.5×.\n\n")
	b.WriteString("| trace | raw MB | zcat wall (CPU) | gputriage wall (CPU) | × zcat wall (CPU) |")
	if base != "" {
		b.WriteString(" reference wall (CPU) | reference × zcat wall (CPU) |")
	}
	b.WriteString("\n|---|---:|---:|---:|---:|")
	if base != "" {
		b.WriteString("---:|---:|")
	}
	b.WriteString("\n")
	ratio := func(z, r procRun) string {
		return fmt.Sprintf("%.2f× (%.2f×)", z.wall.Seconds()/r.wall.Seconds(), z.cpu.Seconds()/r.cpu.Seconds())
	}
	short := func(r procRun) string { return fmt.Sprintf("%.3f s (%.3f s)", r.wall.Seconds(), r.cpu.Seconds()) }
	for _, p := range traces {
		f, _ := os.Open(p)
		zr, err := gzip.NewReader(f)
		var raw int64
		if err == nil {
			raw, _ = io.Copy(io.Discard, zr)
		}
		f.Close()
		z := measure(t, n, "sh", "-c", "zcat '"+p+"' >/dev/null")
		g := measure(t, n, bin, "breakdown", "-q", "-o", filepath.Join(out, "new"), p)
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | **%s** |", rel, float64(raw)/1e6, short(z), short(g), ratio(z, g))
		if base != "" {
			r := measure(t, n, base, "breakdown", "-q", "-o", filepath.Join(out, "base"), p)
			fmt.Fprintf(&b, " %s | %s |", short(r), ratio(z, r))
		}
		b.WriteString("\n")
	}
	b.WriteString(loadAverageLine())
	b.WriteString("\nThe CLI inflates with github.com/klauspost/compress/gzip (cmd/gputriage/gunzip.go) and falls back to compress/gzip from the stream's start at its first error, so a damaged file ends with the page's and the Worker's bytes and message (TestGunzipMatchesStdlib); the wasm module and the Worker keep compress/gzip.\n")
	b.WriteString(gunzipEnd + "\n")
	return b.String()
}

// TestBenchGunzip writes only the gunzip table into BENCHMARKS.md
// (GPUTRIAGE_BENCH_GUNZIP=1).
func TestBenchGunzip(t *testing.T) {
	if os.Getenv("GPUTRIAGE_BENCH_GUNZIP") == "" {
		t.Skip("set GPUTRIAGE_BENCH_GUNZIP=1")
	}
	writeBenchTable(t, gunzipTable(t), gunzipBegin, gunzipEnd, ranksEnd)
}
