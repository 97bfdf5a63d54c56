package crash

import "testing"

// Errors quoted in --help output are not findings; the log after the help
// block still is.
func TestHelpTextIsNotEvidence(t *testing.T) {
	help := `$ vllm serve --help
usage: vllm serve [model_tag] [options]

options:
  --gpu-memory-utilization GPU_MEMORY_UTILIZATION
                        If you see torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB, lower this value.
  --enforce-eager       Helps with RuntimeError: HIP error: an illegal memory access was encountered
  --disable-custom-all-reduce
                        See: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) for details.
`
	d := diagnoseWhole("help.log", []byte(help))
	if len(d.Findings) != 0 || !contains(d.Inputs[0].Quality, "help_text_skipped") {
		t.Fatalf("help text became evidence: %s", d.JSON())
	}
	d = diagnoseWhole("help.log", []byte(help+"$ vllm serve m\nMemory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f0000001000. Reason: Page not present or supervisor privilege.\n"))
	if hasClass(d, ClassGPUMemoryFault) == nil || len(d.Findings) != 1 {
		t.Fatalf("the fault after the help block is lost: %s", d.JSON())
	}
}
