package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/gputriage/gputriage/internal/fixture"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// runDir runs the CLI and returns its artifacts by name.
func runDir(t *testing.T, args ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	var stderr bytes.Buffer
	if rc := run(append(append([]string{}, args[0], "-q", "-o", dir), args[1:]...), nil, io.Discard, &stderr); rc > 1 {
		t.Fatalf("gputriage %v: exit %d: %s", args, rc, stderr.String())
	}
	out := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func sameDirs(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d artifacts, want %d", what, len(got), len(want))
	}
	for n, w := range want {
		if got[n] != w {
			t.Fatalf("%s: %s differs", what, n)
		}
	}
}

// A big trace read in blocks by several goroutines (natively) or module
// instances (under wazero) gives the single reader's artifacts, gzipped
// or not.
func TestBlocksCLI(t *testing.T) {
	gz := filepath.Join(shared, "gpu/traces/tp_rank0.trace.json.gz")
	if _, err := os.Stat(gz); err != nil {
		fixture.Missing(t, "%v", err)
	}
	if _, err := Module(); err != nil {
		t.Fatalf("the wasm engine is required (run `make build` first): %v", err)
	}
	want := runDir(t, "breakdown", "--parsers", "0", gz)
	before, merged := blockRestarts, blocksMerged
	sameDirs(t, "native, 3 parsers", runDir(t, "breakdown", "--parsers", "3", gz), want)
	sameDirs(t, "wasm, 2 parsers", runDir(t, "breakdown", "--engine", "wasm", "--parsers", "2", gz), want)

	// Plain JSON, a triage pair.
	off, on := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz"), filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz")
	plain := filepath.Join(t.TempDir(), "graph_off.json")
	b, _ := os.ReadFile(off)
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(z)
	os.WriteFile(plain, raw, 0o644)
	want = runDir(t, "triage", "--parsers", "0", plain, on)
	sameDirs(t, "triage, native, 2 parsers", runDir(t, "triage", "--parsers", "2", plain, on), want)
	if blockRestarts != before {
		t.Fatalf("%d jobs were read again: the blocks should have merged", blockRestarts-before)
	}
	if n := blocksMerged - merged; n < 3*6 {
		t.Fatalf("only %d blocks merged", n)
	}
}

// Blocks that do not merge (a record limit a single reader reaches in the
// middle of the file) make the CLI read the job again with one reader.
func TestBlocksCLIRestart(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents": [`)
	for i := 0; b.Len() < 12<<20; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d, "dur": 3, "args": {"correlation": %d, "device": 0, "stream": 7}}`, i%17, 100+i*5, i)
	}
	b.WriteString("\n]}\n")
	p := filepath.Join(t.TempDir(), "limit.json")
	os.WriteFile(p, b.Bytes(), 0o644)
	for _, engine := range []string{"native", "wasm"} {
		want := runDir(t, "breakdown", "--engine", engine, "--parsers", "0", "--max-records", "60000", p)
		if want["profile_summary.md"] == "" || !bytes.Contains([]byte(want["profile_metadata.json"]), []byte("max-records")) {
			t.Fatalf("%s: the single reader did not stop at the record limit", engine)
		}
		before := blockRestarts
		sameDirs(t, engine+", 2 parsers, restarted", runDir(t, "breakdown", "--engine", engine, "--parsers", "2", "--max-records", "60000", p), want)
		if blockRestarts != before+1 {
			t.Fatalf("%s: the job was not read again (%d restarts)", engine, blockRestarts-before)
		}
	}
}
