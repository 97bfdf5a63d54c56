package crash

import (
	"regexp"
	"strings"
)

// kernelAPIParser reads SGLang @debug_kernel_api and FlashInfer
// @flashinfer_api logs (docs section 9, seed 000): call records of all
// levels, Exception records, dump lines and metadata.json fields. The last
// call without an Output record is the crashing boundary.
type kernelAPIParser struct{ s *Session }

var (
	reKAPICall   = regexp.MustCompile(`(SGLang Kernel|FlashInfer) API Call: (\S.*)$`)
	reKAPIExc    = regexp.MustCompile(`SGLang Kernel API Exception: (\S+)(?: \((\w+): (.*)\))?`)
	reMetaFunc   = regexp.MustCompile(`"function_name": ?"([^"]*)"`)
	reMetaStat   = regexp.MustCompile(`"execution_status": ?"([^"]*)"`)
	reMetaExc    = regexp.MustCompile(`"exception": ?\{"type": ?"([^"]*)", ?"message": ?"([^"]*)"`)
	reDumpedTo   = regexp.MustCompile(`(?:Dumped inputs to|Inputs dumped to): (\S+)`)
	reLogFilePID = regexp.MustCompile(`_level(\d+)_(\d+)\.log\b`)
)

func (p *kernelAPIParser) beginFile(*Session) {}
func (p *kernelAPIParser) endFile()           {}

func (p *kernelAPIParser) line(l *line) {
	t := l.text
	if !containsAny(t, "API ", "Output", "\"function_name\"", "\"execution_status\"", "\"exception\"", "ump", "input arguments", "_count=", "_level") {
		return
	}
	s := p.s
	k := &s.b.facts.kernelAPI
	switch {
	case strings.Contains(t, "API Call:"):
		if m := reKAPICall.FindStringSubmatch(t); m != nil {
			s.format("kernel_api_log")
			ev := l.ev(s)
			k.lastCall, k.lastCallEv, k.lastDone, k.source = clip(strings.TrimSpace(m[2]), 300), &ev, false, m[1]
			k.calls++
			if k.level == 0 {
				k.level = 1
			}
		}
	case strings.Contains(t, "Kernel API Exception:"):
		if m := reKAPIExc.FindStringSubmatch(t); m != nil {
			s.format("kernel_api_log")
			ev := l.ev(s)
			k.exceptionAPI, k.exceptionEv = m[1], &ev
			if m[2] != "" {
				k.exceptionMsg = m[2] + ": " + m[3]
			}
			if k.lastCall == m[1] {
				k.lastDone = false
			}
		}
	case strings.HasPrefix(t, "Output:") || strings.HasPrefix(t, "Output value:"):
		if k.lastCall != "" {
			k.lastDone = true
		}
	case strings.HasPrefix(t, "Positional input arguments:") || strings.HasPrefix(t, "Keyword input arguments:"):
		if k.level < 3 {
			k.level = 3
		}
	case strings.Contains(t, "nan_count=") || strings.Contains(t, "inf_count="):
		if k.level < 5 {
			k.level = 5
		}
	case strings.Contains(t, "ump"):
		if reDumpedTo.MatchString(t) && k.level < 10 {
			k.level = 10
		}
	}
	if strings.Contains(t, "\"function_name\"") {
		k.dumpFunc = submatch(reMetaFunc, t)
		s.format("kernel_api_dump_metadata")
	}
	if strings.Contains(t, "\"execution_status\"") {
		k.dumpStatus = submatch(reMetaStat, t)
	}
	if strings.Contains(t, "\"exception\"") {
		if m := reMetaExc.FindStringSubmatch(t); m != nil && k.exceptionMsg == "" {
			k.exceptionMsg = m[1] + ": " + m[2]
		}
	}
	if m := findIf(t, "_level", reLogFilePID); m != nil {
		s.b.facts.notes = appendCap(s.b.facts.notes, "kernel-API log files are named by process id (%i = pid "+m[2]+"), not by rank: map pid → rank from other lines", 8)
	}
}
