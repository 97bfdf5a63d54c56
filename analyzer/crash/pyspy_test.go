package crash

import (
	"fmt"
	"strings"
	"testing"
)

// py-spy dump frame lines ("    fn (file:line)"; --native C frames carry
// the library instead of file:line).
func TestExtractPyFrame(t *testing.T) {
	for in, want := range map[string]string{
		"    all_reduce (torch/distributed/distributed_c10d.py:2501)":                   "all_reduce (torch/distributed/distributed_c10d.py)",
		"    _wait_for_tstate_lock (threading.py:1116)":                                 "_wait_for_tstate_lock (threading.py)",
		"    hipMemcpyWithStream (libamdhip64.so.6)":                                    "hipMemcpyWithStream (libamdhip64.so.6)",
		"    forward (transformers/models/llama/modeling_llama.py:1189)":                "forward (transformers/models/llama/modeling_llama.py)",
		"    <module> (/home/user/train.py:42)":                                         "<module> (/home/user/train.py)",
		"    acquire_read (vllm/distributed/device_communicators/shm_broadcast.py:431)": "acquire_read (vllm/distributed/device_communicators/shm_broadcast.py)",
	} {
		f, ok := extractPyFrame(in)
		if !ok || f.signature() != want {
			t.Errorf("%q: got %q, want %q", in, f.signature(), want)
		}
	}
	if _, ok := extractPyFrame("Thread 0x7ED3637AE700 (active): \"ThreadPoolExecutor-275_6\""); ok {
		t.Error("a thread header gave a frame")
	}
}

// pyspyDump writes one py-spy dump per process: pid, then its main
// thread's frames innermost first (py-spy dump's layout).
func pyspyDump(procs []int, frames func(i int) []string) string {
	var b strings.Builder
	for i, pid := range procs {
		fmt.Fprintf(&b, "Process %d: python -u train.py --local_rank=%d\nPython v3.10.12 (/usr/bin/python3.10)\n\nThread %d (idle): \"MainThread\"\n", pid, i, pid)
		for _, f := range frames(i) {
			b.WriteString("    " + f + "\n")
		}
		b.WriteString("    <module> (train.py:88)\n\n")
	}
	return b.String()
}

// huggingface/accelerate#3104: "7 threads are in one operation (this time
// all_gather_coalesced) and one thread is in forward" — the odd rank is the
// one whose stack differs, though neither side is a GPU wait.
func TestPyspyStackOutlier(t *testing.T) {
	pids := []int{7101, 7102, 7103, 7104, 7105, 7106, 7107, 7108}
	log := pyspyDump(pids, func(i int) []string {
		if i == 5 {
			return []string{"forward (transformers/models/llama/modeling_llama.py:1189)", "_call_impl (torch/nn/modules/module.py:1747)"}
		}
		return []string{fmt.Sprintf("all_gather_coalesced (deepspeed/comm/torch.py:%d)", 300+i), "fetch_sub_module (deepspeed/runtime/zero/partitioned_param_coordinator.py:330)"}
	})
	d := diagnoseWhole("pyspy.txt", []byte(log))
	var c *Culprit
	for i := range d.Findings {
		if d.Findings[i].Culprit != nil {
			c = d.Findings[i].Culprit
		}
	}
	if c == nil || c.PID == nil || *c.PID != 7106 {
		t.Fatalf("%s", d.JSON())
	}
	// all in the same function (different lines): no one is named
	log = pyspyDump(pids[:4], func(i int) []string {
		return []string{fmt.Sprintf("all_gather_coalesced (deepspeed/comm/torch.py:%d)", 300+i)}
	})
	d = diagnoseWhole("pyspy.txt", []byte(log))
	for _, f := range d.Findings {
		if f.Culprit != nil && f.Culprit.PID != nil {
			t.Fatalf("a culprit among identical stacks: %s", d.JSON())
		}
	}
}

// Two ranks: one waits in a barrier, the other in .item() (a GPU wait) —
// the barrier waits for the other.
func TestPyspyPairCollectiveVsGPUWait(t *testing.T) {
	log := pyspyDump([]int{901, 902}, func(i int) []string {
		if i == 0 {
			return []string{"barrier (torch/distributed/distributed_c10d.py:4159)"}
		}
		return []string{"item (torch/_tensor.py:0)", "step (train.py:61)"}
	})
	d := diagnoseWhole("pyspy.txt", []byte(log))
	var c *Culprit
	for i := range d.Findings {
		if d.Findings[i].Culprit != nil {
			c = d.Findings[i].Culprit
		}
	}
	if c == nil || c.PID == nil || *c.PID != 902 {
		t.Fatalf("%s", d.JSON())
	}
}

// Two py-spy dumps of one process (py-spy's "Process N: cmd" / "Thread N
// (active+gil)" grammar, benfred/py-spy src/dump.rs): in different
// functions the process moves between them — slow, not hung (crash-heldout3
// e39); in the same function twice it is a busy loop (crash-heldout2 d10).
func TestPyspyTwoDumpsProgress(t *testing.T) {
	dump := func(status, frame string) string {
		return "Process 90412: sglang::scheduler_TP0\nPython v3.12.3 (/usr/bin/python3.12)\n\n" +
			"Thread 90412 (" + status + "): \"MainThread\"\n    " + frame + "\n    run_scheduler_process (sglang/srt/managers/scheduler.py:2960)\n\n"
	}
	for _, c := range []struct {
		name, text string
		class      string // "" = no finding of a hang class
	}{
		{"different functions", dump("active", "forward_decode (sglang/srt/layers/attention/aiter_backend.py:1180)") +
			dump("active+gil", "process_batch_result_decode (sglang/srt/managers/scheduler_output_processor_mixin.py:201)"), ""},
		{"the same function, another line", dump("active+gil", "_compile_regex (xgrammar/compiler.py:214)") +
			dump("active+gil", "_compile_regex (xgrammar/compiler.py:219)"), ClassCPUHang},
		{"one dump", dump("active+gil", "_compile_regex (xgrammar/compiler.py:214)"), ClassCPUHang},
		{"the second dump waits on the GPU", dump("active", "forward_decode (sglang/srt/layers/attention/aiter_backend.py:1180)") +
			dump("idle", "synchronize (torch/cuda/__init__.py:985)"), ClassGPUKernelHang},
	} {
		d := diagnoseWhole("pyspy.txt", []byte(c.text))
		for _, k := range []string{ClassCPUHang, ClassGPUKernelHang} {
			if got, want := hasClass(d, k) != nil, k == c.class; got != want {
				t.Errorf("%s: %s = %v, want %v\n%s", c.name, k, got, want, d.JSON())
			}
		}
	}
}
