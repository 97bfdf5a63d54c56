package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/schemas"
)

// Every JSON artifact of every fixture validates against its schema
// (schemas/<artifact>.schema.json); an artifact without one fails. Native
// engine: the wasm engine's bytes are the same (TestEnginesAgreeOnEveryTrace).
func TestArtifactsMatchSchemas(t *testing.T) {
	seen := map[string]int{}
	check := func(label string, r *analyzer.Result) {
		t.Helper()
		for _, a := range r.Artifacts {
			if !strings.HasSuffix(a.Name, ".json") {
				continue
			}
			seen[a.Name]++
			if err := schemas.Validate(a.Name, []byte(a.Text)); err != nil {
				t.Errorf("%s: %v", label, err)
			}
		}
	}
	for _, tr := range sharedTraces(t) {
		check(tr, analyze(t, "native", analyzer.Options{Command: "triage"}, tr))
	}
	logs, _ := filepath.Glob(filepath.Join(shared, "crash", "*.log"))
	txt, _ := filepath.Glob(filepath.Join(shared, "crash", "*.txt"))
	for _, l := range append(logs, txt...) {
		check(l, analyze(t, "native", analyzer.Options{Command: "diagnose"}, l))
	}
	def := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	id := analyzer.RunIdentity{ExperimentID: "e", ModelName: "m", GPUDeviceIDs: []int{0}}
	check("breakdown", analyze(t, "native", analyzer.Options{Command: "breakdown", Run: id}, def))
	// a rank folder: collectives.json and ranks.json
	if dlrm, _ := filepath.Glob(filepath.Join(shared, "traces2/param_dlrm_v100_8rank/*.json.gz")); len(dlrm) > 0 {
		check("ranks", analyze(t, "native", analyzer.Options{Command: "breakdown"}, dlrm...))
		check("ranks triage", analyze(t, "native", analyzer.Options{Command: "triage"}, dlrm...))
		check("extract", analyze(t, "native", analyzer.Options{Command: "extract"}, dlrm[0]))
	}
	off := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz")
	on := filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz")
	check("diff", analyze(t, "native", analyzer.Options{Command: "diff", Force: true}, off, on))
	fixOut := t.TempDir()
	var so, se bytes.Buffer
	if code := run([]string{"perfetto-fix", "--engine", "native", "-q", "-o", fixOut, def}, nil, &so, &se); code != 0 {
		t.Fatalf("perfetto-fix: exit %d %s", code, se.String())
	}
	rep, _ := os.ReadFile(filepath.Join(fixOut, "perfetto_fix_report.json"))
	seen["perfetto_fix_report.json"]++
	if err := schemas.Validate("perfetto_fix_report.json", rep); err != nil {
		t.Error(err)
	}
	for _, n := range schemas.Names() {
		// index.json is the CLI's, validated by TestMixedFolder.
		if seen[n] == 0 && n != "index.json" {
			if _, err := os.Stat(filepath.Join(shared, "gpu")); err == nil {
				t.Errorf("schema %s: no fixture produced this artifact", n)
			}
		}
	}
}
