package crash

import (
	"bytes"
	"sort"
	"strings"
)

const (
	maxLineBytes = 64 << 10 // longer lines are cut (flagged long_lines_cut)
	maxFiles     = 4096
)

// Session accumulates the evidence of one incident: any number of files,
// each pushed as bytes in chunks of any size.
type Session struct {
	files []*fileState
	cur   *fileState

	partial  []byte // unterminated line carried between chunks
	dropping bool   // current line exceeded maxLineBytes; skip to '\n'

	b       *builder
	parsers []parser

	lastLaunch launchConfig
	limits     deviceLimits
}

type fileState struct {
	idx     int
	info    InputInfo
	formats map[string]bool
	quality map[string]bool
	side    *sideDoc
}

// parser is implemented by every format parser.
type parser interface {
	beginFile(s *Session)
	line(l *line)
	endFile()
}

// New returns an empty session.
func New() *Session { return newSession(newParsers) }

// newSession builds a session with the given parser set (tests fuzz one
// parser at a time).
func newSession(mk func(*Session) []parser) *Session {
	s := &Session{b: newBuilder(), limits: defaultLimits()}
	s.parsers = mk(s)
	return s
}

// BeginFile starts a new input file; name is used in evidence.
func (s *Session) BeginFile(name string) {
	if s.cur != nil {
		s.EndFile()
	}
	if len(s.files) >= maxFiles {
		// keep a bounded list: reuse the last slot's counters under a shared name
		s.cur = s.files[len(s.files)-1]
		return
	}
	f := &fileState{idx: len(s.files), info: InputInfo{Name: name}, formats: map[string]bool{}, quality: map[string]bool{}}
	f.side = newSideDoc()
	s.files = append(s.files, f)
	s.cur = f
	s.partial = s.partial[:0]
	s.dropping = false
	for _, p := range s.parsers {
		p.beginFile(s)
	}
}

// Write pushes the next chunk of the current file. It never fails.
func (s *Session) Write(p []byte) (int, error) {
	if s.cur == nil {
		s.BeginFile("input")
	}
	n := len(p)
	s.cur.info.Bytes += int64(n)
	s.cur.side.write(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.appendPartial(p)
			break
		}
		if len(s.partial) == 0 && !s.dropping {
			s.handleLine(p[:i])
		} else {
			s.appendPartial(p[:i])
			s.handleLine(s.partial)
		}
		s.partial = s.partial[:0]
		s.dropping = false
		p = p[i+1:]
	}
	return n, nil
}

func (s *Session) appendPartial(p []byte) {
	room := maxLineBytes - len(s.partial)
	if len(p) > room {
		if room > 0 {
			s.partial = append(s.partial, p[:room]...)
		}
		if !s.dropping {
			s.dropping = true
			s.cur.quality["long_lines_cut"] = true
		}
		return
	}
	s.partial = append(s.partial, p...)
}

func (s *Session) handleLine(b []byte) {
	if len(b) > maxLineBytes {
		b = b[:maxLineBytes]
		s.cur.quality["long_lines_cut"] = true
	}
	s.cur.info.Lines++
	l := s.normalize(b, s.cur.info.Lines)
	for _, p := range s.parsers {
		p.line(l)
	}
}

// feedVirtual runs text lines that were embedded in a side document (for
// example the kernel_api_log string of crash_diagnostics.json) through the
// parsers, all attributed to line no of the current file.
func (s *Session) feedVirtual(text string, no int) {
	for _, ln := range splitLines(text) {
		l := s.normalize([]byte(ln), no)
		for _, p := range s.parsers {
			p.line(l)
		}
	}
}

// EndFile ends the current file.
func (s *Session) EndFile() {
	if s.cur == nil {
		return
	}
	if len(s.partial) > 0 || s.dropping {
		s.cur.info.Truncated = true
		s.cur.quality["unterminated_last_line"] = true
		s.handleLine(s.partial)
		s.partial = s.partial[:0]
		s.dropping = false
	}
	s.cur.side.finish(s)
	for _, p := range s.parsers {
		p.endFile()
	}
	s.cur = nil
}

// Diagnosis assembles the diagnosis of everything pushed so far. It can be
// called more than once.
func (s *Session) Diagnosis() *Diagnosis {
	if s.cur != nil {
		s.EndFile()
	}
	d := s.b.diagnosis(s)
	for _, f := range s.files {
		info := f.info
		info.Formats = sortedKeys(f.formats)
		info.Quality = sortedKeys(f.quality)
		if info.Formats == nil {
			info.Formats = []string{}
		}
		if f.quality["long_lines_cut"] || f.quality["elided"] {
			info.Truncated = true
		}
		d.Inputs = append(d.Inputs, info)
	}
	if d.Inputs == nil {
		d.Inputs = []InputInfo{}
	}
	return d
}

// format records that the current file contains a recognised format.
func (s *Session) format(name string) {
	if s.cur != nil {
		s.cur.formats[name] = true
	}
}

// flag records a quality flag for the current file.
func (s *Session) flag(name string) {
	if s.cur != nil {
		s.cur.quality[name] = true
	}
}

func (s *Session) fileName(idx int) string {
	if idx >= 0 && idx < len(s.files) {
		return s.files[idx].info.Name
	}
	return ""
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}
