package crash

import (
	"strings"
	"testing"
)

// Real wrapped wordings: a terminal or a browser's copy cut one message at
// its width, mid-word or between words.
func TestWrapJoin(t *testing.T) {
	pad := func(s string, n int) string { return strings.Repeat("x", n) + s }
	for _, c := range []struct {
		src, prev, next, sep string
		ok                   bool
	}{
		// torch/cunn#448: THCUNN's device assert cut inside the signature and mid-word
		{"cunn#448 signature", "/build/torch7-cunn-git/src/torch7-cunn-git/lib/THCUNN/ClassNLLCriterion.cu:52: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype", "*, long *, Dtype *, int, int, int, int) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` fail", " ", true},
		{"cunn#448 mid-word", "*, long *, Dtype *, int, int, int, int) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` fail", "ed.", "", true},
		// sgl-project/sglang#3424: the watchdog's work cut inside a camel-case name
		{"sglang#3424", "[rank1]:[E210 02:06:33.347835395 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(S", "eqNum=1522789, OpType=_ALLGATHER_BASE, NumelIn=298960, NumelOut=4783360, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.", "", true},
		// huggingface/open-r1#620: cut mid-word at the terminal's width
		{"open-r1#620", "[rank2]:[E424 01:17:25.031978332 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminat", "ed with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112,", "", true},
		// ROCm/pytorch#797 (its title keeps the cut as a blank: "supervisor p rivilege")
		{"ROCm/pytorch#797", "Memory access fault by GPU node-2 (Agent handle: 0x56468ab3bb50) on address 0x7fe55fb03000. Reason: Page not present or supervisor p", "rivilege.", "", true},
		// sgl-project/sglang#29864 (shared s16): MLIR's note cut between words
		{"sglang#29864", "python/sglang/srt/mem_cache/triton_ops/cache_move.py:98:0: note: Pipeline failed", "while executing [`TritonAMDGPUCanonicalizePointers` on 'tt.func' operation:", " ", true},

		// separate records are never joined
		{"nccl records", "node07:9001:9001 [0] NCCL INFO comm 0x55d1a2c0 rank 0 nranks 4 cudaDev 0 busId 5000 commId 0x7b1f2e0d - Init COMPLETE", "node07:9002:9002 [1] NCCL INFO comm 0x55d1b3d0 rank 1 nranks 4 cudaDev 1 busId 26000 commId 0x7b1f2e0d - Init COMPLETE", "", false},
		{"hex row, then a header", "            s0: 2d4a0000            s1: 00007f1c            s2: 00000000            s3: 00ea4fac", "general registers:", "", false},
		{"identifier starts a record", "DEBUG Launch: kernel=transpose_tiles, grid=(100000,1,1), block=(64,1,1), shared=0 bytes", "grid.x 100000 invalid (limit: 1..2147483647)", "", false},
		{"timestamp", pad(" Reason: Page not present or supervisor privilege", 40), "2024-05-01 12:00:00 INFO next", "", false},
		{"rank prefix", pad(" failed with error unhandled cuda error", 40), "[rank3]: Traceback (most recent call last):", "", false},
		{"srun label", pad(" terminated with exception", 50), "3: what():  CUDA error: an illegal memory access was encountered", "", false},
		{"name: record", pad(" terminated with exception", 50), "what():  CUDA error: an illegal memory access was encountered", "", false},
		{"kernel log", pad(" qcm fence wait loop timeout expired", 50), "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", "", false},
		{"terminate", pad(" Aborted", 70), "terminate called after throwing an instance of 'c10::Error'", "", false},
		{"indented", pad(" in forward(", 70), "    return self.module(x)", "", false},
		{"short line", "iter 0: 6.958066, 0.011597", "total number of parameters", "", false},
		{"padded line", pad(" supervisor privilege  ", 70), "next", "", false},
		{"next wider", pad(" fail", 70), "ed" + strings.Repeat(" x", 50), "", false},
		{"all capitals", pad(" - Init COMPLETE", 70), "done", "", false},
	} {
		sep, ok := wrapJoin([]byte(c.prev), []byte(c.next), 0)
		if ok != c.ok || ok && sep != c.sep {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", c.src, sep, ok, c.sep, c.ok)
		}
	}
	// a line shorter than an earlier one of the file was not cut at its width
	if _, ok := wrapJoin([]byte(pad(" fail", 80)), []byte("ed."), 200); ok {
		t.Errorf("joined a line narrower than the file's widest")
	}
}

// The session reads a wrapped message whole, at its first line.
func TestWrapJoinSession(t *testing.T) {
	log := "iter 0: 6.958066, 0.011597, 0.000400, 3.811794\n" +
		"/build/torch7-cunn-git/src/torch7-cunn-git/lib/THCUNN/ClassNLLCriterion.cu:52: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype\n" +
		"*, long *, Dtype *, int, int, int, int) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` fail\n" +
		"ed.\n"
	f := hasClass(diagnoseWhole("train.log", []byte(log)), ClassDeviceAssert)
	if f == nil {
		t.Fatalf("wrapped device assert: no device_assert")
	}
	if len(f.Evidence) == 0 || f.Evidence[0].Line != 2 || !strings.HasSuffix(f.Evidence[0].Text, "n_classes` failed.") {
		t.Errorf("evidence %+v, want line 2 whole", f.Evidence)
	}
}
