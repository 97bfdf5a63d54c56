package collectives

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// p2pKernels are real SendRecv kernel names: NCCL ≤ 2.18 (the DLRM
// traces' ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t) and ≥ 2.19
// (ncclDevKernel_*, as NCCL 2.28's all-reduce in the H200 traces). The
// name says little (NCCL issues #739, #714; RCCL #505: "kernel function
// is always sendrecv"), so the direction comes from Collective name.
var p2pKernels = []string{
	"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
	"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
}

// pipeTrace is stage r of a 4-stage pipeline: at microbatch m stage r
// sends to r+1 at S = 1 ms + m·10 ms + r ms (400 µs), and stage r+1's recv,
// posted 200 µs before, ends with it. late delays one send (the receiver
// waits); ahead makes a send finish before its receiver's kernel starts (a
// small message the sender posts ahead: NCCL issue #1369).
func pipeTrace(r int, late map[[2]int]int64, ahead map[[2]int]bool) []byte {
	var ev []string
	corr := 100
	add := func(dir string, ts, dur int64) {
		corr++
		ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": 7, "ts": %d, "dur": %d, "args": {"device": %d, "stream": 7, "correlation": %d, "Collective name": %q, "dtype": "BFloat16", "In msg nelems": 1048576, "Out msg nelems": 1048576, "Group size": 4, "Process Group Name": "0"}}`,
			p2pKernels[r%2], ts, dur, r, corr, dir))
	}
	for m := 0; m < 16; m++ {
		// the send from stage q at microbatch m
		send := func(q int) (int64, int64) {
			s := 1000 + int64(m)*10000 + int64(q)*1000 + late[[2]int{q, m}]
			if ahead[[2]int{q, m}] {
				return s - 700, s - 500
			}
			return s, s + 400
		}
		if r > 0 {
			posted := 1000 + int64(m)*10000 + int64(r-1)*1000 - 200
			_, end := send(r - 1)
			add("recv", posted, max(end, posted+100)-posted)
		}
		if r < 3 {
			s, e := send(r)
			add("send", s, e-s)
		}
	}
	return []byte(fmt.Sprintf(`{"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 4}, "traceEvents": [%s]}`, r, strings.Join(ev, ",\n")))
}

func TestPipelineSendRecv(t *testing.T) {
	late := map[[2]int]int64{{2, 9}: 3000} // stage 2's send of microbatch 9, 3 ms late
	ahead := map[[2]int]bool{{0, 4}: true}
	var sums []*Summary
	for r := 0; r < 4; r++ {
		st := trace.NewStore()
		rd := st.NewReader(fmt.Sprintf("stage%d.json", r))
		rd.Write(pipeTrace(r, late, ahead))
		if f := rd.Close(); !f.Complete {
			t.Fatal(f.Problem)
		}
		sums = append(sums, Extract(st, 0, r, 4, callsite.NewJoins(st)))
	}
	res := Match(sums)
	pairs := map[string]int{}
	var planted *Instance
	for i := range res.Instances {
		in := &res.Instances[i]
		if in.Kind != "sendrecv" || in.MatchedBy != "peer" || len(in.Ranks) != 2 || in.GroupSize != 2 {
			t.Fatalf("%s: kind %s by %s, %d ranks, group %d", in.Label(), in.Kind, in.MatchedBy, len(in.Ranks), in.GroupSize)
		}
		a, b := in.Ranks[0].Rank, in.Ranks[1].Rank
		pairs[fmt.Sprintf("%d→%d", a, b)]++
		if b != a+1 {
			t.Errorf("%s pairs ranks %d and %d, not neighbouring stages", in.Label(), a, b)
		}
		if a == 2 && in.Skew > 2_000_000 {
			planted = in
		}
	}
	if want := map[string]int{"0→1": 16, "1→2": 16, "2→3": 16}; fmt.Sprint(pairs) != fmt.Sprint(want) {
		t.Fatalf("pairs %v, want %v (notes %v)", pairs, want, res.Notes)
	}
	if planted == nil {
		t.Fatal("the late send of stage 2 is in no instance")
	}
	// the receiver (stage 3) waited for the late sender: 3 ms + the usual 0.2
	if planted.LastRank != 2 || planted.Ranks[0].Rank != 2 || planted.Ranks[1].Wait != 3_200_000 || planted.Ranks[0].Wait != 0 {
		t.Errorf("planted %s: last %d, ranks %+v", planted.Label(), planted.LastRank, planted.Ranks)
	}
	if !planted.Stall || len(res.Stalls) != 1 || res.Stalls[0].Rank != 2 {
		t.Errorf("stalls %+v, want stage 2's late send only", res.Stalls)
	}
	if s := res.Straggler; s == nil || *s.Rank != 2 {
		t.Errorf("straggler %+v, want rank 2", s)
	}
}
