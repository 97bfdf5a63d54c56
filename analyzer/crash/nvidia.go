package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// nvidiaParser reads NVIDIA analogues: compute-sanitizer reports
// (extractSanitizerLine → sanitizer) and cuda-gdb stops (exceptions, focus
// lines, frames, "info cuda kernels" rows: extractCudaGdbLine →
// cudaGdbStop, cudagdb.go).
type nvidiaParser struct {
	s       *Session
	san     *agg // finding of the current sanitizer error
	sanLine int
	sanAt   bool
}

var (
	reSanError   = lazyre.New(`^=+\s+(Invalid __(global|shared|local)__ (read|write) of size (\d+)(?: bytes?)?|Misaligned address|Out-of-range Shared or Local Address|Invalid address space|Malloc/Free error|Cuda API error|Program hit (\w+) \(error (\d+)\) due to "([^"]*)"(?: on CUDA API call to (\w+))?)`)
	reSanAt      = lazyre.New(`^=+\s+at (?:0x[0-9a-fA-F]+ in )?(.+?)(?:\+0x[0-9a-fA-F]+)?(?: in (\S+:\d+))?$`)
	reSanThread  = lazyre.New(`by thread \((\d+,\d+,\d+)\) in block \((\d+,\d+,\d+)\)`)
	reSanAddr    = lazyre.New(`Address (0x[0-9a-fA-F]+) (is .*)$`)
	reSanSummary = lazyre.New(`ERROR SUMMARY: (\d+) errors?`)
	reSanRace    = lazyre.New(`(?:Error|Warning): Race reported between`)
)

func (p *nvidiaParser) beginFile(*Session) { p.san = nil }
func (p *nvidiaParser) endFile()           { p.san = nil }

func (p *nvidiaParser) line(l *line) {
	t := l.text
	s := p.s
	if strings.HasPrefix(t, "=====") {
		p.sanitizer(l)
		return
	}
	if x, ok := extractDeviceLost(t); ok {
		p.deviceLostRule(l, x)
		return
	}
	if x, ok := extractNVMLInitFailure(t); ok && !commandLike(t) {
		p.nvmlInitRule(l, x) // nvmlhealth.go
		return
	}
	if x, ok := extractSXid(t); ok {
		p.sxidRule(l, x)
		return
	}
	if !containsAny(t, "CUDA", "<<<", "Active", "Terminated") {
		return
	}
	if x, ok := extractCudaGdbLine(t); ok {
		s.cudaGdbStop(l, x)
	}
}

// sanLine is one compute-sanitizer / cuda-memcheck line as a typed fact.
// Wordings: compute-sanitizer "Invalid __global__ write of size 4 bytes",
// "at kernel(args)+0x8b0" / "at 0x70 in file.cu:12:kernel(…)", cuda-memcheck
// (CUDA ≤ 11) "Invalid __global__ read of size 8" and "at 0x000002e8 in
// kernel(…)", "by thread (t) in block (b)", "Address 0x… is out of bounds",
// "Program hit cudaErrorX (error N) due to "…" on CUDA API call to f",
// racecheck's "Race reported between", "ERROR SUMMARY: N errors".
type sanLine struct {
	kind          string // error | api | race | summary | thread | address | at
	what          string // error: the report's first words
	api, apiError string // api: the CUDA call and its error name
	thread, block string
	addr, note    string
	kernel, loc   string
	count         string
}

func extractSanitizerLine(t string) (sanLine, bool) {
	if m := reSanError.FindStringSubmatch(t); m != nil {
		if m[5] != "" { // groups: 5 error name, 6 number, 7 message, 8 API call
			return sanLine{kind: "api", apiError: m[5], api: m[8]}, true
		}
		return sanLine{kind: "error", what: strings.TrimSpace(m[1])}, true
	}
	if reSanRace.MatchString(t) {
		return sanLine{kind: "race"}, true
	}
	if m := reSanSummary.FindStringSubmatch(t); m != nil {
		return sanLine{kind: "summary", count: m[1]}, true
	}
	if m := reSanThread.FindStringSubmatch(t); m != nil {
		return sanLine{kind: "thread", thread: "(" + m[1] + ")", block: "(" + m[2] + ")"}, true
	}
	if m := reSanAddr.FindStringSubmatch(t); m != nil {
		return sanLine{kind: "address", addr: m[1], note: m[2]}, true
	}
	if m := reSanAt.FindStringSubmatch(t); m != nil && !strings.Contains(t, "Host Frame") {
		return sanLine{kind: "at", kernel: m[1], loc: m[2]}, true
	}
	return sanLine{}, false
}

// sanitizer is the rule over sanitizer facts: an access error is a memory
// fault (strong: the tool saw it), an API error takes its CUDA error's
// class, a race is an async race; the lines after an error (≤ 12) add its
// thread, address and kernel (the first "at" frame).
func (p *nvidiaParser) sanitizer(l *line) {
	x, ok := extractSanitizerLine(l.text)
	if !ok {
		return
	}
	s := p.s
	switch x.kind {
	case "api":
		s.format("compute_sanitizer")
		p.san = nil
		// the sanitizer is NVIDIA's: CUDA's catalog reads the error (a
		// launch failure is a kernel that crashed, not ROCm's trap)
		if e := lookupCUDAName(x.apiError); e != nil && e.class != "" {
			s.applyCUDAError(l, cudaErrFact{e: e, name: x.apiError, via: "name"})
			if a := s.b.get(e.class); a != nil && x.api != "" {
				a.detail("failing_api", x.api)
			}
		}
		return
	case "error":
		s.format("compute_sanitizer")
		a := s.b.add(s, ClassGPUMemoryFault, l, 0.95)
		a.strong = true
		a.addReason(x.what)
		p.san, p.sanLine, p.sanAt = a, l.no, false
		return
	case "race":
		s.format("compute_sanitizer")
		a := s.b.add(s, ClassAsyncRace, l, 0.8)
		a.strong = true
		a.addReason("racecheck: shared-memory data race")
		return
	case "summary":
		for _, c := range []string{ClassGPUMemoryFault, ClassAsyncRace} {
			if a := s.b.get(c); a != nil {
				a.detail("sanitizer_errors", x.count)
			}
		}
		return
	}
	if p.san == nil || l.no-p.sanLine > 12 {
		return
	}
	a := p.san
	switch x.kind {
	case "thread":
		a.detail("cuda_thread", x.thread)
		a.detail("cuda_block", x.block)
	case "address":
		a.setAddress(x.addr)
		a.detail("address_note", x.note)
	case "at":
		if p.sanAt {
			return
		}
		p.sanAt = true
		a.setKernel(x.kernel, "compute-sanitizer", 85)
		if x.loc != "" {
			a.setStr(&a.f.Location, x.loc)
		}
	}
	a.evidence(l.ev(s))
}

// nvidiaKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var nvidiaKeywords = append(append([]string{"=====", "CUDA", "<<<", "Active", "Terminated"}, deviceLostKeywords...), nvmlHealthKeywords...)
