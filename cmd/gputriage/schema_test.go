package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
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
			if err := schemas.Validate(a.Name, []byte(r.Text(a))); err != nil {
				t.Errorf("%s: %v", label, err)
			}
		}
	}
	for _, tr := range sharedTraces(t) {
		check(tr, analyze(t, "native", analyzer.Options{Command: "triage"}, tr))
	}
	// Crash evidence: every log alone, and each folder as one incident
	// (correlated logs fill the culprit's pid/gpu/rank/host); every other
	// input of the corpora alone too (crash_diagnostics.json, docker
	// inspect, binary junk), and each case folder (incident folders, kernel
	// API dump folders, per-pid logs) as one incident. The repository's own
	// crash corpora (testdata/crash-*) as well as the shared ones.
	crashDirs := []string{}
	for _, dir := range []string{"crash", "gpu/crash", "crash-bugreports", "crash-seedcases"} {
		crashDirs = append(crashDirs, filepath.Join(shared, dir))
	}
	local, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "crash-*"))
	crashDirs = append(crashDirs, local...)
	for _, dir := range crashDirs {
		var logs []string
		for _, ext := range []string{"*.log", "*.txt", "*.out", "*.err"} {
			m, _ := filepath.Glob(filepath.Join(dir, ext))
			logs = append(logs, m...)
		}
		if len(logs) > 1 {
			check(dir+" as one incident", analyze(t, "native", analyzer.Options{Command: "diagnose"}, logs...))
		}
		for _, ent := range mustReadDir(t, dir) {
			p := filepath.Join(dir, ent)
			if !crashInput(ent) {
				continue
			}
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				var files []string
				filepath.Walk(p, func(f string, info os.FileInfo, err error) error {
					if err == nil && !info.IsDir() && crashInput(info.Name()) {
						files = append(files, f)
					}
					return nil
				})
				if len(files) > 0 {
					check(p+" as one incident", analyze(t, "native", analyzer.Options{Command: "diagnose"}, files...))
				}
				continue
			}
			check(p, analyze(t, "native", analyzer.Options{Command: "diagnose"}, p))
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
	// rank folders: collectives.json, ranks.json and each rank's own
	// artifacts (ranks/<n>/…); the map step (extract: rank_summary.json)
	// and the reduce step (ranks over the summaries) too.
	if dlrm, _ := filepath.Glob(filepath.Join(shared, "traces2/param_dlrm_v100_8rank/*.json.gz")); len(dlrm) > 0 {
		check("ranks", analyze(t, "native", analyzer.Options{Command: "breakdown"}, dlrm...))
		check("ranks triage", analyze(t, "native", analyzer.Options{Command: "triage"}, dlrm...))
		sumDir := t.TempDir()
		var sums []string
		for i, f := range dlrm {
			r := analyze(t, "native", analyzer.Options{Command: "extract"}, f)
			check("extract "+f, r)
			for _, a := range r.Artifacts {
				if a.Name == "rank_summary.json" {
					p := filepath.Join(sumDir, strconv.Itoa(i)+"_rank_summary.json")
					os.WriteFile(p, []byte(a.Text), 0o644)
					sums = append(sums, p)
				}
			}
		}
		if len(sums) != len(dlrm) {
			t.Errorf("extract wrote %d rank summaries for %d ranks", len(sums), len(dlrm))
		}
		check("ranks (reduce)", analyze(t, "native", analyzer.Options{Command: "ranks"}, sums...))
	}
	tp, _ := filepath.Glob(filepath.Join(shared, "gpu/traces/tp_rank*.trace.json.gz"))
	if len(tp) == 2 {
		check("TP=2 ranks", analyze(t, "native", analyzer.Options{Command: "breakdown", MergeRanks: true}, tp...))
		check("TP=2 ranks triage", analyze(t, "native", analyzer.Options{Command: "triage"}, tp...))
	}
	// rocprof outputs each alone (rocprofv3 JSON and CSV, RPD, rocpd and
	// rocprof-compute databases), breakdown and triage.
	rp, _ := filepath.Glob(filepath.Join(shared, "rocprof", "*"))
	for _, f := range rp {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() || !crashInput(filepath.Base(f)) || strings.HasSuffix(f, "answers.json") {
			continue
		}
		for _, cmd := range []string{"breakdown", "triage"} {
			check(cmd+" "+f, analyze(t, "native", analyzer.Options{Command: cmd}, f))
		}
	}
	// a --profile-by-stage folder (EXTEND and DECODE files of one rank)
	stages := stageFolder(t, "EXTEND", "DECODE")
	var stageFiles []string
	for _, ent := range mustReadDir(t, stages) {
		stageFiles = append(stageFiles, filepath.Join(stages, ent))
	}
	check("stage folder triage", analyze(t, "native", analyzer.Options{Command: "triage"}, stageFiles...))
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

// crashInput says whether a corpus entry is evidence, not its key or notes
// (answers.json, *.md, generator scripts, licenses).
func crashInput(name string) bool {
	switch {
	case name == "answers.json", strings.HasSuffix(name, ".md"), strings.HasSuffix(name, ".py"),
		strings.HasSuffix(name, ".key.json"), strings.HasPrefix(name, "LICENSE"), strings.HasSuffix(name, ".sql"):
		return false
	}
	return true
}
