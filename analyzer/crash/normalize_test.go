package crash

import (
	"strings"
	"testing"
)

func TestNormalizePrefixes(t *testing.T) {
	cases := []struct {
		in, text string
		rank     int
		pid      int
	}{
		{"ollama  | Memory access fault by GPU node-1", "Memory access fault by GPU node-1", -1, 0},
		{"scalellm          | hello", "hello", -1, 0},
		{"(Worker_TP2 pid=3100) DEBUG 02-24 02:39:34 [file.py:4758] msg", "msg", 2, 3100},
		{"(EngineCore_DP0 pid=1127182) ERROR 10-27 20:12:32 [core.py:708] boom", "boom", -1, 1127182},
		{"(RayWorkerWrapper pid=489968) x", "x", -1, 489968},
		{"[2025-08-02 19:24:30 TP3] Watchdog timeout", "Watchdog timeout", 3, 0},
		{"[2026-01-29 13:12:37 PP2 TP1] y", "y", 1, 0},
		{"[atom 03:21:41] z", "z", -1, 0},
		{"[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] W", "[Rank 1] W", 1, 0},
		{"[E ProcessGroupNCCL.cpp:737] old", "old", -1, 0},
		{"[rank6]:E1211 16:33:14.602000 1463070 site-packages/torch/_inductor/runtime/triton_heuristics.py:810] [0/0] ind", "ind", 6, 0},
		{"[rank0]: Traceback (most recent call last):", "Traceback (most recent call last):", 0, 0},
		{"2025-11-12T11:25:13.4961658Z ci line", "ci line", -1, 0},
		{"2026-05-08 11:47:02.257 [Error] (Process) (EngineCore pid=2651) ERROR 05-08 11:47:02 [core.py:1136] nested", "nested", -1, 2651},
		{"!!! Exception during processing !!! HIP out of memory.", "HIP out of memory.", -1, 0},
		{"[ 4778.915423] amdgpu 0000:c6:00.0: x", "amdgpu 0000:c6:00.0: x", -1, 0},
		{"[Tue Jul 23 13:49:25 2024] amdgpu: y", "amdgpu: y", -1, 0},
		{"Aug 05 18:46:49 host kernel: amdgpu: z", "amdgpu: z", -1, 0},
		{"2024-08-18T01:21:01.825131+00:00 minipc kernel: amdgpu: w", "amdgpu: w", -1, 0},
		{":3:hip_module.cpp           :669 : 14629861952 us: [pid:31113 tid:0x7fa5a37fe700] hipLaunchKernel: Returned hipErrorInvalidDeviceFunction :", "hipLaunchKernel: Returned hipErrorInvalidDeviceFunction :", -1, 31113},
		{":0:rocdevice.cpp            :2614: 281102691423 us: 54282: [tid:0x7ff1f9c47700] Device::callbackQueue aborting", "Device::callbackQueue aborting", -1, 54282},
		{":0:rocdevice.cpp            :3586: 5809727196804 us:  Callback: Queue 0x79e714200000 aborting", "Callback: Queue 0x79e714200000 aborting", -1, 0},
		{"(gdb) info dispatches", "info dispatches", -1, 0},
		{"> > quoted", "quoted", -1, 0},
		{"[80746] viewer", "viewer", -1, 0},
		// Metaflow (Netflix/metaflow#587 on AWS Batch, #303 and #1672 local)
		{"2021-06-28 14:37:21.016 [7637/hello/92219 (pid 66823)] [24616654-4aca-42ad-9d86-c1133f519cb9] Metaflow says: Hi from AWS!", "Metaflow says: Hi from AWS!", -1, 66823},
		{"2020-08-24 06:17:41.069 [1598264257255545/segfault/2 (pid 19077)] Task failed.", "Task failed.", -1, 19077},
		{"2024-01-09 22:26:57.629 [1704839212206922/start/1 (pid 31890)] HelloFlow is starting.", "HelloFlow is starting.", -1, 31890},
		{"FAILED [0.0005s] tests/test_x.py::test_y - RuntimeError: HIP error", "RuntimeError: HIP error", -1, 0},
		{"\x1b[0;32mINFO\x1b[0m green", "INFO green", -1, 0},
		{`\u001b[0;32mliteral\u001b[0m`, "literal", -1, 0},
		{"100%|████| 20/20 [00:01<00:00, 17.95it/s]Memory access fault", "Memory access fault", -1, 0},
		{"Loading:  75%|███ 3/4 [00:08<00:02,  2.83s/it]Killed", "Killed", -1, 0},
		{"progress 10%\rprogress 50%\rdone\r", "done", -1, 0},
		{"Got 2025-12-21T05:01:45.677513 - error text", "Got error text", -1, 0},
		// accelerate relays its launcher's output with a "stderr: " prefix
		// (hiyouga/LlamaFactory#163, #701)
		{"stderr: ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 7 (pid: 153932) of binary: /home/panww/miniconda3/tools/bin/python",
			"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 7 (pid: 153932) of binary: /home/panww/miniconda3/tools/bin/python", -1, 0},
		{"stderr:   rank      : 1 (local_rank: 1)", "  rank      : 1 (local_rank: 1)", -1, 0},
		{"stdout: [2023-08-26 23:21:50,870] [INFO] x", "[INFO] x", -1, 0},
		// Open MPI's --tag-output "[job,rank]<stream>:" (graphcore poptorch,
		// horovod threads in the issues corpus)
		{"[1,0]<stderr>:Traceback (most recent call last):", "Traceback (most recent call last):", 0, 0},
		{"[1,3]<stdout>:MARKER_10 sequential-line-10", "MARKER_10 sequential-line-10", 3, 0},
		{"2026-08-03T09:47:01Z [1,0]<stderr>:  File \"<stdin>\", line 3, in level_three", "  File \"<stdin>\", line 3, in level_three", 0, 0},
	}
	s := New()
	s.BeginFile("t")
	for _, c := range cases {
		l := s.normalize([]byte(c.in), 1)
		if l.text != c.text || l.rank != c.rank || l.pid != c.pid {
			t.Errorf("normalize(%q) = text %q rank %d pid %d; want %q %d %d", c.in, l.text, l.rank, l.pid, c.text, c.rank, c.pid)
		}
	}
}

func TestWriteFraming(t *testing.T) {
	data := []byte("a\r\nMemory access fault by GPU node-2 (Agent handle: 0x1) on address 0x1000. Reason: Host access only.\r\nlast")
	for cut := 0; cut <= len(data); cut++ {
		s := New()
		s.BeginFile("x")
		s.Write(data[:cut])
		s.Write(data[cut:])
		d := s.Diagnosis()
		if len(d.Findings) != 1 || d.Findings[0].Node == nil || *d.Findings[0].Node != 2 || d.Inputs[0].Lines != 3 || !d.Inputs[0].Truncated {
			t.Fatalf("cut %d: %s", cut, d.JSON())
		}
	}
}

func TestLongLine(t *testing.T) {
	s := New()
	s.BeginFile("long")
	big := make([]byte, 3*maxLineBytes)
	for i := range big {
		big[i] = 'x'
	}
	s.Write(big)
	s.Write([]byte("\nMemory access fault by GPU node-1 on address 0x2000. Reason: Unknown\n"))
	d := s.Diagnosis()
	if len(d.Findings) != 1 || d.Inputs[0].Lines != 2 || !d.Inputs[0].Truncated {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzNormalize(f *testing.F) {
	seedFuzz(f, "shared:s01_rocr_fault_docker_compose_prefix_ollama8851.log", "shared:s02_rocr_fault_tqdm_remnant_plus_dmesg_rocm3452.log", "shared:s17_hip_invalid_device_function_amd_log_level3_rocm2527.log", "testdata/rocr_variants.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		s := New()
		s.BeginFile("f")
		_ = s.normalize(data, 1)
		fuzzParser(t, func(*Session) []parser { return nil }, data, cut)
	})
}

// srun --label prefixes every line with its task id ("0: ", right-aligned
// " 3: ", SchedMD srun(1) -l); in front of an NCCL debug line or a c10
// stamp it is stripped and names the rank. A numbered note or an objdump
// row keeps its text.
func TestMatchSrunLabel(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		task int
	}{
		{"4: gpu-a17:51024:51024 [4] NCCL INFO AllReduce: opCount 4a1 sendbuff 0x7f90c2000000", 3, 4},
		{" 3: [rank3]:[E1126 11:40:02.530551905 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught", 4, 3},
		{"12: [E1126 11:40:02.530 ProcessGroupNCCL.cpp:632] x", 4, 12},
		{"0: step 1180 loss 1.9021", 0, 0},
		{"1: check the watchdog lines", 0, 0},
		{"   0:\t55                   \tpush   %rbp", 0, 0},
		// the debug agent's anchors under srun -l (an agent dump of one task,
		// as in the srun-launched hypre dump s15 and the agent's own test
		// output "wave_1" … "wave_8", ROCm/rocm-systems#3426)
		{"3: wave_0: pc=0x7ff0a8e0314c (stopped, reason: MEMORY_VIOLATION)", 3, 3},
		{"3: Disassembly for function stencil7_apply_kernel(double const*, double*, int, int, int, double):", 3, 3},
		{"1: " + strings.Repeat("-", 56), 3, 1},
		{"0: Memory access fault by GPU node-4 (Agent handle: 0x28e9e40) on address 0x17000. Reason: Page not present or supervisor privilege.", 3, 0},
		{"2: wave_ is a word", 0, 0},
		{"2: ----- notes -----", 0, 0},
	} {
		n, task := matchSrunLabel(c.in)
		if n != c.n || (n > 0 && task != c.task) {
			t.Errorf("matchSrunLabel(%q) = %d, %d; want %d, %d", c.in, n, task, c.n, c.task)
		}
	}
}

// Once a label stood in front of the debug agent's anchors, the file's
// bare labels are srun task ranks (delivery.go): the rest of that task's
// agent dump — registers, code rows — is task 3's; before it, a bare
// label names no rank.
func TestAgentShapeMakesSrunRanks(t *testing.T) {
	s := New()
	s.BeginFile("job.out")
	if _, w := s.stripDelivery([]byte("3:             s0: 3b106980                s1: 00000000")); w.rank != -1 {
		t.Fatalf("rank %d before any known shape", w.rank)
	}
	if _, w := s.stripDelivery([]byte("3: wave_0: pc=0x7ff0a8e0314c (stopped, reason: MEMORY_VIOLATION)")); w.rank != 3 {
		t.Fatalf("agent header: rank %d", w.rank)
	}
	rest, w := s.stripDelivery([]byte("3:     code object: file:///scratch/heatsim#offset=24576&size=48712"))
	if string(rest) != "    code object: file:///scratch/heatsim#offset=24576&size=48712" || w.rank != 3 {
		t.Errorf("task 3's later line: %q rank %d", rest, w.rank)
	}
}
