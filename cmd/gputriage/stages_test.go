package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/fixture"
	"github.com/gputriage/gputriage/schemas"
)

// stageFolder lays real SGLang traces out as the SGLang profiler's
// --profile-by-stage writes one rank's files (<id>-TP-0-EXTEND…,
// <id>-TP-0-DECODE…): the prefill trace of the shared Qwen3-8B MI300X run
// as EXTEND, its decode trace as DECODE. Only the names are SGLang's; the
// bytes are the shared files'.
func stageFolder(t *testing.T, stages ...string) string {
	t.Helper()
	src := map[string]string{
		"EXTEND": filepath.Join(shared, "traces/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz"),
		"DECODE": filepath.Join(shared, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
	}
	dir := t.TempDir()
	for _, s := range stages {
		b, err := os.ReadFile(src[s])
		if err != nil {
			fixture.Missing(t, "%v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "1764000000.123-TP-0-"+s+".trace.json.gz"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type stageRows struct {
	Rows []struct {
		Stage string `json:"stage"`
	} `json:"rows"`
}

func (r stageRows) stages() []string {
	var out []string
	for _, x := range r.Rows {
		if !slices.Contains(out, x.Stage) {
			out = append(out, x.Stage)
		}
	}
	slices.Sort(out)
	return out
}

func triageDir(t *testing.T, args ...string) (code int, out, stderr string) {
	t.Helper()
	out = t.TempDir()
	var so, se bytes.Buffer
	code = run(append([]string{"triage", "--engine", "native", "-q", "-o", out}, args...), nil, &so, &se)
	return code, out, se.String()
}

func readJSON(t *testing.T, path string, v any) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return b
}

// Issue 22 item 1: triage of one rank's EXTEND and DECODE files analyses
// both stages (overlap and fuse tables, stage table and takeaways per
// stage), --stage picks one, and a stage with no GPU work (or a misspelt
// one) is a usage error naming the stages there are.
func TestTriageEveryStageFile(t *testing.T) {
	dir := stageFolder(t, "EXTEND", "DECODE")
	code, out, se := triageDir(t, dir)
	if code != 0 {
		t.Fatalf("triage: exit %d: %s", code, se)
	}
	if strings.Contains(se, "another rank (or stage)") {
		t.Errorf("a stage file was left out: %s", se)
	}
	both := []string{"decode", "prefill"}
	for _, a := range []string{"overlap_opportunities.json", "fuse_opportunities.json"} {
		var r stageRows
		readJSON(t, filepath.Join(out, a), &r)
		if got := r.stages(); !slices.Equal(got, both) {
			t.Errorf("%s: rows of stages %v, want %v", a, got, both)
		}
	}
	var bd struct {
		Stages []struct {
			Stage        string  `json:"stage"`
			KernelTimeMS float64 `json:"kernel_time_ms"`
		} `json:"stages"`
	}
	readJSON(t, filepath.Join(out, "breakdown.json"), &bd)
	var bs []string
	for _, s := range bd.Stages {
		bs = append(bs, s.Stage)
	}
	slices.Sort(bs)
	if !slices.Equal(bs, both) {
		t.Errorf("breakdown.json stages %v, want %v", bs, both)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "profile_summary.md"))
	for _, want := range []string{"| prefill | 534 |", "| decode | 558 |", "- prefill: step p50", "- decode: step p50"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("profile_summary.md lacks %q", want)
		}
	}
	if strings.Contains(string(sum), "- prefill: 544 GPU ops come from") {
		t.Error("the decode file's graph launches are blamed on prefill")
	}
	for _, ent := range mustReadDir(t, out) {
		if strings.HasSuffix(ent, ".json") {
			if err := schemas.Validate(ent, readJSON(t, filepath.Join(out, ent), nil)); err != nil {
				t.Error(err)
			}
		}
	}

	// The prefill rows of the pair are those of the EXTEND file alone.
	_, one, _ := triageDir(t, filepath.Join(dir, "1764000000.123-TP-0-EXTEND.trace.json.gz"))
	_, sel, _ := triageDir(t, "--stage", "prefill", dir)
	a := readJSON(t, filepath.Join(one, "overlap_opportunities.json"), nil)
	var ra, rs map[string]any
	json.Unmarshal(a, &ra)
	json.Unmarshal(readJSON(t, filepath.Join(sel, "overlap_opportunities.json"), nil), &rs)
	ja, _ := json.Marshal(ra["rows"])
	js, _ := json.Marshal(rs["rows"])
	if !bytes.Equal(ja, js) {
		t.Errorf("--stage prefill overlap rows differ from the EXTEND file's own:\n%s\n%s", ja, js)
	}

	code, _, se = triageDir(t, "--stage", "prefil", dir)
	if code != 2 || !strings.Contains(se, `--stage "prefil": no such stage`) || !strings.Contains(se, "decode, prefill") {
		t.Errorf("--stage prefil: exit %d, %q (want 2 naming the stages there are)", code, se)
	}
	code, _, se = triageDir(t, "--stage", "prefill", stageFolder(t, "DECODE"))
	if code != 2 || !strings.Contains(se, `--stage "prefill": no such stage`) {
		t.Errorf("--stage prefill on a decode-only folder: exit %d, %q (want 2)", code, se)
	}
}

// Issue 22 item 12: gfx950 relevance says what of this trace does not
// transfer: vLLM's MXFP4 `_matmul_ogs_` Triton kernels hold 78.5 % of the
// piecewise trace's kernel time (independently: the kernel events whose
// name holds matmul_ogs, 0.7854 of the summed kernel durations), the
// _ISA942_ solutions their share, and the empty linkage fields are named.
func TestTransferNotes(t *testing.T) {
	tr := filepath.Join(shared, "traces/tracelens/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz")
	if _, err := os.Stat(tr); err != nil {
		fixture.Missing(t, "%v", err)
	}
	out := t.TempDir()
	var so, se bytes.Buffer
	if code := run([]string{"breakdown", "--engine", "native", "-q", "-o", out, "--model-name", "openai/gpt-oss-120b", tr}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	sum, _ := os.ReadFile(filepath.Join(out, "profile_summary.md"))
	s := string(sum)
	for _, want := range []string{
		"78.5 % of GPU time runs kernels with MX-FP4/FP6 operands",
		"gfx942 has no MX matrix instructions",
		"of GPU time runs kernels compiled for gfx942 (`_ISA942_` library solutions)",
		"Null linkage fields: `experiment_id`, `trial_id`, `base_image`, `resource_class`, `server_flags`:",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("profile_summary.md lacks %q", want)
		}
	}
	if strings.Contains(s, "`model_name`: a run") {
		t.Error("model_name was given, yet listed as null")
	}
}

// A stage folder's triage prints one TraceLens timeline per stage (each
// stage file its own window), not the first file's alone: the figures are
// TraceLens' own gpu_timeline.csv of each trace; gpu_timeline.json names
// each file's stage; --stage prints that stage's timeline only.
func TestStageFolderTimelinePerStage(t *testing.T) {
	dir := stageFolder(t, "EXTEND", "DECODE")
	code, out, se := triageDir(t, dir)
	if code != 0 {
		t.Fatalf("triage: exit %d: %s", code, se)
	}
	sum := string(readJSON(t, filepath.Join(out, "profile_summary.md"), nil))
	oracle := func(rel string) (total, busy string) {
		b, err := os.ReadFile(filepath.Join(shared, rel))
		if err != nil {
			fixture.Missing(t, "%v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, ",")
			if len(f) < 2 {
				continue
			}
			v, _ := strconv.ParseFloat(f[1], 64)
			switch f[0] {
			case "total_time":
				total = strconv.FormatFloat(v, 'f', 3, 64)
			case "busy_time":
				busy = strconv.FormatFloat(v, 'f', 3, 64)
			}
		}
		return
	}
	var at []int
	for _, c := range []struct{ stage, file, csv string }{
		{"prefill", "1764000000.123-TP-0-EXTEND.trace.json.gz", "traces/tracelens/inference/sglang_prefilldecode/perf_csvs/gpu_timeline.csv"},
		{"decode", "1764000000.123-TP-0-DECODE.trace.json.gz", "traces/tracelens/inference/sglang_decode/perf_csvs/gpu_timeline.csv"},
	} {
		head := "## GPU timeline, " + c.stage + " (TraceLens definitions, window: gpu_span; `" + c.file + "`)"
		i := strings.Index(sum, head)
		if i < 0 {
			t.Errorf("profile_summary.md lacks %q", head)
			continue
		}
		at = append(at, i)
		sec := sum[i:]
		if j := strings.Index(sec[len(head):], "\n## "); j >= 0 {
			sec = sec[:len(head)+j]
		}
		total, busy := oracle(c.csv)
		for _, want := range []string{"| total | " + total + " |", "| busy | " + busy + " |"} {
			if !strings.Contains(sec, want) {
				t.Errorf("%s timeline lacks %q (TraceLens' gpu_timeline.csv):\n%s", c.stage, want, sec)
			}
		}
	}
	if len(at) == 2 && at[0] > at[1] {
		t.Error("decode's timeline comes before prefill's")
	}
	if n := strings.Count(sum, "## GPU timeline"); n != 2 {
		t.Errorf("%d GPU timeline sections, want 2", n)
	}
	var tl struct {
		Files []struct {
			File  string `json:"file"`
			Stage string `json:"stage"`
		} `json:"files"`
	}
	readJSON(t, filepath.Join(out, "gpu_timeline.json"), &tl)
	for _, f := range tl.Files {
		want := map[bool]string{true: "prefill", false: "decode"}[strings.Contains(f.File, "EXTEND")]
		if f.Stage != want {
			t.Errorf("gpu_timeline.json %s: stage %q, want %q", f.File, f.Stage, want)
		}
	}
	_, sel, _ := triageDir(t, "--stage", "decode", dir)
	s := string(readJSON(t, filepath.Join(sel, "profile_summary.md"), nil))
	if strings.Count(s, "## GPU timeline") != 1 || !strings.Contains(s, "## GPU timeline, decode (") {
		t.Error("--stage decode: want the decode timeline alone")
	}
}

// Issue 24 (tools/hostile id7-stage-term): the --stage refusal is the
// module's error, which the Worker returns as JSON text (escaping only C0):
// the value came out raw, U+202E and all. It is quoted, on both engines.
func TestStageRefusalQuoted(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	for _, eng := range []string{"native", "wasm"} {
		r := analyze(t, eng, analyzer.Options{Command: "breakdown", Stage: "x\u202ey\x1b]0;t\x07\n# z"}, tr)
		if r.ExitCode != analyzer.ExitUsage || !strings.Contains(r.Error, `--stage "x\u202ey\x1b]0;t\a\n# z": no such stage`) {
			t.Errorf("%s: exit %d, %q", eng, r.ExitCode, r.Error)
		}
	}
}
