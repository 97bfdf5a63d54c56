package main

import (
	"bytes"
	"encoding/json"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/schemas"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		fixture.Missing(t, "fixture: %v", err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A folder holding a B200 vLLM trace, an MI300X SGLang trace and a log is
// two runs: refused (exit 2, naming them) without -o, one subfolder per
// run plus index.json with -o; the same from both engines.
func TestMixedFolder(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(shared, "traces/tracelens/b200/eager_trace.json.gz"), filepath.Join(dir, "in", "vllm_b200.json.gz"))
	copyFile(t, filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz"), filepath.Join(dir, "in", "1712.5-TP-0-DECODE.trace.json.gz"))
	copyFile(t, filepath.Join(shared, "crash/s01_rocr_fault_docker_compose_prefix_ollama8851.log"), filepath.Join(dir, "in", "server.log"))
	in := filepath.Join(dir, "in")
	for _, eng := range []string{"native", "wasm"} {
		var so, se bytes.Buffer
		if code := run([]string{"breakdown", "--engine", eng, "-q", in}, nil, &so, &se); code != 2 ||
			!strings.Contains(se.String(), "2 runs") || !strings.Contains(se.String(), "NVIDIA B200") || !strings.Contains(se.String(), "MI300X") {
			t.Errorf("%s: exit %d, stderr %s", eng, code, se.String())
		}
		out := filepath.Join(dir, "out-"+eng)
		if code := run([]string{"breakdown", "--engine", eng, "-q", "-o", out, in}, nil, &so, &se); code != 0 {
			t.Fatalf("%s -o: exit %d %s", eng, code, se.String())
		}
		idx, err := os.ReadFile(filepath.Join(out, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.Validate("index.json", idx); err != nil {
			t.Error(err)
		}
		var x struct {
			Runs []struct {
				Dir, Device string
				Files       []string
			}
		}
		json.Unmarshal(idx, &x)
		if len(x.Runs) != 2 {
			t.Fatalf("%s", idx)
		}
		for _, r := range x.Runs {
			meta, err := os.ReadFile(filepath.Join(out, r.Dir, "profile_metadata.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				DeviceName string   `json:"device_name"`
				Sources    []string `json:"source_trace_paths"`
			}
			json.Unmarshal(meta, &m)
			if len(m.Sources) != 1 || !strings.Contains(r.Device, m.DeviceName) {
				t.Errorf("run %s: device %s, traces %v", r.Dir, m.DeviceName, m.Sources)
			}
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "out-native", "index.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "out-wasm", "index.json"))
	if !bytes.Equal(a, b) {
		t.Error("index.json differs between engines")
	}
}

// SGLang's output folder: every TP-N file is a rank of one run (TP-1 is
// not dropped), capture_traces/ holds mapping traces, never ranks.
func TestSGLangFolder(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(shared, "gpu/traces/tp_rank0.trace.json.gz"), filepath.Join(dir, "tp2", "1712.5-TP-0.trace.json.gz"))
	copyFile(t, filepath.Join(shared, "gpu/traces/tp_rank1.trace.json.gz"), filepath.Join(dir, "tp2", "1712.5-TP-1.trace.json.gz"))
	out := filepath.Join(dir, "out")
	var so, se bytes.Buffer
	if code := run([]string{"breakdown", "--engine", "native", "-q", "-o", out, filepath.Join(dir, "tp2")}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d %s", code, se.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, "breakdown.json"))
	var bd struct {
		Ranks struct {
			Rows []struct {
				Rank int `json:"rank"`
			} `json:"rows"`
		} `json:"ranks"`
	}
	json.Unmarshal(b, &bd)
	if len(bd.Ranks.Rows) != 2 || bd.Ranks.Rows[0].Rank != 0 || bd.Ranks.Rows[1].Rank != 1 {
		t.Errorf("TP=2 folder: ranks %+v", bd.Ranks.Rows)
	}

	base := filepath.Join(shared, "traces/tracelens/inference/sglang_decode")
	caps, _ := filepath.Glob(filepath.Join(base, "capture_traces", "*", "*.json.gz"))
	caps2, _ := filepath.Glob(filepath.Join(base, "capture_traces", "*.json.gz"))
	caps = append(caps, caps2...)
	if len(caps) == 0 {
		fixture.Missing(t, "no capture trace fixture")
	}
	sg := filepath.Join(dir, "sglang")
	copyFile(t, filepath.Join(base, "sglang_Qwen3-8B_decode.json.gz"), filepath.Join(sg, "1712.5-TP-0-DECODE.trace.json.gz"))
	copyFile(t, caps[0], filepath.Join(sg, "capture_traces", "bs_32_rank0", filepath.Base(caps[0])))
	out = filepath.Join(dir, "out-sg")
	se.Reset()
	if code := run([]string{"triage", "--engine", "native", "-q", "-o", out, sg}, nil, &so, &se); code != 0 {
		t.Fatalf("triage: exit %d %s", code, se.String())
	}
	b, _ = os.ReadFile(filepath.Join(out, "profile_metadata.json"))
	var m struct {
		Sources []string `json:"source_trace_paths"`
		Mapping *string  `json:"mapping_trace_path"`
	}
	json.Unmarshal(b, &m)
	if len(m.Sources) != 1 || !strings.Contains(m.Sources[0], "TP-0-DECODE") || m.Mapping == nil || !strings.Contains(*m.Mapping, "capture_traces") {
		t.Errorf("formal %v mapping %v", m.Sources, m.Mapping)
	}
	summary, _ := os.ReadFile(filepath.Join(out, "profile_summary.md"))
	if strings.Contains(string(summary), "Rank 0 waits for rank 0") || strings.Contains(string(summary), "rank 0 spends") {
		t.Error("capture trace counted as a rank")
	}
	// breakdown leaves the capture traces out, saying so.
	se.Reset()
	if code := run([]string{"breakdown", "--engine", "native", "-q", sg}, nil, &so, &se); code != 0 || !strings.Contains(se.String(), "capture trace") {
		t.Errorf("breakdown: exit %d %s", code, se.String())
	}
}

// A mapping trace from another device is refused for a formal trace.
func TestForeignMappingRefused(t *testing.T) {
	h100 := filepath.Join(shared, "gpu/traces/eager_graph_off.trace.json.gz")
	mi := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	var so, se bytes.Buffer
	code := run([]string{"triage", "--engine", "native", "-q", "--mapping", h100, "--formal", mi}, nil, &so, &se)
	if code != 2 || !strings.Contains(se.String(), "H100") {
		t.Errorf("exit %d: %s", code, se.String())
	}
}
