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

// Markdown tables that tabulate errors are documentation: seed 000's "ROCm
// Error Codes" table (../shared/seeds/000_*), an error-code reference with a
// number column and aligned delimiters, and a troubleshooting table in
// Chinese quoting PyTorch's texts (wordings seen in public skill/runbook
// files found with the code search). The log after a table is still read,
// and tool output framed with '|' (nvidia-smi) is not a table.
func TestMarkdownTableIsNotEvidence(t *testing.T) {
	tables := []string{
		"| Error | Meaning | What to Check |\n|---|---|---|\n| hipErrorIllegalAddress | Out-of-bounds GPU memory access | Tensor shapes |\n| hipErrorAssert | Device-side assert triggered | Input validation |\n| hipErrorOutOfMemory | GPU VRAM exhaustion | Batch size |\n| Signal 137 | OOM killed by host kernel | Container memory limit |\n| Signal 139 | Segmentation fault | Usually host-side pointer corruption |\n",
		"| Error Code | Name | Common Cause |\n|------------|:----:|-------------:|\n| 2 | `hipErrorOutOfMemory` | GPU VRAM exhausted |\n| 700 | `hipErrorIllegalAddress` | an illegal memory access was encountered |\n| 209 | `hipErrorNoBinaryForGpu` | Wrong GPU arch target |\n",
		"  | 错误信息 | 原因 |\n  | --- | --- |\n  | `CUDA error: device-side assert triggered` | 张量索引越界 |\n  | `HIP out of memory. Tried to allocate 2.00 GiB` | 显存不足 |\n",
	}
	for i, tb := range tables {
		d := diagnoseWhole("notes.md", []byte(tb))
		if len(d.Findings) != 0 || !contains(d.Inputs[0].Quality, "markdown_table_skipped") {
			t.Errorf("table %d became evidence: %s", i, d.JSON())
		}
		d = diagnoseWhole("notes.md", []byte(tb+"\nMemory access fault by GPU node-2 (Agent handle: 0x1) on address 0x7f0000001000. Reason: Page not present or supervisor privilege.\n"))
		if hasClass(d, ClassGPUMemoryFault) == nil || len(d.Findings) != 1 {
			t.Errorf("table %d: the fault after the table is lost: %s", i, d.JSON())
		}
	}
	for _, frame := range []string{"|=========================================+========================+======================|", "+-----------------------------------------+------------------------+----------------------+", "| GPU  Name | Bus-Id | ECC |"} {
		if mdDelimiterRow([]byte(frame)) {
			t.Errorf("%q taken for a Markdown delimiter row", frame)
		}
	}
}

// Seed 000's error table retold as a Markdown list (the same rows as
// TestMarkdownTableIsNotEvidence, as bullets with an em dash or "means")
// is documentation; a bug report's bullet quoting its own error with no
// definition after it stays evidence.
func TestMarkdownGlossaryItemIsNotEvidence(t *testing.T) {
	for _, c := range []struct {
		line string
		doc  bool
	}{
		{"- `hipErrorIllegalAddress` \u2014 out-of-bounds GPU memory access; check tensor shapes", true},
		{"- `hipErrorOutOfMemory` \u2014 GPU VRAM exhaustion; lower batch size", true},
		{"- Signal 137 \u2014 OOM killed by host kernel; container memory limit", true},
		{"* Signal 139 \u2013 segmentation fault, usually host-side pointer corruption", true},
		{"- `Memory access fault by GPU node-N (Agent handle: 0x...) on address 0x...` means a GPU page fault: run under the debug agent", true},
		{"- `hipErrorAssert`: device-side assert triggered", true},
		{"- `RuntimeError: HIP error: an illegal memory access was encountered`", false},
		{"- RuntimeError: HIP error: an illegal memory access was encountered", false},
		{"Memory access fault by GPU node-2 (Agent handle: 0x5581f2a41c60) on address 0x40. Reason: Page not present or supervisor privilege.", false},
	} {
		if got := mdGlossaryItem([]byte(c.line)); got != c.doc {
			t.Errorf("mdGlossaryItem(%q) = %v, want %v", c.line, got, c.doc)
		}
	}
	d := diagnoseWhole("notes.md", []byte("- `hipErrorAssert` \u2014 device-side assert triggered\n- Signal 137 \u2014 OOM killed by host kernel\n"))
	if len(d.Findings) != 0 || !contains(d.Inputs[0].Quality, "markdown_glossary_skipped") {
		t.Fatalf("a glossary list became evidence: %s", d.JSON())
	}
	d = diagnoseWhole("issue.md", []byte("- `RuntimeError: HIP error: an illegal memory access was encountered`\n"))
	if hasClass(d, ClassGPUMemoryFault) == nil {
		t.Fatalf("a bug report's quoted error lost: %s", d.JSON())
	}
}

// clap 2/3 and similar parsers put "USAGE:" / "Usage:" alone on a line, the
// usage indented below, then upper-case sections (clap-rs/clap#36
// "USAGE:\n    fake add <file>", guonaihong/clop#23 "Usage:\n    git
// [Options] <Subcommand>"): error strings quoted in the sections are no
// evidence; a fault after the block still is.
func TestHelpTextUsageHeaderAlone(t *testing.T) {
	help := `$ ./rocmforge_cli --help
rocmforge_cli 0.4.0

USAGE:
    rocmforge_cli <SUBCOMMAND> [OPTIONS]

OPTIONS:
    --validate-launch       On failure prints e.g.
                              Kernel 'transpose_kernel' launch failed: hipErrorInvalidValue (grid=(2800,1,1), block=(64,64,1))
                              Shared memory 70000 bytes exceeds limit 65536

TROUBLESHOOTING:
    hipErrorNoBinaryForGpu   rebuild the HSACO for your gfx target (gfx942 vs gfx950)
    hipErrorOutOfMemory      lower --max-batch
`
	d := diagnoseWhole("help.log", []byte(help))
	if len(d.Findings) != 0 || !contains(d.Inputs[0].Quality, "help_text_skipped") {
		t.Fatalf("help text became evidence: %v", classesOf(d))
	}
	d = diagnoseWhole("help.log", []byte(help+"$ ./rocmforge_cli generate\nMemory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f0000001000. Reason: Page not present or supervisor privilege.\n"))
	if hasClass(d, ClassGPUMemoryFault) == nil {
		t.Fatalf("the fault after the help block is lost: %v", classesOf(d))
	}
}
