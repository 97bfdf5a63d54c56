package crash

import (
	"strings"
	"unsafe"
)

// Delivery wrappers: what a launcher, a log collector or a CI runner puts in
// front of every line a program wrote — a CI or syslog stamp, journald's
// "host prog[pid]: ", kubectl --prefix's "[pod/name/container] ", docker
// compose's "svc-1  | ", srun --label's "3: ", mpirun --tag-output's
// "[1,3]<stderr>:", torchrun's "[rank3]:" / "[default3]:", Python logging's
// "2024-05-01 12:00:00,123 - INFO - ". They are removed once, as the line
// arrives, before anything reads its shape (terminal-wrap joining, help and
// Markdown detection, traceback carries, the parsers), so a log reads the
// same however it was delivered; what a wrapper says about the line (rank,
// pid, host, kernel origin) is kept as the line's facts. The line keeps its
// number. stripOne (normalize.go) still removes the prefixes a program
// writes itself (glog, c10, vLLM stamps) after this.

// deliveryFacts is what the wrappers of one line said.
type deliveryFacts struct {
	rank   int    // -1 unknown
	pid    int    // 0 unknown
	host   string // journald / rsyslog host
	worker string // compose service
	kernel bool   // journald "kernel:" line
	text   string // the wrappers as written (evidence shows them); may alias the line
}

var noDelivery = deliveryFacts{rank: -1}

// stripDelivery removes the delivery wrappers at the start of b (they nest:
// a CI stamp before an srun label) and returns the rest and their facts.
func (s *Session) stripDelivery(b []byte) ([]byte, deliveryFacts) {
	w := noDelivery
	all := b
	for iter := 0; iter < 6 && len(b) > 0; iter++ {
		n := s.deliveryOne(b, &w)
		if n <= 0 {
			break
		}
		b = b[n:]
	}
	if k := len(all) - len(b); k > 0 {
		w.text = unsafe.String(unsafe.SliceData(all), k)
	}
	return b, w
}

// deliveryOne returns the length of one delivery wrapper at the start of b
// (with the one blank after it), or 0, recording its facts in w.
func (s *Session) deliveryOne(b []byte, w *deliveryFacts) int {
	if len(b) < 3 {
		return 0
	}
	str := unsafe.String(unsafe.SliceData(b), len(b)) // read only while b is
	switch c := b[0]; {
	case c >= '0' && c <= '9':
		if n, task := matchSrunLabel(str); n > 0 { // before a known log shape: a rank
			s.cur.srunRanks = true
			if w.rank < 0 {
				w.rank = task
			}
			return n
		}
		if n, task := matchBareLabel(str); n > 0 {
			// "N: " before any text: srun --label once the file's labels
			// have shown a log shape, a ctest test number otherwise (a
			// number, never a rank)
			if s.cur.srunRanks && w.rank < 0 {
				w.rank = task
			}
			return n
		}
		if len(str) < 20 || !isDate(str[:10]) {
			return 0
		}
		// rsyslog's RFC 3339 stamp has a numeric zone ("+00:00"); a "Z"
		// stamp is GitHub Actions' or a collector's, and "word word: " after
		// it is the message ("rocBLAS error: …"): a syslog header counts
		// with a pid or as the kernel's
		if m := reSyslogISO.FindStringSubmatchIndex(str); m != nil && str[10] == 'T' && str[m[2]-2] != 'Z' && (m[6] >= 0 || str[m[4]:m[5]] == "kernel") {
			w.host = s.ownHost(str[m[2]:m[3]])
			if str[m[4]:m[5]] == "kernel" {
				w.kernel = true
				s.format("dmesg")
			}
			if m[6] >= 0 && !serviceManager(str[m[4]:m[5]]) {
				w.pid = atoiDef(str[m[6]:m[7]], 0)
			}
			return m[1]
		}
		return matchStampWrapper(str)
	case c == ' ':
		if n, task := matchSrunLabel(str); n > 0 {
			s.cur.srunRanks = true
			if w.rank < 0 {
				w.rank = task
			}
			return n
		}
		if n, task := matchBareLabel(str); n > 0 && s.cur.srunRanks {
			if w.rank < 0 {
				w.rank = task
			}
			return n
		}
	case c == '[':
		if n, r := matchMPITag(str); n > 0 {
			w.rank = r
			return n
		}
		if strings.HasPrefix(str, "[rank") {
			if m := reRank.FindStringSubmatchIndex(str); m != nil {
				w.rank = atoiDef(str[m[2]:m[3]], -1)
				return m[1]
			}
		}
		if n, r := matchElasticTag(str); n > 0 {
			if w.rank < 0 {
				w.rank = r
			}
			return n
		}
		return matchKubectlPrefix(str)
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		if c >= 'A' && c <= 'S' && len(str) > 16 && str[3] == ' ' && str[6] == ' ' && str[9] == ':' {
			if m := reJournald.FindStringSubmatchIndex(str); m != nil {
				w.host = s.ownHost(str[m[2]:m[3]])
				if str[m[4]:m[5]] == "kernel" {
					w.kernel = true
					s.format("dmesg")
				}
				if m[6] >= 0 && !serviceManager(str[m[4]:m[5]]) {
					w.pid = atoiDef(str[m[6]:m[7]], 0) // systemd's own pid reports on others
				}
				return m[1]
			}
		}
		if n, ne := matchCompose(str); n > 0 && composeWrapper(str[n:]) {
			w.worker = s.ownHost(str[:ne])
			if t, ok := tpNumber(w.worker); ok {
				w.rank = atoiDef(t, w.rank)
			}
			s.format("docker_compose")
			return n
		}
	}
	return 0
}

// composeWrapper: the text after a "name  | " column is not one more cell of
// a table row ("Error | Meaning | Fix"), which never passes for a wrapper.
func composeWrapper(rest string) bool {
	return !strings.Contains(rest, " | ") && !strings.HasSuffix(strings.TrimRight(rest, " "), "|")
}

// ownHost returns a copy of a wrapper's name that outlives the line, reusing
// the last one (a log's lines name the same few hosts).
func (s *Session) ownHost(h string) string {
	for _, k := range s.hosts {
		if k == h {
			return k
		}
	}
	k := strings.Clone(h)
	if len(s.hosts) < 16 {
		s.hosts = append(s.hosts, k)
	}
	return k
}

// matchBareLabel matches srun --label's shape "N: " (right-aligned to four
// blanks) alone and returns its length and N.
func matchBareLabel(str string) (n, task int) {
	i := 0
	for i < len(str) && i < 4 && str[i] == ' ' {
		i++
	}
	j := digitsFrom(str, i)
	if j == i || j-i > 5 || j+1 >= len(str) || str[j] != ':' || str[j+1] != ' ' {
		return 0, 0
	}
	return j + 2, atoiDef(str[i:j], -1)
}

// matchKubectlPrefix matches kubectl logs --prefix's "[pod/<pod>/<container>] ".
func matchKubectlPrefix(str string) int {
	if !strings.HasPrefix(str, "[pod/") {
		return 0
	}
	end := strings.IndexByte(str, ']')
	if end < 0 || end+1 >= len(str) || str[end+1] != ' ' {
		return 0
	}
	name := str[len("[pod/"):end]
	if strings.Count(name, "/") != 1 || strings.ContainsAny(name, " \t") || name[0] == '/' || name[len(name)-1] == '/' {
		return 0
	}
	return end + 2
}

// matchStampWrapper matches a time stamp put in front of a line by whatever
// collected it: GitHub Actions' "2024-05-01T12:00:00.1234567Z ", an
// RFC 3339 stamp with its zone, and Python logging's default
// "2024-05-01 12:00:00,123 - " with the level (and a logger name) that
// follows in its common formats. One blank after it is the wrapper's; the
// line's own indentation stays.
func matchStampWrapper(str string) int {
	if len(str) < 20 || !isDate(str[:10]) || (str[10] != 'T' && str[10] != ' ') {
		return 0
	}
	t := str[11:19]
	if !isDigit(t[0]) || !isDigit(t[1]) || t[2] != ':' || !isDigit(t[3]) || !isDigit(t[4]) || t[5] != ':' || !isDigit(t[6]) || !isDigit(t[7]) {
		return 0
	}
	i := 19
	if i+1 < len(str) && (str[i] == '.' || str[i] == ',') && isDigit(str[i+1]) {
		i = digitsFrom(str, i+1)
	}
	zone := false
	switch {
	case i < len(str) && str[i] == 'Z':
		i++
		zone = true
	case i+5 < len(str) && (str[i] == '+' || str[i] == '-') && isDigit(str[i+1]) && isDigit(str[i+2]):
		j := i + 3
		if str[j] == ':' {
			j++
		}
		if j+2 <= len(str) && isDigit(str[j]) && isDigit(str[j+1]) {
			i = j + 2
			zone = true
		}
	}
	if i >= len(str) || str[i] != ' ' {
		return 0
	}
	if n := pyLogLevel(str[i:]); n > 0 {
		return i + n
	}
	if str[10] == ' ' && !zone {
		return 0 // "2024-05-01 12:00:00,123 " alone: a program's own stamp (stripOne)
	}
	return i + 1
}

// pyLogLevel matches " - LEVEL - " or " - name - LEVEL - " after a Python
// logging stamp (the level may end with ": " instead: " - file.py - INFO: ")
// and returns its length.
func pyLogLevel(s string) int {
	if !strings.HasPrefix(s, " - ") {
		return 0
	}
	i := 3
	for k := 0; k < 2; k++ {
		for _, lv := range [...]string{"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL"} {
			if r := s[i:]; strings.HasPrefix(r, lv) && (strings.HasPrefix(r[len(lv):], " - ") || strings.HasPrefix(r[len(lv):], ": ")) {
				if r[len(lv)] == ':' {
					return i + len(lv) + 2
				}
				return i + len(lv) + 3
			}
		}
		j := strings.Index(s[i:], " - ")
		if j <= 0 || j > 64 || strings.ContainsAny(s[i:i+j], " \t") {
			return 0
		}
		i += j + 3
	}
	return 0
}
