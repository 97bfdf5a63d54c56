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
	if _, ok := extractElasticRow("  error_file: <N/A>"); ok {
		t.Error("error_file gave a row")
	}
}
