package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
)

// yieldRank is one rank's trace of n all-reduces, matched across ranks.
func yieldRank(rank, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":2},"traceEvents":[`, rank)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":%d,"dur":3,"args":{"device":0,"stream":9,"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, 1]","Group size":2,"In msg nelems":%d,"dtype":"BFloat16"}}`, 10+i*5+rank, 1+i%1000)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// Issue 24: the module is one thread that never preempts, so a collection
// started inside one long loop of finish (or of the crash diagnosis)
// cannot end before the loop does, and everything allocated meanwhile is
// kept as live. Each long call yields between chunks (callsite.Chunks,
// units.JSONObject). Two ranks of 30 k all-reduces each (matching, the rank
// summaries' per-op windows, a 25 MB collectives.json): 407 MiB of linear
// memory on an instance of its own before, 275 MiB after (natively the
// heap peaks at 161 MB); 211 MiB once collectives.json and ranks.json
// were written row by row into blocks and the module's result encoded in
// one buffer of its size (bound 336 → 256 MiB).
func TestHostileYieldMemory(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  analyzer.Options
		files func() ([]string, [][]byte)
		bound uint64
	}{
		{"collectives", analyzer.Options{Command: "breakdown"}, func() ([]string, [][]byte) {
			return []string{"r0.json", "r1.json"}, [][]byte{yieldRank(0, 30000), yieldRank(1, 30000)}
		}, 256 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			names, data := c.files()
			size := 0
			for _, d := range data {
				size += len(d)
			}
			_, mem := bothRunFiles(t, c.opts, names, func(k int) io.Reader { return bytes.NewReader(data[k]) })
			t.Logf("%s over %d KB: wasm memory %d MiB", c.name, size>>10, mem>>20)
			if mem > c.bound {
				t.Errorf("wasm memory %d MiB, bound %d MiB", mem>>20, c.bound>>20)
			}
		})
	}
}
