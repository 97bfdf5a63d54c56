package analyzer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// shareRank is one rank's trace of n all-reduces (none: one compute kernel).
func shareRank(rank, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":3},"traceEvents":[`, rank)
	b.WriteString(`{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7}}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":%d,"dur":3,"args":{"device":0,"stream":9,"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, 1]","Group size":2,"In msg nelems":4,"dtype":"BFloat16","Seq":%d}}`, 10+i*5+rank, i)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// Ranks are extracted only up to their share of limits.CollectiveOps
// (ExtractFirst): the answer is the one Match's bound gives over whole
// summaries — each rank's first share matched, the rest counted in the
// note, partial — also when a rank without collectives leaves the share
// of the others larger than the job's rank count says.
func TestCrossRankShare(t *testing.T) {
	share := limits.CollectiveOps / 2
	for _, c := range []struct {
		cmd   string
		names []string
		data  [][]byte
	}{
		{"triage", []string{"r0.json", "r1.json"}, [][]byte{shareRank(0, share+100), shareRank(1, share+100)}},
		{"breakdown", []string{"r0.json", "r1.json", "r2.json"}, [][]byte{shareRank(0, share+100), shareRank(1, share+100), shareRank(2, 0)}},
	} {
		res := runJob(t, Options{Command: c.cmd}, c.names, c.data)
		text, ok := res.Artifact("collectives.json")
		if !ok {
			t.Fatalf("%s: no collectives.json (exit %d %s)", c.cmd, res.ExitCode, res.Error)
		}
		var out struct {
			Partial bool              `json:"partial"`
			Notes   []string          `json:"notes"`
			Rows    []json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("only the first %d collectives of each rank are matched (limits.CollectiveOps, %d over the job's 2 ranks): 200 collectives of 2 ranks left out", share, limits.CollectiveOps)
		if res.ExitCode != ExitPartial || !out.Partial || len(out.Rows) != share || len(out.Notes) == 0 || !strings.Contains(out.Notes[0], want) {
			t.Errorf("%s: exit %d, partial %v, %d rows, notes %q", c.cmd, res.ExitCode, out.Partial, len(out.Rows), out.Notes)
		}
	}
}
