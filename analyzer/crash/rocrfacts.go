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
// (dma_driver_fault, sub_kind memory_in_use). Seen when a container may not
// mmap /dev/kfd (SELinux, missing --ipc=host) and on APUs at model load.
func (s *Session) applyMemoryError(l *line, f memoryError) {
	a := s.b.add(s, ClassDMADriverFault, l, 0.85)
	a.strong = true
	a.setNode(f.node)
	a.setStr(&a.f.Agent, f.agent)
	if f.address != "" {
		a.setAddress(f.address)
	}
	a.setStr(&a.f.SubKind, "memory_in_use")
	a.addReason("Memory in use: the driver could not free / map this allocation (ROCr memory error event, not a shader fault)")
	a.detail("source", "ROCr memory error event (HSA_AMD_MEMORY_ERROR_MEMORY_IN_USE)")
}
