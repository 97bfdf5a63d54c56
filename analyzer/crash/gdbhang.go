package crash

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// hangFindings turns the rocgdb hang dumps of the session into the
// gpu_kernel_hang finding (seed 003 R3–R6): stuck dispatches, stalled
// queues, wave PC groups, the blocked host stack, progress between dumps.
// smiLivelock: rocm-smi shows GPUs at 100 % busy and nothing else in the
// evidence failed — a silent livelock (seed 003 "GPU at 100 % but no token
// output"): waves spin, so no fault, trap or watchdog ever reports it. A
// rocgdb dump decides; it needs the busy rows and is defeated by any other
// finding (a busy GPU next to a crash is just the crash's context) and by
// a log that shows tokens being generated (progress.go: busy, not hung).
func (b *builder) smiLivelock(work map[string]*agg) {
	inc := &b.facts.inc
	if len(inc.smiBusy) == 0 || len(work) > 0 || len(inc.gdbDumps) > 0 || b.facts.progress.ev != nil {
		return
	}
	a := newAgg(ClassGPUKernelHang, 0.5)
	for _, e := range inc.smiEv {
		a.evidence(e)
	}
	a.addReason("rocm-smi: " + strconv.Itoa(len(inc.smiBusy)) + " GPU(s) at 100 % busy with no fault, trap or watchdog in the evidence: a silent GPU livelock candidate")
	a.note("a spinning kernel never faults, so the debug agent stays silent: attach rocgdb to a worker and list the dispatches")
	a.f.Hang = &HangEvidence{GPUBusy: inc.smiBusy}
	work[ClassGPUKernelHang] = a
}

func (b *builder) hangFindings(s *Session, work map[string]*agg) {
	b.cudaHang(s, work)
	b.frFinding(work)
	b.frTraceFinding(work)
	b.smiLivelock(work)
	b.crashedDumpFinding(work)
	inc := &b.facts.inc
	groups := map[int][]*gdbDump{}
	var pids []int
	for _, d := range inc.gdbDumps {
		if d.crash || d.sections == 0 {
			continue
		}
		if _, ok := groups[d.pid]; !ok {
			pids = append(pids, d.pid)
		}
		groups[d.pid] = append(groups[d.pid], d)
	}
	if len(pids) == 0 {
		return
	}
	// the worker with the most dumps that list dispatches
	score := func(ds []*gdbDump) int {
		n := 0
		for _, d := range ds {
			if len(d.disp) > 0 || len(d.waves) > 0 {
				n += 2
			}
			if len(d.bt) > 0 {
				n++
			}
		}
		return n
	}
	sort.SliceStable(pids, func(i, j int) bool { return score(groups[pids[i]]) > score(groups[pids[j]]) })
	ds := groups[pids[0]]
	h := &HangEvidence{Dumps: len(ds), Progress: "single_dump"}
	if pids[0] > 0 {
		h.AttachedPID = intp(pids[0])
	}
	a := work[ClassGPUKernelHang]
	created := a == nil
	if created {
		a = newAgg(ClassGPUKernelHang, 0)
	}
	conf := 0.0
	raise := func(c float64) {
		if c > conf {
			conf = c
		}
	}
	// agents: any dump of the worker
	for _, d := range ds {
		if len(d.agents) > len(h.Agents) {
			h.Agents = append([]GPUAgent(nil), d.agents...)
		}
	}
	agentLoc := func(id string) string {
		for _, d := range ds {
			if ag := d.agentOf(id); ag != nil {
				return ag.Location
			}
		}
		return ""
	}
	// the latest dump that lists dispatches or waves is the reference
	var last *gdbDump
	for _, d := range ds {
		if len(d.disp) > 0 || len(d.waves) > 0 {
			last = d
		}
	}
	listed := func(d *gdbDump, x *gdbDispatch) bool {
		for _, y := range d.disp {
			if y.ID == x.ID && y.Kernel == x.Kernel {
				return true
			}
		}
		return false
	}
	if last != nil {
		for i := range last.disp {
			x := last.disp[i].Dispatch
			x.GPU = agentLoc(x.ID)
			for _, d := range ds {
				if listed(d, &last.disp[i]) {
					x.Dumps++
				}
			}
			h.Dispatches = append(h.Dispatches, x)
			if i < 6 {
				a.evidence(last.disp[i].ev)
			}
		}
		// queues: the latest dump that lists them
		for i := len(ds) - 1; i >= 0; i-- {
			if len(ds[i].queues) == 0 {
				continue
			}
			for _, q := range ds[i].queues {
				if q.Pending > 0 {
					h.Queues = append(h.Queues, q)
				}
			}
			break
		}
		h.WaveGroups = waveGroups(last)
		for i, w := range last.waveIDs {
			if i >= 4 {
				break
			}
			a.evidence(last.waves[w].ev)
		}
	}
	// progress between the first and the last dump
	var first *gdbDump
	for _, d := range ds {
		if len(d.disp) > 0 || len(d.waves) > 0 {
			first = d
			break
		}
	}
	if first != nil && last != nil && first != last {
		if len(first.disp) > 0 {
			a.evidence(first.disp[0].ev)
		}
		h.Progress = progress(first, last)
		switch h.Progress {
		case "stuck":
			raise(0.9)
			if len(h.WaveGroups) > 0 {
				g := h.WaveGroups[0]
				a.addReason(strconv.Itoa(g.Waves) + " waves of " + kernelBase(g.Kernel) + " stay at PC " + g.PC + " in " + strconv.Itoa(h.Dumps) + " rocgdb dumps: the kernel never completes")
			} else {
				a.addReason("the same dispatches in " + strconv.Itoa(h.Dumps) + " rocgdb dumps: the kernel never completes")
			}
		case "moving":
			raise(0.35)
			a.addReason("progress between rocgdb dumps (dispatches or wave PCs moved): slow, not hung")
			a.note("the PCs / dispatches changed between dumps: the GPU is making progress — slow, not hung (unless the PCs cycle inside one spin loop: compare a third dump)")
		}
	}
	// the stuck kernel and its PC group
	kernel := ""
	if len(h.WaveGroups) > 0 {
		g := h.WaveGroups[0]
		kernel = g.Kernel
		pg := g.PC
		if pg == "" {
			pg = g.Location
		}
		desc := strconv.Itoa(g.Waves) + " waves of " + kernelBase(g.Kernel) + " at " + pg
		if len(g.ThreadIdx) > 0 {
			desc += " (threadIdx.x " + idxRange(g.ThreadIdx) + ")"
		}
		a.detail("pc_group", desc)
		raise(0.6)
		if isCollectiveKernel(g.Kernel) && g.Waves*10 >= 8*wavesOf(h.WaveGroups, g.Kernel) {
			raise(0.8)
			n := len(h.Agents)
			spin := "all " + strconv.Itoa(g.Waves) + " waves of the collective kernel " + kernelBase(g.Kernel) + " sit at one PC " + g.PC
			if len(g.ThreadIdx) > 0 && (n == 0 || len(g.ThreadIdx) <= n) && isPrefixRange(g.ThreadIdx) {
				spin += " with threadIdx.x " + idxRange(g.ThreadIdx) + " (one sync lane per GPU" + ngpus(n) + ")"
			}
			a.addReason("cross-rank barrier spin: " + spin)
			a.note(spin + ": a cross-rank barrier spin (start_sync/end_sync flag wait) — some rank never wrote the expected flag; open the kernel's start_sync/end_sync and map the PC to the loop before forming a theory")
			a.detail("hang_kind", "cross_rank_barrier_spin")
		}
	}
	if kernel == "" && len(h.Dispatches) > 0 {
		kernel = h.Dispatches[0].Kernel
	}
	// split-K shared-workspace race (R6)
	cleanQ := map[string]bool{}
	for _, x := range h.Dispatches {
		if strings.Contains(x.Kernel, "_clean") && fenceFull(x.Fence) {
			cleanQ[x.Queue] = true
			if kernel == "" || !strings.Contains(kernel, "_clean") && len(h.WaveGroups) == 0 {
				kernel = x.Kernel
			}
		}
	}
	if len(cleanQ) >= 2 {
		raise(0.8)
		a.addReason("shared-workspace race: " + strconv.Itoa(len(cleanQ)) + " _clean (split-K) dispatches on different queues, each with fence B|Aa|Ra")
		a.note("two or more _clean / split-K dispatches on different queues with fence B|Aa|Ra: the shared-workspace deadlock class — both atomic-increment one per-process workspace counter and neither reaches its count; fix: make the workspace cache stream-keyed (e.g. lru_cache over (device, stream)); serializing the streams (wait_stream / synchronize) only masks it")
		a.detail("hang_kind", "split_k_shared_workspace")
	}
	if len(h.Dispatches) > 0 {
		raise(0.6)
		if len(h.Dispatches) > 1 {
			qs := map[string]bool{}
			for _, x := range h.Dispatches {
				qs[x.Queue] = true
			}
			if len(qs) > 1 {
				a.note(strconv.Itoa(len(h.Dispatches)) + " dispatches in flight on " + strconv.Itoa(len(qs)) + " queues of one process: concurrent streams of one worker (not " + strconv.Itoa(len(qs)) + " ranks)")
			}
		}
		a.addReason("in-flight dispatches in the rocgdb dump")
	}
	for _, q := range h.Queues {
		kind := "kernel"
		if q.Type == "DMA" {
			kind = "copy (memcpy)"
		}
		a.note("queue " + q.ID + " (" + q.Type + ", " + kind + " queue): Write " + strconv.FormatInt(q.Write, 10) + " > Read " + strconv.FormatInt(q.Read, 10) + " — " + strconv.FormatInt(q.Pending, 10) + " packets pending behind a head dispatch that does not complete")
	}
	// the main thread's stack
	for i := len(ds) - 1; i >= 0; i-- {
		if len(ds[i].bt) == 0 {
			continue
		}
		h.HostStack = ds[i].bt
		h.HostWait = hostWait(ds[i].bt)
		for _, e := range ds[i].btEv[:min(3, len(ds[i].btEv))] {
			a.evidence(e)
		}
		break
	}
	switch h.HostWait {
	case "item":
		a.note("main thread: hipMemcpyAsync → memcpy_and_sync → _local_scalar_dense_cuda = a .item() (device-to-host scalar read) blocked on a kernel that never finishes")
		if len(h.Dispatches) > 0 {
			raise(0.75)
		} else {
			raise(0.45)
		}
		a.addReason(".item() on the main thread is blocked waiting for the GPU")
	case "synchronize":
		a.note("main thread waits for the GPU (stream/device synchronize, hsa_signal_wait): a prior kernel never completes")
		if len(h.Dispatches) > 0 {
			raise(0.7)
		} else {
			raise(0.45)
		}
		a.addReason("the main thread is blocked waiting for the GPU")
	}
	// "No dispatches / No queues are currently active"
	for _, d := range ds {
		if drainedIdle(d) && h.HostWait == "" && len(h.Dispatches) == 0 && len(h.WaveGroups) == 0 {
			// rocgdb sees the process's queues and every one is drained: the
			// worker has no GPU work at all — nothing hung on this GPU
			// (crash-heldout3 e10); not the inconclusive case below
			break
		}
		if (d.noDisp || d.noQueues) && len(d.disp) == 0 && d.noEv != nil {
			a.evidence(*d.noEv)
			msg := "rocgdb lists no dispatches / queues"
			if len(d.agents) > 0 {
				msg += " although it sees " + strconv.Itoa(len(d.agents)) + " agents"
			}
			a.note(msg + ": the rocm-debug-agent (HSA_TOOLS_LIB) holds the HSA debugger hook, or the attached process is the dispatcher with no GPU work — relaunch without the debug agent and attach to a worker (PPID = dispatcher)")
			a.detail("rocgdb_no_dispatches", "debug agent holds the hook or not a worker")
			// nothing stuck is visible: a finding only when something else
			// points at a hang (the host waiting for the GPU, busy GPUs,
			// another source) — an attach to the dispatcher (seed 001 R2)
			// or an idle process shows none
			if len(h.Dispatches) == 0 && len(h.WaveGroups) == 0 {
				for _, q := range d.queues {
					if q.Write > q.Read {
						raise(0.3) // packets wait in a queue nobody consumes
						break
					}
				}
				a.addReason("inconclusive rocgdb dump: no dispatches or queues visible")
			}
			break
		}
	}
	// rocm-smi 100 % busy: a livelock
	if len(inc.smiBusy) > 0 {
		h.GPUBusy = inc.smiBusy
		for _, e := range inc.smiEv {
			a.evidence(e)
		}
		a.note("rocm-smi shows " + strconv.Itoa(len(inc.smiBusy)) + " GPU(s) at 100 % use while no kernel completes: a livelock (spinning waves), not an idle hang")
		raise(0.5)
	}
	if kernel != "" {
		a.setKernel(kernel, "rocgdb dump (stuck dispatch / wave PC group)", 70)
		a.detail("stuck_kernel", kernel)
	}
	if h.AttachedPID != nil {
		a.detail("attached_pid", strconv.Itoa(*h.AttachedPID))
		a.setPID(*h.AttachedPID)
	}
	a.detail("rocgdb_dumps", strconv.Itoa(h.Dumps))
	a.detail("progress", h.Progress)
	if conf > a.conf {
		a.conf = conf
	}
	if h.Progress == "moving" && a.conf > 0.35 && conf <= 0.35 {
		a.conf = 0.35
	}
	if h.Progress == "moving" {
		a.conf = min(a.conf, 0.4)
	}
	a.f.Hang = h
	// a plain gdb attach (host stack without any GPU wait) is no GPU hang
	if created && conf == 0 {
		return
	}
	// the GPU finished work between the dumps (seed 001/003: two dumps a few
	// seconds apart; a dispatch listed in both is the stuck one): no dispatch
	// of the first dump is left in the last, or a queue's Read moved on.
	// Nothing else pointing at a hang, the dumps show a GPU at work, not a
	// hung one — no finding (moved wave PCs alone may cycle in a spin loop
	// and stay a low-confidence hang)
	if created && first != nil && last != nil && first != last && workConsumed(first, last) &&
		len(h.WaveGroups) == 0 && len(cleanQ) < 2 && h.HostWait == "" && len(inc.smiBusy) == 0 {
		return
	}
	a.f.Count++
	a.strong = true
	work[ClassGPUKernelHang] = a
}

// drainedIdle: a dump that says "No dispatches are currently active" and
// lists the process's queues with every Read equal to its Write — rocgdb
// has the debugger hook (it sees the queues) and no packet is waiting: an
// idle worker, not an inconclusive dump (the debug agent hides the queues;
// a dispatcher has none).
func drainedIdle(d *gdbDump) bool {
	if !d.noDisp || len(d.disp) > 0 || len(d.waves) > 0 || len(d.queues) == 0 {
		return false
	}
	for _, q := range d.queues {
		if q.Write != q.Read {
			return false
		}
	}
	return true
}

// workConsumed: between two dumps of one worker the GPU completed work —
// none of the first dump's dispatches is listed in the last, or the Read
// pointer of a queue listed in both advanced.
func workConsumed(f, l *gdbDump) bool {
	if len(f.disp) > 0 && len(l.disp) > 0 {
		kept := false
		for _, x := range f.disp {
			for _, y := range l.disp {
				if x.ID == y.ID && x.Kernel == y.Kernel {
					kept = true
				}
			}
		}
		if !kept {
			return true
		}
	}
	for _, q := range f.queues {
		for _, r := range l.queues {
			if q.ID == r.ID && r.Read > q.Read {
				return true
			}
		}
	}
	return false
}

// progress compares two dumps of one worker.
func progress(f, l *gdbDump) string {
	same := 0
	for _, x := range l.disp {
		for _, y := range f.disp {
			if x.ID == y.ID && x.Kernel == y.Kernel {
				same++
				break
			}
		}
	}
	if len(l.disp) > 0 && len(f.disp) > 0 && same == 0 {
		return "moving"
	}
	eq, moved := 0, 0
	for id, w := range l.waves {
		v := f.waves[id]
		if v == nil || w.pc == "" && w.loc == "" {
			continue
		}
		if v.pc == w.pc && v.loc == w.loc {
			eq++
		} else {
			moved++
		}
	}
	switch {
	case moved > 0:
		return "moving"
	case eq > 0 || same > 0:
		return "stuck"
	}
	return "single_dump"
}

// waveGroups groups the waves of a dump by (kernel, PC), largest first.
func waveGroups(d *gdbDump) []WaveGroup {
	type key struct{ pc, kernel string }
	idx := map[key]int{}
	var out []WaveGroup
	wgs := map[key]map[string]bool{}
	for _, id := range d.waveIDs {
		w := d.waves[id]
		if w.pc == "" && w.loc == "" {
			continue
		}
		k := w.fn
		if k == "" || k == "??" {
			k = dispatchKernel(d, id)
		}
		kk := key{w.pc, k}
		if w.pc == "" {
			kk.pc = "@" + w.loc
		}
		i, ok := idx[kk]
		if !ok {
			i = len(out)
			idx[kk] = i
			out = append(out, WaveGroup{PC: w.pc, Location: w.loc, Kernel: k})
			wgs[kk] = map[string]bool{}
		}
		g := &out[i]
		g.Waves++
		wgs[kk][w.workgroup] = true
		g.Workgroups = len(wgs[kk])
		for _, x := range w.lanes {
			if !containsInt(g.ThreadIdx, x) && len(g.ThreadIdx) < maxWaveLanes {
				g.ThreadIdx = append(g.ThreadIdx, x)
			}
		}
		if dp := dispatchOf(id); dp != "" && !containsStr(g.Dispatches, dp) && len(g.Dispatches) < 8 {
			g.Dispatches = append(g.Dispatches, dp)
		}
	}
	for i := range out {
		sort.Ints(out[i].ThreadIdx)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Waves > out[j].Waves })
	if len(out) > 16 {
		out = out[:16]
	}
	return out
}

func dispatchOf(wave string) string {
	if i := strings.LastIndexByte(wave, ':'); i > 0 {
		return wave[:i]
	}
	return ""
}

func dispatchKernel(d *gdbDump, wave string) string {
	id := dispatchOf(wave)
	for _, x := range d.disp {
		if x.ID == id {
			return x.Kernel
		}
	}
	return ""
}

func wavesOf(gs []WaveGroup, kernel string) int {
	n := 0
	for _, g := range gs {
		if g.Kernel == kernel {
			n += g.Waves
		}
	}
	return n
}

var reCollectiveKernel = lazyre.New(`(?i)nccl|rccl|allgather|all_gather|allreduce|all_reduce|reduce_scatter|reducescatter|cross_device|custom_ar|alltoall|all_to_all|barrier|_sync\b`)

func isCollectiveKernel(k string) bool { return k != "" && reCollectiveKernel.MatchString(k) }

// fenceFull: a barrier with acquire and release at agent (or system) scope.
func fenceFull(f string) bool {
	return strings.Contains(f, "B") && (strings.Contains(f, "Aa") || strings.Contains(f, "As")) && (strings.Contains(f, "Ra") || strings.Contains(f, "Rs"))
}

func hostWait(bt []string) string {
	j := strings.Join(bt, "\n")
	switch {
	case strings.Contains(j, "_local_scalar_dense") || strings.Contains(j, "memcpy_and_sync"):
		return "item"
	case containsAny(j, "Synchronize", "synchronize", "hsa_signal_wait", "hipEventSynchronize", "cudaEventSynchronize"):
		return "synchronize"
	case containsAny(j, "ncclComm", "ProcessGroupNCCL", "all_reduce", "allreduce", "gloo"):
		return "collective"
	}
	return ""
}

func isPrefixRange(xs []int) bool {
	for i, x := range xs {
		if x != i {
			return false
		}
	}
	return len(xs) > 0
}

func idxRange(xs []int) string {
	if isPrefixRange(xs) && len(xs) > 2 {
		return "0.." + strconv.Itoa(len(xs)-1)
	}
	return intsString(xs)
}

// kernelBase drops a demangled kernel's return type and parameter list:
// "void ns::k<T, 8>(A*, int)" → "ns::k<T, 8>".
func kernelBase(k string) string {
	k = strings.TrimPrefix(strings.TrimSpace(k), "void ")
	depth := 0
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '<':
			depth++
		case '>':
			depth--
		case '(':
			if depth == 0 && i > 0 {
				return k[:i]
			}
		}
	}
	return k
}

func ngpus(n int) string {
	if n == 0 {
		return ""
	}
	return "; " + strconv.Itoa(n) + " agents"
}
