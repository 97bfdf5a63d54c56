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

// The executor's dead-worker line names the worker (and so the rank) that
// failed; real wordings from vLLM's multiproc executor and Ray executor.
func TestExtractDeadWorker(t *testing.T) {
	for _, c := range []struct {
		src, text string
		rank      int
		ok        bool
	}{
		{"vLLM v1 paste (EngineCore_DP0 prefix)", "(EngineCore_DP0 pid=265) ERROR 02-27 10:31:24 [multiproc_executor.py:231] Worker proc VllmWorker-0 died unexpectedly, shutting down executor.", 0, true},
		{"vLLM V1 report (no prefix)", "Worker proc VllmWorker-2 died unexpectedly, shutting down executor.", 2, true},
		{"vLLM Ray executor v2", "ERROR ... [ray_executor_v2.py:464] RayWorkerProc rank=[3] died unexpectedly, shutting down executor.", 3, true},
		{"the engine core, not a worker", "(APIServer pid=1) ERROR 11-26 12:30:11 [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.", -1, false},
	} {
		w, ok := extractDeadWorker(c.text)
		if ok != c.ok || ok && w.rank != c.rank {
			t.Errorf("%s: extractDeadWorker = %+v, %v; want rank %d, %v", c.src, w, ok, c.rank, c.ok)
		}
	}
	const fault = "Memory access fault by GPU node-7 (Agent handle: 0x5584c0e91b30) on address 0x7a2e41a00000. Reason: Unknown.\n"
	one := fault + "(EngineCore_DP0 pid=2260) ERROR 11-26 13:06:14 [multiproc_executor.py:154] Worker proc VllmWorker-5 died unexpectedly, shutting down executor.\n"
	d := diagnoseWhole("x.log", []byte(one))
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 5 {
		t.Errorf("one dead worker: want culprit rank 5\n%s", d.JSON())
	}
	two := one + "(EngineCore_DP0 pid=2260) ERROR 11-26 13:06:14 [multiproc_executor.py:154] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.\n"
	d = diagnoseWhole("x.log", []byte(two))
	if f := hasClass(d, ClassGPUMemoryFault); f != nil && f.Culprit != nil && f.Culprit.Rank != nil {
		t.Errorf("two dead workers name none\n%s", d.JSON())
	}
}

// After a collective timeout the dead worker is the one whose watchdog took
// its process down first (PyTorch: "To avoid data inconsistency, we are
// taking the entire process down."): a waiter, never the culprit.
func TestDeadWorkerAfterWatchdog(t *testing.T) {
	text := "[rank0]:[E520 10:32:11.103222411 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4521, OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n" +
		"[rank0]:[E520 10:32:11.103500000 ProcessGroupNCCL.cpp:704] [Rank 0] To avoid data inconsistency, we are taking the entire process down.\n" +
		"(EngineCore_DP0 pid=41190) ERROR 05-20 10:32:12 [multiproc_executor.py:146] Worker proc VllmWorker-0 died unexpectedly, shutting down executor.\n"
	d := diagnoseWhole("x.log", []byte(text))
	for _, f := range d.Findings {
		if f.Culprit != nil && f.Culprit.Rank != nil && *f.Culprit.Rank == 0 && strings.Contains(f.Culprit.Method, "dead-worker") {
			t.Errorf("the watchdog's own exit named as culprit\n%s", d.JSON())
		}
	}
}

// py-spy dump --subprocesses dumps the launcher too ("Parent Process N:"
// under each child, benfred/py-spy src/dump.rs): the parent idles in its
// event loop and holds no GPU work, so it is no candidate — the worker in
// synchronize while the others wait in all_reduce is (seed 001 step R2).
func TestPyspySubprocessesParentIsNotAWorker(t *testing.T) {
	var b strings.Builder
	b.WriteString("Process 73001: /usr/bin/python3 -m server --tp 4\nPython v3.12.3 (/usr/bin/python3.12)\n\nThread 73001 (idle): \"MainThread\"\n    select (selectors.py:468)\n    run_forever (asyncio/base_events.py:641)\n")
	for i, pid := range []int{73118, 73119, 73120, 73121} {
		b.WriteString(strings.Repeat("-", 100) + "\n")
		fmt.Fprintf(&b, "Process %d: /usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=9, pipe_handle=%d) --multiprocessing-fork\nPython v3.12.3 (/usr/bin/python3.12)\nParent Process 73001: /usr/bin/python3 -m server --tp 4\n\nThread %d (idle): \"MainThread\"\n", pid, 15+2*i, pid)
		if pid == 73119 {
			b.WriteString("    synchronize (torch/cuda/__init__.py:1040)\n    execute_model (worker/model_runner.py:1081)\n")
		} else {
			b.WriteString("    all_reduce (torch/distributed/distributed_c10d.py:2950)\n    execute_model (worker/model_runner.py:1104)\n")
		}
	}
	if pid, ok := extractPyParent("Parent Process 73001: /usr/bin/python3 -m server --tp 4"); !ok || pid != 73001 {
		t.Fatalf("extractPyParent = %d %v", pid, ok)
	}
	d := diagnoseWhole("pyspy.txt", []byte(b.String()))
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 73119 {
		t.Fatalf("want culprit pid 73119: %s", d.JSON())
	}
}

// A helper thread parked in Python's own waits (threading / queue /
// selectors) is every idle thread pool and reader thread; only the main
// thread blocked there says the process waits (crash-heldout-real x32,
// gprofiler#612: MainThread in a future's wait).
func TestPySpyStdlibWaitOnlyOnTheMainThread(t *testing.T) {
	const server = "Process 40021: python3 -m sglang.launch_server --tp 4\nPython v3.12.3 (/usr/bin/python3.12)\n\n" +
		"Thread 40021 (idle): \"MainThread\"\n    select (selectors.py:468)\n    _run_once (asyncio/base_events.py:1949)\n    run_forever (asyncio/base_events.py:641)\n" +
		"Thread 40188 (idle): \"Thread-1 (_read_thread)\"\n    wait (threading.py:359)\n    get (queue.py:180)\n" +
		"Thread 40190 (idle): \"Thread-2 (_pin_memory_loop)\"\n    select (selectors.py:415)\n    wait (multiprocessing/connection.py:947)\n    get (multiprocessing/queues.py:113)\n"
	if d := diagnoseWhole("pyspy.txt", []byte(server)); len(d.Findings) != 0 {
		t.Errorf("an idle server's parked reader thread made a finding:\n%s", d.JSON())
	}
	const hung = "Thread 0x7F768F77C740 (idle): \"MainThread\"\n    wait (threading.py:295)\n    result (_base.py:427)\n    _snapshot (main.py:278)\n" +
		"Thread 0x7F76848B4700 (idle): \"Thread-6\"\n    wait (threading.py:299)\n    _continuously_poll_memory (system_metrics.py:76)\n"
	if d := diagnoseWhole("pyspy.txt", []byte(hung)); hasClass(d, ClassCPUHang) == nil {
		t.Errorf("the main thread blocked in a wait is no cpu_hang:\n%s", d.JSON())
	}
}

// SGLang's watchdog announces each dump ("[ts TPn] Pyspy dump for PID N:");
// a trimmed paste may drop py-spy's own "Process N:" header — the
// announcement still names the process, so the one rank waiting for the GPU
// while the others sit in all_reduce is named (seed 001 step 6).
func TestPySpyAnnouncementStartsTheProcess(t *testing.T) {
	var b strings.Builder
	for r := 0; r < 4; r++ {
		fmt.Fprintf(&b, "[2026-11-22 17:08:11 TP%d] Pyspy dump for PID %d:\nThread %d (idle): \"MainThread\"\n", r, 61200+r, 61200+r)
		if r == 2 {
			b.WriteString("    hipMemcpyWithStream (libamdhip64.so.6)\n    at::native::_local_scalar_dense_cuda (libtorch_hip.so)\n    tolist (sglang/srt/managers/scheduler_output_processor_mixin.py:247)\n\n")
		} else {
			b.WriteString("    all_reduce (torch/distributed/distributed_c10d.py:2806)\n    get_next_batch_to_run (sglang/srt/managers/scheduler.py:1431)\n\n")
		}
	}
	d := diagnoseWhole("sglang.log", []byte(b.String()))
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || culpritPID(f) != 61202 || culpritRank(f) != 2 {
		t.Fatalf("the rank waiting for the GPU is not named:\n%s", d.JSON())
	}
}

// Seed 000 pattern 4 across ranks: py-spy dumps where the others wait in a
// collective and one process compiles a Triton kernel — the compile is the
// finding and that process its culprit (py-spy's "Process N:" header,
// crash-formats §8; Triton's compiler / cache frames as in the keyed
// first-forward hangs crash-heldout5 g29 and crash-heldout10 p22).
func TestPySpyTritonCompileCulprit(t *testing.T) {
	dump := func(pid int, frames ...string) string {
		s := "Process " + itoa(pid) + ": python3 -m sglang.launch_server --tp 3\nPython v3.12.9 (/usr/bin/python3.12)\n\nThread " + itoa(pid) + " (idle): \"MainThread\"\n"
		for _, f := range frames {
			s += "    " + f + "\n"
		}
		return s
	}
	coll := []string{"all_reduce (torch/distributed/distributed_c10d.py:2806)", "forward (sglang/srt/layers/linear.py:1290)"}
	log := dump(100, coll...) + dump(101, "_acquire (filelock/_unix.py:39)", "put (triton/runtime/cache.py:132)", "compile (triton/compiler/compiler.py:304)", "run (triton/runtime/jit.py:592)") + dump(102, coll...)
	d := diagnoseWhole("pyspy.txt", []byte(log))
	f := hasClass(d, ClassTritonCompile)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 101 {
		t.Fatalf("want triton_compile with culprit pid 101: %s", d.JSON())
	}
}
