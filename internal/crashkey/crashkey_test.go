package crashkey

import (
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"strings"
	"testing"
)

const ans = `{"entries": [
 {"file": "a.log", "classes": ["gpu_memory_fault"], "must": {"node": 1, "address": "0x7fe05f439000", "reason": "Page not present", "pid": 25698, "kernel_contains": "scan", "ranks": [0, 1], "hsa_status": "MEMORY_FAULT", "hip_error": "hipErrorIllegalAddress", "agent": "0x55", "gpu_index": "2"}, "must_not_classes": ["host_segfault"]},
 {"file": "b.log", "classes": [], "must": {}, "must_not_classes": ["device_assert"]}
]}`

const good = `{"findings": [{"class": "gpu_memory_fault", "node": 1, "address": "0x00007fe05f439000", "reason": "MEMORY_VIOLATION",
 "reasons": ["MEMORY_VIOLATION", "Page not present or supervisor privilege"], "pid": 25698, "kernel": "rocprim::single_scan_kernel",
 "ranks": [1, 0], "hsa_status": "HSA_STATUS_ERROR_MEMORY_FAULT", "cuda_error": "", "hip_error": "hipErrorIllegalAddress", "agent": "0x55ac", "details": {"gpu_index": "2"}}]}`

func TestCheck(t *testing.T) {
	if got := Entries([]byte(ans)); len(got) != 2 || got[0] != "a.log" {
		t.Fatal(got)
	}
	if err := Check([]byte(ans), "a.log", []byte(good)); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(good, `"node": 1`, `"node": 2`, 1)
	if err := Check([]byte(ans), "a.log", []byte(bad)); err == nil || !strings.Contains(err.Error(), "node") {
		t.Fatalf("want node error, got %v", err)
	}
	bad = strings.Replace(good, `"ranks": [1, 0]`, `"ranks": [0]`, 1)
	if err := Check([]byte(ans), "a.log", []byte(bad)); err == nil {
		t.Fatal("ranks must be a set match")
	}
	seg := strings.Replace(good, `}]}`, `}, {"class": "host_segfault"}]}`, 1)
	if err := Check([]byte(ans), "a.log", []byte(seg)); err == nil || !strings.Contains(err.Error(), "must not") {
		t.Fatalf("want must-not error, got %v", err)
	}
	if err := Check([]byte(ans), "b.log", []byte(`{"findings": []}`)); err != nil {
		t.Fatal(err)
	}
	if err := Check([]byte(ans), "missing.log", []byte(`{}`)); err == nil {
		t.Fatal("unknown entry must fail")
	}
	if err := Check([]byte(ans), "a.log", []byte(`{"findings": []}`)); err == nil || !strings.Contains(err.Error(), "expected class") {
		t.Fatalf("got %v", err)
	}
	if normAddr("(nil)") != "0x0" || normAddr("0x0000ABC") != "0xabc" {
		t.Fatal("normAddr")
	}
}

// Every key kind used by the shared answer keys is understood.
func TestSharedKeys(t *testing.T) {
	known := map[string]bool{"node": true, "address": true, "reason": true, "pid": true, "requested_bytes_text": true, "seq_num": true, "op_type": true, "ranks": true, "exit_code": true, "hsa_status": true, "hip_error": true, "kernel_contains": true}
	for _, p := range []string{"../../../shared/testdata/crash/answers.json", "../../../shared/testdata/gpu/crash/answers.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			fixture.Missing(t, "%v", err)
		}
		var a answers
		if err := jsonUnmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		for _, e := range a.Entries {
			for k := range e.Must {
				if !known[k] {
					t.Errorf("%s: key %q has no dedicated rule (falls back to the generic comparison)", e.File, k)
				}
			}
		}
	}
}
