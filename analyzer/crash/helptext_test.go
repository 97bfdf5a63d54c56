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

// argparse prints the parser's description between the usage line and the
// first section (vllm-project/vllm#18643 "Start the vLLM OpenAI Compatible
// API server.", #22647 "Launch a local OpenAI-compatible API server …",
// #31226 "vLLM CLI"): the block goes on at the section header. Go's flag
// package opens its block with "Usage of prog:".
func TestHelpTextWithDescription(t *testing.T) {
	for _, c := range []struct{ src, help string }{
		{"https://github.com/vllm-project/vllm/pull/18643", `$ vllm serve --help
usage: vllm serve [model_tag] [options]

Start the vLLM OpenAI Compatible API server.

positional arguments:
  model_tag             The model tag to serve (optional if specified in config) (default: None)

options:
  --enforce-eager       Helps with RuntimeError: HIP error: an illegal memory access was encountered
`},
		{"https://github.com/vllm-project/vllm/issues/22647", `usage: vllm serve [model_tag] [options]

Launch a local OpenAI-compatible API server to serve LLM completions via HTTP. Defaults to facebook/opt-125m if no model is given.

options:
  --retry-on {fault}    matches "HSA_STATUS_ERROR_EXCEPTION ... code: 0x1016" and
                        "Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f00. Reason: Page not present or supervisor privilege."
`},
		{"https://github.com/vllm-project/vllm/pull/31226", `usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...

vLLM CLI

positional arguments:
  {chat,complete,serve}
    serve               Lower --gpu-memory-utilization on torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB
`},
		{"Go flag package (flag.Usage)", `Usage of ./worker:
  -retry string
    	retry on "Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x1000. Reason: Page not present or supervisor privilege."
`},
	} {
		d := diagnoseWhole("help.log", []byte(c.help))
		if len(d.Findings) != 0 {
			t.Errorf("%s: help text became evidence: %s", c.src, d.JSON())
		}
	}
	// an argparse error right after usage is no help block to resume: the
	// crash after it is evidence
	d := diagnoseWhole("run.log", []byte("usage: train.py [-h] [--lr LR]\ntrain.py: error: unrecognized arguments: --foo\nMemory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f0000001000. Reason: Page not present or supervisor privilege.\n"))
	if hasClass(d, ClassGPUMemoryFault) == nil {
		t.Errorf("the fault after an argparse error is lost: %s", d.JSON())
	}
}
