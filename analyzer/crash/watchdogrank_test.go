package crash

import "testing"

// c10d's watchdog thread that ended on a CUDA error names the rank it ran
// on; a subgroup's tag counts ranks inside that group and names none.
func TestWatchdogThreadRank(t *testing.T) {
	cases := []struct {
		src, text string
		rank      int
	}{
		{"https://github.com/vllm-project/vllm/issues/4108", "[E ProcessGroupNCCL.cpp:916] [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered", 0},
		{"https://github.com/deepseek-ai/DeepSeek-MoE/issues/47", "[rank1]:[E410 01:50:33.889423318 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure", 1},
		{"https://github.com/sgl-project/sglang/issues/8296 (a TP subgroup)", "  what():  [PG ID 2 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered", -1},
		{"https://github.com/hao-ai-lab/FastVideo/issues/1008 (a mesh subgroup)", "[PG ID 5 PG GUID 55(mesh_replicate) Rank 1] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure", -1},
		{"a timeout, not the thread's end", "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.", -1},
	}
	for _, c := range cases {
		if got := extractWatchdogThreadRank(c.text); got != c.rank {
			t.Errorf("%s: rank %d, want %d", c.src, got, c.rank)
		}
	}
	// the whole diagnosis: the GPU fault and the rank its watchdog ran on
	d := diagnoseWhole("x.log", []byte(cases[0].text+"\n"))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 0 {
		t.Errorf("vllm#4108: %v, want gpu_memory_fault with culprit rank 0 (%+v)", classesOf(d), f)
	}
}
