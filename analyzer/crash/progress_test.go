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

// A py-spy dump with a busy (active+gil) thread is a busy-loop candidate;
// the server's latest throughput above 0 says it was working when dumped
// (vLLM V1 stats: vllm#43295, vllm#19680; SGLang decode line: sglang#4407).
// A throughput that fell to 0, or a watchdog, keeps the hang.
func TestBusyPySpyDefeatedByServing(t *testing.T) {
	busy := "Process 11820: VLLM::Worker_TP0\nPython v3.12.10 (/usr/bin/python3.12)\n\nThread 11820 (active+gil): \"MainThread\"\n    forward (vllm/model_executor/layers/rotary_embedding.py:314)\n    execute_model (vllm/v1/worker/gpu_model_runner.py:2044)\n\n"
	v1 := func(rate string) string {
		return "INFO 11-27 12:41:02 [loggers.py:123] Engine 000: Avg prompt throughput: 3120.8 tokens/s, Avg generation throughput: " + rate + " tokens/s, Running: 64 reqs, Waiting: 0 reqs\n"
	}
	sg := "[2026-11-27 13:10:01 TP0] Decode batch. #running-req: 256, #token: 401221, token usage: 0.61, cuda graph: True, gen throughput (token/s): 9120.44, #queue-req: 1022\n"
	for _, c := range []struct {
		name, log string
		hang      bool
	}{
		{"busy alone", busy, true},
		{"busy, vLLM generating", busy + v1("2211.4"), false},
		{"busy, SGLang decoding", sg + busy, false},
		{"busy, throughput fell to 0", busy + v1("2211.4") + v1("0.0"), true},
		{"busy, SGLang watchdog", "[2026-11-26 18:07:10 TP0] Watchdog timeout (self.watchdog_timeout=300)\n" + sg + busy, true},
	} {
		d := diagnoseWhole("pyspy.txt", []byte(c.log))
		if got := hasClass(d, ClassCPUHang) != nil; got != c.hang {
			t.Errorf("%s: cpu_hang %v, want %v: %s", c.name, got, c.hang, d.JSON())
		}
	}
}
