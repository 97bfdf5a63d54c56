package crash

import "testing"

// Format strings quoted from source (review threads, diffs, excerpts) are
// no events; the lines a program prints from them are.
func TestQuotedFormat(t *testing.T) {
	for _, c := range []struct {
		src, text string
		want      bool
	}{
		// a CLR PR's diff: the format wrapped over two lines
		{"crash-heldout-real12 n15's review thread (CLR ClPrint)", `+                "Memory Fault Error [host: %s, GPU index: %u, faulting addr: 0x%" PRIx64`, true},
		// ROCr's fault report in source excerpts (code corpus: ROCR-Runtime runtime.cpp copies)
		{"code corpus: ROCR-Runtime runtime.cpp", `            "Memory access fault by GPU node-%u on address %p%s. Reason: %s.\n",`, true},
		{"code corpus: ROCR-Runtime runtime.cpp (agent handle)", `          "Memory access fault by GPU node-%u (Agent handle: %p) on address %p%s. Reason: %s.\n",`, true},
		// amdkfd 4.x
		{"code corpus: amdkfd kfd2kgd gfx7", `			pr_err("kfd: cp queue preemption time out (%dms)\n",`, true},
		// Python / Rust brace placeholders
		{"shape (not a real paste): str.format", `        logger.error("Rank {} failed with exit code {}".format(rank, code))`, true},
		{"shape (not a real paste): Rust format!", `    panic!("CUDA error {:?} at {}", err, loc);`, true},
		// printed lines keep none
		{"https://github.com/ROCm/legacy-rocm-build/issues/2205", `Memory access fault by GPU node-2 (Agent handle: 0x55d5c0c4e2f0) on address 0x7f1c1a000000. Reason: Page not present or supervisor privilege.`, false},
		{"tqdm in a docker json-file log", `{"log":"100%|██████████| 5/5 [00:01<00:00]\n","stream":"stderr"}`, false},
		{"a Python traceback's source line", `  File "/usr/lib/python3.10/selectors.py", line 416, in select`, false},
		{"prose with a percent", `GPU "0" at 100% done`, false},
		{"an empty dict outside quotes", `kwargs={} "rank" 3`, false},
	} {
		if got := quotedFormat(c.text); got != c.want {
			t.Errorf("%s: quotedFormat(%q) = %v, want %v", c.src, c.text, got, c.want)
		}
	}
}

// The whole path: the CLR diff of a memory-fault format is no fault.
func TestQuotedFormatNoEvidence(t *testing.T) {
	d := diagnoseWhole("pr.diff", []byte("+        ClPrint(amd::LOG_NONE, amd::LOG_ALWAYS,\n+                \"Memory Fault Error [host: %s, GPU index: %u, faulting addr: 0x%\" PRIx64\n+                \", kernel: %s]\",\n"))
	if len(d.Findings) > 0 {
		t.Errorf("a format string read as evidence: %v", classesOf(d))
	}
}
