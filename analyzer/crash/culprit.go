package crash

import (
	"sort"
	"strconv"
	"strings"
)

// A culprit is computed, not guessed: each rule below reads one kind of
// evidence and names the rank(s) / process(es) that the others waited for.
// The strongest rule wins; rules that name the same rank corroborate it.

type culpritCand struct {
	c    Culprit
	prio int  // lower wins
	peer bool // names the victim of a barrier spin, not the straggler
}

type culpritSet struct {
	cands []culpritCand
	multi *Culprit // several ranks failed at once
	// kernel: per class, the one process the kernel's own line named (the
	// OOM killer's victim, the owner of a timed-out GPU job); the weakest
	// rule, used only when no straggler rule names anyone
	kernel map[string]Culprit
}

const (
	prioFault = iota
	prioEnqueued
	prioFlight
	prioOpCount
	prioPySpy
	prioRocgdb
	prioTorchrun
	prioMissing
)

func (b *builder) culprits(s *Session, work map[string]*agg) *culpritSet {
	inc := &b.facts.inc
	cs := &culpritSet{}
	mk := func(rank, pid int, gpu, reason, method string, evs ...Evidence) Culprit {
		c := Culprit{Reason: reason, Method: method, Evidence: []Evidence{}}
		if rank < 0 && pid > 0 {
			if r, ok := inc.rankOf(pid); ok {
				rank = r
			}
		}
		if pid <= 0 && rank >= 0 {
			pid = inc.pidOfRank(rank)
		}
		if rank >= 0 {
			c.Rank = intp(rank)
		}
		if pid > 0 {
			c.PID = intp(pid)
			if h := inc.pidHost[pid]; h != "" {
				c.Host = &h
			}
		}
		if gpu != "" {
			c.GPU = &gpu
		}
		for _, e := range evs {
			if e.File != "" && len(c.Evidence) < 6 {
				c.Evidence = append(c.Evidence, e)
			}
		}
		return c
	}
	add := func(c Culprit, prio int) { cs.cands = append(cs.cands, culpritCand{c: c, prio: prio}) }

	// 1. a GPU fault / host crash on one rank preceded the others' watchdogs;
	// without a timeout, a fault whose lines carry one rank names that rank
	// (vLLM's "(VllmWorker rank=2 pid=225)" + "[rank2]: … watchdog thread
	// terminated with exception: CUDA error", crash-heldout-real x16)
	waited := work[ClassCollectiveTimeout] != nil || work[ClassCPUHang] != nil
	{
		for _, c := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassHostSegfault, ClassVRAMOOM} {
			a := work[c]
			if a == nil {
				continue
			}
			if !waited {
				// the weakest rule: any other one (a supervisor's exit line,
				// a dump) is more specific and wins
				ev := append([]Evidence(nil), a.evFirst[:min(2, len(a.evFirst))]...)
				switch {
				case len(a.ranks) == 1 && c != ClassHostSegfault:
					r := sortedInts(a.ranks)[0]
					add(mk(r, 0, a.f.Device, "the only rank whose lines carry the "+c, "the rank prefix of the error lines", ev...), prioMissing+1)
				case len(a.ranks) == 0 && a.linePID > 0:
					// a worker prefix without a rank ("(VllmWorkerProcess
					// pid=2421) ERROR … OutOfMemoryError"): that worker; a
					// segfault too — faulthandler prints in the dying
					// process, so the prefix is its own ("(RayWorkerWrapper
					// pid=9821) Fatal Python error: Segmentation fault",
					// vllm-project/vllm#6106, #20431)
					add(mk(-1, a.linePID, a.f.Device, "the only worker whose lines carry the "+c, "the worker prefix (pid) of the error lines", ev...), prioMissing+1)
				case len(a.ranks) == 0 && codeObjectPID(a.f.CodeObject) > 0 && c != ClassHostSegfault:
					// the debug agent's disassembly of the faulting wave: its
					// code object lives in that process ("memory://<pid>#…")
					add(mk(-1, codeObjectPID(a.f.CodeObject), a.f.Device, "the faulting wave's code object was loaded in this process", "the pid of the code object URI (memory://<pid>#offset=…) in the wave dump", ev...), prioMissing+1)
				}
				break
			}
			if c == ClassVRAMOOM {
				break
			}
			ranks := sortedInts(a.ranks)
			pid := 0
			if a.f.PID != nil {
				pid = *a.f.PID
			} else if p := atoiDef(a.details["exited_pid"], 0); p > 0 {
				pid = p // the process that aborted right after the fault (a supervisor's exit line)
			}
			if len(ranks) == 1 || pid > 0 && len(ranks) == 0 {
				r := -1
				if len(ranks) == 1 {
					r = ranks[0]
				}
				ev := append([]Evidence(nil), a.evFirst[:min(2, len(a.evFirst))]...)
				add(mk(r, pid, a.f.Device, "this rank hit a "+c+" ("+clip(a.f.Reason, 80)+"); the other ranks' collective watchdogs fired afterwards", "the rank whose fault preceded the others' watchdog timeouts", ev...), prioFault)
			}
			break
		}
	}
	// 2. watchdog / dump-signal lines: last enqueued work per rank
	if len(inc.ranks) >= 2 {
		rs := sortedRankKeys(inc.ranks)
		maxEnq, n := -1<<31, 0
		for _, r := range rs {
			if st := inc.ranks[r]; st.hasEnq {
				n++
				if st.enq > maxEnq {
					maxEnq = st.enq
				}
			}
		}
		var behind []int
		var evs []Evidence
		for _, r := range rs {
			if st := inc.ranks[r]; st.hasEnq && st.enq < maxEnq {
				behind = append(behind, r)
				evs = append(evs, st.ev)
			}
		}
		if n >= 2 && len(behind) > 0 && len(behind) < n {
			for _, r := range rs {
				if st := inc.ranks[r]; st.hasEnq && st.enq == maxEnq && len(evs) < 4 {
					evs = append(evs, st.ev)
					break
				}
			}
			c := mk(behind[0], 0, "", "rank(s) "+intsString(behind)+" enqueued only up to work "+strconv.Itoa(inc.ranks[behind[0]].enq)+" while the others enqueued "+strconv.Itoa(maxEnq)+": they never issued the collective the others wait in", "watchdog 'last enqueued NCCL work' compared across ranks", evs...)
			if len(behind) > 1 {
				c.Rank, c.Ranks = nil, behind
			}
			add(c, prioEnqueued)
		}
	}
	// 3. flight-recorder dumps
	if c, ok := frCulprit(inc, mk); ok {
		add(c, prioFlight)
	}
	if c, ok := frTraceCulprit(inc, mk); ok {
		add(c, prioFlight)
	}
	// 4. NCCL_DEBUG=INFO / watchdog: a rank that called another collective
	// at the same opCount / SeqNum (ncclops.go)
	if c, ok := opDivergenceCulprit(inc, mk); ok {
		add(c, prioOpCount)
	}
	// NCCL_DEBUG=INFO opCounts
	if len(inc.ops) >= 2 {
		keys := make([]string, 0, len(inc.ops))
		for k := range inc.ops {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var hi int64 = -1
		for _, k := range keys {
			if inc.ops[k].last > hi {
				hi = inc.ops[k].last
			}
		}
		var lag []*opState
		for _, k := range keys {
			if o := inc.ops[k]; o.last < hi {
				lag = append(lag, o)
			}
		}
		if len(lag) > 0 && len(lag) < len(keys) {
			o := lag[0]
			c := mk(-1, o.pid, "", "pid "+strconv.Itoa(o.pid)+" on "+o.host+" last issued opCount "+strconv.FormatInt(o.last, 16)+" while the others reached opCount "+strconv.FormatInt(hi, 16)+": it never issued the next collective", "NCCL_DEBUG=INFO opCount per process", o.ev)
			if c.Host == nil {
				h := o.host
				c.Host = &h
			}
			if len(lag) > 1 {
				c.Rank, c.PID = nil, nil
				for _, x := range lag {
					c.PIDs = append(c.PIDs, x.pid)
					if r, ok := inc.rankOf(x.pid); ok {
						c.Ranks = append(c.Ranks, r)
					}
				}
			}
			add(c, prioOpCount)
		} else if inc.worldSize > len(keys) && len(keys) > 0 {
			seen := map[int]bool{}
			for _, k := range keys {
				if r, ok := inc.rankOf(inc.ops[k].pid); ok {
					seen[r] = true
				}
			}
			if len(seen) == len(keys) {
				var miss []int
				for r := 0; r < inc.worldSize; r++ {
					if !seen[r] {
						miss = append(miss, r)
					}
				}
				if len(miss) > 0 && len(miss) < inc.worldSize {
					c := mk(miss[0], 0, "", "rank(s) "+intsString(miss)+" of "+strconv.Itoa(inc.worldSize)+" never logged an opCount", "NCCL_DEBUG=INFO opCount per rank (a rank without any collective)")
					if len(miss) > 1 {
						c.Rank, c.Ranks = nil, miss
					}
					add(c, prioOpCount)
				}
			}
		}
	}
	// 5. py-spy: the process not in the collective the others wait in, or
	// whose stack differs from all others (hang.go)
	if c, ok := pyspyCulprit(inc, mk); ok {
		add(c, prioPySpy)
	}
	// 5b. rocgdb dumps of several workers: the one not in the kernel the
	// others are stuck in
	if c, ok := workerCulprit(inc, mk); ok {
		add(c, prioPySpy)
	}
	// 6. rocgdb: the attached worker holds the stuck kernel
	// (info dispatches, or only info threads' waves of the attached process)
	if h := work[ClassGPUKernelHang]; h != nil && h.f.Hang != nil && h.f.Hang.Progress != "moving" && (len(h.f.Hang.Dispatches) > 0 || len(h.f.Hang.WaveGroups) > 0 && h.f.Hang.AttachedPID != nil) {
		hv := h.f.Hang
		gpu := ""
		if len(hv.Dispatches) > 0 {
			gpu = hv.Dispatches[0].GPU
		}
		k := h.f.Kernel
		pid, who := 0, "the attached worker"
		if hv.AttachedPID != nil {
			pid = *hv.AttachedPID
			who = "pid " + strconv.Itoa(pid)
		}
		c := mk(-1, pid, gpu, who+" holds the dispatch that never completes ("+kernelBase(k)+")", "rocgdb dump of the attached worker: its in-flight dispatch", h.evFirst[:min(2, len(h.evFirst))]...)
		cand := culpritCand{c: c, prio: prioRocgdb}
		if h.details["hang_kind"] == "cross_rank_barrier_spin" {
			cand.peer = true
			cand.c.Reason = who + " spins in the barrier of " + kernelBase(k) + ": it waits for a peer rank, which is the real straggler"
		}
		cs.cands = append(cs.cands, cand)
	}
	// 6a. a GPU core file opened in rocgdb: the process it was generated from
	// died of the crash
	if pid := b.facts.corePID; pid > 0 {
		for _, c := range gpuCrashClasses {
			if work[c] != nil {
				add(mk(-1, pid, "", "pid "+strconv.Itoa(pid)+" is the process the GPU core file was generated from", "rocgdb on the core file (thread 1's LWP)", b.facts.corePIDEv), prioRocgdb)
				break
			}
		}
	}
	// 6b. a debug-agent SIGQUIT dump: the process the pasted "kill -s
	// SIGQUIT N" named holds the (running) waves (sigquitpid.go)
	if h := work[ClassGPUKernelHang]; h != nil && h.f.Hang == nil && h.details["sigquit_pid"] != "" {
		pid := atoiDef(h.details["sigquit_pid"], 0)
		c := mk(-1, pid, "", "pid "+h.details["sigquit_pid"]+" was sent SIGQUIT and its waves run in "+kernelBase(h.f.Kernel), "rocm-debug-agent SIGQUIT wave dump of this process", h.evFirst[:min(2, len(h.evFirst))]...)
		add(c, prioRocgdb)
	}
	// 7. torchrun: the root-cause entry (SIGABRT & co.) vs SIGTERM'd siblings
	if inc.rootEv != nil && exitSignal(inc.rootExit) != "SIGTERM" {
		reason := "torchrun's root-cause entry: exit " + strconv.Itoa(inc.rootExit)
		if sig := exitSignal(inc.rootExit); sig != "" {
			reason += " (" + sig + ")"
		}
		if len(inc.sigterm) > 0 {
			reason += "; the launcher then sent SIGTERM to " + strconv.Itoa(len(inc.sigterm)) + " sibling(s) (collateral)"
		}
		add(mk(inc.rootRank, inc.rootPID, "", reason, "torchrun failure summary (first observed failure vs SIGTERM collateral)", *inc.rootEv), prioTorchrun)
	} else if c, ok := exitCulprit(b.facts.exits, mk); ok {
		add(c, prioTorchrun)
	} else if e, ok := b.deadChild(); ok && !b.watchdogWaiter(work, e) {
		who := "pid " + strconv.Itoa(e.pid)
		if e.pid <= 0 {
			who = e.task + " (rank " + strconv.Itoa(e.rank) + ")"
		}
		add(mk(e.rank, e.pid, "", "the supervisor reports "+who+" died of "+e.signal+" (exit "+strconv.Itoa(e.code)+")", "a supervisor's child-exit line (the one process reported dead)", e.ev), prioTorchrun)
	} else if w, ok := b.deadWorker(); ok && work[ClassCollectiveTimeout] == nil {
		// after a collective timeout the first worker to die is the one
		// whose watchdog fired first (it takes its process down): a waiter
		pid := inc.pidOfRank(w.rank)
		add(mk(w.rank, pid, "", "the executor reports "+w.name+" (rank "+strconv.Itoa(w.rank)+") died unexpectedly: the one worker that failed, the others were shut down after it", "the executor's dead-worker line (the one worker reported dead)", w.ev), prioTorchrun)
	} else if e, ok := b.appFailure(); ok {
		reason := "the launcher reports pid " + strconv.Itoa(e.pid) + " exited with code " + strconv.Itoa(e.code) + " (no signal)"
		if len(inc.sigterm) > 0 {
			reason += "; it then sent SIGTERM to " + strconv.Itoa(len(inc.sigterm)) + " sibling(s) (collateral)"
		}
		add(mk(e.rank, e.pid, "", reason, "the launcher's failure line: the one worker that exited on its own", e.ev), prioTorchrun)
	}
	// 8. watchdogs from every rank but one
	if a := work[ClassCollectiveTimeout]; a != nil {
		reporting := map[int]bool{}
		for r := range a.ranks {
			reporting[r] = true
		}
		for r, st := range inc.ranks {
			if st.hasSeq || st.hasEnq {
				reporting[r] = true
			}
		}
		ws := inc.worldSize
		maxR := -1
		for r := range reporting {
			maxR = max(maxR, r)
		}
		var miss []int
		limit := ws
		if limit == 0 {
			// ranks seen in line prefixes, else only gaps below the
			// highest reporting rank
			limit = max(maxR+1, inc.ranksSeen)
		}
		for r := 0; r < limit && len(reporting) > 0; r++ {
			if !reporting[r] {
				miss = append(miss, r)
			}
		}
		// defeater: without the world size a gap proves little — a truncated
		// or partial paste drops ranks too; only one rank missing among
		// several reporting is read as the straggler
		if ws == 0 && (len(miss) != 1 || len(reporting) < 3) {
			if len(miss) > 0 {
				a.note("ranks " + intsString(miss) + " do not report the timeout, but the world size is not in the evidence: a partial paste cannot prove them missing")
			}
			miss = nil
		}
		if len(miss) > 0 && len(miss) < limit {
			how := "gap in the reporting ranks"
			var evs []Evidence
			if ws > 0 {
				how = "world size " + strconv.Itoa(ws)
				if inc.wsEv != nil {
					evs = append(evs, *inc.wsEv)
				}
			}
			evs = append(evs, a.evFirst[:min(2, len(a.evFirst))]...)
			c := mk(miss[0], 0, "", "every rank but "+intsString(miss)+" reports the watchdog timeout ("+how+"): the missing rank never reached the collective", "watchdog SeqNum lines per rank: the rank that does not report", evs...)
			if len(miss) > 1 {
				c.Rank, c.Ranks = nil, miss
			}
			add(c, prioMissing)
		}
	}
	// several ranks / queues failed at once
	for _, c := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction} {
		a := work[c]
		if a == nil || !(len(a.ranks) > 1 || a.queueN > 1) {
			continue
		}
		m := Culprit{Reason: "every rank failed with the same " + c + " at once: a data-dependent bug shared by all ranks (the same batch / positions), not one straggler", Method: "identical faults on " + strconv.Itoa(max(len(a.ranks), a.queueN)) + " ranks / queues", Evidence: append([]Evidence{}, a.evFirst[:min(2, len(a.evFirst))]...)}
		if len(a.ranks) > 1 {
			m.Ranks = sortedInts(a.ranks)
		}
		cs.multi = &m
		break
	}
	sort.SliceStable(cs.cands, func(i, j int) bool { return cs.cands[i].prio < cs.cands[j].prio })
	for c, why := range map[string]string{
		ClassHostOOMKill:  "the kernel's OOM killer killed this process",
		ClassGPUHangReset: "the kernel named this process as the owner of the GPU job that timed out",
		// the page-fault decode names the process whose GPU address space faulted
		ClassGPUMemoryFault: "the kernel's page-fault report named this process as the owner of the faulting GPU address space",
		// a fetch / copy-engine fault (client CPF / SDMA) in that process's address space
		ClassDMADriverFault: "the kernel's page-fault report named this process as the owner of the address space its queue or copy faulted in",
	} {
		if a := work[c]; a != nil && a.kernelPID > 0 {
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(-1, a.kernelPID, a.f.Device, why, "the process named by the kernel's own line (dmesg)", a.kernelEv)
		}
	}
	// level-10 dump folders of several processes: the one whose last call
	// saved its inputs and never its outputs died inside it (seed 000 step
	// 1; the folder names carry the pid); weaker than the kernel's own line
	if d := b.facts.kernelAPI.crashedDump(); d != nil && d.pid > 0 && b.facts.kernelAPI.dumpPIDs() > 1 {
		for _, c := range gpuCrashClasses {
			if _, ok := cs.kernel[c]; ok || work[c] == nil {
				continue
			}
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(-1, d.pid, "", "pid "+strconv.Itoa(d.pid)+"'s level-10 dump of "+d.function+" saved its inputs and no outputs: the process died inside that call", "the level-10 dump folder without outputs among several processes' dumps", d.ev)
		}
	}
	// one process's level-10 dumps, the last call saved inputs and no
	// outputs, and a process died of SIGSEGV (seed 000 step 8: a 139
	// escalated to level 10): the dumping process died inside the call —
	// a GPU error of one process's dumps still names no one (another rank
	// may have dumped nothing), but a segfault kills the process it hits
	if d := b.facts.kernelAPI.crashedDump(); d != nil && d.pid > 0 && b.facts.kernelAPI.dumpPIDs() == 1 {
		for _, c := range []string{ClassHostSegfault} {
			if _, ok := cs.kernel[c]; ok || work[c] == nil || len(work[c].ranks) > 0 {
				continue
			}
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(-1, d.pid, "", "pid "+strconv.Itoa(d.pid)+"'s level-10 dump of "+d.function+" saved its inputs and no outputs: the process died inside that call", "the level-10 dump folder without outputs", d.ev)
		}
	}
	// … or the one process whose dump recorded the exception the call raised
	if d := b.facts.kernelAPI.raisedDump(); d != nil && b.facts.kernelAPI.crashedDump() == nil && b.facts.kernelAPI.dumpPIDs() > 1 {
		for _, c := range append([]string{ClassInvalidLaunch, ClassVRAMOOM}, gpuCrashClasses...) {
			if _, ok := cs.kernel[c]; ok || work[c] == nil {
				continue
			}
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(-1, d.pid, "", "pid "+strconv.Itoa(d.pid)+"'s level-10 dump of "+d.function+" recorded the exception; the other processes' dumps did not", "the level-10 dump with execution_status exception among several processes' dumps", d.ev)
		}
	}
	// the shell's job notice names the process that aborted after a GPU
	// error ("line 14: 52104 Aborted (core dumped)", shared s02's "4388
	// Aborted"): weaker than the kernel's own line and the dumps
	for _, c := range gpuCrashClasses {
		a := work[c]
		if a == nil || len(a.ranks) > 0 {
			continue
		}
		if _, ok := cs.kernel[c]; ok {
			continue
		}
		if p := atoiDef(a.details["exited_pid"], 0); p > 0 {
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(-1, p, a.f.Device, "the shell's job notice named this process as the one that aborted after the "+c, "the pid on the abort line of the process", a.evFirst[:min(1, len(a.evFirst))]...)
		}
	}
	// the world rank that called MPI_Abort after the error (mpiabort.go):
	// weaker than the kernel's own line and the dumps
	for _, c := range Classes {
		a := work[c]
		if a == nil || !abortNamed(&b.facts, c, a) {
			continue
		}
		if _, ok := cs.kernel[c]; ok {
			continue
		}
		if r, ok := abortCulprit(&b.facts, a); ok {
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(r, 0, a.f.Device, "this rank called MPI_Abort after the "+c+": the application stopped where its check failed", "the rank of Open MPI's / MPICH's MPI_Abort report", *b.facts.mpiAbort)
		}
	}
	// the line reporting the death names the process (a shell's job line):
	// weaker than the kernel's own line, which it never overrides
	for _, c := range []string{ClassHostSegfault, ClassHostOOMKill} {
		if a := work[c]; a != nil && a.deathPID > 0 {
			if _, ok := cs.kernel[c]; ok {
				continue
			}
			if cs.kernel == nil {
				cs.kernel = map[string]Culprit{}
			}
			cs.kernel[c] = mk(-1, a.deathPID, a.f.Device, "the line reporting the death named this process", "the pid on the death line (shell job notice, DataLoader worker)", a.deathEv)
		}
	}
	b.reporterCulprit(cs, work, mk) // ncclreporter.go
	return cs
}

// forClass picks the culprit of a finding: the best straggler rule; for a
// hang whose only evidence is the spinning worker, that worker (flagged).
func (cs *culpritSet) forClass(class string, a *agg) *Culprit {
	var best *culpritCand
	for i := range cs.cands {
		c := &cs.cands[i]
		if c.peer {
			continue
		}
		best = c
		break
	}
	if best == nil {
		if (class == ClassGPUMemoryFault || class == ClassDeviceAssert || class == ClassIllegalInstruction) && cs.multi != nil {
			m := *cs.multi
			return &m
		}
		for i := range cs.cands {
			if cs.cands[i].peer {
				c := cs.cands[i].c
				c.Method += " (victim side: the straggler is not in the evidence)"
				return &c
			}
		}
		if cs.multi != nil {
			m := *cs.multi
			return &m
		}
		if k, ok := cs.kernel[class]; ok {
			k.Evidence = append([]Evidence{}, k.Evidence...)
			return &k
		}
		return &Culprit{Reason: "not determined: the evidence does not show which rank the others waited for (add every rank's log, py-spy dumps of all ranks, or flight-recorder dumps)", Method: "none", Evidence: []Evidence{}}
	}
	c := best.c
	c.Evidence = append([]Evidence{}, c.Evidence...)
	var agree []string
	for i := range cs.cands {
		o := &cs.cands[i]
		if o == best || o.c.Method == c.Method {
			continue
		}
		if sameCulprit(&c, &o.c) {
			agree = append(agree, o.c.Method)
			if c.GPU == nil && o.c.GPU != nil {
				c.GPU = o.c.GPU
			}
			if c.PID == nil && o.c.PID != nil && o.c.Rank != nil && c.Rank != nil && *o.c.Rank == *c.Rank {
				c.PID = o.c.PID
			}
			// the other rule names the same process and knows its rank
			if c.Rank == nil && len(c.Ranks) == 0 && o.c.Rank != nil && c.PID != nil && o.c.PID != nil && *o.c.PID == *c.PID {
				c.Rank = o.c.Rank
			}
			if c.Host == nil && o.c.Host != nil {
				c.Host = o.c.Host
			}
			for _, e := range o.c.Evidence {
				if len(c.Evidence) < 8 {
					c.Evidence = append(c.Evidence, e)
				}
			}
		}
	}
	if len(agree) > 0 {
		c.Method += "; corroborated by " + strings.Join(agree, "; ")
	}
	cs.joinPID(&c)
	if best.prio == prioMissing+1 {
		cs.joinProcessPID(&c, class)
	}
	return &c
}

// joinProcessPID: the one rank whose lines carry the error (the weakest
// rule, which names no pid) and the one process a process-level rule names
// for that class (the kernel's own line, a level-10 dump folder) are one
// process: the rank gets that pid.
func (cs *culpritSet) joinProcessPID(c *Culprit, class string) {
	if c.Rank == nil || c.PID != nil || len(c.Ranks) > 0 || len(c.PIDs) > 0 {
		return
	}
	k, ok := cs.kernel[class]
	if !ok || k.PID == nil || k.Rank != nil {
		return
	}
	c.PID = k.PID
	c.Method += "; its pid from " + k.Method
	for _, e := range k.Evidence {
		if len(c.Evidence) < 8 {
			c.Evidence = append(c.Evidence, e)
		}
	}
}

// joinPID: a rank named without its pid (the rank missing from the
// watchdogs) and a pid named without its rank (the process that faulted and
// died) are one process when each rule names exactly one, whichever rule won.
func (cs *culpritSet) joinPID(c *Culprit) {
	if (c.Rank == nil) == (c.PID == nil) || len(c.Ranks) > 0 || len(c.PIDs) > 0 {
		return
	}
	wantRank := c.Rank == nil
	var got *int
	var how string
	for i := range cs.cands {
		o := &cs.cands[i].c
		if cs.cands[i].peer || len(o.Ranks) > 0 || len(o.PIDs) > 0 {
			continue
		}
		v := o.PID
		if wantRank {
			v = o.Rank
		}
		if v == nil || (wantRank && o.PID != nil) || (!wantRank && o.Rank != nil) {
			continue
		}
		if got != nil && *got != *v {
			return // two different answers: no join
		}
		got, how = v, o.Method
	}
	if got == nil {
		return
	}
	if wantRank {
		c.Rank = got
		c.Method += "; its rank " + strconv.Itoa(*got) + " from " + how + " (the only rank named without a pid)"
	} else {
		c.PID = got
		c.Method += "; its pid " + strconv.Itoa(*got) + " from " + how + " (the only process that failed without a rank)"
	}
}

func sameCulprit(a, b *Culprit) bool {
	switch {
	case a.Rank != nil && b.Rank != nil:
		return *a.Rank == *b.Rank
	case a.PID != nil && b.PID != nil:
		return *a.PID == *b.PID
	case len(a.Ranks) > 0 && len(b.Ranks) > 0:
		return intsKey(a.Ranks) == intsKey(b.Ranks)
	}
	return false
}

// exitCulprit: without a torchrun root-cause table, the one process that
// died of a signal other than SIGTERM while its siblings got SIGTERM.
func exitCulprit(exits []exitFact, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	var root []exitFact
	term := 0
	for _, e := range exits {
		switch e.signal {
		case "SIGTERM":
			term++
		case "":
		default:
			if e.rank >= 0 || e.pid > 0 {
				root = append(root, e)
			}
		}
	}
	if len(root) != 1 || term == 0 {
		return Culprit{}, false
	}
	e := root[0]
	return mk(e.rank, e.pid, "", "the only process that died of "+e.signal+"; "+strconv.Itoa(term)+" other(s) got SIGTERM from the launcher (collateral)", "exit signals per rank: root signal vs SIGTERM collateral", e.ev), true
}

func (inc *incidentFacts) pidOfRank(rank int) int {
	best := 0
	for pid, r := range inc.pidRank {
		if r == rank && (best == 0 || pid < best) {
			best = pid
		}
	}
	return best
}

func sortedRankKeys(m map[int]*rankState) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// workerCulprit compares rocgdb dumps of different workers (pids): when
// most workers sit in one kernel and a minority runs another kernel or
// none, the minority never reached the collective.
func workerCulprit(inc *incidentFacts, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	type worker struct {
		pid    int
		kernel string
		ev     Evidence
	}
	var ws []worker
	idx := map[int]int{}
	for _, d := range inc.gdbDumps {
		if d.crash || d.pid <= 0 || d.sections&(secDispatches|secThreads) == 0 {
			continue
		}
		k := ""
		ev := d.ev
		if gs := waveGroups(d); len(gs) > 0 {
			k = kernelBase(gs[0].Kernel)
			if len(d.waveIDs) > 0 {
				ev = d.waves[d.waveIDs[0]].ev
			}
		} else if len(d.disp) > 0 {
			k, ev = kernelBase(d.disp[0].Kernel), d.disp[0].ev
		} else if d.noEv != nil {
			ev = *d.noEv
		}
		w := worker{d.pid, k, ev}
		if i, ok := idx[d.pid]; ok {
			ws[i] = w // the latest dump of a worker
			continue
		}
		idx[d.pid] = len(ws)
		ws = append(ws, w)
	}
	// every worker but one spins in a collective kernel (waiting for a
	// peer) and that one runs another kernel: it is the peer they wait for
	// — two workers suffice, the collective says who waits
	if len(ws) >= 2 {
		var odd []worker
		var base Evidence
		coll := ""
		for _, w := range ws {
			if isCollectiveKernel(w.kernel) {
				if base.File == "" {
					base, coll = w.ev, w.kernel
				}
			} else {
				odd = append(odd, w)
			}
		}
		if len(odd) == 1 && odd[0].kernel != "" {
			o := odd[0]
			return mk(-1, o.pid, "", "pid "+strconv.Itoa(o.pid)+" runs "+o.kernel+" while the "+strconv.Itoa(len(ws)-1)+" other worker(s) spin in the collective "+coll+" waiting for a peer: it never reached the collective", "rocgdb dumps of "+strconv.Itoa(len(ws))+" workers: the one outside the collective the others wait in", o.ev, base), true
		}
	}
	if len(ws) < 3 {
		return Culprit{}, false
	}
	count := map[string]int{}
	for _, w := range ws {
		count[w.kernel]++
	}
	top, n := "", 0
	for _, w := range ws {
		if c := count[w.kernel]; c > n && w.kernel != "" {
			top, n = w.kernel, c
		}
	}
	if top == "" || n*2 <= len(ws) || n == len(ws) {
		return Culprit{}, false
	}
	var odd []worker
	var base Evidence
	for _, w := range ws {
		if w.kernel != top {
			odd = append(odd, w)
		} else if base.File == "" {
			base = w.ev
		}
	}
	o := odd[0]
	what := "has no dispatch in flight"
	if o.kernel != "" {
		what = "runs " + o.kernel
	}
	c := mk(-1, o.pid, "", "pid "+strconv.Itoa(o.pid)+" "+what+" while "+strconv.Itoa(n)+" other workers are stuck in "+top+": it never reached that kernel", "rocgdb dumps of "+strconv.Itoa(len(ws))+" workers: the one not in the common stuck kernel", o.ev, base)
	if len(odd) > 1 {
		c.Rank, c.PID = nil, nil
		for _, x := range odd {
			c.PIDs = append(c.PIDs, x.pid)
			if r, ok := inc.rankOf(x.pid); ok {
				c.Ranks = append(c.Ranks, r)
			}
		}
	}
	return c, true
}

// appFailure is the worker a launcher reports exited with a plain non-zero
// code (no signal): torchrun's root-cause entry, else the one pid of the
// exit lines that name one ("failed (exitcode: 1) local_rank: 7 (pid: N)").
func (b *builder) appFailure() (exitFact, bool) {
	if inc := &b.facts.inc; inc.rootEv != nil {
		if inc.rootExit > 0 && exitSignal(inc.rootExit) == "" {
			return exitFact{code: inc.rootExit, hasCode: true, rank: inc.rootRank, pid: inc.rootPID, ev: *inc.rootEv}, true
		}
		return exitFact{}, false
	}
	var got exitFact
	n := 0
	for _, e := range b.facts.exits {
		if !e.hasCode || e.code <= 0 || e.signal != "" || e.pid <= 0 || n > 0 && e.pid == got.pid {
			continue
		}
		got = e
		n++
	}
	return got, n == 1
}

// deadWorker is the one worker an executor reported dead; ok is false
// when none or several differ.
func (b *builder) deadWorker() (deadWorker, bool) {
	var got deadWorker
	n := 0
	for _, w := range b.facts.deadWorkers {
		if w.rank < 0 || n > 0 && w.rank == got.rank {
			continue
		}
		got = w
		n++
	}
	return got, n == 1
}

// watchdogWaiter: a process that died of SIGABRT while a collective timed
// out, on a rank that itself reported the timeout — its own watchdog took
// it down ("To avoid data inconsistency, we are taking the entire process
// down"): a waiter like the others, not the rank they waited for.
func (b *builder) watchdogWaiter(work map[string]*agg, e exitFact) bool {
	ct := work[ClassCollectiveTimeout]
	if ct == nil || e.signal != "SIGABRT" {
		return false
	}
	r := e.rank
	if r < 0 && e.pid > 0 {
		if x, ok := b.facts.inc.rankOf(e.pid); ok {
			r = x
		}
	}
	return r >= 0 && ct.ranks[r]
}

// deadChild is the one process a supervisor reported dead of a signal other
// than SIGTERM, with its pid ("exitcode=134. pid=N") or its scheduler task
// ("srun: error: node: task 3: Out Of Memory"); ok is false when none or
// several differ.
func (b *builder) deadChild() (exitFact, bool) {
	var got exitFact
	n := 0
	for _, e := range b.facts.exits {
		named := e.pid > 0 || e.task != "" && e.rank >= 0
		if !named || e.signal == "" || e.signal == "SIGTERM" {
			continue
		}
		if n > 0 && (e.pid > 0 && e.pid == got.pid || e.pid <= 0 && got.pid <= 0 && e.rank == got.rank) {
			continue
		}
		got = e
		n++
	}
	return got, n == 1
}
