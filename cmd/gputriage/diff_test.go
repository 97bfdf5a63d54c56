package main

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diff's exit codes, the same from both engines: 0 comparable, 3 refused
// (fields differ or are unknown; --force overrides, said in the output),
// 4 a --fail-on threshold exceeded; runs given as traces, artifact folders
// or profile_metadata.json.
func TestDiffGate(t *testing.T) {
	off := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz")
	on := filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz")
	def := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	if _, err := os.Stat(off); err != nil {
		fixture.Missing(t, "shared test data not available")
	}
	id := []string{"--gpu-device-ids", "0", "--base-image", "img:1", "--resource-class", "1xH100", "--server-flags", "--tp 1",
		"--benchmark-config-hash", "h1"}
	dir := t.TempDir()
	// Artifact folders of the graph-on (A) and graph-off (B) runs.
	for name, tr := range map[string]string{"on": on, "off": off} {
		var so, se bytes.Buffer
		if code := run(append(append([]string{"triage", "--engine", "native", "-q", "-o", filepath.Join(dir, name)}, id...), tr), nil, &so, &se); code != 0 {
			t.Fatalf("triage %s: exit %d %s", name, code, se.String())
		}
	}
	cases := []struct {
		name string
		args []string
		code int
		out  string // in stdout
	}{
		{"unknown fields refused", []string{off, on}, 3, "REFUSED"},
		{"forced", []string{"--force", off, on}, 0, "compared anyway (--force)"},
		{"fields differ", append(append([]string{}, id...), "--b-base-image", "img:2", off, on), 3, "base_image (img:1 vs img:2)"},
		{"comparable", append(append([]string{}, id...), off, on), 0, "Run comparison (A → B): ok"},
		// graph-on → graph-off is 1.8 % more kernel time.
		{"regression", append(append([]string{}, id...), "--fail-on", "total:+1%", on, off), 4, "**FAIL**"},
		{"within threshold", append(append([]string{}, id...), "--fail-on", "total:+5%", "--fail-on", "category:gemm:+2%", on, off), 0, "| pass |"},
		{"misspelt category is a usage error", append(append([]string{}, id...), "--fail-on", "category:gemn:+50%", on, off), 2, ""},
		{"artifact folders", []string{"--fail-on", "total:+1%", filepath.Join(dir, "on"), filepath.Join(dir, "off", "profile_metadata.json")}, 4, "REGRESSION"},
		{"artifacts vs identity-less trace", []string{filepath.Join(dir, "on"), off}, 3, "unknown on at least one side"},
		// The allocation is compared with the allocation, never with the
		// trace's HSA agent index (9 here): a trace against itself is one run.
		{"self diff", []string{"--a-gpu-device-ids", "0", def, def}, 0, "same input"},
		{"junit", append(append([]string{}, id...), "--format", "junit", "--fail-on", "total:+1%", on, off), 4, `<failure message="regression">`},
		{"bad rule", []string{"--fail-on", "total", off, on}, 2, ""},
	}
	for _, c := range cases {
		for _, eng := range []string{"native", "wasm"} {
			if eng == "wasm" && c.name != "regression" && c.name != "unknown fields refused" && c.name != "self diff" {
				continue
			}
			var so, se bytes.Buffer
			code := run(append([]string{"diff", "--engine", eng, "-q"}, c.args...), nil, &so, &se)
			if code != c.code || !strings.Contains(so.String(), c.out) {
				t.Errorf("%s (%s): exit %d (want %d), stdout has %q: %v\n%s%s", c.name, eng, code, c.code, c.out,
					strings.Contains(so.String(), c.out), firstLines(so.String(), 12), se.String())
			}
		}
	}
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}
