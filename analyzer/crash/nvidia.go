package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// nvidiaParser reads NVIDIA analogues: compute-sanitizer reports, cuda-gdb
// exceptions, focus lines and "info cuda kernels" tables.
type nvidiaParser struct {
	s       *Session
	san     *agg // finding of the current sanitizer error
	sanLine int
	sanAt   bool
}

var (
	reSanError   = lazyre.New(`^=+\s+(Invalid __(global|shared|local)__ (read|write) of size (\d+) bytes?|Misaligned address|Out-of-range Shared or Local Address|Invalid address space|Malloc/Free error|Cuda API error|Program hit (\w+) \(error (\d+)\) due to "([^"]*)"(?: on CUDA API call to (\w+))?)`)
	reSanAt      = lazyre.New(`^=+\s+at (?:0x[0-9a-fA-F]+ in )?(.+?)(?:\+0x[0-9a-fA-F]+)?(?: in (\S+:\d+))?$`)
	reSanThread  = lazyre.New(`by thread \((\d+,\d+,\d+)\) in block \((\d+,\d+,\d+)\)`)
	reSanAddr    = lazyre.New(`Address (0x[0-9a-fA-F]+) (is .*)$`)
	reSanSummary = lazyre.New(`ERROR SUMMARY: (\d+) errors?`)
	reSanRace    = lazyre.New(`(?:Error|Warning): Race reported between`)
	reCudaExc    = lazyre.New(`(?:CUDA Exception: |CUDA_EXCEPTION_\d+, )((?:Warp|Lane|Device) [A-Za-z -]+?)\.?\s*$`)
	reCudaFocus  = lazyre.New(`\[Switching focus to CUDA kernel (\d+), grid (\d+), block \(([\d,]+)\), thread \(([\d,]+)\), device (\d+), sm (\d+), warp (\d+), lane (\d+)\]`)
	reCudaKRow   = lazyre.New(`^\*?\s*(\d+)\s+(?:-|\d+)\s+(\d+)\s+(\d+)\s+(Active|Terminated|Sleeping|\w+)\s+0x[0-9a-fA-F]+\s+\(([\d,]+)\)\s+\(([\d,]+)\)\s+(\S.*)$`)
	reCudaFrame  = lazyre.New(`^(?:#\d+\s+)?(?:0x[0-9a-fA-F]+ in )?(\S+)<<<\(([\d,]+)\),\(([\d,]+)\)>>>`)
)

func (p *nvidiaParser) beginFile(*Session) { p.san = nil }
func (p *nvidiaParser) endFile()           { p.san = nil }

func cudaExceptionClass(what string) string {
	switch {
	case strings.Contains(what, "Assert"):
		return ClassDeviceAssert
	case strings.Contains(what, "Illegal Instruction"), strings.Contains(what, "Invalid PC"):
		return ClassIllegalInstruction
	case strings.Contains(what, "Address"), strings.Contains(what, "Misaligned"), strings.Contains(what, "Out-of-range"), strings.Contains(what, "Stack Overflow"):
		return ClassGPUMemoryFault
	}
	return ""
}

func (p *nvidiaParser) line(l *line) {
	t := l.text
	s := p.s
	if strings.HasPrefix(t, "=====") {
		p.sanitizer(l)
		return
	}
	if !containsAny(t, "CUDA", "<<<", "Active", "Terminated") {
		return
	}
	if m := reCudaExc.FindStringSubmatch(t); m != nil {
		if c := cudaExceptionClass(m[1]); c != "" {
			s.format("cuda_gdb")
			a := s.b.add(s, c, l, 0.85)
			a.strong = true
			a.addReason("CUDA exception: " + m[1])
		}
		return
	}
	if m := reCudaFocus.FindStringSubmatch(t); m != nil {
		s.format("cuda_gdb")
		for _, c := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction} {
			if a := s.b.get(c); a != nil {
				a.evidence(l.ev(s))
				a.detail("cuda_block", "("+m[3]+")")
				a.detail("cuda_thread", "("+m[4]+")")
				a.detail("cuda_device", m[5])
				break
			}
		}
		return
	}
	if m := reCudaFrame.FindStringSubmatch(t); m != nil {
		s.kernelHint(m[1], "cuda-gdb frame", 70, l)
		return
	}
	if m := reCudaKRow.FindStringSubmatch(t); m != nil {
		s.format("cuda_gdb_info_kernels")
		if m[4] == "Active" {
			s.kernelHint(m[7], "cuda-gdb info cuda kernels (active)", 60, l)
		}
	}
}

func (p *nvidiaParser) sanitizer(l *line) {
	t := l.text
	s := p.s
	if m := reSanError.FindStringSubmatch(t); m != nil {
		s.format("compute_sanitizer")
		class := ClassGPUMemoryFault
		if m[7] != "" {
			e := lookupHIPName(m[7])
			if e == nil || e.class == "" {
				p.san = nil
				return
			}
			class = e.class
			a := s.b.add(s, class, l, 0.8)
			a.setHIP(e)
			a.detail("failing_api", m[10])
			p.san = nil
			return
		}
		a := s.b.add(s, class, l, 0.95)
		a.strong = true
		a.addReason(strings.TrimSpace(m[1]))
		p.san, p.sanLine, p.sanAt = a, l.no, false
		return
	}
	if reSanRace.MatchString(t) {
		s.format("compute_sanitizer")
		a := s.b.add(s, ClassAsyncRace, l, 0.8)
		a.strong = true
		a.addReason("racecheck: shared-memory data race")
		return
	}
	if m := reSanSummary.FindStringSubmatch(t); m != nil {
		for _, c := range []string{ClassGPUMemoryFault, ClassAsyncRace} {
			if a := s.b.get(c); a != nil {
				a.detail("sanitizer_errors", m[1])
			}
		}
		return
	}
	if p.san == nil || l.no-p.sanLine > 12 {
		return
	}
	a := p.san
	if m := reSanThread.FindStringSubmatch(t); m != nil {
		a.detail("cuda_thread", "("+m[1]+")")
		a.detail("cuda_block", "("+m[2]+")")
		a.evidence(l.ev(s))
		return
	}
	if m := reSanAddr.FindStringSubmatch(t); m != nil {
		a.setAddress(m[1])
		a.detail("address_note", m[2])
		a.evidence(l.ev(s))
		return
	}
	if !p.sanAt {
		if m := reSanAt.FindStringSubmatch(t); m != nil && !strings.Contains(t, "Host Frame") {
			p.sanAt = true
			a.setKernel(m[1], "compute-sanitizer", 85)
			if m[2] != "" {
				a.setStr(&a.f.Location, m[2])
			}
			a.evidence(l.ev(s))
		}
	}
}

// nvidiaKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var nvidiaKeywords = []string{"=====", "CUDA", "<<<", "Active", "Terminated"}
