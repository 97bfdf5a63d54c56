package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// The --max-records memory bound (issue 24): 20 M tiny kernel events end
// partial at the cap; each engine's peak RSS next to the bound
// docs/limits.md documents (limits.MemoryBound) and the previous default
// (16 Mi records, measured in the same run).

const recordsBegin, recordsEnd = "<!-- max-records table -->", "<!-- /max-records table -->"

// tinyTrace writes n one-line kernel events to a file.
func tinyTrace(t *testing.T, n int) string {
	path := filepath.Join(t.TempDir(), "tiny.json")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	w.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":`)
		w.WriteString(strconv.Itoa(i))
		w.WriteString(`,"dur":1}`)
	}
	w.WriteString("]}")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	return path
}

// recordsRun runs the CLI once: wall time, peak RSS (MiB), exit code, stderr.
func recordsRun(t *testing.T, argv ...string) (time.Duration, float64, int, string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var se bytes.Buffer
	cmd.Stderr = &se
	t0 := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	var rss float64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024
	}
	return time.Since(t0), rss, code, se.String()
}

func recordsTable(t *testing.T) string {
	bin, _ := filepath.Abs(filepath.Join("..", "..", "bin", "gputriage"))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: run `make build` first", bin)
	}
	n := 20_000_000
	if s := os.Getenv("GPUTRIAGE_BENCH_RECORDS_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	path := tinyTrace(t, n)
	st, _ := os.Stat(path)
	l, _ := limits.Limits{}.Normalized()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Hostile shapes (issue 24): the --max-records memory bound, crossing kernels\n\n", recordsBegin)
	fmt.Fprintf(&b, "Measured by `make bench` (cmd/gputriage/recordsbench_test.go) on %s: `gputriage breakdown` on %d tiny kernel events (%.0f MB of JSON, one record each), which end partial at the cap. Memory is the process's peak RSS (the wasm engine's includes its module instances' linear memory). Reference: the bound docs/limits.md documents (`max-records × %d B + max-name-bytes + max-event-bytes + 8 MiB + max-side-doc-bytes`), and the previous default cap in the same run.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), n, float64(st.Size())/1e6, limits.RecordPeakBytes)
	b.WriteString("| run | --max-records | documented bound | peak RSS | seconds | exit |\n|---|---:|---:|---:|---:|---|\n")
	for _, c := range []struct {
		what string
		args []string
		recs int64
	}{
		{"native (default engine)", nil, l.Records},
		{"`--engine wasm`", []string{"--engine", "wasm"}, l.Records},
		{"native, the previous default cap (reference)", []string{"--max-records", "16M"}, 16 << 20},
	} {
		ll := l
		ll.Records = c.recs
		argv := append([]string{bin, "breakdown", "-q", "-o", t.TempDir()}, c.args...)
		wall, rss, code, se := recordsRun(t, append(argv, path)...)
		if code != 1 || !strings.Contains(se, "max-records") {
			t.Errorf("%s: exit %d, want a partial at the cap: %.300s", c.what, code, se)
		}
		t.Logf("%s: %.0f MiB RSS, bound %d MiB, %.1f s", c.what, rss, ll.MemoryBound()>>20, wall.Seconds())
		fmt.Fprintf(&b, "| %s | %d | %d MiB | %.0f MiB | %.1f | %d (partial) |\n", c.what, c.recs, ll.MemoryBound()>>20, rss, wall.Seconds(), code)
	}
	b.WriteString(crossingRows(t, bin))
	b.WriteString(recordsEnd + "\n")
	return b.String()
}

// crossingRows: 100 k mutually crossing kernels (triage's overlap sweep
// and perfetto-fix were quadratic in them) next to the same kernels laid
// end to end, measured in the same run.
func crossingRows(t *testing.T, bin string) string {
	const n = 100000
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d kernels on two streams (perfetto-fix: one), every pair crossing (kernel i runs from i to %d+i µs; issue 24: 72 s triage, 12 s perfetto-fix native, 142 s wasm), next to the same kernels end to end (reference, same run). Wall time (CPU time).\n\n", n, n)
	b.WriteString("| command | engine | crossing | end to end (reference) |\n|---|---|---:|---:|\n")
	cross2, cross1 := crossingTrace(t, n, 2), crossingTrace(t, n, 1)
	flat2, flat1 := flatTrace(t, n, 2), flatTrace(t, n, 1)
	for _, c := range []struct{ cmd, engine, cross, flat string }{
		{"triage", "native", cross2, flat2}, {"triage", "wasm", cross2, flat2},
		{"perfetto-fix", "native", cross1, flat1}, {"perfetto-fix", "wasm", cross1, flat1},
	} {
		x := measure(t, 1, bin, c.cmd, "-q", "--engine", c.engine, "-o", t.TempDir(), c.cross)
		y := measure(t, 1, bin, c.cmd, "-q", "--engine", c.engine, "-o", t.TempDir(), c.flat)
		fmt.Fprintf(&b, "| %s | %s | %.2f s (CPU %.2f s) | %.2f s (CPU %.2f s) |\n", c.cmd, c.engine, x.wall.Seconds(), x.cpu.Seconds(), y.wall.Seconds(), y.cpu.Seconds())
	}
	return b.String()
}

// flatTrace is crossingTrace's kernels laid end to end (1 µs each).
func flatTrace(t *testing.T, n, streams int) string {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		s := 7 + i%streams
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"gemm_kernel_%d","pid":0,"tid":%d,"ts":%d,"dur":1,"args":{"device":0,"stream":%d}}`, i%97, s, 1000+2*i, s)
	}
	b.WriteString("]}")
	path := filepath.Join(t.TempDir(), "flat.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchRecords writes only the --max-records table into BENCHMARKS.md
// (GPUTRIAGE_BENCH_RECORDS=1); make bench writes it with the rest.
func TestBenchRecords(t *testing.T) {
	if os.Getenv("GPUTRIAGE_BENCH_RECORDS") == "" {
		t.Skip("set GPUTRIAGE_BENCH_RECORDS=1")
	}
	writeBenchTable(t, recordsTable(t), recordsBegin, recordsEnd, "")
}
