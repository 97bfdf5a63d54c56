package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Issue 19's row: a folder of 8 rank traces against the same bytes read as
// one file, and against zcat of the eight, in one run. The ranks are the
// H200 TP=2 pair copied to ranks 0–7 (distributedInfo.rank rewritten); the
// one file holds the same events under one header.

const ranksBegin, ranksEnd = "<!-- issue 19 folder table -->", "<!-- /issue 19 folder table -->"

var rankField = regexp.MustCompile(`("distributedInfo"\s*:\s*\{[^}]*?"rank"\s*:\s*)\d+`)

func ranksTable(t *testing.T) string {
	bin, _ := filepath.Abs(filepath.Join("..", "..", "bin", "gputriage"))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: run `make build` first", bin)
	}
	dir := t.TempDir()
	folder := filepath.Join(dir, "ranks")
	os.MkdirAll(folder, 0o755)
	one := filepath.Join(dir, "one.trace.json.gz")
	of, _ := os.Create(one)
	ow, _ := gzip.NewWriterLevel(of, gzip.BestSpeed)
	var raw int64
	for r := 0; r < 8; r++ {
		src := gunzipFile(t, filepath.Join(shared, fmt.Sprintf("gpu/traces/tp_rank%d.trace.json.gz", r%2)))
		src = rankField.ReplaceAll(src, []byte(fmt.Sprintf("${1}%d", r)))
		raw += int64(len(src))
		f, _ := os.Create(filepath.Join(folder, fmt.Sprintf("rank%d.trace.json.gz", r)))
		zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed) // generation time; inflate speed barely depends on the level
		zw.Write(src)
		zw.Close()
		f.Close()
		// the one file: rank 0's header, every rank's events
		var top map[string]json.RawMessage
		if err := json.Unmarshal(src, &top); err != nil {
			t.Fatal(err)
		}
		ev := bytes.TrimSpace(top["traceEvents"])
		ev = bytes.TrimSpace(ev[1 : len(ev)-1])
		if r == 0 {
			delete(top, "traceEvents")
			hdr, _ := json.Marshal(top)
			ow.Write(hdr[:len(hdr)-1])
			io.WriteString(ow, `,"traceEvents":[`)
		} else {
			io.WriteString(ow, ",")
		}
		ow.Write(ev)
	}
	io.WriteString(ow, "]}")
	ow.Close()
	of.Close()
	gzBytes := func(paths ...string) (n int64) {
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil {
				n += st.Size()
			}
		}
		return n
	}
	files, _ := filepath.Glob(filepath.Join(folder, "*.gz"))
	// A child's peak RSS counts this process's at its start (vfork): give
	// the generation's buffers back first.
	runtime.GC()
	debug.FreeOSMemory()
	const n = 3
	out := filepath.Join(dir, "out")
	z := measure(t, n, "sh", "-c", "zcat "+strings.Join(files, " ")+" >/dev/null")
	zone := measure(t, n, "sh", "-c", "zcat "+one+" >/dev/null")
	fo := measure(t, n, bin, "breakdown", "-q", "-o", out+"1", one)
	fd := measure(t, n, bin, "breakdown", "-q", "-o", out+"8", folder)
	// A reference build (GPUTRIAGE_BENCH_RANKS_BASE: another binary, e.g.
	// main's before a change) on the same folder, in the same run.
	base := os.Getenv("GPUTRIAGE_BENCH_RANKS_BASE")
	var fb procRun
	if base != "" {
		fb = measure(t, n, base, "breakdown", "-q", "-o", out+"b", folder)
	}
	// A child's ru_maxrss starts at this process's peak (exec records the
	// vforked parent's high-water mark): GNU time's child is measured alone.
	for _, r := range []*procRun{&z, &zone, &fo, &fd, &fb} {
		r.rssMB = -1
	}
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		hwm := func(argv ...string) float64 {
			f := filepath.Join(dir, "hwm")
			cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", f}, argv...)...)
			cmd.Run()
			b, _ := os.ReadFile(f)
			var kb float64
			fmt.Sscan(strings.TrimSpace(string(b)), &kb)
			return kb / 1024
		}
		fo.rssMB = hwm(bin, "breakdown", "-q", "-o", out+"1", one)
		fd.rssMB = hwm(bin, "breakdown", "-q", "-o", out+"8", folder)
		if base != "" {
			fb.rssMB = hwm(base, "breakdown", "-q", "-o", out+"b", folder)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Issue 19: a folder of 8 ranks\n\nMeasured by `make bench` (cmd/gputriage/benchranks_test.go) on %s, median of %d runs, in one run: 8 rank traces (the H200 TP=2 pair copied to ranks 0–7, %.0f MB raw, %.0f MB gzipped) as a folder, and the same events as one file (%.0f MB gzipped) under one header. The folder run also analyses every rank on its own (`ranks/<rank>/`) and matches the collectives across ranks; the one file is one analysis.\n\n",
		ranksBegin, time.Now().UTC().Format("2006-01-02 15:04 MST"), n, float64(raw)/1e6, float64(gzBytes(files...))/1e6, float64(gzBytes(one))/1e6)
	b.WriteString("| what | wall (CPU), peak RSS | vs the one file | target |\n|---|---|---|---|\n")
	cpuOnly := func(r procRun) string { return fmt.Sprintf("%.2f s (CPU %.2f s)", r.wall.Seconds(), r.cpu.Seconds()) }
	fmt.Fprintf(&b, "| zcat of the eight files | %s | | |\n", cpuOnly(z))
	fmt.Fprintf(&b, "| zcat of the one file | %s | | |\n", cpuOnly(zone))
	fmt.Fprintf(&b, "| `gputriage breakdown` on the one file | %s = %.2f× zcat | 1 | |\n", fo, z.wall.Seconds()/fo.wall.Seconds())
	fmt.Fprintf(&b, "| `gputriage breakdown` on the folder | %s = %.2f× zcat | **%.2f× the one file's wall** (CPU %.2f×, RSS %.2f×) | ≤ 1.1× |\n", fd, z.wall.Seconds()/fd.wall.Seconds(),
		fd.wall.Seconds()/fo.wall.Seconds(), fd.cpu.Seconds()/fo.cpu.Seconds(), fd.rssMB/fo.rssMB)
	if base != "" {
		fmt.Fprintf(&b, "| reference build (`%s`) on the folder | %s = %.2f× zcat | %.2f× the one file's wall (CPU %.2f×, RSS %.2f×) | |\n", filepath.Base(base), fb, z.wall.Seconds()/fb.wall.Seconds(),
			fb.wall.Seconds()/fo.wall.Seconds(), fb.cpu.Seconds()/fo.cpu.Seconds(), fb.rssMB/fo.rssMB)
	}
	b.WriteString(loadAverageLine())
	b.WriteString("\nThe folder is analysed once, rank by rank: each rank on its own (`ranks/<rank>/`, a view of its records in the folder's store, as many ranks at a time as there are cores), the top level assembled from those analyses (the lowest rank's figures and every rank's per-file rows: docs/ranks.md), then the collectives matched across ranks; gunzip stays serial per file. The one store's record slices, shared by all files, are sized for the whole folder while its first file is read (the host passes the folder's bytes, `Job.ExpectBytes`), not copied again per file. RSS is each run's own peak (GNU time).\n")
	b.WriteString(ranksEnd + "\n")
	return b.String()
}

// TestBenchRanks writes only issue 19's folder table into BENCHMARKS.md
// (GPUTRIAGE_BENCH_RANKS=1); make bench writes it with the rest.
func TestBenchRanks(t *testing.T) {
	if os.Getenv("GPUTRIAGE_BENCH_RANKS") == "" {
		t.Skip("set GPUTRIAGE_BENCH_RANKS=1")
	}
	writeBenchTable(t, ranksTable(t), ranksBegin, ranksEnd, "")
}
