package crash

import "testing"

func TestNCCLGolden(t *testing.T) {
	d := goldenCase(t, "nccl_s08.golden.json", "shared:s08_nccl_watchdog_timeout_allreduce_basicsr737.log")
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || *f.SeqNum != 808 || f.OpType != "ALLREDUCE" || len(f.Ranks) != 3 || f.Details["last_completed_work"] != "807" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "nccl_s09.golden.json", "shared:s09_torchrun_child_sigsegv_exitcode_minus11_megatron1880.log")
	if f := hasClass(d, ClassHostSegfault); f == nil || *f.ExitCode != -11 || len(f.Ranks) != 1 {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "nccl_rccl_transport.golden.json", "testdata/rccl_transport.log")
	if f := hasClass(d, ClassRCCLTransport); f == nil || f.Reason != "hipIpcGetMemHandle failed" {
		t.Fatalf("%s", d.JSON())
	}
}

func TestNCCLDesync(t *testing.T) {
	s := New()
	s.BeginFile("x")
	s.Write([]byte("[rank0]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=6, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"))
	d := s.Diagnosis()
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || len(f.SeqNums) != 2 || len(f.Notes) == 0 {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzNCCL(f *testing.F) {
	seedFuzz(f, "shared:s08_nccl_watchdog_timeout_allreduce_basicsr737.log", "shared:s09_torchrun_child_sigsegv_exitcode_minus11_megatron1880.log", "testdata/rccl_transport.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &ncclParser{s: s} }), data, cut)
	})
}

// Rows of torch.distributed.elastic's ChildFailedError table.
func TestExtractElasticRow(t *testing.T) {
	for in, want := range map[string]elasticRow{
		// pytorch/pytorch#175254: the signal name after the pid (2026)
		"  exitcode  : -11 (pid: 5277) (SIGSEGV)": {field: "exitcode", a: -11, b: 5277},
		// the older table (torch 1.10 – 2.x)
		"  exitcode  : 1 (pid: 153932)":                         {field: "exitcode", a: 1, b: 153932},
		"  exitcode  : -6 (pid: 1234)":                          {field: "exitcode", a: -6, b: 1234},
		"  rank      : 7 (local_rank: 7)":                       {field: "rank", a: 7, b: 7},
		"  host      : gpu-node-17.cluster.local":               {field: "host", host: "gpu-node-17.cluster.local"},
		"  traceback : Signal 6 (SIGABRT) received by PID 4021": {field: "signal", a: 6, b: 4021},
	} {
		got, ok := extractElasticRow(in)
		if !ok || got != want {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
	// a pasted table whose fields ran together (amvur/AMVUR issue 2): every
	// row of the line, in order; the traceback's "signal" in lower case
	rows := extractElasticRows("rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>")
	if want := []elasticRow{{field: "rank", a: 2, b: 2}, {field: "exitcode", a: -9, b: 36071}}; len(rows) != 2 || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("glued rows: got %+v, want %+v", rows, want)
	}
	if r, ok := extractElasticRow("traceback : signal 9 (SIGKILL) received by PID 36071"); !ok || r != (elasticRow{field: "signal", a: 9, b: 36071}) {
		t.Errorf("lower-case signal row: got %+v, %v", r, ok)
	}
	// accelerate's relay strips to the plain row (hiyouga/LlamaFactory#701)
	if r, ok := extractElasticRow("  exitcode  : 1 (pid: 8835)"); !ok || r != (elasticRow{field: "exitcode", a: 1, b: 8835}) {
		t.Errorf("LlamaFactory#701 row: got %+v, %v", r, ok)
	}
	// not rows: torchrun's failed line (read whole by reTorchrunFail), prose
	for _, t2 := range []string{
		"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 17966) of binary: /usr/bin/python",
		"the job's exitcode: 1 was reported by the scheduler",
	} {
		if rows := extractElasticRows(t2); len(rows) != 0 {
			t.Errorf("%q gave rows %+v", t2, rows)
		}
	}
	if _, ok := extractElasticRow("  error_file: <N/A>"); ok {
		t.Error("error_file gave a row")
	}
}

// ProcessGroupNCCL's heartbeat monitor (real wordings, URL per row): the
// watchdog itself stopped making progress. Wrapped pastes keep the phrase.
func TestExtractWatchdogHang(t *testing.T) {
	cases := []struct {
		src, text string
		want      watchdogHang
		ok        bool
	}{
		{"https://github.com/sgl-project/sglang/issues/1691",
			"[rank2]:[F1019 01:14:03.356851194 ProcessGroupNCCL.cpp:1224] [PG 3 Rank 2] [PG 3 Rank 2] ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress in monitoring enqueued collectives.",
			watchdogHang{rank: 2, seconds: 600}, true},
		{"https://github.com/sgl-project/sglang/issues/1691",
			"[rank0]:[E1019 01:04:03.356947152 ProcessGroupNCCL.cpp:1413] [PG 3 Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=121",
			watchdogHang{rank: 0}, true},
		{"https://github.com/sgl-project/sglang/issues/1691",
			"[rank7]:[E1019 01:04:03.357615073 ProcessGroupNCCL.cpp:1375] [PG 3 Rank 7] First PG on this rank that detected no heartbeat of its watchdog.",
			watchdogHang{rank: 7}, true},
		{"https://github.com/verl-project/verl/issues/1158",
			"[rank2]:[E419 10:53:25.421620797 ProcessGroupNCCL.cpp:1484] [PG ID 2 PG GUID 9 Rank 2] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
			watchdogHang{rank: 2, seconds: 480}, true},
		{"https://github.com/modelscope/ms-swift/issues/7992",
			"18:11:06.680 [rank4]:[E205 18:11:06.375750231 ProcessGroupNCCL.cpp:1870] [PG ID 12 PG GUID 99(EXPERT_MODEL_PARALLEL_GROUP) Rank 4] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
			watchdogHang{rank: 4, seconds: 480}, true},
		// terminal-wrapped: the rank tag stayed on the previous line
		{"https://github.com/om-ai-lab/VLM-R1/issues/257",
			"s watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indi",
			watchdogHang{rank: -1, seconds: 480}, true},
		// the remedy text names the heartbeat env var: not the fact
		{"https://github.com/hiyouga/LlamaFactory/issues/8549",
			"HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).",
			watchdogHang{}, false},
	}
	for _, c := range cases {
		got, ok := extractWatchdogHang(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractWatchdogHang(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// NCCL's socket and IB transports losing a peer: each wording from a
// different public thread, and lines that must not count.
func TestNCCLTransportWordings(t *testing.T) {
	cases := []struct {
		src, text string
		want      bool
	}{
		{"https://github.com/NVIDIA/nccl-tests/issues/166",
			"ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort", true},
		{"https://github.com/NVIDIA/nccl-tests/issues/166",
			"ubuntu:39964:40044 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer node1<57557>", true},
		{"https://github.com/NVIDIA/nccl-tests/issues/166",
			"ubuntu:39964:40044 [0] proxy.cc:1143 NCCL WARN Socket recv failed while polling for opId=0x7f6f18cb7f40", true},
		{"https://github.com/NVIDIA/nccl/issues/795",
			"a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from 10.200.84.247<58355> failed : Broken pipe", true},
		{"https://github.com/NVIDIA/nccl/issues/795",
			"a100-st-p4d24xlarge-22:183006:183220 [1] proxy.cc:1119 NCCL WARN [Proxy Service 9] Failed to execute operation Connect from rank 9, retcode 6", true},
		{"https://github.com/NVIDIA/nccl-tests/issues/188",
			"user:16901:16967 [2] proxy.cc:1519 NCCL WARN [Proxy Service 2] Failed to execute operation Connect from rank 2, retcode 3", true},
		{"https://github.com/NVIDIA/nccl-tests/issues/166",
			"ubuntu:39964:40075 [0] proxy.cc:1519 NCCL WARN [Proxy Service 0] Failed to execute operation Connect from rank 0, retcode 2", true},
		{"https://github.com/NVIDIA/nccl-tests/issues/252",
			"kolyoz2:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81 (Send)", true},
		// "host [dev]" without pid:tid (container logs)
		{"https://github.com/NVIDIA/nccl/issues/1920",
			"2025-11-24T03:20:21.001125857Z [2025-11-24 11:20:21] gpu-server320 [5] misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to send to 10.44.137.149<52905> failed : Connection reset by peer", true},
		// the IB plugin's completion error without NCCL's prefix (an issue title)
		{"https://github.com/NVIDIA/nccl/issues/1664",
			"NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)", true},
		{"https://github.com/NVIDIA/nccl/issues/1405",
			"kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f", true},
		// NCCL ≤ 2.8 names no peer: "Got completion with error N, opcode …"
		{"https://github.com/NVIDIA/nccl/issues/214",
			"transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 21938, vendor err 81 - GPU Direct RDMA error when running NCCL-tests allreduce with nv_peer_mem", true},
		{"https://github.com/NVIDIA/nccl/issues/426",
			"NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129", true},
		{"https://github.com/NVIDIA/nccl/issues/902",
			"NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129", true},
		// INFO lines of the same unwinding are not evidence
		{"https://github.com/NVIDIA/nccl-tests/issues/166",
			"ubuntu:39964:40044 [0] NCCL INFO misc/socket.cc:749 -> 6", false},
		// a broken pipe outside NCCL's own lines is not NCCL's
		{"https://github.com/pytorch/pytorch/issues/128970",
			"BrokenPipeError: [Errno 32] Broken pipe", false},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		got := false
		for _, f := range d.Findings {
			if f.Class == ClassRCCLTransport {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%s: %q: rccl_transport = %v, want %v", c.src, c.text, got, c.want)
		}
	}
}

// A caller's report of an NCCL/RCCL call's failure code — RCCL's test bed
// and a glog CHECK — is a communicator / transport failure (rccl_transport)
// when the code is the library's (1, 2, 3, 5, 6); the caller's invalid
// argument (4) and a success are not.
func TestNCCLCallFailureCode(t *testing.T) {
	for _, c := range []struct {
		src, log, call, result string
	}{
		{"https://github.com/ROCm/rccl/issues/1370 (RCCL gtest TestBed)", "[ ERROR    ] Child 0 reports failure\n/home/cc/rccl/test/common/TestBed.cpp:183: Failure\n[ ERROR    ] Child process 0 fails NCCL call ncclGroupEnd with code 1\n[ ERROR    ] Child 0 failed on command [INIT_COMMS]:\n", "ncclGroupEnd", "ncclUnhandledCudaError"},
		{"https://github.com/PaddlePaddle/Paddle/issues/14109 (glog CHECK)", "    F1122 12:57:04.196161 22202 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0) \n    *** Check failure stack trace: ***\n", "ncclGroupEnd", "ncclUnhandledCudaError"},
		{"glog CHECK of a comm init, system error", "F0101 00:00:00.000000 1 nccl.cc:10] Check failed: ncclCommInitRank(&comm, n, id, r) == ncclSuccess (2 vs. 0)\n", "ncclCommInitRank", "ncclSystemError"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassRCCLTransport)
		if f == nil || f.Details["nccl_call"] != c.call || f.Details["nccl_result"] != c.result {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
	}
	for _, l := range []string{
		"[ ERROR    ] Child process 0 fails NCCL call ncclAllReduce with code 4", // the caller's invalid argument
		"Check failed: ncclGroupEnd() == ncclSuccess (7 vs. 0)",                  // in progress: no failure
		"the test fails NCCL calls when the code is nonzero",                     // prose
	} {
		if f := hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassRCCLTransport); f != nil {
			t.Errorf("%q: %+v", l, f)
		}
	}
}

// A verbs call failing while NCCL probes the network at init is noise when
// the same process completes its init (the IB probe fails, NET/Socket is
// used: horovod#685's "Failed to open libibverbs" / socket fallback); it
// stays a transport failure when no init completes for that process
// (NVIDIA/nccl#925 "Call to ibv_modify_qp failed with error No such
// device"), and another process's init does not defeat it.
func TestNCCLInitVerbsWarningDefeatedByInitComplete(t *testing.T) {
	warn := "h1:51203:51293 [3] misc/ibvwrap.cc:123 NCCL WARN Call to ibv_open_device failed\n"
	sock := "h1:51203:51293 [3] NCCL INFO NET/Socket : Using [0]ens9f0:10.20.1.31<0>\n"
	done := "h1:51203:51293 [3] NCCL INFO comm 0x55e23a1c0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 5d000 commId 0x4f1e2d3c4b5a6978 - Init COMPLETE\n"
	other := "h1:51204:51294 [4] NCCL INFO comm 0x55e24a1c0 rank 4 nranks 8 cudaDev 4 nvmlDev 4 busId 9a000 commId 0x4f1e2d3c4b5a6978 - Init COMPLETE\n"
	iommu := "mi300x-03:4120:4145 [0] /src/extlibs/rccl/build/hipify/src/init.cc:157 NCCL WARN Missing \"amd_iommu=on\" from kernel command line which can lead to system instablity or hang!\n"
	qp := "worker-0:195626:198757 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device\n"
	for _, c := range []struct {
		log  string
		want bool
	}{
		{warn + sock + done, false},
		{"h1:51203:51293 [3] misc/ibvwrap.cc:105 NCCL WARN Call to ibv_get_device_list failed\n" + done, false},
		{warn + sock + other, true},
		{qp + "worker-0:195626:198757 [0] NCCL INFO transport/net_ib.cc:1077 -> 2\n", true},
		{warn, true},
		// RCCL's IOMMU start-up check, then that process's init completes
		// (ROCm/rccl init.cc:157 wording; crash-formats.md §12)
		{iommu + "mi300x-03:4120:4145 [0] NCCL INFO Init COMPLETE comm 0x55c1f30a4e10 rank 0 nranks 8 cudaDev 0 busId 5000 localSize 8 - Init COMPLETE\n", false},
		// the check alone is advice about what may go wrong (ROCm/rccl#1026:
		// three such warnings per rank on MI250X and nothing failed)
		{iommu, false},
		{"g1072:1263985:1263985 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/src/init.cpp:122 NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!\n" +
			"g1072:1263985:1263985 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/src/init.cpp:120 NCCL WARN Missing \"amd_iommu=on\" from kernel command line which can lead to system instablity or hang!\n", false},
		// with a transport failure of its own it supports it (ROCm/rccl#908)
		{"sharbox-ultra:204802:204802 [0] /home/elias/rccl/build/release/hipify/src/init.cc:125 NCCL WARN Missing \"amd_iommu=on\" from kernel command line which can lead to system instablity or hang!\n" +
			"sharbox-ultra:204802:204836 [1] /home/elias/rccl/build/release/hipify/src/transport/p2p.cc:220 NCCL WARN hipIpcGetMemHandle failed : invalid argument\n", true},
	} {
		d := diagnoseWhole("nccl.log", []byte(c.log))
		if got := hasClass(d, ClassRCCLTransport) != nil; got != c.want {
			t.Errorf("rccl_transport %v, want %v:\n%s\n%s", got, c.want, c.log, d.JSON())
		}
	}
}

// A lost link explains the watchdog timeouts that follow it: the transport
// failure is the root cause, the collective timeout its consequence (seed
// 000 pattern 5). A start-up warning alone ("Missing amd_iommu=on") is not.
func TestTransportFailureCausesCollectiveTimeout(t *testing.T) {
	wd := "[rank3]:[E1122 04:41:52.208871 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=40622, OpType=ALLREDUCE, NumelIn=25165824, NumelOut=25165824, Timeout(ms)=1800000) ran for 1800402 milliseconds before timing out.\n"
	for _, link := range []string{
		"b05:77120:77561 [3] transport/net_ib.cc:2112 NCCL WARN NET/IB : Got completion from peer 10.42.7.14<54109> with status=12 opcode=1 len=0 vendor err 0 (Recv) localGid ::ffff:10.42.7.15 remoteGids::ffff:10.42.7.14\n",
		"node48:34050:34121 [0] transport/net_ib.cc:1238 NCCL WARN NET/IB : Got completion from peer node48<37948> with error 12, opcode 2, len 1, vendor err 129\n",
		"gpu7:1001:1100 [1] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer gpu3<43270>\n",
	} {
		d := diagnoseWhole("job.log", []byte(link+wd))
		if len(d.Findings) < 2 || d.Findings[0].Class != ClassRCCLTransport || hasClass(d, ClassCollectiveTimeout).ConsequenceOf != ClassRCCLTransport {
			t.Errorf("%q: transport not the root cause: %s", link, d.JSON())
		}
	}
	d := diagnoseWhole("job.log", []byte("h:1:2 [0] NCCL WARN Missing \"amd_iommu=on\" from kernel command line which can lead to system instablity or hang!\n"+wd))
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || f.ConsequenceOf != "" || d.Findings[0].Class != ClassCollectiveTimeout {
		t.Errorf("a start-up warning taken for the cause: %s", d.JSON())
	}
}

// NCCL's own error reports without the debug prefix are transport /
// communicator failures, and a watchdog that caught such an error ("Some
// NCCL operations have failed or timed out", "Process group watchdog thread
// terminated with exception: NCCL error: …") is not a collective timeout.
func TestNCCLErrorNotTimeout(t *testing.T) {
	for _, c := range []struct{ src, log string }{
		{"https://github.com/vllm-project/vllm/issues/5828", "(RayWorkerWrapper pid=67451, ip=10.1.0.7) ERROR 06-25 15:28:30 worker_base.py:148] RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"},
		{"https://github.com/Tencent-Hunyuan/HunyuanVideo/issues/114", "[rank0]: RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"},
		{"https://github.com/hiyouga/LlamaFactory/issues/6849", `[rank5]:[E207 19:37:09.983540349 ProcessGroupNCCL.cpp:681] [Rank 5] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[rank5]:[E207 19:37:09.983555114 ProcessGroupNCCL.cpp:695] [Rank 5] To avoid data inconsistency, we are taking the entire process down.
[rank5]:[E207 19:37:09.983600771 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
Last error:
socketProgressOpt: Call to recv from 10.119.24.53<49901> failed : Broken pipe
`},
		{"https://github.com/tatsu-lab/stanford_alpaca/issues/207", "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. [E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down. terminate called after throwing an instance of 'std::runtime_error' what(): NCCL error: remote process exited or there was a network error, NCCL version 2.14.3 ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely. Last error: NET/IB : Got completion from peer 11.214.147.122<39138> with error 12, opcode 0, len 0, vendor err 129\n"},
		{"https://github.com/NVIDIA/nccl/issues/2076", "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\nsocketProgressOpt: Call to recv from 172.16.0.3<33759> failed : Connection reset by peer\n"},
	} {
		d := diagnoseWhole("x.log", []byte(c.log))
		if hasClass(d, ClassRCCLTransport) == nil || hasClass(d, ClassCollectiveTimeout) != nil {
			t.Errorf("%s: want rccl_transport and no collective_timeout: %s", c.src, d.JSON())
		}
	}
}

// The watchdog's timeout seen only as its timeout check's frame, or as the
// dump signal another rank's timeout sent, is a collective timeout.
func TestWatchdogTimeoutOtherWordings(t *testing.T) {
	for _, c := range []struct{ src, log string }{
		{"https://github.com/jpata/particleflow/issues/390", "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x1554e9e0f8f2 in /mnt/home/u/miniforge3/envs/mlpf/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)\nframe #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x1554e9e16333 in /mnt/home/u/libtorch_cuda.so)\n"},
		{"https://github.com/arrival-ltd/catalyst-rl-tutorial/issues/15", "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1e6 (0x7f32040db6e6 in /opt/conda/envs/ml_v4/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)\nframe #2: c10d::ProcessGroupNCCL::workCleanupLoop() + 0x19d (0x7f32040dec3d in /opt/conda/envs/ml_v4/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)\n"},
		{"https://github.com/lsdefine/simple_GRPO/issues/46", "[rank5]:[E723 01:58:45.667329643 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 5] Received a dump signal due to a collective timeout from  rank 2 and we will try our best to dump the debug info. Last enqueued NCCL work: 136, last completed NCCL work: 136.\n"},
		{"https://github.com/hiyouga/LlamaFactory/issues/8261", "[1803] [rank1]:[E602 11:17:52.557891708 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 1] Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: 6, last completed NCCL work: 6.\n"},
	} {
		if d := diagnoseWhole("x.log", []byte(c.log)); hasClass(d, ClassCollectiveTimeout) == nil {
			t.Errorf("%s: want collective_timeout: %s", c.src, d.JSON())
		}
	}
}

// nccl-tests / rccl-tests print the library's error string of a failed call;
// the library's own failure codes are a transport / communicator failure.
func TestNCCLTestsFailureLine(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/NVIDIA/nccl-tests/issues/219":    "fengyun: Test NCCL failure common.cu:959 'internal error - please report this issue to the NCCL developers / '",
		"https://github.com/NVIDIA/nccl-tests/issues/41":     "ip-0AB85F07: Test NCCL failure common.cu:775 'internal error'",
		"https://github.com/NVIDIA/nccl/issues/1145 (title)": "nccl-Test occur:NCCL failure common.cu:961 'internal error - please report this issue to the NCCL developers / '",
	} {
		d := diagnoseWhole("run.log", []byte(l+"\n"))
		if f := hasClass(d, ClassRCCLTransport); f == nil || f.Details["nccl_result"] != "ncclInternalError" {
			t.Errorf("%s: %s", src, d.JSON())
		}
	}
	// the caller's invalid argument is no transport failure
	if f := hasClass(diagnoseWhole("run.log", []byte("host: Test NCCL failure common.cu:891 'invalid argument (run with NCCL_DEBUG=WARN for details)'\n")), ClassRCCLTransport); f != nil {
		t.Errorf("invalid argument: %+v", f)
	}
}

// A ChildFailedError exitcode row counts inside its table (host / rank rows
// before it: pytorch#121209's and megatron#1880's tables); the same row
// quoted in prose — a PR text showing the format — is no failure.
func TestElasticExitRowNeedsItsTable(t *testing.T) {
	table := "[0]:\n  time      : 2024-03-05_07:01:51\n  host      : vmnuvocinpoc.internal.cloudapp.net\n  rank      : 0 (local_rank: 0)\n  exitcode  : -11 (pid: 69811)\n  error_file: <N/A>\n"
	if f := hasClass(diagnoseWhole("run.log", []byte(table)), ClassHostSegfault); f == nil {
		t.Errorf("https://github.com/pytorch/pytorch/issues/121209 (exit code changed to -11): no host_segfault")
	}
	doc := "Previously, the error message would show:\n```\nexitcode  : -11 (pid: 5277)\n```\n\nNow it will show:\n```\nexitcode  : -11 (pid: 5277) (SIGSEGV)\n```\n"
	if d := diagnoseWhole("pr.md", []byte(doc)); len(d.Findings) != 0 {
		t.Errorf("https://github.com/pytorch/pytorch/pull/175254: %s", d.JSON())
	}
}
