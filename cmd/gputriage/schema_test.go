package main

import (
	"bytes"
	"compress/gzip"
	"io"
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
	// Crash evidence: every log alone, and each folder as one incident
	// (correlated logs fill the culprit's pid/gpu/rank/host).
	for _, dir := range []string{"crash", "gpu/crash", "crash-bugreports", "crash-seedcases"} {
		var logs []string
		for _, ext := range []string{"*.log", "*.txt", "*.out", "*.err"} {
			m, _ := filepath.Glob(filepath.Join(shared, dir, ext))
			logs = append(logs, m...)
		}
		for _, l := range logs {
			check(l, analyze(t, "native", analyzer.Options{Command: "diagnose"}, l))
		}
		if len(logs) > 1 {
			check(dir+" as one incident", analyze(t, "native", analyzer.Options{Command: "diagnose"}, logs...))
		}
	}
	// Partial inputs: a trace cut in half, beside a JSON that is no trace.
	cut := filepath.Join(t.TempDir(), "cut.trace.json")
	whole := gunzipFile(t, filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz"))
	os.WriteFile(cut, whole[:len(whole)/2], 0o644)
	notTrace := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(notTrace, []byte(`{"model":"x"}`), 0o644)
	for _, cmd := range []string{"breakdown", "triage"} {
		r := analyze(t, "native", analyzer.Options{Command: cmd}, cut)
		if !r.Files[0].Partial {
			t.Errorf("%s: the cut trace is not partial", cmd)
		}
		check(cmd+" cut", r)
		check(cmd+" cut + not a trace", analyze(t, "native", analyzer.Options{Command: cmd}, cut, notTrace))
	}
	// Multi-file runs: every folder of traces2 and of the rocprof outputs.
	for _, pat := range []string{"traces2/*/*.json*", "traces2/*/*/*.json*", "rocprof/*"} {
		dirs := map[string][]string{}
		m, _ := filepath.Glob(filepath.Join(shared, pat))
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && !st.IsDir() && !strings.HasSuffix(f, ".py") && !strings.HasSuffix(f, ".md") && !strings.HasSuffix(f, "answers.json") && !strings.HasSuffix(f, ".key.json") {
				dirs[filepath.Dir(f)] = append(dirs[filepath.Dir(f)], f)
			}
		}
		for d, fs := range dirs {
			check("breakdown "+d, analyze(t, "native", analyzer.Options{Command: "breakdown"}, fs...))
		}
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
	for _, ent := range mustReadDir(t, fixOut) {
		if strings.HasSuffix(ent, ".json") && ent != "perfetto_fix_report.json" && ent != "perfetto_fixed_trace.json" {
			b, _ := os.ReadFile(filepath.Join(fixOut, ent))
			seen[ent]++
			if err := schemas.Validate(ent, b); err != nil {
				t.Error(err)
			}
		}
	}
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

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	z, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
