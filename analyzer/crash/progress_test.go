package crash

import "testing"

// Real wordings of generation progress (sources per row).
func TestExtractProgress(t *testing.T) {
	cases := []struct {
		src, text string
		rate      float64
		counter   int64
	}{
		{"https://github.com/vllm-project/vllm/issues/12314 (vLLM V0 metrics)",
			`INFO 01-22 18:27:20 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 2.0%, CPU KV cache usage: 0.0%.`, 41.7, 0},
		{"https://github.com/vllm-project/vllm/issues/43295 (vLLM V1 loggers)",
			`(APIServer pid=3646) INFO 05-19 10:13:11 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 1055.3 tokens/s, Running: 18 reqs, Waiting: 43 reqs, GPU KV cache usage: 95.9%, Prefix cache hit rate: 0.0%`, 1055.3, 0},
		{"https://github.com/sgl-project/sglang/issues/4407 (SGLang decode batch)",
			`[2025-03-14 02:16:14 TP0] Decode batch. #running-req: 509, #token: 180776, token usage: 0.43, gen throughput (token/s): 7897.87, largest-len: 0, #queue-req: 0, `, 7897.87, 0},
		{"https://github.com/sgl-project/sglang/pull/22331 (SGLang, newer wording)",
			`[2026-04-08 14:05:21 TP0] Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0`, 144.95, 0},
		{"vLLM's offline progress bar (lm_eval / LLM.generate)",
			`Processed prompts: 100%|██████████| 500/500 [01:41<00:00,  4.93it/s, est. speed input: 512.31 toks/s, output: 1630.11 toks/s]`, 1630.11, 0},
		{"a stalled vLLM server (rate 0 is no progress)",
			`INFO 07-03 23:23:42 [metrics.py:536] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 32 reqs, Swapped: 0 reqs`, 0, 0},
		{"a cumulative counter", `[atom 15:40:09] Engine Core: output send, 256 reqs, 31744 tokens`, 0, 31744},
	}
	for _, c := range cases {
		p, ok := extractProgress(c.text)
		if !ok || p.rate != c.rate || p.counter != c.counter {
			t.Errorf("%s\n%s\n got %+v ok=%v, want rate %v counter %d", c.src, c.text, p, ok, c.rate, c.counter)
		}
	}
	// SGLang's prefill line is input, not generation
	if p, ok := extractProgress(`[2026-07-21 15:00:13 TP0 EP0] Prefill batch, #new-seq: 8, #new-token: 54400, #cached-token: 482304, token usage: 0.66, #running-req: 16, #queue-req: 2, #pending-token: 0, npu graph: False, input throughput (token/s): 2793.64`); ok {
		t.Errorf("prefill line gave %+v", p)
	}
}

const smiBusy = "GPU[0]\t\t: GPU use (%): 100\nGPU[1]\t\t: GPU use (%): 100\n"

// The livelock rule needs GPUs at 100 % and nothing else; progress in the
// log defeats it, a throughput of 0 or a counter that does not move does
// not.
func TestLivelockDefeatedByProgress(t *testing.T) {
	cases := []struct {
		name, log string
		hang      bool
	}{
		{"busy alone", smiBusy, true},
		{"busy, vLLM generating", smiBusy + "INFO 01-22 18:27:20 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.7 tokens/s, Running: 1 reqs\n", false},
		{"busy, vLLM at 0 tokens/s", smiBusy + "INFO 01-22 18:27:20 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 1 reqs\n", true},
		{"busy, counter rising", smiBusy + "[srv 15:40:09] sent 256 reqs, 31744 tokens\n[srv 15:40:42] sent 256 reqs, 39541 tokens\n", false},
		{"busy, counter stuck", smiBusy + "[srv 15:40:09] sent 256 reqs, 31744 tokens\n[srv 15:40:42] sent 256 reqs, 31744 tokens\n", true},
	}
	for _, c := range cases {
		d := diagnoseWhole("smi.log", []byte(c.log))
		hang := len(d.Findings) > 0 && d.Findings[0].Class == ClassGPUKernelHang
		if hang != c.hang {
			t.Errorf("%s: hang=%v, want %v (%+v)", c.name, hang, c.hang, d.Findings)
		}
	}
}
