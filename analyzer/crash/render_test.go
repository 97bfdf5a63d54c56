package crash

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMarkdownGolden(t *testing.T) {
	d := diagnoseFiles(t, "shared:s02_rocr_fault_tqdm_remnant_plus_dmesg_rocm3452.log")
	checkGolden(t, "summary_s02.golden.md", d.Markdown())
	d = diagnoseFiles(t, "testdata/noise.log")
	checkGolden(t, "summary_noise.golden.md", d.Markdown())
}

func TestJSONShape(t *testing.T) {
	d := diagnoseFiles(t, "testdata/noise.log")
	if len(d.Findings) != 0 || d.FailureReason != "no crash evidence found" {
		t.Fatalf("%s", d.JSON())
	}
	b := d.JSON()
	if !bytes.HasSuffix(b, []byte("}\n")) {
		t.Fatal("no trailing newline")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || string(m["findings"]) != "[]" {
		t.Fatalf("%s", b)
	}
	empty := New().Diagnosis()
	if string(empty.JSON()) == "" || len(empty.Inputs) != 0 {
		t.Fatal("empty session")
	}
	// Diagnosis is repeatable
	s := New()
	s.BeginFile("a")
	s.Write([]byte("Memory access fault by GPU node-1 on address 0x1000. Reason: Unknown\n"))
	if !bytes.Equal(s.Diagnosis().JSON(), s.Diagnosis().JSON()) {
		t.Fatal("Diagnosis not repeatable")
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]bool{
		"Memory access fault by GPU node-1\n":        true,
		"{\"traceEvents\": [{\"ph\": \"X\"}]}":       false,
		"{\n  \"kernel_api_log\": \"\"\n}":           true,
		"\x1f\x8b\x08\x00":                           false,
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x00ab": false,
		"": false,
	} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %v", in, got)
		}
	}
}

// Every input, all parsers together, split at every offset of a small file.
func FuzzSession(f *testing.F) {
	seedFuzz(f, "shared:s02_rocr_fault_tqdm_remnant_plus_dmesg_rocm3452.log", "shared:fx01_rocm_debug_agent_userguide_sample_assert_trap.txt", "shared:s12_hsa_exception_0x1016_tp8_no_kernel_atom.log", "testdata/rocr_variants.log", "testdata/crash_diagnostics.json")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		_ = Sniff(data)
		fuzzParser(t, newParsers, data, cut)
	})
}
