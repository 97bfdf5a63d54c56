package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every one of seed 004's 16 minimum metadata fields is written; the 11 a
// trace cannot know are written exactly as given (flags win over --run),
// and gpu_device_ids is the allocation, not the trace's device index.
func TestIdentityWrittenAsGiven(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	dir := t.TempDir()
	runFile := filepath.Join(dir, "run.json")
	os.WriteFile(runFile, []byte(`{"experiment_id":"from-file","trial_id":"trial-9","gpu_clocks_mhz":2100,"preflight_passed":true,"model_name":"file-model"}`), 0o644)
	out := filepath.Join(dir, "out")
	var so, se bytes.Buffer
	code := run([]string{"breakdown", "--engine", "native", "-q", "-o", out, "--run", runFile,
		"--experiment-id", "exp-42", "--base-image", "rocm/sglang:v0.5.5-rocm720-mi35x", "--resource-class", "8xMI355X",
		"--gpu-device-ids", "0,1", "--server-flags", "--tp 2 --attention-backend aiter", "--benchmark-config-hash", "sha256:ab12",
		"--profile-stage", "decode", tr}, nil, &so, &se)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, "profile_metadata.json"))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"experiment_id": "exp-42", "trial_id": "trial-9", "base_image": "rocm/sglang:v0.5.5-rocm720-mi35x",
		"resource_class": "8xMI355X", "gpu_clocks_mhz": 2100.0, "preflight_passed": true,
		"server_flags": "--tp 2 --attention-backend aiter", "benchmark_config_hash": "sha256:ab12",
		"model_name": "file-model", "profile_stage": "decode", "observed_arch": "gfx942", "arch_match": "compatible",
		"rocm_version": "7.2", "source_trace_path": tr,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if ids, _ := json.Marshal(m["gpu_device_ids"]); string(ids) != "[0,1]" {
		t.Errorf("gpu_device_ids %s, want the allocation [0,1]", ids)
	}
	if ids, _ := json.Marshal(m["trace_device_ids"]); string(ids) != "[9]" {
		t.Errorf("trace_device_ids %s, want the trace's HSA agent index [9]", ids)
	}
	if r, _ := m["hardware_relevance_reason"].(string); r == "" {
		t.Error("no hardware_relevance_reason")
	}
	id1, _ := m["run_id"].(string)
	if !strings.HasPrefix(id1, "run-") {
		t.Fatalf("run_id %q", id1)
	}
	// The same inputs and identity name the same run; another identity another.
	for _, a := range []struct {
		args []string
		same bool
	}{
		{[]string{"--experiment-id", "exp-42", "--base-image", "rocm/sglang:v0.5.5-rocm720-mi35x", "--resource-class", "8xMI355X",
			"--gpu-device-ids", "0,1", "--server-flags", "--tp 2 --attention-backend aiter", "--benchmark-config-hash", "sha256:ab12",
			"--profile-stage", "decode", "--run", runFile}, true},
		{[]string{"--experiment-id", "exp-43"}, false},
	} {
		o2 := filepath.Join(dir, "o2")
		os.RemoveAll(o2)
		args := append([]string{"breakdown", "--engine", "native", "-q", "-o", o2}, a.args...)
		if code := run(append(args, tr), nil, &so, &se); code != 0 {
			t.Fatalf("exit %d", code)
		}
		b, _ := os.ReadFile(filepath.Join(o2, "profile_metadata.json"))
		var m2 map[string]any
		json.Unmarshal(b, &m2)
		if (m2["run_id"] == id1) != a.same {
			t.Errorf("%v: run_id %v vs %v, same=%v wanted", a.args, m2["run_id"], id1, a.same)
		}
	}
	// Bad values are usage errors naming the field.
	for _, bad := range [][]string{{"--gpu-device-ids", "0,x"}, {"--preflight-passed", "maybe"}, {"--run", filepath.Join(dir, "none.json")}} {
		se.Reset()
		if code := run(append([]string{"breakdown", "--engine", "native", "-q"}, append(bad, tr)...), nil, &so, &se); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// SGLang's profiler writes the server's info as server_args.json beside the
// traces: model_name, server_flags and the TP size come from it.
func TestServerArgsSidecar(t *testing.T) {
	tr, err := os.ReadFile(filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "1712.5-TP-0-DECODE.trace.json.gz"), tr, 0o644)
	os.WriteFile(filepath.Join(dir, "server_args.json"), []byte(`{"model_path":"Qwen/Qwen3-8B","tp_size":1,"port":30000,"attention_backend":"aiter"}`), 0o644)
	out := filepath.Join(dir, "out")
	var so, se bytes.Buffer
	if code := run([]string{"triage", "--engine", "native", "-q", "-o", out, "--model-name", "given", dir}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, "profile_metadata.json"))
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["model_name"] != "given" || m["tp_size"] != 1.0 || !strings.Contains(m["server_flags"].(string), `"attention_backend":"aiter"`) {
		t.Errorf("model %v tp %v flags %v", m["model_name"], m["tp_size"], m["server_flags"])
	}
}

// Issue 22: --server-flags given on the command line does not silently beat
// the server_args.json in the input: the command line wins and the file's
// problem says so; the same flags (or none given) say nothing.
func TestServerFlagsConflict(t *testing.T) {
	tr, err := os.ReadFile(filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "1712.5-TP-0-DECODE.trace.json.gz"), tr, 0o644)
	os.WriteFile(filepath.Join(dir, "server_args.json"), []byte(`{"model_path":"Qwen/Qwen3-8B","tp_size":1,"attention_backend":"aiter"}`), 0o644)
	for _, c := range []struct {
		flags []string
		warn  bool
	}{{[]string{"--server-flags", "--attention-backend triton"}, true}, {nil, false}} {
		out := filepath.Join(t.TempDir(), "out")
		var so, se bytes.Buffer
		if code := run(append([]string{"breakdown", "--engine", "native", "-q", "-o", out}, append(c.flags, dir)...), nil, &so, &se); code != 0 {
			t.Fatalf("exit %d: %s", code, se.String())
		}
		b, _ := os.ReadFile(filepath.Join(out, "profile_metadata.json"))
		var m map[string]any
		json.Unmarshal(b, &m)
		warned := strings.Contains(se.String(), "server_args.json: its server flags differ from --server-flags, which win")
		if warned != c.warn {
			t.Errorf("%v: warned %v, want %v (stderr %q)", c.flags, warned, c.warn, se.String())
		}
		if c.warn && m["server_flags"] != "--attention-backend triton" {
			t.Errorf("server_flags %v, want the command line's", m["server_flags"])
		}
	}
}
