package crash

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Real wordings of the c10d watchdog line across PyTorch versions.
func TestExtractWatchdog(t *testing.T) {
	cases := []struct {
		text string
		want watchdogTimeout
	}{
		// pytorch/pytorch#118369 (torch 2.1: "[E ProcessGroupNCCL.cpp:475]", no rank prefix)
		{"[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=880, OpType=BROADCAST, NumelIn=131137536, NumelOut=131137536, Timeout(ms)=1800000) ran for 1800648 milliseconds before timing out.",
			watchdogTimeout{rank: 2, seq: 880, op: "BROADCAST", numelIn: "131137536", numelOut: "131137536", timeoutMS: "1800000", ranMS: "1800648"}},
		// hiyouga/LlamaFactory#6269 (torch 2.5: "[rankN]:[E…]" prefix, _REDUCE_SCATTER_BASE)
		{"[rank4]:[E1206 18:44:12.755262105 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=544997376, NumelOut=68124672, Timeout(ms)=600000) ran for 600099 milliseconds before timing out.",
			watchdogTimeout{rank: 4, seq: 7753, op: "_REDUCE_SCATTER_BASE", numelIn: "544997376", numelOut: "68124672", timeoutMS: "600000", ranMS: "600099"}},
		// meta-pytorch/tnt#858 (message only)
		{"[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=2, NumelOut=2, Timeout(ms)=60000) ran for 60033 milliseconds before timing out.",
			watchdogTimeout{rank: 1, seq: 1, op: "BROADCAST", numelIn: "2", numelOut: "2", timeoutMS: "60000", ranMS: "60033"}},
		// pytorch/pytorch#118369: the same fact inside the c10::DistBackendError what()
		{"  what():  [Rank 6] NCCL watchdog thread terminated with exception: [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=880, OpType=BROADCAST, NumelIn=131137536, NumelOut=131137536, Timeout(ms)=1800000) ran for 1800902 milliseconds before timing out.",
			watchdogTimeout{rank: 6, seq: 880, op: "BROADCAST", numelIn: "131137536", numelOut: "131137536", timeoutMS: "1800000", ranMS: "1800902"}},
		// hiyouga/LlamaFactory#8261: glued after a tqdm bar, the paste cut
		// before "WorkNCCL(": the header with its c10d stamp still says it
		// (open: the work may follow on the next line)
		{"  1%|▏         | 24/1752 [01:08<1:22:56,  2.88s/it][rank5]:[E602 11:17:52.185053341 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught collective operation timeout",
			watchdogTimeout{rank: 5, seq: -1, open: true}},
		// agiresearch/InstructGLM#3 (torch 2.0 stamp, cut after the colon)
		{"[E ProcessGroupNCCL.cpp:821] [Rank 1] Watchdog caught collective operation timeout:",
			watchdogTimeout{rank: 1, seq: -1, open: true}},
		// pytorch/pytorch#118369: glued after a Lightning progress bar
		{"Epoch 0:   6%|██      | 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6, v_num=95nc, consumed_samples=2.56e+7][E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25624887 milliseconds before timing out.",
			watchdogTimeout{rank: 0, seq: 96120, op: "ALLREDUCE", timeoutMS: "1800000", ranMS: "25624887"}},
		// wrapped inside the work: the rest is on the next line (see
		// TestWatchdogWrapped) — sgl-project/sglang#3424, huggingface/open-r1#620
		{"[rank1]:[E210 02:06:33.347835395 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(S",
			watchdogTimeout{rank: 1, seq: -1, open: true}},
		{"ed with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112,",
			watchdogTimeout{rank: 2, seq: -1, open: true}},
		// hard-wrapped inside the sentence, with the c10d stamp (pytorch/pytorch#123023)
		{"[E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog",
			watchdogTimeout{rank: 0, seq: -1, open: true}},
	}
	for _, c := range cases {
		got, ok := extractWatchdog(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
	if _, ok := extractWatchdog("[PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 808"); ok {
		t.Error("a work-state line gave a watchdog fact")
	}
	// troubleshooting notes quote the sentence without the c10d stamp
	// (training READMEs in the code corpus: "RuntimeError: [Rank 1]
	// Watchdog caught collective operation timeout" under "Symptoms:")
	for _, l := range []string{"RuntimeError: [Rank 1] Watchdog caught collective operation timeout", "[Rank 0] Watchdog caught collective operation timeout"} {
		if w, ok := extractWatchdog(l); ok {
			t.Errorf("%q: %+v", l, w)
		}
	}
}

// A watchdog line the terminal wrapped inside WorkNCCL(…) is read across the
// break, wherever it fell: inside "SeqNum" (sgl-project/sglang#3424), after
// a comma with the rest indented (huggingface/open-r1#620) or not
// (MarioPasc/MU-Diff's NCCL_TIMEOUT_FIX.md quoting its cluster's log).
func TestWatchdogWrapped(t *testing.T) {
	cases := []struct {
		src, log, op string
		seq          int
	}{
		{"sglang#3424", "[rank1]:[E210 02:06:33.347835395 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(S\neqNum=1522789, OpType=_ALLGATHER_BASE, NumelIn=298960, NumelOut=4783360, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.\n", "_ALLGATHER_BASE", 1522789},
		{"open-r1#620", "[rank2]:[E424 01:17:25.031978332 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminat\ned with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112,\n Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out.\n", "BROADCAST", 4},
		{"MarioPasc/MU-Diff NCCL_TIMEOUT_FIX.md", "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=668, OpType=ALLREDUCE,\nNumelIn=52, NumelOut=52, Timeout(ms)=600000) ran for 600097 milliseconds before timing out.\n", "ALLREDUCE", 668},
		// glued after tqdm, cut before "WorkNCCL(" (hiyouga/LlamaFactory#8261)
		{"llamafactory8261", "  1%|▏         | 24/1752 [01:08<1:22:56,  2.88s/it][rank5]:[E602 11:17:52.185053341 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught collective operation timeout\n", "", -1},
		// hard-wrapped at ~70 columns, cut twice: inside the sentence and
		// inside the work (pytorch/pytorch#123023's test output)
		{"pytorch#123023", "[E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog\ncaught collective operation timeout: WorkNCCL(SeqNum=2,\nOpType=ALLREDUCE, NumelIn=10, NumelOut=10, Timeout(ms)=10000) ran for\n10028 milliseconds before timing out.\n", "ALLREDUCE", 2},
		// real lines re-wrapped at 80 columns, the cut after "caught" and
		// after "timeout:" (hiyouga/LlamaFactory#7396, agiresearch/InstructGLM#3)
		{"llamafactory7396 at 80 columns", "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught\ncollective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168,\nNumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n", "ALLREDUCE", 1580},
		{"instructglm3 cut after the colon", "[E ProcessGroupNCCL.cpp:821] [Rank 1] Watchdog caught collective operation timeout:\nWorkNCCL(SeqNum=12, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800305 milliseconds before timing out.\n", "BROADCAST", 12},
		// the paste ends on the cut: the header alone still counts
		{"cut at the end", "[rank1]:[E210 02:06:33.347835395 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 1] Watchdog caught collective operation timeout: WorkNCCL(S", "", -1},
	}
	for _, c := range cases {
		d := diagnoseWhole("w.log", []byte(c.log))
		f := hasClass(d, ClassCollectiveTimeout)
		if f == nil {
			t.Fatalf("%s: no collective_timeout\n%s", c.src, d.JSON())
		}
		seq := -1
		if f.SeqNum != nil {
			seq = *f.SeqNum
		}
		if f.OpType != c.op || seq != c.seq {
			t.Errorf("%s: op %q seq %d, want %q %d\n%s", c.src, f.OpType, seq, c.op, c.seq, d.JSON())
		}
	}
}

// Real NCCL_DEBUG=INFO collective records.
func TestExtractNCCLColl(t *testing.T) {
	cases := []struct {
		text string
		want ncclColl
	}{
		// NVIDIA/nccl#1193 (after the Ray "(RayTrainWorker pid=…)" prefix is stripped)
		{"r24-02-22-23-29-0066-raycluster-lv52c-worker-l4-8-fqztx:615:18953 [2] NCCL INFO AllReduce: opCount 139d sendbuff 0x78d056200000 recvbuff 0x78d056200000 count 7382228 datatype 7 op 0 root 0 comm 0x78cfda045840 [nranks=128] stream 0x78d07125e5e0",
			ncclColl{host: "r24-02-22-23-29-0066-raycluster-lv52c-worker-l4-8-fqztx", pid: 615, dev: 2, op: "AllReduce", opCount: 0x139d, count: 7382228, root: 0, comm: "0x78cfda045840", nranks: 128}},
		// NVIDIA/nccl#203
		{"gpu1:13135:13922 [0] NCCL INFO AllReduce: opCount 1a sendbuff 0x10048f82700 recvbuff 0x10048f82800 count 64 datatype 7 op 0 root 0 comm 0x7f0c741162f0 [nranks=2] stream 0x7f0c74002f00",
			ncclColl{host: "gpu1", pid: 13135, dev: 0, op: "AllReduce", opCount: 0x1a, count: 64, root: 0, comm: "0x7f0c741162f0", nranks: 2}},
		// NVIDIA/nccl#584 (p2p: recvbuff (nil), root names the peer)
		{"ubuntu:199574:201142 [1] NCCL INFO Send: opCount d60 sendbuff 0x7f50e6f3c000 recvbuff (nil) count 2420736 datatype 7 op 0 root 0 comm 0x7f516c002e10 [nranks=2] stream 0x55f1de7279a0",
			ncclColl{host: "ubuntu", pid: 199574, dev: 1, op: "Send", opCount: 0xd60, count: 2420736, root: 0, comm: "0x7f516c002e10", nranks: 2}},
		// pytorch/torchtitan#1369
		{"hopper01:191369:191420 [0] NCCL INFO ReduceScatter: opCount e sendbuff 0x7fdf57c00000 recvbuff 0x7fdf61a00000 count 2097152 datatype 7 op 0 root 0 comm 0x55e290bd32d0 [nranks=2] stream 0x55e29067e430",
			ncclColl{host: "hopper01", pid: 191369, dev: 0, op: "ReduceScatter", opCount: 0xe, count: 2097152, root: 0, comm: "0x55e290bd32d0", nranks: 2}},
	}
	for _, c := range cases {
		got, ok := extractNCCLColl(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
	if _, ok := extractNCCLColl("gpu1:13135:13922 [0] NCCL INFO comm 0x7f0c741162f0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE"); ok {
		t.Error("an init line gave a collective fact")
	}
}

// collLines writes one NCCL_DEBUG=INFO record per rank and opCount in the
// wording of NVIDIA/nccl#1193; op(rank, opCount) names the collective.
func collLines(ranks int, from, to int64, op func(r int, oc int64) string) string {
	var b strings.Builder
	for r := 0; r < ranks; r++ {
		fmt.Fprintf(&b, "node1:%d:%d [%d] NCCL INFO comm 0x55aa%04x rank %d nranks %d cudaDev %d busId %x000 - Init COMPLETE\n", 4100+r, 4200+r, r, r, r, ranks, r, r+1)
	}
	for oc := from; oc <= to; oc++ {
		for r := 0; r < ranks; r++ {
			fmt.Fprintf(&b, "node1:%d:%d [%d] NCCL INFO %s: opCount %x sendbuff 0x7f%04x00000 recvbuff 0x7f%04x00000 count 4096 datatype 7 op 0 root 0 comm 0x55aa%04x [nranks=%d] stream 0x55bb%04x\n",
				4100+r, 4200+r, r, op(r, oc), oc, r, r, r, ranks, r)
		}
	}
	return b.String()
}

func TestOpDivergence(t *testing.T) {
	// eight ranks; at opCount 2f rank 6 calls Broadcast, the others AllReduce
	log := collLines(8, 0x2c, 0x2f, func(r int, oc int64) string {
		if oc == 0x2f && r == 6 {
			return "Broadcast"
		}
		return "AllReduce"
	})
	// the seven others time out in the AllReduce (PyTorch 2.5 wording)
	for r := 0; r < 8; r++ {
		if r != 6 {
			log += fmt.Sprintf("[rank%d]:[E1206 18:44:12.755262105 ProcessGroupNCCL.cpp:607] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600099 milliseconds before timing out.\n", r, r)
		}
	}
	d := diagnoseWhole("nccl_info.log", []byte(log))
	var c *Culprit
	for i := range d.Findings {
		if d.Findings[i].Culprit != nil {
			c = d.Findings[i].Culprit
		}
	}
	if c == nil || c.Rank == nil || *c.Rank != 6 || c.PID == nil || *c.PID != 4106 || !strings.Contains(c.Reason, "Broadcast") {
		t.Fatalf("%s", d.JSON())
	}
	// a 1:1 split names no one; pipeline Send/Recv pairs are no mismatch
	inc := &incidentFacts{}
	for r, op := range []string{"AllReduce", "Broadcast"} {
		inc.noteColl(ncclColl{host: "h", pid: 10 + r, op: op, opCount: 1, comm: "0x1", nranks: 2}, r, Evidence{})
	}
	for r, op := range []string{"Send", "Recv", "Send"} {
		inc.noteColl(ncclColl{host: "h", pid: 20 + r, op: op, opCount: 1, comm: "0x2", nranks: 3}, r, Evidence{})
	}
	if dv, ok := inc.opDivergence(); ok {
		t.Fatalf("divergence from a 1:1 split or p2p: %+v", dv)
	}
}

func TestWatchdogDivergence(t *testing.T) {
	var b strings.Builder
	for r := 0; r < 8; r++ {
		op := "ALLREDUCE"
		if r == 3 {
			op = "BROADCAST"
		}
		fmt.Fprintf(&b, "[rank%d]:[E424 01:11:21.160832730 ProcessGroupNCCL.cpp:629] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=%s, NumelIn=112, NumelOut=112, Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out.\n", r, r, op)
	}
	d := diagnoseWhole("watchdog.log", []byte(b.String()))
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 3 {
		t.Fatalf("%s", d.JSON())
	}
}

// NCCL's INFO lines carry the device ("[6]"), not the rank; without an Init
// line per rank the divergent process has no rank of its own. The watchdog
// lines (the format of TestOpDivergence) name the rank that timed out in
// the same odd collective: that rank is the process's.
func TestOpDivergenceRankFromWatchdog(t *testing.T) {
	var b strings.Builder
	for r := 0; r < 8; r++ {
		op := "AllReduce"
		if r == 6 {
			op = "Broadcast"
		}
		fmt.Fprintf(&b, "node1:%d:%d [%d] NCCL INFO %s: opCount a3 sendbuff 0x7f%04x00000 recvbuff 0x7f%04x00000 count 4096 datatype 7 op 0 root 0 comm 0x55aa%04x [nranks=8] stream 0x55bb%04x\n", 55101+r, 55101+r, r, op, r, r, r, r)
	}
	for _, r := range []int{3, 6, 0} {
		op := "ALLREDUCE"
		if r == 6 {
			op = "BROADCAST"
		}
		fmt.Fprintf(&b, "[rank%d]:[E1127 09:31:18.442117802 ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=164, OpType=%s, NumelIn=4096, NumelOut=4096, Timeout(ms)=300000) ran for 300012 milliseconds before timing out.\n", r, r, op)
	}
	d := diagnoseWhole("nccl_info.log", []byte(b.String()))
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 6 || f.Culprit.PID == nil || *f.Culprit.PID != 55107 {
		t.Fatalf("%s", d.JSON())
	}
	for _, c := range [][2]string{{"_ALLGATHER_BASE", "AllGather"}, {"_REDUCE_SCATTER_BASE", "ReduceScatter"}, {"ALLREDUCE", "AllReduce"}} {
		if !sameCollective(c[0], c[1]) {
			t.Errorf("%s vs %s", c[0], c[1])
		}
	}
	if sameCollective("BROADCAST", "AllReduce") {
		t.Error("BROADCAST = AllReduce")
	}
}
