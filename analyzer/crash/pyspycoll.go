package crash

import (
	"strings"
)

// A py-spy thread inside a distributed collective (extractor → fact →
// rule). A rank whose thread waits in torch.distributed's all_gather /
// all_reduce / barrier … (or DeepSpeed's comm wrappers around them) waits
// for peers that never joined: a distributed hang, whatever the other
// threads do. Real dumps: huggingface/accelerate#3104 (ZeRO-3: "Thread 4079
// (active)  all_gather_into_tensor (torch/distributed/distributed_c10d.py:2709)
// … all_gather_into_tensor (deepspeed/comm/comm.py:305)", the MainThread
// idle in backward; 7 of 8 ranks in all_gather_coalesced), rwth-i6/returnn#1484
// (the one running process in "all_reduce (torch/distributed/distributed_c10d.py)").
// A generic wait (threading's wait, a socket recv, a native gloo frame) is
// no such fact.

// pyDistWait: the dump and the collective frame.
type pyDistWait struct {
	ev    Evidence
	frame string
}

// distCollectiveOps: the collective and point-to-point calls of
// torch.distributed (and DeepSpeed's wrappers of the same names).
var distCollectiveOps = []string{"all_reduce", "all_gather", "reduce_scatter", "broadcast", "barrier", "all_to_all", "gather", "scatter", "reduce", "send", "recv", "monitored_barrier"}

// distCollective: the frame is a collective call in torch.distributed's or
// DeepSpeed's communication modules.
func distCollective(f pyFrame) bool {
	if !strings.Contains(f.loc, "torch/distributed/") && !strings.Contains(f.loc, "deepspeed/comm/") {
		return false
	}
	fn := strings.TrimSpace(f.fn)
	for _, op := range distCollectiveOps {
		if strings.HasPrefix(fn, op) || strings.HasPrefix(fn, "_"+op) {
			return true
		}
	}
	return false
}

// pyspyCollectiveHang is the rule: py-spy shows a thread waiting inside a
// distributed collective and nothing else in the evidence → the hang is
// the collective's (collective_timeout), not the host's. It needs the
// fact and a cpu_hang made from those dumps alone; it is defeated by any
// other finding (a watchdog, a GPU wait, a crash), by a cpu_hang that other
// lines also raised, and by a py-spy process that stands out (outside the
// collective, or the one stack unlike all others: pyspyCulprit names it and
// the hang stays cpu_hang).
func (b *builder) pyspyCollectiveHang(work map[string]*agg) {
	inc := &b.facts.inc
	if len(inc.pyDist) == 0 || len(work) != 1 {
		return
	}
	h := work[ClassCPUHang]
	if h == nil || h.f.Count != inc.pyDistN {
		return
	}
	mk := func(int, int, string, string, string, ...Evidence) Culprit { return Culprit{} }
	if _, odd := pyspyCulprit(inc, mk); odd {
		return
	}
	a := newAgg(ClassCollectiveTimeout, 0.5)
	a.order, a.f.Count = h.order, h.f.Count
	for _, d := range inc.pyDist {
		a.evidence(d.ev)
	}
	a.ranks = h.ranks
	a.addReason("py-spy: a thread waits inside a distributed collective (" + clip(inc.pyDist[0].frame, 120) + "): the rank waits for peers that never joined")
	for _, n := range h.notes {
		a.note(n)
	}
	delete(work, ClassCPUHang)
	work[ClassCollectiveTimeout] = a
}

// pyspyBusyServing: a py-spy dump that shows a thread busy (active+gil) is
// a busy-loop candidate only; when nothing else in the evidence failed and
// the server's latest throughput line is above 0 (progress.go) the process
// was working when it was dumped — busy, not hung. Defeated by any other
// finding and by a cpu_hang that other lines (a watchdog) also raised.
func (b *builder) pyspyBusyServing(work map[string]*agg) {
	inc := &b.facts.inc
	h := work[ClassCPUHang]
	if h == nil || len(work) != 1 || inc.pyBusyN == 0 || h.f.Count != inc.pyBusyN || !b.facts.progress.serving() {
		return
	}
	delete(work, ClassCPUHang)
	b.facts.notes = appendCap(b.facts.notes, "py-spy shows a busy thread while the log's latest throughput is above 0: the process was working, not hung", 8)
}

// pyspyWaitersOfGPUHang: py-spy dumps of several processes, one waiting for
// the GPU (synchronize, .item(), hsa_signal_wait) and the others waiting in
// a collective: the waiters wait for that rank, whose kernel never
// completed (seed 001: "workers stuck at torch.cuda.synchronize() — prior
// kernel never completes"). One dump of all ranks already reads so (the GPU
// wait decides the file); dumps in one file per rank must read the same, so
// a cpu_hang made only of those collective waits is the GPU hang's
// consequence, not a host hang of its own. A watchdog or any other line that
// raised the cpu_hang defeats this.
func (b *builder) pyspyWaitersOfGPUHang(work map[string]*agg) {
	inc := &b.facts.inc
	h, g := work[ClassCPUHang], work[ClassGPUKernelHang]
	if h == nil || g == nil || !inc.pyGPUWait || inc.pyCollN == 0 || h.f.Count != inc.pyCollN {
		return
	}
	for _, e := range h.f.Evidence {
		g.evidence(e)
	}
	g.note("the other processes' py-spy dumps wait in a collective: they wait for the process blocked on the GPU (a consequence, not a host hang)")
	delete(work, ClassCPUHang)
}
