package crash

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

var classTitles = map[string]string{
	ClassGPUMemoryFault:     "GPU memory access fault",
	ClassDeviceAssert:       "device-side assert / trap",
	ClassIllegalInstruction: "illegal instruction on the GPU",
	ClassArchMismatch:       "no code object for this GPU architecture",
	ClassVRAMOOM:            "GPU memory (VRAM) out of memory",
	ClassHostOOMKill:        "process killed by SIGKILL (host OOM killer)",
	ClassHostSegfault:       "host-side segmentation fault",
	ClassGPUHangReset:       "GPU hang / reset / firmware failure",
	ClassECCRAS:             "ECC / RAS hardware error",
	ClassDMADriverFault:     "DMA engine / driver page fault",
	ClassCollectiveTimeout:  "collective operation timeout (NCCL/RCCL watchdog)",
	ClassRCCLTransport:      "RCCL/NCCL init or transport failure",
	ClassCPUHang:            "CPU-side / Python hang",
	ClassGPUKernelHang:      "GPU kernel never completes (GPU-side hang)",
	ClassTritonCompile:      "Triton compile failure",
	ClassFP8AttentionCrash:  "FP8 / flash-attention kernel crash",
	ClassAsyncRace:          "asynchronously reported error: the reported location is not the fault site",
	ClassInvalidLaunch:      "invalid launch configuration / resources",
	ClassKernelNotFound:     "kernel module or symbol not found",
	ClassNotGPU:             "application or environment error (no GPU fault)",
	ClassNumericalNaN:       "NaN/Inf first appears in a kernel's output",
}

var classMeanings = map[string]string{
	ClassGPUMemoryFault:     "a kernel (or the GPU on its behalf) accessed an address that is not mapped or not permitted; on ROCm the process then aborts (SIGABRT)",
	ClassDeviceAssert:       "a kernel executed a trap: a device-side assert (index bounds checks in PyTorch ops) or __builtin_trap",
	ClassIllegalInstruction: "the GPU met an instruction it cannot execute: code built for another gfx ISA or a corrupt code object",
	ClassArchMismatch:       "the binary has no code object for this GPU's gfx target (or an xnack/sramecc variant mismatch)",
	ClassVRAMOOM:            "a device allocation failed",
	ClassHostOOMKill:        "the process got SIGKILL (exit 137 / -9): usually the kernel OOM killer or a container memory limit; a manual kill -9 looks the same",
	ClassHostSegfault:       "the host process crashed with SIGSEGV (exit 139 / -11): a CPU-side bug, not a GPU fault (GPU faults on ROCm abort instead)",
	ClassGPUHangReset:       "the GPU or its firmware stopped responding and the driver reset it",
	ClassECCRAS:             "the hardware reported an uncorrectable memory error",
	ClassDMADriverFault:     "the fault came from the copy engine or the driver path, not from a shader",
	ClassCollectiveTimeout:  "a collective did not complete on all ranks within the timeout",
	ClassKernelNotFound:     "a kernel module or symbol could not be loaded at run time: wrong code-object path, a kernel name that is not a symbol of the module (C++ mangling), or a module built for another gfx target",
	ClassRCCLTransport:      "the collective library failed to set up or use its transport (P2P / IPC / network)",
	ClassCPUHang:            "the host side stopped making progress (scheduler watchdog, threads blocked)",
	ClassGPUKernelHang:      "a dispatched kernel never finishes, so the host waits forever",
	ClassTritonCompile:      "Triton failed to compile or load a kernel: a toolchain / cache problem, not a runtime GPU fault",
	ClassFP8AttentionCrash:  "the fault is in an FP8 / attention kernel path (AITER / CK / FlashInfer / MLA)",
	ClassAsyncRace:          "GPU errors are reported at a later API call; the stack trace points at the wrong place",
	ClassInvalidLaunch:      "the launch configuration exceeds device limits or resources",
	ClassNotGPU:             "no GPU fault was found; the failure is an application or environment error",
	ClassNumericalNaN:       "a kernel produced NaN/Inf from inputs that had none: the numbers go bad inside that call",
}

var gpuCrashClasses = []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassGPUKernelHang}

func (a *agg) clone() *agg {
	c := *a
	c.evFirst = append([]Evidence(nil), a.evFirst...)
	c.evLast = append([]Evidence(nil), a.evLast...)
	c.reasons = append([]string(nil), a.reasons...)
	c.queues = append([]string(nil), a.queues...)
	c.addresses = append([]string(nil), a.addresses...)
	c.nodes = append([]int(nil), a.nodes...)
	c.kernels = append([]string(nil), a.kernels...)
	c.notes = append([]string(nil), a.notes...)
	c.seqs = append([]int(nil), a.seqs...)
	c.ranks = map[int]bool{}
	for k, v := range a.ranks {
		c.ranks[k] = v
	}
	c.details = map[string]string{}
	for k, v := range a.details {
		c.details[k] = v
	}
	c.f.StopPCs = append([]PCCount(nil), a.f.StopPCs...)
	c.f.Disassembly = append([]string(nil), a.f.Disassembly...)
	return &c
}

// mergeInto folds src into dst.
func mergeInto(dst, src *agg) {
	for _, e := range src.evFirst {
		dst.evidence(e)
	}
	for _, e := range src.evLast {
		dst.evidence(e)
	}
	for _, q := range src.queues {
		dst.addQueue(q)
	}
	for r := range src.ranks {
		dst.rank(r)
	}
	for k, v := range src.details {
		dst.detail(k, v)
	}
	for _, n := range src.notes {
		dst.note(n)
	}
	dst.setHSA(src.f.HSAStatus, src.f.HSACode)
	if dst.f.HIPError == "" && src.f.HIPError != "" {
		dst.f.HIPError, dst.f.HIPErrorCode, dst.f.CUDAError = src.f.HIPError, src.f.HIPErrorCode, src.f.CUDAError
	}
	if dst.f.ExitCode == nil {
		dst.f.ExitCode = src.f.ExitCode
	}
	dst.setStr(&dst.f.Signal, src.f.Signal)
	if src.f.Kernel != "" {
		dst.setKernel(src.f.Kernel, src.f.KernelSource, src.kernelPrio-1)
	}
	dst.f.Count += src.f.Count
}

// siteMoved: one process (one line rank, or the unranked lines) reported
// the error at two places; two ranks each at its own place are two
// processes, not a moving site.
func siteMoved(ranks []int) bool {
	for i, r := range ranks {
		for _, q := range ranks[i+1:] {
			if q == r {
				return true
			}
		}
	}
	return false
}

func isWeakTrap(a *agg) bool {
	for _, r := range a.reasons {
		if containsAny(r, "ASSERT", "ssert", "TRAP", "FP_", "DIVIDE", "SIG", "CUDA exception", "Xid") {
			return false
		}
	}
	return !a.strong
}

func (b *builder) diagnosis(s *Session) *Diagnosis {
	f := &b.facts
	// several per-process kernel-API logs: report the dead process's log
	// (restored afterwards: the session may read on)
	var faulted []int
	for _, c := range gpuCrashClasses {
		if a := b.byClass[c]; a != nil && a.kernelPID > 0 && !containsInt(faulted, a.kernelPID) {
			faulted = append(faulted, a.kernelPID)
		}
	}
	if g, ok := f.kernelAPI.crashedLog(f.exits, faulted); ok {
		saved := f.kernelAPI
		defer func() { f.kernelAPI = saved }()
		k := &f.kernelAPI
		k.lastCall, k.lastCallEv, k.lastDone, k.pid, k.logFile, k.args = g.lastCall, g.ev, g.done, g.pid, g.file, g.args
	}
	work := map[string]*agg{}
	for c, a := range b.byClass {
		work[c] = a.clone()
	}
	b.hangFindings(s, work)      // rocgdb hang dumps (gdbhang.go)
	b.hangSnapshotRanOn(s, work) // trainstep.go
	b.hostLockHang(work)         // gdblock.go
	b.pyspyCollectiveHang(work)
	b.pyspyBusyServing(work)
	b.pyspyWaitersOfGPUHang(work)
	watchdogOfGPUHang(work) // hang.go
	runtimeVendor(f, work)  // evidence.go
	hipReading(f, work)
	dimBugFinding(s.limits, work)  // launch.go
	vgprExplainsISA(work)          // launch.go
	launchBoundsExplainsTrap(work) // launchbounds.go
	// a generic trap status (HSA 0x1016 / hipErrorLaunchFailure) next to a
	// specific wave reason belongs to that finding
	if da := work[ClassDeviceAssert]; da != nil && isWeakTrap(da) {
		for _, c := range []string{ClassGPUMemoryFault, ClassIllegalInstruction} {
			if t := work[c]; t != nil {
				mergeInto(t, da)
				delete(work, ClassDeviceAssert)
				break
			}
		}
	}
	primaryGPU := func() *agg {
		for _, c := range gpuCrashClasses {
			if a := work[c]; a != nil {
				return a
			}
		}
		return nil
	}
	// kernel hints (disassembly blocks, OFFLOAD launched kernel, rocgdb)
	if a := primaryGPU(); a != nil {
		var best *kernelHint
		for i := range f.kernelHints {
			h := &f.kernelHints[i]
			if best == nil || h.prio > best.prio {
				best = h
			}
		}
		if best != nil && (a.f.Kernel == "" || best.prio > a.kernelPrio) {
			a.setKernel(best.name, best.source, best.prio)
			if best.ev.File != "" {
				a.evidence(best.ev)
			}
		}
		for _, blk := range f.disasm {
			if blk.function != "" && (a.f.Kernel == blk.function || strings.Contains(a.f.Kernel, blk.function)) {
				attachDisasm(a, blk)
			}
		}
	}
	// process ends by SIGABRT & co. belong to the root cause
	if len(f.aborts) > 0 {
		var target *agg
		for _, c := range Classes {
			if a := work[c]; a != nil && c != ClassHostOOMKill && c != ClassHostSegfault && c != ClassAsyncRace && c != ClassNotGPU {
				target = a
				break
			}
		}
		if target != nil {
			for _, ab := range f.aborts {
				target.evidence(ab.ev)
				target.setStr(&target.f.Signal, ab.signal)
				if ab.hasCode {
					target.setExit(ab.code)
				}
				if ab.host != "" {
					target.setStr(&target.f.Host, ab.host)
				}
				if ab.task != "" {
					target.detail("task", ab.task)
				}
				if ab.pid > 0 && target.f.PID == nil {
					target.detail("exited_pid", itoa(ab.pid))
				}
			}
		}
	}
	// a native crash under faulthandler: where the crashing thread was
	if a := work[ClassHostSegfault]; a != nil && f.crashLoc != "" {
		a.setStr(&a.f.Location, f.crashLoc)
		a.evidence(*f.crashLocEv)
	}
	// asynchronous error reporting
	var base *agg
	for _, c := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction} {
		if work[c] != nil {
			base = work[c]
			break
		}
	}
	asyncFromSticky := f.asyncFrom != "" && containsAny(f.asyncFrom, "SetDevice", "synchronize", "Synchronize", "~", "Destructor", "destructor")
	if base != nil && (f.asyncHint != nil || asyncFromSticky) {
		a := &agg{f: Finding{Class: ClassAsyncRace}, ranks: map[int]bool{}, details: map[string]string{}, order: 1 << 20}
		a.f.Count = 1
		a.conf = 0.8
		if f.asyncHint == nil {
			a.conf = 0.6
		}
		if f.asyncHint != nil {
			a.evidence(*f.asyncHint)
		}
		if f.locEv != nil {
			a.evidence(*f.locEv)
		}
		a.f.HIPError, a.f.HIPErrorCode, a.f.CUDAError = base.f.HIPError, base.f.HIPErrorCode, base.f.CUDAError
		a.addReason("the error was reported asynchronously at a later API call")
		if f.location != "" {
			loc := f.location
			if f.locCode != "" {
				loc += ": " + f.locCode
			}
			a.f.Location = loc
			a.note("the reported location (" + clip(loc, 200) + ") is not the fault site: the failing kernel was launched earlier")
		}
		if f.asyncFrom != "" {
			a.detail("raised_from", f.asyncFrom)
			if asyncFromSticky {
				a.note("the error surfaced in " + f.asyncFrom + " (a background thread / later call): a sticky error from an earlier kernel")
			}
		}
		a.setKernel(base.f.Kernel, "from the "+base.f.Class+" finding", 1)
		work[ClassAsyncRace] = a
		base.note("the reported location is not the fault site (asynchronous error reporting)")
		if siteMoved(f.asyncRanks) {
			// the same error reported at different places (across runs or
			// retries): the site moves, so the race is the root cause and
			// the reported error its symptom (seed 003 step 5)
			a.conf = 0.85
			a.addReason("the same error was reported at " + strconv.Itoa(len(f.asyncSites)) + " different places (" + clip(strings.Join(f.asyncSites, "; "), 200) + "): the reported site moves")
			base.f.ConsequenceOf = ClassAsyncRace
			base.note("a consequence of the async_race finding: the reported site moves between reports (root cause first)")
		}
	} else if base != nil && f.location != "" {
		loc := f.location
		if f.locCode != "" {
			loc += ": " + f.locCode
		}
		base.setStr(&base.f.Location, loc)
	}
	// FP8 / attention kernels
	if base != nil {
		km := strings.ToLower(base.f.Kernel)
		if f.fp8 != nil || reAttnKernel.MatchString(km) {
			a := &agg{f: Finding{Class: ClassFP8AttentionCrash}, ranks: map[int]bool{}, details: map[string]string{}, order: 1 << 20}
			a.f.Count = 1
			a.conf = 0.55
			if f.fp8 != nil {
				a.evidence(*f.fp8)
				a.addReason("FP8 KV cache in use")
				a.conf = 0.6
			}
			for _, e := range base.evFirst[:min(2, len(base.evFirst))] {
				a.evidence(e)
			}
			a.setKernel(base.f.Kernel, base.f.KernelSource, base.kernelPrio)
			a.addReason(base.f.Class + " in an attention-path kernel")
			work[ClassFP8AttentionCrash] = a
			if fp8Root(base, f) {
				// the runtime's failure says only that a kernel died; the
				// FP8 KV cache and the attention path it died in are the
				// specific reading (seed 000 pattern 3), so they lead
				a.conf = 0.7
				a.addReason("the failure is a generic launch failure raised from the attention path (" + clip(f.location, 120) + ")")
				base.f.ConsequenceOf = ClassFP8AttentionCrash
				base.note("a consequence of the fp8_attention_crash finding: an unspecified launch failure raised from the FP8 attention path (root cause first)")
			}
		}
	}
	// a weak transport warning alone next to a real finding is noise
	if r := work[ClassRCCLTransport]; r != nil && r.conf < 0.4 && len(work) > 1 {
		delete(work, ClassRCCLTransport)
	}
	b.applyMIOpenKernel(work) // miopenkernel.go
	b.applyContainer(s, work) // container.go
	// application error without GPU evidence
	if len(work) == 0 && f.lastException != "" && f.lastExcEv != nil {
		a := &agg{f: Finding{Class: ClassNotGPU}, ranks: map[int]bool{}, details: map[string]string{}}
		a.f.Count = 1
		a.conf = 0.5
		a.evidence(*f.lastExcEv)
		a.addReason(f.lastException)
		a.f.Location = f.location
		work[ClassNotGPU] = a
	}
	// a worker that exited with a plain code (no signal, no GPU evidence):
	// its own error, printed in its own output; the launcher only relays it
	if e, ok := b.appFailure(); ok && len(work) == 0 {
		a := &agg{f: Finding{Class: ClassNotGPU}, ranks: map[int]bool{}, details: map[string]string{}}
		a.f.Count = 1
		a.conf = 0.5
		a.evidence(e.ev)
		a.setExit(e.code)
		a.addReason("a worker exited with code " + itoa(e.code) + " on its own (no signal, no GPU fault in the evidence): an application error")
		work[ClassNotGPU] = a
	}
	b.containerNotGPU(work)
	b.kernelAPIFindings(s, work) // kernelapi_detail.go
	// collectives
	if a := work[ClassCollectiveTimeout]; a != nil {
		b.collectiveNotes(a, work)
	}
	// arch of a Tensile kernel vs the device
	for _, a := range work {
		if isa := kernelISA(a.f.Kernel); isa != "" {
			a.detail("kernel_isa", isa)
			if len(f.gpuArch) > 0 && !containsStr(f.gpuArch, isa) {
				a.note("the kernel was built for " + isa + " but the log shows " + strings.Join(f.gpuArch, ", ") + ": ISA / code-object mismatch")
				if work[ClassArchMismatch] == nil && a.f.Class == ClassIllegalInstruction {
					m := a.clone()
					m.f.Class = ClassArchMismatch
					m.order = a.order + 1
					m.conf = 0.7
					work[ClassArchMismatch] = m
				}
			} else {
				a.note("the kernel name says " + isa + " (ISA" + strings.TrimPrefix(isa, "gfx") + "): check that it matches the GPU (rocminfo | grep gfx)")
			}
		}
	}
	b.incident(s, work) // culprits, consequence_of (incident.go)
	d := &Diagnosis{Findings: []Finding{}}
	for _, a := range work {
		d.Findings = append(d.Findings, b.finding(s, a))
	}
	sort.SliceStable(d.Findings, func(i, j int) bool {
		ri, rj := classRank(d.Findings[i].Class), classRank(d.Findings[j].Class)
		if ri != rj {
			return ri < rj
		}
		return d.Findings[i].Class < d.Findings[j].Class
	})
	orderByCause(d.Findings)
	d.FailureReason = b.failureReason(d)
	d.DetailJSON = b.detailJSON(d) // kernelapi_detail.go
	return d
}

// fp8Root: the base finding is the runtime's generic launch failure
// (hipErrorLaunchFailure, no assert message, no fault address) under an FP8
// KV cache, raised from an attention-path frame. A memory fault keeps the
// lead: its page fault is the more specific observation (crash-seedcases
// c15, c21).
func fp8Root(base *agg, f *facts) bool {
	loc := strings.ToLower(f.location)
	return f.fp8 != nil && base.f.Class == ClassDeviceAssert && base.f.HIPError == "hipErrorLaunchFailure" &&
		base.details["assert_message"] == "" && base.f.Address == "" &&
		(reAttnKernel.MatchString(loc) || strings.Contains(loc, "attention"))
}

var reAttnKernel = lazyre.New(`fmha|mha_fwd|mha_bwd|flash_attn|flash_fwd|paged_attention|pa_fwd|\bmla\b|mla_|_mla|fp8.*attn|attn.*fp8`)

func (b *builder) collectiveNotes(a *agg, work map[string]*agg) {
	seqs := append([]int(nil), a.seqs...)
	sort.Ints(seqs)
	n := len(a.ranks)
	switch {
	case len(seqs) == 1 && seqs[0] == 1:
		a.note("SeqNum=1: the very first collective hung — an init / transport problem (NCCL_DEBUG=INFO)")
	case len(seqs) == 1:
		a.note("every reporting rank (" + strconv.Itoa(n) + ") is stuck on the same SeqNum " + strconv.Itoa(seqs[0]) + ": the collective never completed — a rank is missing (not reporting) or hung inside a kernel")
	case len(seqs) > 1:
		a.note("ranks report different SeqNums: desync — the ranks issued different collective sequences")
	}
	if len(seqs) > 0 {
		if c, err := strconv.Atoi(a.details["last_completed_work"]); err == nil && c < seqs[0]-1 {
			a.note("several collectives were outstanding (last completed " + strconv.Itoa(c) + ")")
		}
	}
	for _, c := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassGPUKernelHang, ClassGPUHangReset} {
		if work[c] != nil {
			a.note("a " + c + " is also present: the timeouts on the other ranks are most likely its consequence")
			break
		}
	}
}

// finding renders an aggregate.
func (b *builder) finding(s *Session, a *agg) Finding {
	b.degarbleKernels(a)                // interleave.go
	faultKernelByRegisters(a, &b.facts) // regaddr.go
	addressFromStopInsn(a, &b.facts)    // stopinsn.go
	f := a.f
	facts := &b.facts
	f.Ranks = sortedInts(a.ranks)
	if len(a.reasons) > 1 {
		f.Reasons = a.reasons
	}
	if len(a.addresses) > 1 {
		f.Addresses = a.addresses
	}
	if len(a.nodes) > 1 {
		f.Nodes = append([]int(nil), a.nodes...)
		sort.Ints(f.Nodes)
	}
	if len(a.kernels) > 1 {
		f.Kernels = a.kernels
	}
	if len(a.queues) > 0 {
		f.Queues = a.queues
		f.QueueCount = a.queueN
		if a.queueN > 1 {
			a.note(strconv.Itoa(a.queueN) + " distinct queues failed: " + strconv.Itoa(a.queueN) + " processes / ranks hit the error")
		}
	}
	if len(a.seqs) > 1 {
		f.SeqNums = append([]int(nil), a.seqs...)
		sort.Ints(f.SeqNums)
	}
	if f.KernelMeaning == "" {
		f.KernelMeaning = kernelMeaning(f.Kernel)
	}
	// reason meaning
	for _, r := range append([]string{f.Reason}, a.reasons...) {
		if m := reasonMeaning(r); m != "" {
			f.ReasonMeaning = m
			break
		}
	}
	if f.ReasonMeaning == "" && f.HSAStatus != "" {
		if st := lookupHSA(f.HSAStatus); st != nil {
			f.ReasonMeaning = st.meaning
		}
	}
	if f.ReasonMeaning == "" && f.HIPError != "" {
		if e := lookupHIPName(f.HIPError); e != nil {
			f.ReasonMeaning = e.meaning
		}
	}
	if f.Class == ClassVRAMOOM && f.SubKind != "" {
		f.ReasonMeaning = oomSubKindText[f.SubKind]
		if f.Reason == "" {
			f.Reason = strings.ReplaceAll(f.SubKind, "_", " ")
		}
		if f.SubKind == "device_capacity" && facts.vramText != "" {
			a.note("the driver reports " + facts.vramText + " while PyTorch sees a smaller capacity: an APU/UMA carve-out or GTT/TTM limit")
		}
	}
	if f.Reason == "" && f.HIPError != "" {
		if e := lookupHIPName(f.HIPError); e != nil {
			f.Reason = e.text
		}
	}
	if f.Reason == "" && f.HSAStatus != "" {
		f.Reason = f.HSAStatus
	}
	if f.Class == ClassGPUMemoryFault || f.Class == ClassDMADriverFault {
		f.AddressKind = addressKind(f.Address, a.reasons)
		if pg := a.details["dmesg_page"]; pg != "" && f.Address != "" {
			pv, _ := addrValue(pg)
			av, _ := addrValue(f.Address)
			if pv == av&^0xfff && a.details["source"] != "" {
				a.note("the runtime fault address equals the dmesg fault page " + pg + ": same fault (pid " + a.details["dmesg_pid"] + ")")
			}
		}
	}
	if f.Class == ClassGPUMemoryFault && facts.svmMiss != nil {
		// XNACK retry faults are resolved by SVM migration; an address in no
		// SVM range cannot be migrated: a genuinely invalid address
		a.evidence(*facts.svmMiss)
		m := "the address is in no SVM range (svm_range_restore_pages found no prange): a genuinely invalid address, not a page-migration problem"
		if facts.xnackOn != nil {
			a.evidence(*facts.xnackOn)
			m = "XNACK is enabled (retry faults handled by SVM) but " + m
		}
		a.detail("svm", m)
		a.note(m)
	}
	if facts.override != "" && f.SubKind != "hsa_override" && (f.Class == ClassGPUMemoryFault || f.Class == ClassArchMismatch || f.Class == ClassIllegalInstruction) {
		a.note("HSA_OVERRIDE_GFX_VERSION=" + facts.override + " is set: the GPU runs code objects built for another gfx target")
	}
	if len(facts.gpuArch) > 0 {
		a.detail("gpu_arch_in_log", strings.Join(facts.gpuArch, ","))
	}
	b.kernelAPIDetails(a) // kernelapi_detail.go
	if len(a.details) > 0 {
		f.Details = a.details
	}
	f.ClassMeaning = classMeanings[f.Class]
	f.Summary = summary(&f)
	f.Evidence, f.EvidenceOmitted = b.evidence(s, a)
	a.conf = commandOnlyCap(a, f.Evidence) // container.go
	f.Confidence = float64(int(a.conf*100+0.5)) / 100
	switch {
	case f.Confidence >= 0.8:
		f.ConfidenceLevel = "high"
	case f.Confidence >= 0.55:
		f.ConfidenceLevel = "medium"
	default:
		f.ConfidenceLevel = "low"
	}
	f.NextSteps = nextStepsFor(&f, facts) // evidence.go
	if len(a.notes) > 0 {
		f.Notes = a.notes
	}
	return f
}

func (b *builder) evidence(s *Session, a *agg) ([]Evidence, int) {
	all := append(append([]Evidence(nil), a.evFirst...), a.evLast...)
	idx := map[string]int{}
	for i, fs := range s.files {
		if _, ok := idx[fs.info.Name]; !ok {
			idx[fs.info.Name] = i
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if idx[all[i].File] != idx[all[j].File] {
			return idx[all[i].File] < idx[all[j].File]
		}
		return all[i].Line < all[j].Line
	})
	out := all[:0]
	for i, e := range all {
		if i > 0 && e.File == all[i-1].File && e.Line == all[i-1].Line {
			continue
		}
		out = append(out, e)
	}
	omitted := a.evN - len(out)
	if omitted < 0 {
		omitted = 0
	}
	if out == nil {
		out = []Evidence{}
	}
	return out, omitted
}

func shortKernel(k string) string { return clip(k, 120) }

func summary(f *Finding) string {
	var b strings.Builder
	b.WriteString(classTitles[f.Class])
	if f.Kernel != "" && f.Class != ClassAsyncRace {
		b.WriteString(" in " + shortKernel(f.Kernel))
	}
	switch f.Class {
	case ClassGPUMemoryFault, ClassDMADriverFault:
		if f.Address != "" {
			b.WriteString(" at " + f.Address)
		}
	case ClassVRAMOOM:
		if f.RequestedBytesText != "" {
			b.WriteString(": tried to allocate " + f.RequestedBytesText)
			if c := f.Details["total_capacity"]; c != "" {
				b.WriteString(" (capacity " + c + ", free " + f.Details["free"] + ")")
			}
		}
	case ClassCollectiveTimeout:
		if f.OpType != "" {
			b.WriteString(": " + f.OpType)
		}
		if f.SeqNum != nil {
			b.WriteString(" SeqNum " + strconv.Itoa(*f.SeqNum))
		}
		if len(f.Ranks) > 0 {
			b.WriteString(" on ranks " + intsString(f.Ranks))
		}
	}
	if f.Reason != "" && f.Class != ClassCollectiveTimeout {
		b.WriteString(" (" + clip(f.Reason, 140) + ")")
	}
	var where []string
	if f.Node != nil {
		where = append(where, "node-"+strconv.Itoa(*f.Node))
	}
	if f.Device != "" {
		where = append(where, "device "+f.Device)
	}
	if f.Host != "" {
		where = append(where, "host "+f.Host)
	}
	if f.PID != nil {
		p := "pid " + strconv.Itoa(*f.PID)
		if f.Process != "" {
			p = f.Process + " " + p
		}
		where = append(where, p)
	}
	if f.QueueCount > 1 {
		where = append(where, strconv.Itoa(f.QueueCount)+" queues")
	}
	if f.Class != ClassCollectiveTimeout && len(f.Ranks) > 0 {
		where = append(where, "ranks "+intsString(f.Ranks))
	}
	if c := culpritWhere(f); c != "" {
		where = append(where, c)
	}
	if f.HSAStatus != "" && f.Class != ClassVRAMOOM {
		where = append(where, f.HSAStatus)
	}
	if f.HIPError != "" && f.Class != ClassVRAMOOM {
		where = append(where, f.HIPError)
	}
	if f.ExitCode != nil {
		where = append(where, "exit "+strconv.Itoa(*f.ExitCode))
	} else if f.Signal != "" {
		where = append(where, f.Signal)
	}
	if len(where) > 0 {
		b.WriteString(" — " + strings.Join(where, ", "))
	}
	return b.String()
}

func intsString(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

func (b *builder) failureReason(d *Diagnosis) string {
	if len(d.Findings) == 0 {
		if k := &b.facts.kernelAPI; k.crashedDump() != nil || k.exceptionAPI != "" {
			r := b.kernelAPIReason("")
			return "no GPU fault recognised" + r
		}
		if len(b.facts.aborts) > 0 {
			return "process ended by " + b.facts.aborts[0].signal + " without recognisable GPU evidence"
		}
		return "no crash evidence found"
	}
	f := d.Findings[0]
	r := f.Class + ": " + f.Summary
	if len(f.Evidence) > 0 {
		e := f.Evidence[0]
		// the file's name, not the caller's path to it: the same crash
		// reads the same from every folder it is analysed in
		r += " [" + path.Base(strings.ReplaceAll(e.File, "\\", "/")) + ":" + strconv.Itoa(e.Line) + "]"
	}
	r += b.kernelAPIReason(f.Class)
	return clip(strings.ReplaceAll(r, "\n", " "), 600)
}

// hipReading undoes CUDA's reading of an error (codes.go cudaErrors) on a
// ROCm session: ROCm 7 PyTorch prints "CUDA error: unspecified launch
// failure" too, and there the HIP reading (a trap without assert text) holds.
// Only a finding all of whose lines were such readings moves.
func hipReading(f *facts, work map[string]*agg) {
	if !f.vendorAMD && !f.runtimeAMD {
		return
	}
	for c, a := range work {
		if a.cudaReadings == 0 || a.cudaReadings != a.f.Count {
			continue
		}
		e := lookupHIPName(a.f.CUDAError)
		if e == nil || e.class == "" || e.class == c {
			continue
		}
		delete(work, c)
		a.cudaReadings = 0
		if dst := work[e.class]; dst != nil {
			mergeInto(dst, a)
			continue
		}
		a.f.Class = e.class
		a.f.HIPError = ""
		a.setHIP(e)
		work[e.class] = a
	}
}
