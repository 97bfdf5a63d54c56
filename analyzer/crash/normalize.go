package crash

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// line is one normalised input line.
type line struct {
	file int    // index of the input file
	no   int    // 1-based line number
	raw  string // ANSI-free, carriage returns resolved, prefixes kept
	text string // prefixes stripped, trailing space trimmed

	rank     int    // -1 when unknown (from [rankN], TPn, Worker_TPn, rank=)
	pid      int    // 0 when unknown (from pid=N, [pid:N])
	worker   string // service / worker name from the prefix
	host     string // host from journald / rsyslog prefixes
	kernel   bool   // had a kernel-log prefix (dmesg, journald "kernel:")
	hipLevel int    // AMD_LOG_LEVEL of a HIP trace line, -1 otherwise
}

func (l *line) ev(s *Session) Evidence {
	return Evidence{File: s.fileName(l.file), Line: l.no, Text: clip(l.raw, 400)}
}

// clip shortens s to at most n bytes on a rune boundary and makes it valid UTF-8.
func clip(s string, n int) string {
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

var (
	reTqdm       = regexp.MustCompile(`^.*?(?:\d+(?:\.\d+)?|\?)(?:it/s|s/it|B/s)\]`)
	reAnsiLit    = regexp.MustCompile(`(?:\\u001[bB]|\\x1[bB]|\\033|\\e)\[[0-9;?]*[A-Za-z]`)
	reComfyStamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+ - `)

	reDmesg     = regexp.MustCompile(`^\[\s*\d+\.\d+\]\s?`)
	reDmesgT    = regexp.MustCompile(`^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]\s?`)
	reRank      = regexp.MustCompile(`^\[rank(\d+)\]:\s?`)
	reC10Brack  = regexp.MustCompile(`^\[[IWEF](?:\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)?)? ?[^\]\s]*\.(?:cpp|cc|h|hpp|py):\d+\]\s?`)
	reSGLang    = regexp.MustCompile(`^\[(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?|<timestamp>)((?: (?:TP|PP|DP|EP|CP|ATTN_TP|MOE_EP)\d+)*)\]\s?`)
	reATOM      = regexp.MustCompile(`^\[[a-z][\w-]* \d\d:\d\d:\d\d\]\s?`)
	reViewerNo  = regexp.MustCompile(`^\[\d+\]\s`)
	reFracStep  = regexp.MustCompile(`^\[\d+/\d+\]\s`)
	reWorker    = regexp.MustCompile(`^\(([\w.:-]+)(?: rank=(\d+))? pid=(\d+)(?:, ip=[\d.]+)?\)\s?`)
	reHIPTrace  = regexp.MustCompile(`^:(\d):\s*[\w.]+\s*:\s*\d+\s*:\s*\d+ us:\s*(?:(\d+): )?(?:\[pid:(\d+) tid:0x[0-9a-fA-F]+\]\s*|\[tid:0x[0-9a-fA-F]+\]\s*)?`)
	reGHA       = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s`)
	reSyslogISO = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:?\d\d|Z) (\S+) ([\w.@/-]+?)(?:\[(\d+)\])?: `)
	reISOStamp  = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+(?:-\s+)?(?:\[\w+\]\s+)?(?:\(\w+\)\s+)?`)
	reVLLMLevel = regexp.MustCompile(`^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]]+\]\s?`)
	reGlog      = regexp.MustCompile(`^[IWEF]\d{3,4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]\s]+\]\s?`)
	reJournald  = regexp.MustCompile(`^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d (\S+) ([\w.@/-]+?)(?:\[(\d+)\])?: `)
	reCompose   = regexp.MustCompile(`^([A-Za-z0-9][\w.-]*)\s+\| `)
	rePytest    = regexp.MustCompile(`^FAILED \[[\d.]+s\] \S+ - `)
	reTPName    = regexp.MustCompile(`(?:TP|_TP|Worker_TP|rank)(\d+)`)
)

// normalize strips ANSI codes, resolves carriage returns and removes known
// line prefixes (repeatedly: they nest).
func (s *Session) normalize(b []byte, no int) *line {
	l := &line{file: s.cur.idx, no: no, rank: -1, hipLevel: -1}
	// CRLF, then keep the text after the last carriage return.
	for len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	str := string(b)
	if i := strings.LastIndexByte(str, '\r'); i >= 0 {
		str = str[i+1:]
	}
	if strings.IndexByte(str, 0x1b) >= 0 {
		str = stripANSI(str)
	}
	if strings.IndexByte(str, '\\') >= 0 && (strings.Contains(str, `\u001`) || strings.Contains(str, `\x1`) || strings.Contains(str, `\033`) || strings.Contains(str, `\e[`)) {
		str = reAnsiLit.ReplaceAllString(str, "")
	}
	// a tqdm bar glued in front of the next message
	if strings.Contains(str, "it/s]") || strings.Contains(str, "s/it]") || strings.Contains(str, "B/s]") {
		if m := reTqdm.FindStringIndex(str); m != nil && m[1] < len(str) {
			rest := strings.TrimLeft(str[m[1]:], " ")
			if rest != "" {
				str = rest
			}
		}
	}
	if i := strings.Index(str, " - "); i > 0 && str[i-1] >= '0' && str[i-1] <= '9' && strings.Contains(str, "T") {
		str = reComfyStamp.ReplaceAllString(str, "")
	}
	l.raw = str
	l.text = strings.TrimRight(s.stripPrefixes(l, str), " \t")
	return l
}

func stripANSI(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[': // CSI: parameters then a final byte 0x40..0x7e
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // OSC: until BEL or ESC \
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}

func atoiDef(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

func (s *Session) stripPrefixes(l *line, str string) string {
	for iter := 0; iter < 10 && len(str) > 0; iter++ {
		n := s.stripOne(l, str)
		if n <= 0 {
			break
		}
		str = str[n:]
	}
	return str
}

// stripOne returns the length of a known prefix at the start of str, or 0.
func (s *Session) stripOne(l *line, str string) int {
	switch c := str[0]; {
	case c == '[':
		if m := reDmesg.FindStringIndex(str); m != nil {
			l.kernel = true
			s.format("dmesg")
			return m[1]
		}
		if m := reDmesgT.FindStringIndex(str); m != nil {
			l.kernel = true
			s.format("dmesg")
			return m[1]
		}
		if m := reRank.FindStringSubmatchIndex(str); m != nil {
			l.rank = atoiDef(str[m[2]:m[3]], -1)
			return m[1]
		}
		if m := reC10Brack.FindStringIndex(str); m != nil {
			return m[1]
		}
		if m := reSGLang.FindStringSubmatchIndex(str); m != nil {
			if m[3] > m[2] {
				tags := str[m[2]:m[3]]
				if i := strings.LastIndex(tags, "TP"); i >= 0 {
					l.rank = atoiDef(strings.Fields(tags[i+2:])[0], l.rank)
				}
				l.worker = strings.TrimSpace(tags)
			}
			return m[1]
		}
		if m := reATOM.FindStringIndex(str); m != nil {
			return m[1]
		}
		if m := reFracStep.FindStringIndex(str); m != nil {
			return m[1]
		}
		if m := reViewerNo.FindStringIndex(str); m != nil {
			return m[1]
		}
	case c == '(':
		if strings.HasPrefix(str, "(gdb) ") {
			return 6
		}
		if m := reWorker.FindStringSubmatchIndex(str); m != nil {
			l.worker = str[m[2]:m[3]]
			if m[4] >= 0 {
				l.rank = atoiDef(str[m[4]:m[5]], -1)
			} else if t := reTPName.FindStringSubmatch(l.worker); t != nil {
				l.rank = atoiDef(t[1], -1)
			}
			l.pid = atoiDef(str[m[6]:m[7]], 0)
			return m[1]
		}
	case c == ':':
		if m := reHIPTrace.FindStringSubmatchIndex(str); m != nil {
			l.hipLevel = int(str[m[2]] - '0')
			if m[4] >= 0 {
				l.pid = atoiDef(str[m[4]:m[5]], 0)
			} else if m[6] >= 0 {
				l.pid = atoiDef(str[m[6]:m[7]], 0)
			}
			s.format("amd_log_level")
			return m[1]
		}
	case c >= '0' && c <= '9':
		if len(str) < 20 {
			return 0
		}
		if m := reGHA.FindStringIndex(str); m != nil {
			return m[1]
		}
		if m := reSyslogISO.FindStringSubmatchIndex(str); m != nil {
			l.host = str[m[2]:m[3]]
			if str[m[4]:m[5]] == "kernel" {
				l.kernel = true
				s.format("dmesg")
			}
			if m[6] >= 0 {
				l.pid = atoiDef(str[m[6]:m[7]], 0)
			}
			return m[1]
		}
		if m := reISOStamp.FindStringIndex(str); m != nil {
			return m[1]
		}
	case c == '>':
		n := 0
		for n < len(str) && str[n] == '>' {
			n++
		}
		if n < len(str) && str[n] == ' ' {
			n++
		}
		return n
	case c == '!':
		if strings.HasPrefix(str, "!!! Exception during processing !!!") {
			return len("!!! Exception during processing !!!") + countSpaces(str[len("!!! Exception during processing !!!"):])
		}
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		switch c {
		case 'D', 'I', 'W', 'E', 'C':
			if m := reVLLMLevel.FindStringIndex(str); m != nil {
				return m[1]
			}
		}
		switch c {
		case 'I', 'W', 'E', 'F':
			if m := reGlog.FindStringIndex(str); m != nil {
				return m[1]
			}
		}
		if c == 'F' && strings.HasPrefix(str, "FAILED [") {
			if m := rePytest.FindStringIndex(str); m != nil {
				return m[1]
			}
		}
		if c >= 'A' && c <= 'S' && len(str) > 16 && str[3] == ' ' && str[6] == ' ' && str[9] == ':' {
			if m := reJournald.FindStringSubmatchIndex(str); m != nil {
				l.host = str[m[2]:m[3]]
				if str[m[4]:m[5]] == "kernel" {
					l.kernel = true
					s.format("dmesg")
				}
				if m[6] >= 0 {
					l.pid = atoiDef(str[m[6]:m[7]], 0)
				}
				return m[1]
			}
		}
		if strings.Contains(str, "| ") {
			if m := reCompose.FindStringSubmatchIndex(str); m != nil {
				l.worker = str[m[2]:m[3]]
				if t := reTPName.FindStringSubmatch(l.worker); t != nil {
					l.rank = atoiDef(t[1], l.rank)
				}
				s.format("docker_compose")
				return m[1]
			}
		}
	}
	return 0
}

func countSpaces(s string) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}
