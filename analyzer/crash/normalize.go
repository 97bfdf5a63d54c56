package crash

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// line is one normalised input line.
type line struct {
	file int    // index of the input file
	no   int    // 1-based line number
	raw  string // ANSI-free, carriage returns resolved, prefixes kept
	pre  string // delivery wrappers removed before it was read (delivery.go)
	text string // prefixes stripped, trailing space trimmed

	rank     int    // -1 when unknown (from [rankN], TPn, Worker_TPn, rank=)
	pid      int    // 0 when unknown (from pid=N, [pid:N])
	worker   string // service / worker name from the prefix
	host     string // host from journald / rsyslog prefixes
	kernel   bool   // had a kernel-log prefix (dmesg, journald "kernel:")
	hipLevel int    // AMD_LOG_LEVEL of a HIP trace line, -1 otherwise
}

func (l *line) ev(s *Session) Evidence {
	return Evidence{File: s.fileName(l.file), Line: l.no, Text: clip(l.pre+l.raw, 400)}
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
	reTqdm       = lazyre.New(`^.*?(?:\d+(?:\.\d+)?|\?)(?:it/s|s/it|B/s)\]`)
	reAnsiLit    = lazyre.New(`(?:\\u001[bB]|\\x1[bB]|\\033|\\e)\[[0-9;?]*[A-Za-z]`)
	reComfyStamp = lazyre.New(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+ - `)

	reDmesg     = lazyre.New(`^\[\s*\d+\.\d+\]\s?`)
	reDmesgT    = lazyre.New(`^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]\s?`)
	reRank      = lazyre.New(`^\[rank(\d+)\]:\s?`)
	reSrunNCCL  = lazyre.New(`^[\w.-]+:\d+:\d+ \[\d+\] `)
	reC10Brack  = lazyre.New(`^\[[IWEF](?:\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)?)? ?[^\]\s]*\.(?:cpp|cc|h|hpp|py):\d+\]\s?`)
	reSGLang    = lazyre.New(`^\[(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?|<timestamp>)((?: (?:TP|PP|DP|EP|CP|ATTN_TP|MOE_EP)\d+)*)\]\s?`)
	reATOM      = lazyre.New(`^\[[a-z][\w-]* \d\d:\d\d:\d\d\]\s?`)
	reViewerNo  = lazyre.New(`^\[\d+\]\s`)
	reFracStep  = lazyre.New(`^\[\d+/\d+\]\s`)
	reWorker    = lazyre.New(`^\(([\w.:-]+(?: TP\w*)?)(?: rank=(\d+))? pid=(\d+)(?:, ip=[\d.]+)?\)\s?`)
	reHIPTrace  = lazyre.New(`^:(\d):\s*[\w.]+\s*:\s*\d+\s*:\s*\d+ us:\s*(?:(\d+): )?(?:\[pid:(\d+) tid:0x[0-9a-fA-F]+\]\s*|\[tid:0x[0-9a-fA-F]+\]\s*)?`)
	reGHA       = lazyre.New(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s`)
	reSyslogISO = lazyre.New(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:?\d\d|Z) (\S+) ([\w.@/-]+?)(?:\[(\d+)\])?: `)
	reISOStamp  = lazyre.New(`^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+(?:-\s+)?(?:\[\w+\]\s+)?(?:\(\w+\)\s+)?`)
	reVLLMLevel = lazyre.New(`^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]]+\]\s?`)
	reGlog      = lazyre.New(`^[IWEF]\d{3,4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]\s]+\]\s?`)
	reJournald  = lazyre.New(`^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d (\S+) ([\w.@/-]+?)(?:\[(\d+)\])?: `)
	reCompose   = lazyre.New(`^([A-Za-z0-9][\w.-]*)\s+\| `)
	rePytest    = lazyre.New(`^FAILED \[[\d.]+s\] \S+ - `)
	reTPName    = lazyre.New(`(?:TP|_TP|Worker_TP|rank)(\d+)`)
)

// normalize strips ANSI codes, resolves carriage returns and removes known
// line prefixes (repeatedly: they nest). The streaming path (Session.handleLine)
// does the same without allocating for lines no parser looks at.
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
	str = rewriteRaw(str)
	l.raw = str
	l.text = strings.TrimRight(s.stripPrefixes(l, str), " \t")
	return l
}

// rewriteRaw removes ANSI codes (real and literal), a tqdm bar glued in
// front of a message and ComfyUI time stamps.
func rewriteRaw(str string) string {
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
	return str
}

// rewriteChanges reports whether rewriteRaw(str) may differ from str. When
// it returns false, rewriteRaw(str) == str: no ESC; no literal escape; every
// tqdm rate (the end of any reTqdm match) ends the line, so the bar is not
// cut; no reComfyStamp match.
func rewriteChanges(str string) bool {
	if strings.IndexByte(str, 0x1b) >= 0 {
		return true
	}
	if strings.IndexByte(str, '\\') >= 0 && (strings.Contains(str, `\u001`) || strings.Contains(str, `\x1`) || strings.Contains(str, `\033`) || strings.Contains(str, `\e[`)) {
		return true
	}
	if len(str) > 0 {
		h := str[:len(str)-1]
		if strings.Contains(h, "it/s]") || strings.Contains(h, "s/it]") || strings.Contains(h, "B/s]") {
			return true
		}
	}
	return hasComfyStamp(str)
}

// hasComfyStamp reports whether reComfyStamp
// (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+ - ) matches somewhere in str.
func hasComfyStamp(str string) bool {
	for off := 0; ; {
		j := strings.IndexByte(str[off:], 'T')
		if j < 0 {
			return false
		}
		t := off + j
		off = t + 1
		if t < 10 || !isDate(str[t-10:t]) {
			continue
		}
		r := str[t+1:]
		if len(r) < 11 || !isDigit(r[0]) || !isDigit(r[1]) || r[2] != ':' || !isDigit(r[3]) || !isDigit(r[4]) || r[5] != ':' || !isDigit(r[6]) || !isDigit(r[7]) || r[8] != '.' {
			continue
		}
		k := digitsFrom(r, 9)
		if k > 9 && strings.HasPrefix(r[k:], " - ") {
			return true
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isSpace is RE2's \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// isWord is RE2's \w.
func isWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// digitsFrom returns the end of the run of digits starting at i.
func digitsFrom(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func spacesFrom(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// isDate: s is \d{4}-\d\d-\d\d (len(s) == 10).
func isDate(s string) bool {
	return len(s) == 10 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && isDigit(s[3]) && s[4] == '-' && isDigit(s[5]) && isDigit(s[6]) && s[7] == '-' && isDigit(s[8]) && isDigit(s[9])
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

// reMetaflow is Metaflow's task prefix "[<run>/<step>/<task> (pid N)] ", on
// AWS Batch or Kubernetes followed by the job's "[<uuid>] "
// (Netflix/metaflow#587).
var reMetaflow = lazyre.New(`^\[\d+/[\w.-]+/\d+ \(pid (\d+)\)\] (?:\[[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\] )?`)

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
// The cheap tests in front of the regular expressions are necessary
// conditions of a match; the simple deterministic prefixes are matched by
// hand (match* below, equivalent to the regular expressions next to them).
func (s *Session) stripOne(l *line, str string) int {
	switch c := str[0]; {
	case c == '[':
		if n := matchDmesg(str); n > 0 { // reDmesg
			l.kernel = true
			s.format("dmesg")
			return n
		}
		if len(str) > 4 && str[4] == ' ' && isDayName(str[1:4]) {
			if m := reDmesgT.FindStringIndex(str); m != nil {
				l.kernel = true
				s.format("dmesg")
				return m[1]
			}
		}
		if n, r := matchMPITag(str); n > 0 {
			l.rank = r
			return n
		}
		if n, r := matchElasticTag(str); n > 0 { // launchprefix.go
			if l.rank < 0 {
				l.rank = r
			}
			return n
		}
		if strings.HasPrefix(str, "[rank") {
			if m := reRank.FindStringSubmatchIndex(str); m != nil {
				l.rank = atoiDef(str[m[2]:m[3]], -1)
				return m[1]
			}
		}
		if len(str) > 1 && (str[1] == 'I' || str[1] == 'W' || str[1] == 'E' || str[1] == 'F') {
			if m := reC10Brack.FindStringIndex(str); m != nil {
				return m[1]
			}
		}
		if n, ts, te := matchSGLang(str); n > 0 { // reSGLang
			if te > ts {
				tags := str[ts:te]
				if i := strings.LastIndex(tags, "TP"); i >= 0 {
					l.rank = atoiDef(strings.Fields(tags[i+2:])[0], l.rank)
				}
				l.worker = strings.TrimSpace(tags)
			}
			return n
		}
		if len(str) > 1 && str[1] >= 'a' && str[1] <= 'z' {
			if m := reATOM.FindStringIndex(str); m != nil {
				return m[1]
			}
		}
		if len(str) > 1 && isDigit(str[1]) {
			if m := reFracStep.FindStringIndex(str); m != nil {
				return m[1]
			}
			if m := reViewerNo.FindStringIndex(str); m != nil {
				return m[1]
			}
			if m := reMetaflow.FindStringSubmatchIndex(str); m != nil {
				l.pid = atoiDef(str[m[2]:m[3]], 0)
				return m[1]
			}
		}
	case c == '(':
		if strings.HasPrefix(str, "(gdb) ") {
			return 6
		}
		if m, ok := matchWorker(str); ok { // reWorker
			l.worker = str[m[2]:m[3]]
			if m[4] >= 0 {
				l.rank = atoiDef(str[m[4]:m[5]], -1)
			} else if t, ok := tpNumber(l.worker); ok {
				l.rank = atoiDef(t, -1)
			}
			l.pid = atoiDef(str[m[6]:m[7]], 0)
			return m[1]
		}
	case c == ':':
		if m, ok := matchHIPTrace(str); ok { // reHIPTrace
			l.hipLevel = int(str[m[2]] - '0')
			if m[4] >= 0 {
				l.pid = atoiDef(str[m[4]:m[5]], 0)
			} else if m[6] >= 0 {
				l.pid = atoiDef(str[m[6]:m[7]], 0)
			}
			s.format("amd_log_level")
			return m[1]
		}
	case c >= '0' && c <= '9' || c == ' ':
		if n, task := matchSrunLabel(str); n > 0 {
			if l.rank < 0 {
				l.rank = task
			}
			return n
		}
		if c == ' ' || len(str) < 20 {
			return 0
		}
		if !isDate(str[:10]) || (str[10] != 'T' && str[10] != ' ') {
			return 0 // reGHA, reSyslogISO and reISOStamp all start with a date
		}
		if str[10] == 'T' {
			if m := reGHA.FindStringIndex(str); m != nil {
				return m[1]
			}
			if m := reSyslogISO.FindStringSubmatchIndex(str); m != nil {
				l.host = str[m[2]:m[3]]
				if str[m[4]:m[5]] == "kernel" {
					l.kernel = true
					s.format("dmesg")
				}
				if m[6] >= 0 && !serviceManager(str[m[4]:m[5]]) {
					l.pid = atoiDef(str[m[6]:m[7]], 0)
				}
				return m[1]
			}
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
		if c == 's' && (strings.HasPrefix(str, "stderr: ") || strings.HasPrefix(str, "stdout: ")) {
			return len("stderr: ") // a launcher relaying its child's stream (accelerate)
		}
		if n, r := matchTorchXTag(str); n > 0 { // launchprefix.go
			if l.rank < 0 {
				l.rank = r
			}
			return n
		}
		switch c {
		case 'D', 'I', 'W', 'E', 'C':
			if vllmLevelStart(str) {
				if m := reVLLMLevel.FindStringIndex(str); m != nil {
					return m[1]
				}
			}
		}
		switch c {
		case 'I', 'W', 'E', 'F':
			if len(str) > 1 && isDigit(str[1]) {
				if m := reGlog.FindStringIndex(str); m != nil {
					return m[1]
				}
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
				if m[6] >= 0 && !serviceManager(str[m[4]:m[5]]) {
					l.pid = atoiDef(str[m[6]:m[7]], 0)
				}
				return m[1]
			}
		}
		if n, ne := matchCompose(str); n > 0 { // reCompose
			l.worker = str[:ne]
			if t, ok := tpNumber(l.worker); ok {
				l.rank = atoiDef(t, l.rank)
			}
			s.format("docker_compose")
			return n
		}
	}
	return 0
}

// matchSrunLabel matches srun --label's task prefix ("0: ", right-aligned
// " 3: " / "12: ", SchedMD srun(1) -l) and returns its length and the task
// id, which is the rank under srun's one-task-per-rank launch. A bare
// "N: " also starts numbered notes and objdump rows, so it counts only in
// front of a line that is itself a known log shape: an NCCL debug prefix
// "host:pid:tid [dev] ", a c10 "[rankN]:" / "[E…" stamp, the debug agent's
// wave header, separator or disassembly header, ROCr's fault line.
func matchSrunLabel(str string) (n, task int) {
	n, task = srunLabelShape(str)
	if n == 0 {
		return 0, 0
	}
	rest := str[n:]
	if !strings.HasPrefix(rest, "[rank") && !(len(rest) > 2 && rest[0] == '[' && (rest[1] == 'E' || rest[1] == 'W' || rest[1] == 'I') && isDigit(rest[2])) && !reSrunNCCL.MatchString(rest) && !agentLineShape(rest) {
		return 0, 0
	}
	return n, task
}

// srunLabelShape: the length and task id of a leading "N: " (up to four
// spaces of right alignment, up to five digits), whatever follows.
func srunLabelShape(str string) (n, task int) {
	i := 0
	for i < len(str) && i < 4 && str[i] == ' ' {
		i++
	}
	j := i
	for j < len(str) && j-i < 5 && isDigit(str[j]) {
		j++
	}
	if j == i || j+2 > len(str) || str[j] != ':' || str[j+1] != ' ' {
		return 0, 0
	}
	return j + 2, atoiDef(str[i:j], -1)
}

// agentLineShape: the anchors of a ROCdebug-agent dump and the ROCr fault
// line before it (rocr_debug_agent debug_agent.cpp; seed 003's sample):
// "wave_N: pc=0x…", the 56-dash separator, "Disassembly for function …",
// "Memory access fault by GPU node-N …".
func agentLineShape(rest string) bool {
	switch {
	case strings.HasPrefix(rest, "wave_"):
		i := digitsFrom(rest, 5)
		return i > 5 && strings.HasPrefix(rest[i:], ": pc=0x")
	case strings.HasPrefix(rest, "-----"):
		return strings.TrimRight(rest, " ") == strings.Repeat("-", 56)
	}
	return strings.HasPrefix(rest, "Disassembly for function ") || strings.HasPrefix(rest, "Memory access fault by GPU ")
}

// matchMPITag matches Open MPI's --tag-output prefix "[job,rank]<stderr>:"
// (or <stdout>, <stddiag>) and returns its length and the rank.
func matchMPITag(str string) (n, rank int) {
	i := digitsFrom(str, 1)
	if i == 1 || i >= len(str) || str[i] != ',' {
		return 0, -1
	}
	j := digitsFrom(str, i+1)
	if j == i+1 || !strings.HasPrefix(str[j:], "]<std") {
		return 0, -1
	}
	k := strings.IndexByte(str[j:], '>')
	if k < 0 || k > 10 || j+k+1 >= len(str) || str[j+k+1] != ':' {
		return 0, -1
	}
	return j + k + 2, atoiDef(str[i+1:j], -1)
}

func isDayName(d string) bool {
	switch d {
	case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
		return true
	}
	return false
}

// vllmLevelStart: str starts with a reVLLMLevel level name, a space and a digit.
func vllmLevelStart(str string) bool {
	for _, w := range [...]string{"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL"} {
		if len(str) > len(w)+1 && str[len(w)] == ' ' && str[:len(w)] == w && isDigit(str[len(w)+1]) {
			return true
		}
	}
	return false
}

// matchDmesg matches reDmesg (^\[\s*\d+\.\d+\]\s?) and returns the end, or 0.
func matchDmesg(str string) int {
	if len(str) == 0 || str[0] != '[' {
		return 0
	}
	i := spacesFrom(str, 1)
	j := digitsFrom(str, i)
	if j == i || j >= len(str) || str[j] != '.' {
		return 0
	}
	k := digitsFrom(str, j+1)
	if k == j+1 || k >= len(str) || str[k] != ']' {
		return 0
	}
	k++
	if k < len(str) && isSpace(str[k]) {
		k++
	}
	return k
}

// matchSGLang matches reSGLang and returns the end and the bounds of group 1
// (the rank tags), or 0.
//
//	^\[(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?|<timestamp>)((?: (?:TP|PP|DP|EP|CP|ATTN_TP|MOE_EP)\d+)*)\]\s?
func matchSGLang(str string) (end, ts, te int) {
	if len(str) < 2 || str[0] != '[' {
		return 0, 0, 0
	}
	i := 1
	if strings.HasPrefix(str[1:], "<timestamp>") {
		i += len("<timestamp>")
	} else {
		if len(str) < 20 || !isDate(str[1:11]) || (str[11] != ' ' && str[11] != 'T') {
			return 0, 0, 0
		}
		t := str[12:20]
		if !isDigit(t[0]) || !isDigit(t[1]) || t[2] != ':' || !isDigit(t[3]) || !isDigit(t[4]) || t[5] != ':' || !isDigit(t[6]) || !isDigit(t[7]) {
			return 0, 0, 0
		}
		i = 20
		if i+1 < len(str) && (str[i] == '.' || str[i] == ',') && isDigit(str[i+1]) {
			i = digitsFrom(str, i+1)
		}
	}
	ts = i
tags:
	for i < len(str) && str[i] == ' ' {
		for _, tag := range [...]string{"TP", "PP", "DP", "EP", "CP", "ATTN_TP", "MOE_EP"} {
			if strings.HasPrefix(str[i+1:], tag) {
				j := i + 1 + len(tag)
				if k := digitsFrom(str, j); k > j {
					i = k
					continue tags
				}
				break tags
			}
		}
		break
	}
	te = i
	if i >= len(str) || str[i] != ']' {
		return 0, 0, 0
	}
	i++
	if i < len(str) && isSpace(str[i]) {
		i++
	}
	return i, ts, te
}

// matchWorker matches reWorker; m holds the submatch indices like
// FindStringSubmatchIndex.
//
//	^\(([\w.:-]+(?: TP\w*)?)(?: rank=(\d+))? pid=(\d+)(?:, ip=[\d.]+)?\)\s?
func matchWorker(str string) (m [8]int, ok bool) {
	if len(str) < 2 || str[0] != '(' {
		return m, false
	}
	i := 1
	for i < len(str) && (isWord(str[i]) || str[i] == '.' || str[i] == ':' || str[i] == '-') {
		i++
	}
	if i == 1 {
		return m, false
	}
	// vLLM ≥ 0.10 names the worker and its TP rank apart: "(VllmWorker TP1 pid=22110)"
	if i < len(str) && str[i] == ' ' && strings.HasPrefix(str[i+1:], "TP") {
		k := i + 1
		for k < len(str) && isWord(str[k]) {
			k++
		}
		if strings.HasPrefix(str[k:], " pid=") || strings.HasPrefix(str[k:], " rank=") {
			i = k
		}
	}
	m[2], m[3], m[4], m[5] = 1, i, -1, -1
	if strings.HasPrefix(str[i:], " rank=") {
		j := i + len(" rank=")
		if k := digitsFrom(str, j); k > j {
			m[4], m[5] = j, k
			i = k
		}
	}
	if !strings.HasPrefix(str[i:], " pid=") {
		return m, false
	}
	j := i + len(" pid=")
	k := digitsFrom(str, j)
	if k == j {
		return m, false
	}
	m[6], m[7] = j, k
	i = k
	if strings.HasPrefix(str[i:], ", ip=") {
		j := i + len(", ip=")
		k := j
		for k < len(str) && (isDigit(str[k]) || str[k] == '.') {
			k++
		}
		if k > j {
			i = k
		}
	}
	if i >= len(str) || str[i] != ')' {
		return m, false
	}
	i++
	if i < len(str) && isSpace(str[i]) {
		i++
	}
	m[0], m[1] = 0, i
	return m, true
}

// tpNumber returns group 1 of reTPName ((?:TP|_TP|Worker_TP|rank)(\d+)) in s.
func tpNumber(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		var n int
		switch s[i] {
		case 'T':
			n = 2 // TP
		case '_':
			n = 3 // _TP
		case 'W':
			n = 9 // Worker_TP
		case 'r':
			n = 4 // rank
		default:
			continue
		}
		if i+n >= len(s) || !isDigit(s[i+n]) {
			continue
		}
		switch n {
		case 2:
			if s[i:i+2] != "TP" {
				continue
			}
		case 3:
			if s[i:i+3] != "_TP" {
				continue
			}
		case 9:
			if s[i:i+9] != "Worker_TP" {
				continue
			}
		case 4:
			if s[i:i+4] != "rank" {
				continue
			}
		}
		return s[i+n : digitsFrom(s, i+n)], true
	}
	return "", false
}

// matchHIPTrace matches reHIPTrace; m holds the submatch indices like
// FindStringSubmatchIndex.
//
//	^:(\d):\s*[\w.]+\s*:\s*\d+\s*:\s*\d+ us:\s*(?:(\d+): )?(?:\[pid:(\d+) tid:0x[0-9a-fA-F]+\]\s*|\[tid:0x[0-9a-fA-F]+\]\s*)?
func matchHIPTrace(str string) (m [8]int, ok bool) {
	if len(str) < 3 || str[0] != ':' || !isDigit(str[1]) || str[2] != ':' {
		return m, false
	}
	m[2], m[3] = 1, 2
	i := spacesFrom(str, 3)
	j := i
	for j < len(str) && (isWord(str[j]) || str[j] == '.') {
		j++
	}
	if j == i {
		return m, false
	}
	i = spacesFrom(str, j)
	if i >= len(str) || str[i] != ':' {
		return m, false
	}
	i = spacesFrom(str, i+1)
	j = digitsFrom(str, i)
	if j == i {
		return m, false
	}
	i = spacesFrom(str, j)
	if i >= len(str) || str[i] != ':' {
		return m, false
	}
	i = spacesFrom(str, i+1)
	j = digitsFrom(str, i)
	if j == i || !strings.HasPrefix(str[j:], " us:") {
		return m, false
	}
	i = spacesFrom(str, j+len(" us:"))
	m[4], m[5], m[6], m[7] = -1, -1, -1, -1
	if j := digitsFrom(str, i); j > i && strings.HasPrefix(str[j:], ": ") {
		m[4], m[5] = i, j
		i = j + 2
	}
	if strings.HasPrefix(str[i:], "[pid:") {
		j := i + len("[pid:")
		if k := digitsFrom(str, j); k > j && strings.HasPrefix(str[k:], " tid:0x") {
			h := k + len(" tid:0x")
			e := h
			for e < len(str) && isHex(str[e]) {
				e++
			}
			if e > h && e < len(str) && str[e] == ']' {
				m[6], m[7] = j, k
				m[0], m[1] = 0, spacesFrom(str, e+1)
				return m, true
			}
		}
	}
	if strings.HasPrefix(str[i:], "[tid:0x") {
		h := i + len("[tid:0x")
		e := h
		for e < len(str) && isHex(str[e]) {
			e++
		}
		if e > h && e < len(str) && str[e] == ']' {
			i = spacesFrom(str, e+1)
		}
	}
	m[0], m[1] = 0, i
	return m, true
}

// matchCompose matches reCompose (^([A-Za-z0-9][\w.-]*)\s+\| ) and returns
// the end and the end of group 1, or 0.
func matchCompose(str string) (end, nameEnd int) {
	if len(str) == 0 || !(isWord(str[0]) && str[0] != '_') {
		return 0, 0
	}
	i := 1
	for i < len(str) && (isWord(str[i]) || str[i] == '.' || str[i] == '-') {
		i++
	}
	j := spacesFrom(str, i)
	if j == i || !strings.HasPrefix(str[j:], "| ") {
		return 0, 0
	}
	return j + 2, i
}

func countSpaces(s string) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

// serviceManager: a journal ident whose lines report on other processes —
// systemd's "ollama.service: Main process exited, code=dumped,
// status=11/SEGV" (ollama/ollama#1148), systemd-coredump's "Process N
// (python3) … dumped core" — so its own pid is no culprit.
func serviceManager(ident string) bool {
	return ident == "systemd" || ident == "systemd-coredump"
}
