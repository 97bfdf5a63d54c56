package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// Rules over the kernel-API facts (kernelapi.go): which per-process log is
// the dead process's, which dump folder the process died in, and the two
// findings the kernel-API evidence carries on its own.

// crashedLog picks, among several per-process logs, the one of the process
// that died: the pid a supervisor reported dead, else the one process the
// kernel's own GPU-fault line names (dmesg "Process python3 pid N",
// faulted: the pids of GPU crash findings' kernel lines), else the only log
// whose last call never returned. ok is false when the logs do not decide.
func (k *kernelAPIFact) crashedLog(exits []exitFact, faulted []int) (kapiLog, bool) {
	if len(k.logs) < 2 {
		return kapiLog{}, false
	}
	for _, e := range exits {
		if e.pid <= 0 || e.signal == "" || e.signal == "SIGTERM" {
			continue
		}
		for _, g := range k.logs {
			if g.pid == e.pid {
				return g, true
			}
		}
	}
	if len(faulted) == 1 {
		for _, g := range k.logs {
			if g.pid == faulted[0] {
				return g, true
			}
		}
	}
	var open []kapiLog
	for _, g := range k.logs {
		if !g.done {
			open = append(open, g)
		}
	}
	if len(open) == 1 {
		return open[0], true
	}
	return kapiLog{}, false
}

// crashedDump returns the last dump folder whose inputs were saved but whose
// outputs never were: the process died inside that call.
func (k *kernelAPIFact) crashedDump() *kapiDump {
	var best *kapiDump
	for i := range k.dumps {
		d := &k.dumps[i]
		inside := d.status == "inputs_saved" || d.status == "" && d.inputs && !d.outputs && !d.metadata
		if d.status == "exception" || d.status == "completed" || d.outputs {
			inside = false
		}
		if inside && (best == nil || dumpBefore(best, d)) {
			best = d
		}
	}
	return best
}

// raisedDump: among several processes' level-10 dumps, the one process
// whose call recorded an exception (metadata.json execution_status
// "exception": the runtime error was raised inside that call); nil when
// none, or when several processes raised.
func (k *kernelAPIFact) raisedDump() *kapiDump {
	var got *kapiDump
	for i := range k.dumps {
		d := &k.dumps[i]
		if d.status != "exception" || d.pid <= 0 {
			continue
		}
		if got != nil && got.pid != d.pid {
			return nil
		}
		if got == nil || dumpBefore(got, d) {
			got = d
		}
	}
	return got
}

// dumpPIDs counts the processes whose dump folders were read.
func (k *kernelAPIFact) dumpPIDs() int {
	var seen []int
	for i := range k.dumps {
		if p := k.dumps[i].pid; p > 0 && !containsInt(seen, p) {
			seen = append(seen, p)
		}
	}
	return len(seen)
}

// lastDump returns the newest dump folder.
func (k *kernelAPIFact) lastDump() *kapiDump {
	var best *kapiDump
	for i := range k.dumps {
		if best == nil || dumpBefore(best, &k.dumps[i]) {
			best = &k.dumps[i]
		}
	}
	return best
}

// crashedDumpFinding: level-10 dumps whose last call saved its inputs and
// never its outputs show the process died inside that call. With no other
// GPU evidence, an attention / MLA / FP8 call is the attention-kernel crash
// class (crash-formats section 14); other calls stay the failure reason
// only (the fault type is not in the evidence).
func (b *builder) crashedDumpFinding(work map[string]*agg) {
	d := b.facts.kernelAPI.crashedDump()
	if d == nil || len(work) > 0 || !reAttentionAPI.MatchString(d.function) {
		return
	}
	a := newAgg(ClassFP8AttentionCrash, 0.6)
	a.evidence(d.ev)
	a.addReason("the process died inside " + d.function + " (its level-10 dump saved inputs, no outputs)")
	if d.pid > 0 {
		a.setPID(d.pid)
	}
	work[ClassFP8AttentionCrash] = a
}

// reAttentionAPI: an attention call by its API name; FlashInfer's paged /
// ragged KV-cache wrappers name the cache, not the attention
// (BatchDecodeWithPagedKVCacheWrapper.run, BatchPrefillWithRaggedKVCacheWrapper.run,
// single_decode_with_kv_cache, trtllm_batch_decode_with_kv_cache).
var reAttentionAPI = lazyre.New(`(?i)attention|attn|mla|fmha|flash|sdpa|fp8|kv_?cache`)

// kernelAPIFindings adds the numerical finding (level 5) to the work set.
func (b *builder) kernelAPIFindings(s *Session, work map[string]*agg) {
	k := &b.facts.kernelAPI
	n := k.firstNaN
	if n == nil {
		return
	}
	a := &agg{f: Finding{Class: ClassNumericalNaN, Count: 1}, ranks: map[int]bool{}, details: map[string]string{}, order: 1 << 19}
	a.conf = 0.8
	a.evidence(n.ev)
	a.addReason("the output of " + n.call + " has " + n.output + " while every input had nan_count=0 and inf_count=0")
	a.detail("first_nan_call", n.call)
	a.detail("first_nan_output", n.output)
	a.detail("kernel", n.call)
	work[ClassNumericalNaN] = a
}
