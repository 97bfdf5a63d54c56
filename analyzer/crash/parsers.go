package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

func newParsers(s *Session) []parser {
	return []parser{
		&rocrParser{s: s},
		&clrParser{s: s},
		&agentParser{s: s},
		&interleaveParser{s: s},
		&dmesgParser{s: s},
		&torchParser{s: s},
		&ncclParser{s: s},
		&exitParser{s: s},
		&rocgdbParser{s: s},
		&kernelAPIParser{s: s},
		&launchParser{s: s},
		&hangParser{s: s},
		&tritonParser{s: s},
		&nvidiaParser{s: s},
		&containerParser{s: s},
		&evidenceParser{s: s},
		&incidentParser{s: s},
		&frameworkParser{s: s},
	}
}

// kernelHint is a kernel name seen outside a fault record (a disassembly
// block, OFFLOAD "Kernel '…'", a rocgdb dispatch); the final assembly gives
// the best one to the GPU finding that has no kernel.
type kernelHint struct {
	name   string
	source string
	prio   int
	ev     Evidence
}

func (s *Session) kernelHint(name, source string, prio int, l *line) {
	s.kernelHintEv(name, source, prio, l.ev(s))
}

func (s *Session) kernelHintEv(name, source string, prio int, ev Evidence) {
	name = strings.TrimSpace(name)
	if name == "" || name == "<unknown>" {
		return
	}
	f := &s.b.facts
	h := kernelHint{name: clip(name, 2048), source: source, prio: prio, ev: ev}
	for i, x := range f.kernelHints {
		if x.name == h.name {
			if prio > x.prio {
				f.kernelHints[i] = h
			}
			return
		}
	}
	if len(f.kernelHints) < 16 {
		f.kernelHints = append(f.kernelHints, h)
		return
	}
	// replace the lowest-priority hint
	lo := 0
	for i, x := range f.kernelHints {
		if x.prio < f.kernelHints[lo].prio {
			lo = i
		}
	}
	if prio > f.kernelHints[lo].prio {
		f.kernelHints[lo] = h
	}
}

// submatch returns group 1 of re in s, or "".
func submatch(re *lazyre.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil && len(m) > 1 {
		return m[1]
	}
	return ""
}

// findIf is re.FindStringSubmatch(s) for a regular expression whose
// matches all contain lit (a cheap test first).
func findIf(s, lit string, re *lazyre.Regexp) []string {
	if !strings.Contains(s, lit) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// submatchIf is submatch(re, s) for a regular expression whose matches all
// contain lit.
func submatchIf(s, lit string, re *lazyre.Regexp) string {
	if !strings.Contains(s, lit) {
		return ""
	}
	return submatch(re, s)
}

// findFoldIf is re.FindStringSubmatch(s) for a case-insensitive regular
// expression whose matches all contain lit (lower case ASCII letters
// without non-ASCII case folds: not k or s) in some case.
func findFoldIf(s, lit string, re *lazyre.Regexp) []string {
	if !containsFoldASCII(s, lit) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// containsFoldASCII reports whether s contains lit (lower case ASCII) in
// any mix of upper and lower case.
func containsFoldASCII(s, lit string) bool {
	if len(lit) == 0 {
		return true
	}
	c0 := lit[0]
	for i := 0; i+len(lit) <= len(s); i++ {
		if s[i]|0x20 != c0 {
			continue
		}
		j := 1
		for j < len(lit) && (s[i+j] == lit[j] || s[i+j]|0x20 == lit[j] && lit[j] >= 'a' && lit[j] <= 'z') {
			j++
		}
		if j == len(lit) {
			return true
		}
	}
	return false
}

// containsAny reports whether s contains any of subs.
func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// gfx908, gfx942, gfx1100, gfx1151 — and gfx90a / gfx90c (two digits and a letter)
var reGfx = lazyre.New(`\bgfx(\d{3,4}[a-f]?|\d{2}[a-f])\b`)

func (s *Session) noteArch(t string) {
	if !strings.Contains(t, "gfx") {
		return
	}
	f := &s.b.facts
	for _, m := range reGfx.FindAllStringSubmatch(t, 4) {
		g := "gfx" + m[1]
		if !containsStr(f.gpuArch, g) && len(f.gpuArch) < 8 {
			f.gpuArch = append(f.gpuArch, g)
		}
	}
}
