package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// rocrParser reads ROCr runtime fatal messages (docs section 3): the VM
// fault line, hardware exceptions, LLVM offload faults, CLR's named-kernel
// "Memory Fault Error" report and legacy debug-agent fault lines.
type rocrParser struct {
	s       *Session
	mfe     string // an unterminated "Memory Fault Error [" record
	mfeLine *line
	legacy  int // line of a legacy agent fault whose "Address:" line follows
}

var (
	reROCrNode     = lazyre.New(`(?i)Memory access fault by GPU node-(\d+)`)
	reMemCritNode  = lazyre.New(`Memory critical error by agent node-(\d+)`)
	reAgentHandle  = lazyre.New(`\(Agent handle: ([^)]*)\)`)
	reOnAddress    = lazyre.New(`on address (\(nil\)|[^\s(]+)(\(may not be exact address\))?`)
	reReasonTail   = lazyre.New(`Reasons?: ?(.*)$`)
	reHWException  = lazyre.New(`HW Exception by GPU node-(\d+)(?: \(Agent handle: ([^)]*)\))? reason ?:\s*(.*)`)
	reOffloadFault = lazyre.New(`[Mm]emory access fault by GPU (\d+)(?: \(agent ([^)]*)\))?(?: at virtual address (\(nil\)|[^\s.]+))?`)
	reOffloadKern  = lazyre.New(`^Kernel '(.*)'`)
	reOmpInParens  = lazyre.New(`\((__omp_offloading_\w+)\)`)
	reMFEHost      = lazyre.New(`host: ([^,\]]+)`)
	reMFEGPU       = lazyre.New(`GPU index: (\d+)`)
	reMFEAddr      = lazyre.New(`faulting addr: (\(nil\)|0x[0-9a-fA-F]+)`)
	reMFEKernel    = lazyre.New(`kernel: (.*?)\]?$`)
	reLegacyAddr   = lazyre.New(`^\s*Address: (\S+)(?: \((.*)\))?\s*$`)
	reLegacyAgent  = lazyre.New(`Memory access fault at GPU Node: (\d+)(?: / Address: (\S+))?(?: \((.*)\))?`)
	reGPUMemError  = lazyre.New(`\[GPU Memory Error\] Addr: (\S+)(?: Reason: (.*))?`)
	reFaultingPage = lazyre.New(`Faulting page: (0x[0-9a-fA-F]+)`)
	reSystemEvent  = lazyre.New(`HSA_AMD_GPU_MEMORY_FAULT_EVENT: ([^)]*)`)
)

var rocrReasons = []string{
	"Page not present or supervisor privilege",
	"Write access to a read-only page",
	"Execute access to a page marked NX",
	"Host access only",
	"DRAM ECC failure",
	"SRAM ECC failure",
	"ECC failure (if supported by HW)",
	"Generic hang recovery",
	"Unknown",
}

// parseReasons finds the known ROCr fault reasons in text (several may be
// concatenated by legacy clients); otherwise returns the text up to the first
// sentence end.
func parseReasons(text string) []string {
	low := strings.ToLower(text)
	var out []string
	for _, r := range rocrReasons {
		if strings.Contains(low, strings.ToLower(r)) {
			out = append(out, r)
		}
	}
	// legacy agent lower-case short forms, several per line
	// ("page not present;write access to a read-only page;")
	if strings.Contains(low, "page not present") && !containsStr(out, "Page not present or supervisor privilege") {
		out = append(out, "Page not present or supervisor privilege")
	}
	if strings.Contains(low, "read-only") && !containsStr(out, "Write access to a read-only page") {
		out = append(out, "Write access to a read-only page")
	}
	if len(out) > 0 {
		// "Unknown" is only meaningful alone
		if len(out) > 1 && out[len(out)-1] == "Unknown" {
			out = out[:len(out)-1]
		}
		return out
	}
	t := strings.TrimSpace(text)
	if i := strings.Index(t, ". "); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimRight(t, ". ")
	if t == "" {
		return nil
	}
	return []string{clip(t, 120)}
}

func reasonClass(reasons []string) string {
	for _, r := range reasons {
		switch {
		case strings.Contains(r, "ECC"):
			return ClassECCRAS
		case r == "Generic hang recovery":
			return ClassGPUHangReset
		}
	}
	return ClassGPUMemoryFault
}

var reasonMeanings = map[string]string{
	"Page not present or supervisor privilege": "the GPU touched an address that is not mapped for it: out-of-bounds index, use-after-free, or a host pointer passed to a kernel",
	"Write access to a read-only page":         "a kernel wrote to memory mapped read-only (const buffer, IPC import, read-only host mapping)",
	"Execute access to a page marked NX":       "the GPU tried to execute data: bad function pointer or corrupt code object",
	"Host access only":                         "memory allocated host-only was accessed from the GPU",
	"DRAM ECC failure":                         "uncorrectable DRAM ECC error: hardware problem",
	"SRAM ECC failure":                         "uncorrectable SRAM ECC error: hardware problem",
	"ECC failure (if supported by HW)":         "ECC error: hardware problem",
	"Generic hang recovery":                    "the driver recovered a hung queue",
	"MEMORY_VIOLATION":                         "a wave's memory access faulted (the reported pc is usually after the faulting instruction unless --precise-memory)",
	"ADDRESS_ERROR":                            "a wave used an invalid address (aperture violation)",
	"ASSERT_TRAP":                              "the kernel executed s_trap 2: a device-side assert / __builtin_trap fired",
	"ILLEGAL_INSTRUCTION":                      "the wave executed an instruction the GPU does not support (ISA mismatch or corrupt code)",
	"INVALID_OPCODE":                           "the wave met an opcode that does not exist: a corrupted code object (an allocator stomp on the kernel binary) or code for another ISA",
	"DEBUG_TRAP":                               "__builtin_debugtrap reached",
	"ECC_ERROR":                                "ECC error while the wave ran: hardware problem",
	"FATAL_HALT":                               "the wave halted fatally",
}

func reasonMeaning(r string) string {
	if m, ok := reasonMeanings[r]; ok {
		return m
	}
	if strings.HasPrefix(r, "FP_") || r == "INT_DIVIDE_BY_0" {
		return "an ALU exception trapped (enable precise ALU exceptions with --precise-alu-exceptions)"
	}
	return ""
}

func (p *rocrParser) beginFile(*Session) { p.mfe = ""; p.mfeLine = nil; p.legacy = 0 }
func (p *rocrParser) endFile() {
	if p.mfe != "" {
		p.memoryFaultError(p.mfeLine, p.mfe)
		p.mfe = ""
	}
}

// line is a thin loop over the ROCr extractors (rocrfacts.go): it joins a
// wrapped "Memory Fault Error [" record, then hands the line to the
// extractor its keyword names and the fact to its rule.
func (p *rocrParser) line(l *line) {
	t := l.text
	if p.mfe != "" {
		joined := p.mfe + " " + strings.TrimSpace(t)
		if strings.Contains(t, "]") || len(joined) > 2048 {
			p.mfe = ""
			p.memoryFaultError(p.mfeLine, joined)
			return
		}
		p.mfe = joined
		return
	}
	s := p.s
	if p.legacy > 0 && l.no-p.legacy <= 2 {
		if f, ok := extractLegacyAddress(t); ok {
			p.legacy = 0
			s.applyLegacyAddress(l, f)
			return
		}
	}
	if !containsAny(t, rocrKeywords...) {
		return
	}
	switch {
	case strings.Contains(t, "Memory critical error by agent node-"):
		if f, ok := extractMemoryError(t); ok {
			s.format("rocr_memory_error")
			s.applyMemoryError(l, f)
		}
	case strings.Contains(t, "Memory Fault Error"):
		rec := t[strings.Index(t, "Memory Fault Error"):]
		if !strings.Contains(rec, "]") {
			p.mfe, p.mfeLine = rec, keepLine(l)
			return
		}
		p.memoryFaultError(l, rec)
	case containsFoldASCII(t, "gpu node-") && reROCrNode.MatchString(t):
		if f, ok := extractVMFault(t); ok {
			s.format("rocr_vm_fault")
			s.applyVMFault(l, f)
		}
	case strings.Contains(t, "HW Exception by GPU node-"):
		if f, ok := extractHWException(t); ok {
			s.format("rocr_hw_exception")
			s.applyHWException(l, f)
		}
	case strings.Contains(t, "OFFLOAD ERROR"), strings.Contains(t, "AMDGPU fatal error"):
		if f, ok := extractOffloadFault(t); ok {
			s.format("llvm_offload")
			s.applyOffloadFault(l, f)
		}
	case strings.HasPrefix(t, "Kernel '"):
		if k, ok := extractOffloadKernel(t); ok {
			s.kernelHint(k, "OFFLOAD launched kernel", 70, l)
		}
	case strings.Contains(t, "Memory access fault at GPU Node"), strings.Contains(t, "Memory access fault by GPU agent: "), strings.Contains(t, "[GPU Memory Error]"):
		if f, ok := extractLegacyFault(t); ok {
			s.applyLegacyFault(l, f)
			if f.address == "" && f.form == "agent" {
				p.legacy = l.no
			}
		}
	case strings.Contains(t, "HSA_AMD_GPU_MEMORY_FAULT_EVENT"):
		if r, ok := extractFaultEvent(t); ok {
			s.applyFaultEvent(l, r)
		}
	case strings.Contains(t, "Faulting page:"):
		if pg, ok := extractFaultingPage(t); ok {
			s.applyFaultingPage(l, pg)
		}
	}
}

func (p *rocrParser) memoryFaultError(l *line, rec string) {
	if l == nil {
		return
	}
	p.s.applyMemoryFaultError(l, extractMemoryFaultError(rec))
}

// addressKind classifies a fault address (docs section 14, memory fault sub-kinds).
func addressKind(addr string, reasons []string) string {
	v, ok := addrValue(addr)
	if !ok {
		return ""
	}
	switch {
	case v < 0x1000:
		return "NULL pointer (address below 0x1000)"
	case containsStr(reasons, "Write access to a read-only page"):
		return "write to a read-only page (const buffer, IPC import or read-only mapping)"
	case containsStr(reasons, "Execute access to a page marked NX"):
		return "execute access to data (bad function pointer / code object)"
	case containsStr(reasons, "Host access only"):
		return "host-only memory accessed from the GPU"
	case v%0x200000 == 0:
		return "first page of a 2 MiB-aligned block: likely an out-of-bounds access just past the end of an allocation"
	}
	return ""
}

// rocrKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var rocrKeywords = []string{"Address: ", "ault", "critical error", "Exception", "Kernel '", "Memory Error", "page", "HSA_AMD_GPU_MEMORY_FAULT_EVENT"}
