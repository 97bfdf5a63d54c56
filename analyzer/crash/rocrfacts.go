package crash

import "strings"

// ROCr runtime lines as typed facts (extractor → facts → rule). The
// extractors are pure: text in, fact out, no session state; they never
// decide a class. A new wording of these lines changes an extractor and
// rocrfacts_test.go only. The apply* functions are the rules that turn a
// fact into a finding.

// vmFault: "Memory access fault by GPU node-N (Agent handle: H) on address
// A[(may not be exact address)]. Reason: R."
type vmFault struct {
	node      int // KFD node id, -1 when absent
	agent     string
	address   string // as printed ("(nil)", "0x7f…")
	imprecise bool   // "(may not be exact address)"
	reasons   []string
}

func extractVMFault(t string) (vmFault, bool) {
	m := reROCrNode.FindStringSubmatchIndex(t)
	if m == nil {
		return vmFault{}, false
	}
	f := vmFault{node: atoiDef(t[m[2]:m[3]], -1)}
	rest := t[m[1]:]
	if r := reReasonTail.FindStringSubmatch(rest); r != nil {
		f.reasons = parseReasons(r[1])
	}
	if h := reAgentHandle.FindStringSubmatch(rest); h != nil {
		f.agent = h[1]
	}
	if ad := reOnAddress.FindStringSubmatch(rest); ad != nil {
		f.address = strings.TrimRight(ad[1], ".")
		f.imprecise = ad[2] != ""
	}
	return f, true
}

// applyVMFault: the fault is a GPU memory fault unless its reason says ECC
// (ecc_ras) or a hang recovery (gpu_hang_reset); the line's pid prefix names
// the process.
func (s *Session) applyVMFault(l *line, f vmFault) {
	a := s.b.add(s, reasonClass(f.reasons), l, 0.9)
	a.setNode(f.node)
	a.setStr(&a.f.Agent, f.agent)
	if f.address != "" {
		a.setAddress(f.address)
	}
	if f.imprecise {
		a.detail("address_precision", "may not be exact (imprecise)")
	}
	for _, r := range f.reasons {
		a.addReason(r)
	}
	a.detail("source", "ROCr VM fault handler")
	if l.pid > 0 {
		a.setPID(l.pid)
	}
}

// memoryError: "Memory critical error by agent node-N (Agent handle: H) on
// address A. Reason: Memory in use." — ROCr's HSA_AMD_MEMORY_ERROR_MEMORY_IN_USE,
// printed when the driver (hsaKmtFreeMemory) refuses to free an allocation.
type memoryError struct {
	node    int
	agent   string
	address string
	reason  string
}

func extractMemoryError(t string) (memoryError, bool) {
	m := reMemCritNode.FindStringSubmatchIndex(t)
	if m == nil {
		return memoryError{}, false
	}
	f := memoryError{node: atoiDef(t[m[2]:m[3]], -1)}
	rest := t[m[1]:]
	if h := reAgentHandle.FindStringSubmatch(rest); h != nil {
		f.agent = h[1]
	}
	if ad := reOnAddress.FindStringSubmatch(rest); ad != nil {
		f.address = strings.TrimRight(ad[1], ".")
	}
	if r := reReasonTail.FindStringSubmatch(rest); r != nil {
		f.reason = strings.TrimRight(strings.TrimSpace(r[1]), ".")
	}
	return f, true
}

// applyMemoryError: no shader touched a bad address — a driver-path failure
// (dma_driver_fault, sub_kind memory_in_use): ROCr's free path got EBUSY
// from the KFD ("[hsaKmtFreeMemory] … errno=16" right before it,
// ROCm/hip#3806), seen on APUs at model load (ROCm/legacy-rocm-build#6182,
// rjmalagon/ollama-linux-amd-apu#9) and when a container may not mmap
// /dev/kfd. The class holds when it stands alone. Defeater: a GPU error of
// the same process printed before it (ollama/ollama#11123: "ROCm error:
// invalid device function", then this line during the abort) — the free
// failed while the process tore down after that error, so it is that
// error's consequence, not a cause.
func (s *Session) applyMemoryError(l *line, f memoryError) {
	cause := s.earlierGPUError()
	conf := 0.85
	if cause != "" {
		conf = 0.5
	}
	a := s.b.add(s, ClassDMADriverFault, l, conf)
	if cause != "" && a.f.Count == 1 {
		a.f.ConsequenceOf = cause
		a.note("printed after " + cause + " while the process tore down: the allocation could not be freed because the GPU work had already failed; a consequence, not a cause")
	} else {
		a.strong = true
	}
	a.setNode(f.node)
	a.setStr(&a.f.Agent, f.agent)
	if f.address != "" {
		a.setAddress(f.address)
	}
	a.setStr(&a.f.SubKind, "memory_in_use")
	a.addReason("Memory in use: the driver could not free / map this allocation (ROCr memory error event, not a shader fault)")
	a.detail("source", "ROCr memory error event (HSA_AMD_MEMORY_ERROR_MEMORY_IN_USE)")
}

// hwException: "HW Exception by GPU node-N (Agent handle: H) reason :R" —
// ROCr's HSA_AMD_GPU_HW_EXCEPTION_EVENT (GPU hang recovered by a reset, or
// an ECC/RAS error). The spacing around the colon varies by ROCm version.
type hwException struct {
	node   int
	agent  string
	reason string
}

func extractHWException(t string) (hwException, bool) {
	m := findIf(t, "HW Exception by GPU node-", reHWException)
	if m == nil {
		return hwException{}, false
	}
	return hwException{node: atoiDef(m[1], -1), agent: m[2], reason: strings.TrimSpace(m[3])}, true
}

// applyHWException: a hang reset unless the reason names ECC.
func (s *Session) applyHWException(l *line, f hwException) {
	class := ClassGPUHangReset
	if strings.Contains(f.reason, "ECC") {
		class = ClassECCRAS
	}
	a := s.b.add(s, class, l, 0.9)
	a.setNode(f.node)
	a.setStr(&a.f.Agent, f.agent)
	a.addReason(f.reason)
}

// offloadFault: LLVM OpenMP offload's "OFFLOAD ERROR: memory access fault by
// GPU n (agent H) at virtual address A. Reasons: R" (the older plugin's
// "AMDGPU fatal error 1: Memory access fault by GPU n (agent H) at virtual
// address A. Reasons: R"). n is a device number, not a KFD node.
type offloadFault struct {
	device  string
	agent   string
	address string
	reasons []string
}

func extractOffloadFault(t string) (offloadFault, bool) {
	if !(strings.Contains(t, "OFFLOAD ERROR") || strings.Contains(t, "AMDGPU fatal error")) || !containsFoldASCII(t, "memory access fault by GPU") {
		return offloadFault{}, false
	}
	var f offloadFault
	if m := reOffloadFault.FindStringSubmatch(t); m != nil {
		f.device, f.agent, f.address = m[1], m[2], m[3]
	}
	if r := reReasonTail.FindStringSubmatch(t); r != nil {
		f.reasons = parseReasons(r[1])
	}
	return f, true
}

func (s *Session) applyOffloadFault(l *line, f offloadFault) {
	a := s.b.add(s, reasonClass(f.reasons), l, 0.9)
	a.detail("gpu_device_number", f.device)
	a.setStr(&a.f.Agent, f.agent)
	if f.address != "" {
		a.setAddress(f.address)
	}
	for _, r := range f.reasons {
		a.addReason(r)
	}
	a.detail("source", "LLVM OpenMP offload runtime (GPU n is a device number, not a KFD node)")
}

// extractOffloadKernel: the offload runtime's "Kernel '<name>'" line after
// a fault; an OpenMP region's mangled name in parentheses wins.
func extractOffloadKernel(t string) (string, bool) {
	m := reOffloadKern.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	k := m[1]
	if o := reOmpInParens.FindStringSubmatch(k); o != nil {
		k = o[1]
	}
	return k, true
}

// legacyFault: the fault line of old debug agents and runtimes:
// "Memory access fault at GPU Node: N / Address: A (reason)" and
// "[GPU Memory Error] Addr: A Reason: R".
type legacyFault struct {
	node    int
	address string
	reasons []string
	form    string // "agent" | "gpu_memory_error"
	agent   string // the agent's name, when the header names it
}

func extractLegacyFault(t string) (legacyFault, bool) {
	if m := findIf(t, "Memory access fault at GPU Node", reLegacyAgent); m != nil {
		return legacyFault{node: atoiDef(m[1], -1), address: m[2], reasons: parseReasons(m[3]), form: "agent"}, true
	}
	// the pre-release ROCm debugger's header names the agent, its node
	// and address follow on their own lines (ROCm/legacy-rocm-build#383)
	if i := strings.Index(t, "Memory access fault by GPU agent: "); i >= 0 {
		return legacyFault{node: -1, form: "agent", agent: strings.TrimSpace(t[i+len("Memory access fault by GPU agent: "):])}, true
	}
	if m := findIf(t, "[GPU Memory Error]", reGPUMemError); m != nil {
		return legacyFault{node: -1, address: m[1], reasons: parseReasons(m[2]), form: "gpu_memory_error"}, true
	}
	return legacyFault{}, false
}

func (s *Session) applyLegacyFault(l *line, f legacyFault) {
	if f.form == "agent" {
		s.format("rocm_debug_agent_legacy")
	}
	a := s.b.add(s, reasonClass(f.reasons), l, 0.85)
	if f.node >= 0 {
		a.setNode(f.node)
	}
	a.detail("agent_name", f.agent)
	a.setAddress(f.address)
	for _, r := range f.reasons {
		a.addReason(r)
	}
}

// extractFaultEvent: the system-event wording
// "HSA_AMD_GPU_MEMORY_FAULT_EVENT: <reason>)" carries reasons only.
func extractFaultEvent(t string) ([]string, bool) {
	if !strings.Contains(t, "HSA_AMD_GPU_MEMORY_FAULT_EVENT") {
		return nil, false
	}
	return parseReasons(submatch(reSystemEvent, t)), true
}

func (s *Session) applyFaultEvent(l *line, reasons []string) {
	a := s.b.add(s, reasonClass(reasons), l, 0.85)
	for _, r := range reasons {
		a.addReason(r)
	}
}

// extractFaultingPage: "Faulting page: 0x…" refines an open memory fault.
func extractFaultingPage(t string) (string, bool) {
	p := submatchIf(t, "Faulting page:", reFaultingPage)
	return p, p != ""
}

// applyFaultingPage is defeated when no memory fault is open: a page alone
// is no fault.
func (s *Session) applyFaultingPage(l *line, page string) {
	if a := s.b.get(ClassGPUMemoryFault); a != nil {
		a.setAddress(page)
		a.evidence(l.ev(s))
	}
}

// memoryFaultErrorRec: CLR's named-kernel report
// "Memory Fault Error [host: H, GPU index: N, faulting addr: A, kernel: K]",
// possibly wrapped over several lines (the parser joins them).
type memoryFaultErrorRec struct {
	host, gpuIndex, address, kernel string
}

func extractMemoryFaultError(rec string) memoryFaultErrorRec {
	var f memoryFaultErrorRec
	f.address = submatch(reMFEAddr, rec)
	f.gpuIndex = submatch(reMFEGPU, rec)
	f.host = submatch(reMFEHost, rec)
	if m := reMFEKernel.FindStringSubmatch(rec); m != nil {
		f.kernel = strings.TrimSpace(m[1])
	}
	return f
}

func (s *Session) applyMemoryFaultError(l *line, f memoryFaultErrorRec) {
	s.format("clr_memory_fault_error")
	a := s.b.add(s, ClassGPUMemoryFault, l, 0.9)
	if f.address != "" {
		a.setAddress(f.address)
	}
	a.detail("gpu_index", f.gpuIndex)
	a.setStr(&a.f.Host, f.host)
	if f.kernel != "" {
		a.setKernel(f.kernel, "CLR Memory Fault Error report", 85)
	}
}

// earlierGPUError names the class of a GPU error already read in this
// session, "" when none (memory errors at teardown are its consequence).
func (s *Session) earlierGPUError() string {
	for _, c := range []string{ClassArchMismatch, ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassInvalidLaunch, ClassKernelNotFound, ClassVRAMOOM, ClassGPUHangReset} {
		if s.b.get(c) != nil {
			return c
		}
	}
	return ""
}

// extractLegacyAddress: ROCm 2.x's debug agent printed the address and the
// reasons on the line after "Memory access fault at GPU Node: N"
// ("Address: 0x… (page not present;write access to a read-only page;)",
// ROCm/rocr_debug_agent#2).
func extractLegacyAddress(t string) (legacyFault, bool) {
	m := reLegacyAddr.FindStringSubmatch(t)
	if m == nil {
		return legacyFault{}, false
	}
	return legacyFault{node: -1, address: m[1], reasons: parseReasons(m[2]), form: "agent"}, true
}

// applyLegacyAddress completes the legacy fault read on the line before.
func (s *Session) applyLegacyAddress(l *line, f legacyFault) {
	a := s.b.get(reasonClass(f.reasons))
	if a == nil {
		a = s.b.get(ClassGPUMemoryFault)
	}
	if a == nil {
		return
	}
	a.evidence(l.ev(s))
	a.setAddress(f.address)
	for _, r := range f.reasons {
		a.addReason(r)
	}
}
