package crash

import (
	"reflect"
	"testing"
)

// NCCL debug records a paste ran together (deepseek-ai/DeepEP#106); the
// record wordings are NCCL's init line across versions: NVIDIA/nccl#629
// ("… cudaDev 7 busId e7000 - Init COMPLETE"), NVIDIA/nccl#1814 (nvmlDev,
// commId), NVIDIA/nccl-tests#252 ("ncclCommInitRank comm …").
func TestSplitGluedRecords(t *testing.T) {
	for _, c := range []struct {
		src, raw string
		want     []string
	}{
		{"https://github.com/deepseek-ai/DeepEP/issues/106",
			" nranks 16 cudaDev 7 nvmlDev 7 busId bb000 commId 0x599e30b8362d17c - Init COMPLETE       VM-17-82-centos:11983:12550 [5] NCCL INFO comm 0x5648d7156820 rank 5 nranks 16 cudaDev 5 nvmlDev 5 busId 9c000 commId 0x599e30b8362d17c - Init COMPLETE       VM-17-82-centos:11979:12555 [1] NCCL INFO comm 0x5581611328d0 rank 1 nranks 16 cudaDev 1 nvmlDev 1 busId 16000 commId 0x599e30b8362d17c - Init COMPLETE",
			[]string{"nranks 16 cudaDev 7 nvmlDev 7 busId bb000 commId 0x599e30b8362d17c - Init COMPLETE",
				"VM-17-82-centos:11983:12550 [5] NCCL INFO comm 0x5648d7156820 rank 5 nranks 16 cudaDev 5 nvmlDev 5 busId 9c000 commId 0x599e30b8362d17c - Init COMPLETE",
				"VM-17-82-centos:11979:12555 [1] NCCL INFO comm 0x5581611328d0 rank 1 nranks 16 cudaDev 1 nvmlDev 1 busId 16000 commId 0x599e30b8362d17c - Init COMPLETE"}},
		// the WARN after the padding of a record the line before cut
		{"https://github.com/deepseek-ai/DeepEP/issues/106",
			"599e30b8362d17c - Init COMPLETE                    VM-17-82-centos:11978:12642 [0] ib_plugin.c:1075 NCCL WARN NET/IB : Got completion from peer 172.21.17.89<38536> with error 12, opcode 32715, len 0, vendor err 129",
			[]string{"599e30b8362d17c - Init COMPLETE", "VM-17-82-centos:11978:12642 [0] ib_plugin.c:1075 NCCL WARN NET/IB : Got completion from peer 172.21.17.89<38536> with error 12, opcode 32715, len 0, vendor err 129"}},
		// one record per line: nothing to split
		{"https://github.com/NVIDIA/nccl/issues/629", "A03-R28-I49-3-9000018:193027:193119 [7] NCCL INFO comm 0x7fdf08000d00 rank 15 nranks 16 cudaDev 7 busId e7000 - Init COMPLETE", nil},
		{"https://github.com/NVIDIA/nccl-tests/issues/252", "kolyoz2:25146:25827 [0] NCCL INFO ncclCommInitRank comm 0x559d5aa8ca00 rank 4 nranks 8 cudaDev 0 nvmlDev 0 busId 42000 commId 0x996ee6f117cb8e1e - Init START", nil},
		// a launcher's one-blank prefix stays with its record
		{"https://github.com/NVIDIA/nccl/issues/1029", "rdma-gpu-train-worker-0: rdma-gpu-train-worker-0:19484:21054 [0] NCCL INFO comm 0x557e83314500 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 4f000 commId 0x9ad9b5e4ab2566da - Init START", nil},
	} {
		if got := splitGluedRecords(c.raw); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: splitGluedRecords(%q) =\n%q\nwant\n%q", c.src, c.raw, got, c.want)
		}
	}
}

// The one process whose NCCL reported a transport failure names its rank
// through NCCL's own init record of that pid; two reporters name none.
func TestTransportReporterCulprit(t *testing.T) {
	const inits = "node1:100:110 [0] NCCL INFO comm 0x55986b8b8560 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE\n" +
		"node2:200:210 [0] NCCL INFO comm 0x560dfc7a10e0 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE\n"
	// NVIDIA/nccl#1814's WARN wording
	const warn2 = "node2:200:300 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<55921> with status=12 opcode=1 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.2 remoteGids::ffff:10.0.0.1\n"
	const warn1 = "node1:100:301 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<55922> with status=12 opcode=1 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2\n"
	d := diagnoseWhole("nccl.log", []byte(inits+warn2))
	f := hasClass(d, ClassRCCLTransport)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 1 {
		t.Fatalf("want rccl_transport with culprit rank 1, got %v %+v", classesOf(d), f)
	}
	d = diagnoseWhole("nccl.log", []byte(inits+warn2+warn1))
	if f := hasClass(d, ClassRCCLTransport); f == nil || f.Culprit != nil && f.Culprit.Rank != nil {
		t.Errorf("two reporters named a rank: %+v", f)
	}
}
