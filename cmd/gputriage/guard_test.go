package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/internal/fixture"
)

// The README's CI example: `diff --run run.json base/ cand/` on two
// artifact folders that recorded different base_image and resource_class
// is refused (exit 3); the --run file does not overwrite what they recorded.
func TestDiffRunFileDoesNotOverwriteRecorded(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	dir := t.TempDir()
	common := []string{"--gpu-device-ids", "0", "--server-flags", "--tp 1", "--benchmark-config-hash", "sha256:ab"}
	for _, c := range []struct{ out, image, class string }{
		{"base", "rocm/sglang:v0.5.5-rocm720", "1xMI300X"},
		{"cand", "rocm/sglang:v0.5.6-rocm700", "1xMI325X"},
	} {
		var so, se bytes.Buffer
		args := append([]string{"breakdown", "-q", "--engine", "native", "-o", filepath.Join(dir, c.out), "--base-image", c.image, "--resource-class", c.class}, common...)
		if code := run(append(args, tr), nil, &so, &se); code != 0 {
			t.Fatalf("breakdown %s: exit %d %s", c.out, code, se.String())
		}
	}
	runFile := filepath.Join(dir, "run.json")
	os.WriteFile(runFile, []byte(`{"base_image":"rocm/sglang:v0.5.5-rocm720","resource_class":"1xMI300X","gpu_device_ids":[0],"server_flags":"--tp 1","benchmark_config_hash":"sha256:ab"}`), 0o644)
	out := filepath.Join(dir, "diff")
	var so, se bytes.Buffer
	code := run([]string{"diff", "-q", "--engine", "native", "-o", out, "--run", runFile, "--fail-on", "total:+5%",
		filepath.Join(dir, "base"), filepath.Join(dir, "cand")}, nil, &so, &se)
	if code != 3 {
		t.Fatalf("diff --run run.json base/ cand/: exit %d, want 3 (refused): %s", code, se.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, "diff.json"))
	var d struct {
		Mismatches []struct{ Field, A, B string } `json:"mismatches"`
	}
	json.Unmarshal(b, &d)
	fields := map[string]bool{}
	for _, m := range d.Mismatches {
		fields[m.Field] = true
	}
	for _, want := range []string{"base_image", "resource_class", "run B base_image (given vs recorded)"} {
		if !fields[want] {
			t.Errorf("mismatches %+v: no %q", d.Mismatches, want)
		}
	}
	// The same folders with matching records compare (exit 0).
	se.Reset()
	if code := run([]string{"diff", "-q", "--engine", "native", "--run", runFile, filepath.Join(dir, "base"), filepath.Join(dir, "base")}, nil, &so, &se); code != 0 {
		t.Errorf("base vs base: exit %d %s", code, se.String())
	}
}

// The CI gate sees a host-bound regression: graph-on → eager keeps kernel
// time within 2 % but multiplies the window, the idle time and the step
// time; a rule naming a kernel neither run has is a usage error (exit 2).
func TestDiffGateWindowIdleStep(t *testing.T) {
	on := filepath.Join(shared, "gpu/traces/graph_on.trace.json.gz")
	off := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz")
	if _, err := os.Stat(off); err != nil {
		fixture.Missing(t, "%v", err)
	}
	gate := func(rules ...string) (int, string) {
		args := []string{"diff", "-q", "--engine", "native", "--force", "--format", "json"}
		for _, r := range rules {
			args = append(args, "--fail-on", r)
		}
		var so, se bytes.Buffer
		code := run(append(args, on, off), nil, &so, &se)
		return code, so.String() + se.String()
	}
	if code, out := gate("total:+5%", "busy:+2%"); code != 0 {
		t.Fatalf("total/busy: exit %d (kernel time rose ~1.8 %%): %s", code, out[:min(len(out), 400)])
	}
	for _, r := range []string{"window:+20%", "window:decode:+20%", "idle:+20%", "step:+5%"} {
		if code, _ := gate("total:+5%", r); code != 4 {
			t.Errorf("%s: exit %d, want 4 (the eager window is ~9× the graph-on one)", r, code)
		}
	}
	for _, r := range []string{"kernel:no_such_kernel_anywhere:+5%", "category:nosuchcategory:+5%", "window:nosuchstage:+5%"} {
		if code, out := gate(r); code != 2 || !strings.Contains(out, "names nothing either run has") {
			t.Errorf("%s: exit %d, want 2 (usage): %s", r, code, out[:min(len(out), 300)])
		}
	}
}

// Observed facts are compared: SGLang on ROCm 7.2 vs vLLM on ROCm 7.0 with
// the same identity flags for both is refused, naming the runtime.
func TestDiffObservedRuntime(t *testing.T) {
	a := filepath.Join(shared, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	b := filepath.Join(shared, "traces/tracelens/inference/vllm_decode_full/graph_execution.json.gz")
	if _, err := os.Stat(b); err != nil {
		fixture.Missing(t, "%v", err)
	}
	var so, se bytes.Buffer
	code := run([]string{"diff", "-q", "--engine", "native", "--format", "json", "--base-image", "img", "--resource-class", "1xMI300X",
		"--gpu-device-ids", "0", "--server-flags", "f", "--benchmark-config-hash", "h", a, b}, nil, &so, &se)
	if code != 3 || !strings.Contains(so.String(), `"field": "runtime"`) || !strings.Contains(so.String(), "ROCm 7.2") {
		t.Errorf("exit %d, want 3 with a runtime mismatch: %s", code, so.String()[:min(so.Len(), 600)])
	}
}

// Issue 22 item 5: the framework each trace names (SGLang's frames and ops
// vs vLLM's) is an observed fact too: compared, carried in diff.json and
// recorded in profile_metadata.json, so that two artifact folders of
// different frameworks refuse as their traces do.
func TestDiffObservedFramework(t *testing.T) {
	a := filepath.Join(shared, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	b := filepath.Join(shared, "traces/tracelens/inference/vllm_decode_full/graph_execution.json.gz")
	if _, err := os.Stat(b); err != nil {
		fixture.Missing(t, "%v", err)
	}
	same := []string{"--base-image", "img", "--resource-class", "1xMI300X", "--gpu-device-ids", "0", "--server-flags", "f", "--benchmark-config-hash", "h"}
	var dirs []string
	for _, tr := range []string{a, b} {
		out := t.TempDir()
		var so, se bytes.Buffer
		if code := run(append([]string{"breakdown", "-q", "--engine", "native", "-o", out, tr}, same...), nil, &so, &se); code != 0 {
			t.Fatalf("breakdown %s: exit %d: %s", tr, code, se.String())
		}
		dirs = append(dirs, out)
	}
	var m struct {
		Framework *string `json:"framework"`
	}
	readJSON(t, filepath.Join(dirs[0], "profile_metadata.json"), &m)
	if m.Framework == nil || *m.Framework != "SGLang" {
		t.Errorf("profile_metadata.json framework %v, want SGLang", m.Framework)
	}
	for _, in := range [][2]string{{a, b}, {dirs[0], dirs[1]}} {
		out := t.TempDir()
		var so, se bytes.Buffer
		code := run(append([]string{"diff", "-q", "--engine", "native", "-o", out, in[0], in[1]}, same...), nil, &so, &se)
		var d struct {
			A, B struct {
				Framework string `json:"framework"`
			}
			Mismatches []struct {
				Field, A, B string
			} `json:"mismatches"`
		}
		readJSON(t, filepath.Join(out, "diff.json"), &d)
		found := false
		for _, x := range d.Mismatches {
			found = found || x.Field == "framework" && x.A == "SGLang" && x.B == "vLLM"
		}
		if code != 3 || !found || d.A.Framework != "SGLang" || d.B.Framework != "vLLM" {
			t.Errorf("diff %s %s: exit %d, frameworks %q/%q, mismatches %+v (want 3, SGLang vs vLLM)", in[0], in[1], code, d.A.Framework, d.B.Framework, d.Mismatches)
		}
	}
}
