package plantstraggler6

import (
	"encoding/json"
	"math"
	"testing"
)

func ev(cat, name string, t, d float64, a map[string]any) map[string]any {
	if a == nil {
		a = map[string]any{}
	}
	return map[string]any{"ph": "X", "cat": cat, "name": name, "ts": json.Number(jnum(t)), "dur": json.Number(jnum(d)), "tid": 1, "args": a}
}

// A two-rank job: a compute kernel, then an all-reduce, each launched 5 µs earlier.
func twoRanks() []*rankModel {
	var out []*rankModel
	for r := 0; r < 2; r++ {
		d := &doc{top: map[string]any{"distributedInfo": map[string]any{"rank": r}}}
		d.events = []map[string]any{
			ev("user_annotation", "ProfilerStep#1", 0, 1000, nil),
			ev("cuda_runtime", "cudaLaunchKernel", 10, 4, map[string]any{"correlation": 1}),
			ev("kernel", "gemm", 15, 100, map[string]any{"correlation": 1, "stream": 7}),
			ev("cpu_op", "record_param_comms", 118, 6, nil),
			ev("cuda_runtime", "cudaLaunchKernel", 120, 4, map[string]any{"correlation": 2}),
			ev("kernel", "ncclDevKernel_AllReduce_Sum_f32", 125, 50, map[string]any{"correlation": 2, "stream": 7}),
			ev("cuda_runtime", "cudaLaunchKernel", 200, 4, map[string]any{"correlation": 3}),
			ev("kernel", "relu", 205, 10, map[string]any{"correlation": 3, "stream": 7}),
		}
		out = append(out, newRank(d))
	}
	return out
}

func TestStepMapMonotone(t *testing.T) {
	var m stepMap
	m.add(10, 5)
	m.add(20, 3)
	prev := math.Inf(-1)
	for x := 0.0; x < 40; x += 0.5 {
		y := x + m.at(x)
		if y < prev {
			t.Fatalf("map not monotone at %v", x)
		}
		prev = y
	}
	if m.before(10) != 0 || m.at(10) != 5 {
		t.Fatalf("an end at a step is not stretched, a start at it moves: %v %v", m.before(10), m.at(10))
	}
}

func TestLongerKernelSettles(t *testing.T) {
	ranks := twoRanks()
	ins := matchInstances(ranks)
	if len(ins) != 1 || ins[0].kind != "allreduce" {
		t.Fatalf("instances %+v", ins)
	}
	k, err := ranks[1].kernelBefore(ins[0].ops[1])
	if err != nil || str(k.e["name"]) != "gemm" {
		t.Fatalf("kernel before: %v %v", k, err)
	}
	ranks[1].longer(k, 300)
	settle(ranks, ins, nil)
	var docs []*doc
	for _, rm := range ranks {
		rm.apply()
		docs = append(docs, rm.d)
	}
	key := computeKey(docs)
	in := key[0]
	if in.LastRank != 1 || math.Abs(in.Skew-300) > 1e-9 {
		t.Fatalf("skew %v last %d", in.Skew, in.LastRank)
	}
	// Both kernels end together, the transfer (50 µs) is kept, rank 0 waits 300 µs.
	if math.Abs(in.Transfer-50) > 1e-9 || in.Ranks[0].Wait != 300 || in.Ranks[1].Wait != 0 {
		t.Fatalf("transfer %v waits %+v", in.Transfer, in.Ranks)
	}
	if in.Step != "ProfilerStep#1" {
		t.Fatalf("step %q", in.Step)
	}
	// Rank 0's relu moves on after the wait; its host keeps pace with it.
	for r, rm := range ranks {
		if n := beforeLaunch(newRank(rm.d)); n != 0 {
			t.Fatalf("rank %d: %d ops before their launch", r, n)
		}
	}
}

func TestHostPauseAbsorbedByQueue(t *testing.T) {
	ranks := twoRanks()
	// Rank 0's all-reduce sat 5 µs after its launch: a pause of 100 µs at its
	// record_param_comms moves it ~100 µs (no queue to absorb it).
	rm := ranks[0]
	c := rm.colls[0]
	rm.pauseHost(rm.hostPoint(c), 100)
	if got := rm.gpu.at(c.start); got != 100 {
		t.Fatalf("GPU shift %v, want 100", got)
	}
	if rm.hostPoint(c) != 118 {
		t.Fatalf("host point %v", rm.hostPoint(c))
	}
}

func TestBusFactor(t *testing.T) {
	for _, c := range []struct {
		kind string
		n    int
		f    float64
	}{{"allreduce", 8, 1.75}, {"custom_allreduce", 8, 1.75}, {"alltoall", 4, 0.75}, {"allgather", 8, 0.875}, {"sendrecv", 2, 1}} {
		if got := busFactor(c.kind, c.n); math.Abs(got-c.f) > 1e-12 {
			t.Errorf("%s n=%d: %v want %v", c.kind, c.n, got, c.f)
		}
	}
}
