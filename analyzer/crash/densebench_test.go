package crash

import (
	"bytes"
	"fmt"
	"testing"
)

// Logs dense with evidence: every line a finding's candidate, each with its
// own pid, rank or sequence number (tools/hostile log-pids, log-ranks,
// log-xids, log-tracebacks). They once ran at 1–2 MB/s in the wasm module.
func denseLog(kind string, n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		switch kind {
		case "oom":
			fmt.Fprintf(&b, "[%d.%06d] Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0\n", 1000+i/1000, i%1000000, 100000+i, 1000+i)
		case "watchdog":
			fmt.Fprintf(&b, "[rank%d]:[E%d ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600%03d milliseconds before timing out.\n", i, i, i, i*7+1, i%1000)
		case "xid":
			fmt.Fprintf(&b, "[%d.1] NVRM: Xid (PCI:%04x:%02x:%02x): 79, pid=%d, name=python%d, GPU has fallen off the bus.\n", 100+i, i>>16, (i>>8)&0xff, i&0xff, i+1, i)
		case "traceback":
			fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"/w/m%d.py\", line %d, in f%d\n    x()\nRuntimeError: HIP error: an illegal memory access was encountered %d\n", i, i, i, i)
		}
	}
	return b.Bytes()
}

func BenchmarkDiagnoseDense(b *testing.B) {
	for _, kind := range []string{"oom", "watchdog", "xid", "traceback"} {
		for _, mb := range []int{2, 8} {
			b.Run(fmt.Sprintf("%s-%dMB", kind, mb), func(b *testing.B) { benchStream(b, denseLog(kind, mb<<20)) })
		}
	}
}
