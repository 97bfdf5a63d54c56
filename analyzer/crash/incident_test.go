package crash

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func culpritRank(f *Finding) int {
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil {
		return -1
	}
	return *f.Culprit.Rank
}

func culpritPID(f *Finding) int {
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil {
		return -1
	}
	return *f.Culprit.PID
}

// Seed 003 R3 + R3.5 from one dump: the stuck collective kernel, its PC
// group with threadIdx 0..ngpus-1, the blocked .item(), DMA vs HSA queues,
// rocm-smi 100 %.
func TestRocgdbSingleDumpBarrierSpin(t *testing.T) {
	d := goldenCase(t, "rocgdb_allgather_spin.golden.json", "testdata/rocgdb_allgather_spin.txt")
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Hang == nil || d.Findings[0].Class != ClassGPUKernelHang {
		t.Fatalf("%s", d.JSON())
	}
	h := f.Hang
	if len(h.WaveGroups) != 1 || h.WaveGroups[0].Waves != 8 || h.WaveGroups[0].PC != "0x7f1c1a204b3c" || len(h.WaveGroups[0].ThreadIdx) != 8 || h.WaveGroups[0].ThreadIdx[7] != 7 {
		t.Fatalf("wave groups: %+v", h.WaveGroups)
	}
	if f.Details["hang_kind"] != "cross_rank_barrier_spin" || h.HostWait != "item" || len(h.Agents) != 8 || len(h.GPUBusy) != 8 {
		t.Fatalf("%s", d.JSON())
	}
	if len(h.Queues) != 2 || h.Queues[1].Type != "DMA" || h.Queues[0].Pending != 3 {
		t.Fatalf("queues: %+v", h.Queues)
	}
	if len(h.Dispatches) != 1 || h.Dispatches[0].GPU != "0000:a6:00.0" || h.Dispatches[0].Grid != "[20480,1,1]" || h.Dispatches[0].Fence != "B|Aa|Ra" {
		t.Fatalf("dispatches: %+v", h.Dispatches)
	}
	// the dumped worker is a victim of the barrier: named, but flagged
	if culpritPID(f) != 52113 || f.Culprit.GPU == nil || *f.Culprit.GPU != "0000:a6:00.0" {
		t.Fatalf("culprit: %+v", f.Culprit)
	}
	if f.ConfidenceLevel != "high" {
		t.Fatalf("confidence %v", f.Confidence)
	}
}

// "No dispatches / No queues are currently active" while agents are listed:
// the debug agent holds the hook.
func TestRocgdbDebugAgentHoldsHook(t *testing.T) {
	d := goldenCase(t, "rocgdb_debug_agent_hook.golden.json", "testdata/rocgdb_debug_agent_hook.txt")
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Details["rocgdb_no_dispatches"] == "" || f.ConfidenceLevel != "low" {
		t.Fatalf("%s", d.JSON())
	}
}

// Two dumps whose wave PCs moved: slow, not hung.
func TestRocgdbProgressMoving(t *testing.T) {
	d := goldenCase(t, "rocgdb_progress_moving.golden.json", "testdata/rocgdb_progress_1.txt", "testdata/rocgdb_progress_2.txt")
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Hang == nil || f.Hang.Progress != "moving" || f.ConfidenceLevel == "high" || f.Hang.Dumps != 2 {
		t.Fatalf("%s", d.JSON())
	}
}

// Done-when of issue 9: server log + dmesg + two rocgdb dumps of a TP=8 job
// name the stuck kernel, its PC group, the culprit rank / pid, and put the
// GPU reset second.
func TestIncidentTP8(t *testing.T) {
	dir := "testdata/incident_tp8"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range ents {
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	sort.Strings(paths)
	d := goldenCase(t, "incident_tp8.golden.json", paths...)
	if len(d.Findings) < 3 || d.Findings[0].Class != ClassGPUKernelHang || d.Findings[1].Class != ClassGPUHangReset {
		t.Fatalf("order: %s", d.JSON())
	}
	h := &d.Findings[0]
	if h.Kernel != "aiter::gemm_a16w16_splitk_clean" || h.Details["pc_group"] == "" || h.Hang.Progress != "stuck" || h.Details["hang_kind"] != "split_k_shared_workspace" {
		t.Fatalf("%s", d.JSON())
	}
	if culpritRank(h) != 3 || culpritPID(h) != 41207 || h.Culprit.GPU == nil || *h.Culprit.GPU != "0000:65:00.0" {
		t.Fatalf("culprit: %+v", h.Culprit)
	}
	if d.Findings[1].ConsequenceOf != ClassGPUKernelHang {
		t.Fatalf("reset not marked as a consequence: %s", d.JSON())
	}
	ct := hasClass(d, ClassCollectiveTimeout)
	if ct == nil || ct.ConsequenceOf != ClassGPUKernelHang || culpritRank(ct) != 3 {
		t.Fatalf("%s", d.JSON())
	}
}

// py-spy of 8 ranks, one in synchronize() while the others wait in all_reduce.
func TestPySpyStraggler(t *testing.T) {
	d := goldenCase(t, "pyspy_tp8_straggler.golden.json", "testdata/pyspy_tp8_straggler.log")
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || culpritRank(f) != 5 || culpritPID(f) != 7106 || len(f.Ranks) != 1 || f.Ranks[0] != 5 {
		t.Fatalf("%s", d.JSON())
	}
	if c := hasClass(d, ClassCPUHang); c == nil || culpritRank(c) != 5 || c.ConsequenceOf != ClassGPUKernelHang {
		t.Fatalf("%s", d.JSON())
	}
}

// NCCL_DEBUG=INFO: the rank that never issues the next opCount.
func TestNCCLOpCountStraggler(t *testing.T) {
	d := goldenCase(t, "nccl_opcount_straggler.golden.json", "testdata/nccl_opcount_straggler.log")
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || culpritRank(f) != 2 || culpritPID(f) != 9003 || f.Culprit.Host == nil || *f.Culprit.Host != "node07" {
		t.Fatalf("%s", d.JSON())
	}
}

// "Received a dump signal … from rank N" lines with last enqueued work per
// rank: the rank behind is the culprit, the sender is a waiter.
func TestWatchdogDumpSignal(t *testing.T) {
	d := goldenCase(t, "watchdog_dump_signal.golden.json", "testdata/watchdog_dump_signal.log")
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || culpritRank(f) != 2 {
		t.Fatalf("%s", d.JSON())
	}
}

// torchrun: SIGABRT root cause vs SIGTERM collateral.
func TestTorchrunRootCause(t *testing.T) {
	d := goldenCase(t, "torchrun_sigabrt_root.golden.json", "testdata/torchrun_sigabrt_root.log")
	if len(d.Findings) == 0 || culpritRank(&d.Findings[0]) != 2 || culpritPID(&d.Findings[0]) != 30413 {
		t.Fatalf("%s", d.JSON())
	}
}

// Watchdogs from every rank but one (world size from the log).
func TestWatchdogMissingRank(t *testing.T) {
	d := diagnoseFiles(t, "testdata/incident_tp8/server.log")
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || culpritRank(f) != 3 || culpritPID(f) != 41207 {
		t.Fatalf("%s", d.JSON())
	}
}

// Flight-recorder dumps, pickled (protocols 2 and 4) and JSON.
func TestFlightRecorder(t *testing.T) {
	for _, c := range []struct{ golden, dir string }{{"fr_pickle.golden.json", "testdata/fr"}, {"fr_json.golden.json", "testdata/fr_json"}} {
		ents, err := os.ReadDir(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, e := range ents {
			if n := e.Name(); filepath.Ext(n) == "" || filepath.Ext(n) == ".json" {
				paths = append(paths, filepath.Join(c.dir, n))
			}
		}
		sort.Strings(paths)
		d := goldenCase(t, c.golden, paths...)
		f := hasClass(d, ClassCollectiveTimeout)
		if f == nil || culpritRank(f) != 1 || len(d.Inputs) != 4 {
			t.Fatalf("%s: %s", c.dir, d.JSON())
		}
	}
}

func TestUnpickleRejects(t *testing.T) {
	for _, b := range [][]byte{{0x80, 2}, {0x80, 2, '}', 'X', 0xff, 0xff, 0xff, 0x7f}, {0x80, 2, 's', '.'}, {0x80, 2, 'I', '1', '\n', '.'}} {
		if _, err := unpickle(b); err == nil {
			t.Errorf("%q: no error", b)
		}
	}
	// an unreadable pickle is named, not dropped
	d := diagnoseWhole("fr_dump_rank_9", []byte{0x80, 2, '}', 'q', 0, 'I', '1', '\n', '.'})
	if !contains(d.Inputs[0].Quality, "pickle_unreadable") {
		t.Fatalf("%s", d.JSON())
	}
}

// cuda-gdb attached to a spinning kernel: Active, no exception.
func TestCudaGdbHang(t *testing.T) {
	d := goldenCase(t, "cuda_gdb_hang.golden.json", "testdata/cuda_gdb_hang.log")
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Kernel == "" || f.Details["pc_group"] == "" {
		t.Fatalf("%s", d.JSON())
	}
	// a cuda-gdb stop on an exception stays a fault
	d = diagnoseFiles(t, "testdata/cuda_gdb.log")
	if hasClass(d, ClassGPUKernelHang) != nil {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzIncident(f *testing.F) {
	seedFuzz(f, "testdata/incident_tp8/server.log", "testdata/nccl_opcount_straggler.log", "testdata/watchdog_dump_signal.log", "testdata/torchrun_sigabrt_root.log", "testdata/cuda_gdb_hang.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &incidentParser{s: s} }), data, cut)
	})
}

func FuzzRocgdbDump(f *testing.F) {
	seedFuzz(f, "testdata/rocgdb_allgather_spin.txt", "testdata/incident_tp8/rocgdb_pid41207_1.txt", "testdata/rocgdb_debug_agent_hook.txt")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &rocgdbParser{s: s} }), data, cut)
	})
}

func FuzzUnpickle(f *testing.F) {
	for r := 0; r < 4; r++ {
		_, data := readInput(f, "testdata/fr/fr_dump_rank_"+string(rune('0'+r)))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := unpickle(data)
		if err == nil {
			if doc, ok := v.(map[string]any); ok {
				s := New()
				s.BeginFile("fr_dump_rank_0")
				frDoc(s, doc, 1)
				s.EndFile()
				if !jsonValid(s.Diagnosis().JSON()) {
					t.Fatal("invalid JSON")
				}
			}
		}
	})
}

// torch's C++ pickler wraps typed dicts in torch.jit._pickle.restore_type_tag.
func TestUnpickleTypeTag(t *testing.T) {
	_, data := readInput(t, "testdata/fr/tagged_dict.bin")
	v, err := unpickle(data)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := v.(map[string]any)
	st, _ := doc["pg_status"].(map[string]any)
	g, _ := st["0"].(map[string]any)
	if pyIntDef(g["last_enqueued_collective"], -1) != 5 || pyIntDef(g["last_completed_collective"], -1) != 4 {
		t.Fatalf("%#v", v)
	}
}

// The rank whose GPU fault preceded the others' watchdogs.
func TestFaultBeforeWatchdogs(t *testing.T) {
	d := goldenCase(t, "fault_then_watchdogs.golden.json", "testdata/fault_then_watchdogs.log")
	if len(d.Findings) < 2 || d.Findings[0].Class != ClassGPUMemoryFault {
		t.Fatalf("%s", d.JSON())
	}
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.ConsequenceOf != ClassGPUMemoryFault || culpritRank(f) != 2 || culpritPID(f) != 5302 {
		t.Fatalf("%s", d.JSON())
	}
}

// R3.5's "thread <id>" + "bt": the frame after the lane switch is the wave's
// PC, not the main thread's stack.
func TestRocgdbThreadSwitchBT(t *testing.T) {
	in := "=== info dispatches ===\n" +
		"  Id   Target Id                      Grid      Workgroup Fence   Kernel Function\n" +
		"* 1    AMDGPU Dispatch 2:1:77 (PKID 4) [8192,1,1] [256,1,1] B|Aa|Ra ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)\n" +
		"[Switching to thread 12, lane 0 (AMDGPU Lane 2:1:77:3/0 (2,0,0)[0,0,0])]\n" +
		"#0  0x00007f55aa10c2d8 in ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>) () from memory://9911#offset=0x7f55aa100000&size=1048576\n" +
		"Thread 13 (AMDGPU Wave 2:1:77:4 (3,0,0)/0):\n" +
		"#0  0x00007f55aa10c2d8 in ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>) () from memory://9911#offset=0x7f55aa100000&size=1048576\n" +
		"#1  0x0000000000000000 in ?? ()\n"
	d := diagnoseWhole("rocgdb_thread_bt.txt", []byte(in))
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || f.Hang == nil || len(f.Hang.HostStack) != 0 || len(f.Hang.WaveGroups) != 1 || f.Hang.WaveGroups[0].Waves != 2 || f.Hang.WaveGroups[0].PC != "0x7f55aa10c2d8" {
		t.Fatalf("%s", d.JSON())
	}
}

// Chunk boundaries never change the result of the multi-file incident
// inputs (dump state, py-spy processes and pickles span chunks).
func TestIncidentChunked(t *testing.T) {
	sets := [][]string{
		{"testdata/incident_tp8/dmesg.txt", "testdata/incident_tp8/rocgdb_pid41207_1.txt", "testdata/incident_tp8/rocgdb_pid41207_2.txt", "testdata/incident_tp8/server.log"},
		{"testdata/rocgdb_allgather_spin.txt"},
		{"testdata/pyspy_tp8_straggler.log"},
		{"testdata/fr/fr_dump_rank_0", "testdata/fr/fr_dump_rank_1", "testdata/fr/fr_dump_rank_2", "testdata/fr/fr_dump_rank_3"},
		{"testdata/cuda_gdb_hang.log"},
	}
	for _, set := range sets {
		whole := diagnoseFiles(t, set...).JSON()
		for seed := int64(1); seed <= 3; seed++ {
			s := New()
			for _, p := range set {
				name, data := readInput(t, p)
				s.BeginFile(name)
				for i := 0; len(data) > 0; i++ {
					n := 1 + int((seed*7919+int64(i)*104729)%613)
					n = min(n, len(data))
					s.Write(data[:n])
					data = data[n:]
				}
				s.EndFile()
			}
			if got := s.Diagnosis().JSON(); string(got) != string(whole) {
				t.Fatalf("%v: chunked (seed %d) differs", set, seed)
			}
		}
	}
}

// rocgdb dumps of every worker: three spin in the all-gather barrier, the
// fourth never reached it.
func TestRocgdbWorkersStraggler(t *testing.T) {
	var paths []string
	for _, p := range []string{"7001", "7002", "7003", "7004"} {
		paths = append(paths, "testdata/rocgdb_workers/rocgdb_pid"+p+".txt")
	}
	d := goldenCase(t, "rocgdb_workers.golden.json", paths...)
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || culpritPID(f) != 7004 || f.Details["hang_kind"] != "cross_rank_barrier_spin" {
		t.Fatalf("%s", d.JSON())
	}
}

// The last rank is the one missing from the watchdog lines: known to exist
// from its other log lines.
func TestWatchdogLastRankMissing(t *testing.T) {
	d := goldenCase(t, "watchdog_last_rank_missing.golden.json", "testdata/watchdog_last_rank_missing.log")
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || culpritRank(f) != 3 {
		t.Fatalf("%s", d.JSON())
	}
	// s08: ranks 0-2 report and nothing shows a rank 3: no culprit invented
	d = diagnoseFiles(t, "shared:s08_nccl_watchdog_timeout_allreduce_basicsr737.log")
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || f.Culprit == nil || f.Culprit.Method != "none" {
		t.Fatalf("%s", d.JSON())
	}
}

// Two rocgdb dumps of one worker in which the GPU finished work between
// them — the first dump's dispatch is gone, or the queue's Read moved on
// (seed 001/003: a dispatch listed in both dumps is the stuck one) — show a
// GPU at work: no hang finding. The same dispatch in both stays a hang.
func TestRocgdbWorkConsumedNotHung(t *testing.T) {
	dump := func(id, kernel string, read, write int) string {
		return "=== info agents ===\n  Id State Target Id                     Architecture Device Name        Cores Threads Location\n* 1  A     AMDGPU Agent (GPUID 48212)    gfx942       AMD Instinct MI300X 304   19456   0000:0c:00.0\n\n" +
			"=== info dispatches ===\n  Id   Target Id                           Grid           Workgroup  Fence    Kernel Function\n* 1    AMDGPU Dispatch 1:1:" + id + " (PKID " + id + ") [262144,1,1]  [256,1,1]  B|As|Rs  " + kernel + "\n\n" +
			"=== info queues ===\n  Id   Target Id                  Type   Read    Write   Size      Address\n* 1    AMDGPU Queue 1:1 (QID 0)   HSA    " + strconv.Itoa(read) + "    " + strconv.Itoa(write) + "    4194304   0x00007f02aa600000\n"
	}
	moved := dump("9914", "fmha_fwd_kernel(...)", 9914, 9918) + "\n" + dump("21877", "softmax_forward(...)", 21877, 21879)
	if d := diagnoseWhole("two.txt", []byte(moved)); hasClass(d, ClassGPUKernelHang) != nil {
		t.Errorf("dispatches changed, Read advanced: %s", d.JSON())
	}
	stuck := dump("9914", "fmha_fwd_kernel(...)", 9914, 9918) + "\n" + dump("9914", "fmha_fwd_kernel(...)", 9914, 9918)
	if d := diagnoseWhole("two.txt", []byte(stuck)); hasClass(d, ClassGPUKernelHang) == nil {
		t.Errorf("the same dispatch in both dumps: %s", d.JSON())
	}
}

// The world size in its wordings: vLLM's "world_size=4", an env dump's
// WORLD_SIZE=4, RCCL's "in world size 4" and torchrun's rendezvous result
// "global_world_sizes=[4, 4, 4, 4]" (torch.distributed.elastic agent, as in
// hpcaitech/ColossalAI#3514 and OpenBMB/MiniCPM-V#770 pastes). With it, the
// one rank absent from the watchdog lines is the culprit.
func TestWatchdogWorldSizeWordings(t *testing.T) {
	watchdogs := ""
	for _, r := range []string{"0", "1", "2"} {
		watchdogs += "[E ProcessGroupNCCL.cpp:475] [Rank " + r + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=1800000) ran for 1800559 milliseconds before timing out.\n"
	}
	for _, ws := range []string{
		"INFO 11-26 world_size=4 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:29500 backend=nccl\n",
		"MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 WORLD_SIZE=4\n",
		"  restart_count=0\n  master_addr=127.0.0.1\n  group_world_size=1\n  local_ranks=[0, 1, 2, 3]\n  role_world_sizes=[4, 4, 4, 4]\n  global_world_sizes=[4, 4, 4, 4]\n",
	} {
		d := diagnoseWhole("train.log", []byte(ws+watchdogs))
		f := hasClass(d, ClassCollectiveTimeout)
		if f == nil || culpritRank(f) != 3 {
			t.Errorf("%q: rank 3 not named: %s", ws, d.JSON())
		}
	}
	// group_world_size is the number of agents (nodes), not the world size
	d := diagnoseWhole("train.log", []byte("  group_world_size=1\n"+watchdogs))
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || culpritRank(f) == 3 {
		t.Errorf("group_world_size read as the world size: %s", d.JSON())
	}
}

// An "unspecified launch failure" (719) with nothing of its own — no
// address, kernel or fault line — after the driver reported the GPU's
// firmware stopped answering (Xid 119 "Timeout after 6s of waiting for RPC
// response from GPU… GSP!", NVIDIA/open-gpu-kernel-modules#446) is the
// reset's consequence, not a memory fault: the reset is the finding and
// carries the error. A fault with its own address keeps its place.
func TestGenericLaunchFailureAfterGPUResetIsConsequence(t *testing.T) {
	xid := "Nov 26 22:14:09 dgx-h100-12 kernel: NVRM: Xid (PCI:0000:9b:00): 119, pid=418802, name=python3, Timeout after 6s of waiting for RPC response from GPU5 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).\n"
	for _, c := range []struct {
		err       string
		wantFirst string
	}{
		{"[rank5]: RuntimeError: CUDA error: unspecified launch failure\n", ClassGPUHangReset},
		{"RuntimeError: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n", ClassGPUHangReset},
		{"Memory access fault by GPU node-2 (Agent handle: 0x55a0b13f7e40) on address 0x7f2d9c000000. Reason: Page not present or supervisor privilege.\n", ClassGPUMemoryFault},
	} {
		d := diagnoseWhole("node.log", []byte(xid+c.err))
		if len(d.Findings) == 0 || d.Findings[0].Class != c.wantFirst {
			t.Errorf("%q: want %s first: %s", c.err, c.wantFirst, d.JSON())
		}
		if c.wantFirst == ClassGPUHangReset && hasClass(d, ClassGPUMemoryFault) != nil {
			t.Errorf("%q: the generic launch failure kept as a memory fault: %s", c.err, d.JSON())
		}
	}
}

// A copy engine's page fault (Faulty UTCL2 client SDMA0) stalls its ring:
// the ring timeout of that device after it is its consequence (freebsd/
// drm-kmod#78: page faults, then "ring gfx timeout"; amd/fuzzyHSA#2: an
// SDMA hang). A reset first, or another device, stays a root cause.
func TestDMAFaultExplainsTheRingTimeout(t *testing.T) {
	const fault = "[ 9182.440117] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:8 vmid:9 pasid:32781)\n" +
		"[ 9182.440124] amdgpu 0000:03:00.0: amdgpu:  Process python3 pid 20741 thread python3 pid 20756\n" +
		"[ 9182.440128] amdgpu 0000:03:00.0: amdgpu:   in page starting at address 0x00007f20c0000000 from client 10\n" +
		"[ 9182.440131] amdgpu 0000:03:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00D41051\n" +
		"[ 9182.440133] amdgpu 0000:03:00.0: amdgpu: \t Faulty UTCL2 client ID: SDMA0 (0xd)\n" +
		"[ 9182.440141] amdgpu 0000:03:00.0: amdgpu: \t RW: 0x1\n"
	timeout := func(bdf string) string {
		return "[ 9182.460992] amdgpu " + bdf + ": amdgpu: ring sdma0 timeout, signaled seq=48112, emitted seq=48114\n"
	}
	d := diagnoseWhole("dmesg.log", []byte(fault+timeout("0000:03:00.0")))
	if len(d.Findings) < 2 || d.Findings[0].Class != ClassDMADriverFault || hasClass(d, ClassGPUHangReset).ConsequenceOf != ClassDMADriverFault {
		t.Errorf("the SDMA fault is not the root cause of its ring's timeout:\n%s", d.JSON())
	}
	for name, in := range map[string]string{
		"timeout first":  strings.Replace(timeout("0000:03:00.0"), "9182.460992", "9182.400000", 1) + fault,
		"another device": fault + timeout("0000:43:00.0"),
	} {
		d := diagnoseWhole("dmesg.log", []byte(in))
		if r := hasClass(d, ClassGPUHangReset); r == nil || r.ConsequenceOf == ClassDMADriverFault {
			t.Errorf("%s: the reset follows from the fault:\n%s", name, d.JSON())
		}
	}
}

// Megatron-LM prints its world size ("using world size: 8, data-parallel
// size: 8, …"; its arguments block "  world_size .... 8"): with it the one
// rank of 8 that never reports the watchdog is the straggler — and a rank
// whose own watchdog took it down (SIGABRT, "taking the entire process
// down") is a waiter, not the culprit, even when the launcher names it.
func TestWatchdogWorldSizeAndWaiterExit(t *testing.T) {
	var b strings.Builder
	for r := 0; r < 8; r++ {
		if r == 6 {
			continue
		}
		fmt.Fprintf(&b, "[rank%d]:[E1122 04:20:11.884120337 ProcessGroupNCCL.cpp:685] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7731, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600040 milliseconds before timing out.\n", r, r)
	}
	b.WriteString("[rank3]:[E1122 04:20:11.886020182 ProcessGroupNCCL.cpp:713] [Rank 3] To avoid data inconsistency, we are taking the entire process down.\n")
	b.WriteString("E1122 04:20:16.551000 4410 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) local_rank: 3 (pid: 4424) of binary: /usr/bin/python3\n")
	for _, ws := range []string{
		"using world size: 8, data-parallel size: 8, context-parallel size: 1, tensor-model-parallel size: 1, pipeline-model-parallel size: 1\n",
		"  world_size ...................................... 8\n",
	} {
		d := diagnoseWhole("train.log", []byte(ws+b.String()))
		f := hasClass(d, ClassCollectiveTimeout)
		if f == nil || culpritRank(f) != 6 {
			t.Errorf("%q: rank 6 not named:\n%s", ws, d.JSON())
		}
	}
}

// Two rules naming one process: the one that knows its rank completes the
// other (a fault's pid from the launcher's failure line whose local_rank is
// the rank).
func TestCulpritRankJoinedByPID(t *testing.T) {
	in := "[default3]:Memory access fault by GPU node-5 (Agent handle: 0x55b7a1f3c0f0) on address 0x7f3a91c00000. Reason: Page not present or supervisor privilege.\n" +
		"[default0]:[rank0]:[E1120 09:02:51.318224310 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9442, OpType=ALLREDUCE, NumelIn=65536, NumelOut=65536, Timeout(ms)=600000) ran for 600018 milliseconds before timing out.\n" +
		"E1120 09:02:58.012000 88210 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 3 (pid: 91277) of binary: /opt/venv/bin/python3\n"
	d := diagnoseWhole("train.log", []byte(in))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || culpritPID(f) != 91277 || culpritRank(f) != 3 {
		t.Fatalf("%s", d.JSON())
	}
}

// A generic launch failure (719) after a launch refused for resources in the
// same process is its consequence, not a memory fault of its own; the
// failure alone is still read as one. Wordings: gpu-voxels' CudaLog
// (fzi-forschungszentrum-informatik/gpu-voxels#112), PyTorch's "CUDA error:"
// wrapper.
func TestLaunchFailureAfterRefusedLaunch(t *testing.T) {
	refused := "<2020-09-29 15:40:22.879> CudaLog(Error)::cuCheckForError: too many resources requested for launch(7) in NTree.hpp on line 557.\n"
	failed := "<2020-09-29 15:40:22.971> CudaLog(Error)::cuHandleError: unspecified launch failure in NTree.hpp on line 616.\n"
	d := diagnoseWhole("a.log", []byte(refused+failed))
	if hasClass(d, ClassInvalidLaunch) == nil || hasClass(d, ClassGPUMemoryFault) != nil {
		t.Errorf("refused then failed: %v, want invalid_launch without gpu_memory_fault", classesOf(d))
	}
	d = diagnoseWhole("b.log", []byte("RuntimeError: CUDA error: unspecified launch failure\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("a launch failure alone: %v", classesOf(d))
	}
	d = diagnoseWhole("c.log", []byte(failed+refused))
	if hasClass(d, ClassGPUMemoryFault) == nil && hasClass(d, ClassDeviceAssert) == nil {
		t.Errorf("failed before refused: %v, want the failure kept", classesOf(d))
	}
}
