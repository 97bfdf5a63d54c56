package trace

import (
	"errors"
	"fmt"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// scanner finds the top-level structure of a Kineto document in pushed
// chunks without keeping the document: each element of "traceEvents" is
// handed over as one byte slice as soon as it is complete, other top-level
// values (the header, which may come before or after the events) are kept
// only when small. Chunk boundaries may fall anywhere, inside strings,
// escapes or numbers.
type scanner struct {
	st        scanState
	v         jsontext.Tracker
	key       []byte // top-level key being read (or just read)
	buf       []byte // a value or event straddling chunks
	start     int    // where the current value starts in the current chunk
	off       int64  // bytes consumed before the current chunk
	bare      bool   // the document is a bare array of events
	sawEvents bool   // a traceEvents array (or a bare array) was entered
	drop      bool   // current header value is too big to keep
	err       error
	maxEvent  int64 // bytes one event (or top-level key) may span
	evStart   int64 // offset of the current event's '{'
	// stopAt is where reading stopped (stErr): what a host pushed past it
	// depends on its chunks, so the file's size is reported up to here.
	stopAt int64

	event  func([]byte)
	fast   func([]byte) (int, bool) // parses an event in place; false: use the slow path
	header func(key string, v []byte)
}

type scanState uint8

const (
	stStart    scanState = iota
	stKey                // expecting a key or '}'
	stKeyStr             // inside a key
	stColon              // expecting ':'
	stValue              // expecting a value
	stHeader             // inside a header value
	stArr                // inside traceEvents, expecting an element or ']'
	stEvent              // inside an event object
	stArrValue           // inside a non-object array element (skipped)
	stEnd                // document complete
	stErr                // structure broken; the rest is ignored
)

// maxHeaderValue bounds what we keep of one non-event top-level value.
const maxHeaderValue = 8 << 20

// stop ends the document at byte at for a reason found by the reader (a
// limit).
func (s *scanner) stop(at int64, msg string) {
	s.st = stErr
	s.err = errors.New(msg)
	s.stopAt = at
}

func (s *scanner) fail(pos int, format string, args ...any) {
	s.st = stErr
	s.err = fmt.Errorf("byte %d: %s", s.off+int64(pos), fmt.Sprintf(format, args...))
	s.stopAt = s.off + int64(pos)
}

// write consumes one chunk.
func (s *scanner) write(p []byte) {
	i := 0
	s.start = 0
	for i < len(p) {
		switch s.st {
		case stStart:
			c := p[i]
			if jsontext.IsSpace(c) || (c == 0xEF || c == 0xBB || c == 0xBF) && s.off+int64(i) < 3 { // BOM
				i++
				continue
			}
			switch c {
			case '{':
				s.st = stKey
			case '[':
				s.bare = true
				s.sawEvents = true
				s.st = stArr
			default:
				s.fail(i, "not a JSON trace: starts with %q", printable(c))
				return
			}
			i++
		case stKey:
			c := p[i]
			switch {
			case jsontext.IsSpace(c) || c == ',':
				i++
			case c == '"':
				s.key = s.key[:0]
				s.v = jsontext.Tracker{InStr: true}
				s.st = stKeyStr
				i++
			case c == '}':
				s.st = stEnd
				i++
			default:
				s.fail(i, "expected a key, found %q", printable(c))
				return
			}
		case stKeyStr:
			j := i
			for j < len(p) && (s.v.Esc || p[j] != '"') {
				s.v.Esc = !s.v.Esc && p[j] == '\\'
				j++
			}
			s.key = append(s.key, p[i:j]...)
			if s.maxEvent > 0 && int64(len(s.key)) > s.maxEvent {
				s.stop(s.off+int64(j), limits.Exceeded("a top-level key", "max-event-bytes", s.maxEvent, s.off+int64(j)))
				return
			}
			if j == len(p) {
				i = j
				continue
			}
			s.st = stColon
			i = j + 1
		case stColon:
			c := p[i]
			if jsontext.IsSpace(c) {
				i++
				continue
			}
			if c != ':' {
				s.fail(i, "expected ':' after key %q", s.key)
				return
			}
			s.st = stValue
			i++
		case stValue:
			c := p[i]
			if jsontext.IsSpace(c) {
				i++
				continue
			}
			if c == '[' && string(s.key) == "traceEvents" {
				s.sawEvents = true
				s.st = stArr
				i++
				continue
			}
			s.v = jsontext.NewTracker(c)
			s.start = i
			s.buf = s.buf[:0]
			s.drop = false
			s.st = stHeader
		case stHeader:
			end, done := s.v.Advance(p, i)
			if !s.drop {
				if len(s.buf)+end-s.start > maxHeaderValue {
					s.drop = true
					s.buf = s.buf[:0]
				} else if !done {
					s.buf = append(s.buf, p[s.start:end]...)
				}
			}
			if !done {
				i = end
				s.start = 0
				continue
			}
			if !s.drop {
				v := p[s.start:end]
				if len(s.buf) > 0 {
					s.buf = append(s.buf, v...)
					v = s.buf
				}
				s.header(string(s.key), v)
			}
			s.st = stKey
			i = end
		case stArr:
			c := p[i]
			switch {
			case jsontext.IsSpace(c) || c == ',':
				i++
			case c == ']':
				if s.bare {
					s.st = stEnd
				} else {
					s.st = stKey
				}
				i++
			case c == '{':
				s.evStart = s.off + int64(i)
				if n, ok := s.fast(p[i:]); ok {
					i += n
					if s.st == stErr {
						return
					}
					continue
				}
				s.v = jsontext.Tracker{}
				s.start = i
				s.buf = s.buf[:0]
				s.st = stEvent
			case c == '}' || c == ':':
				s.fail(i, "unexpected %q inside traceEvents", printable(c))
				return
			default:
				s.v = jsontext.NewTracker(c)
				s.st = stArrValue
			}
		case stEvent:
			end, done := s.v.Advance(p, i)
			if !done {
				if s.maxEvent > 0 && int64(len(s.buf)+end-s.start) > s.maxEvent {
					s.buf = nil // release it: the rest of the file is not read
					s.stop(s.evStart, limits.Exceeded("a traceEvents element starting", "max-event-bytes", s.maxEvent, s.evStart))
					return
				}
				s.buf = append(s.buf, p[s.start:end]...)
				s.start = 0
				i = end
				continue
			}
			ev := p[s.start:end]
			if len(s.buf) > 0 {
				s.buf = append(s.buf, ev...)
				ev = s.buf
			}
			s.event(ev)
			if s.st == stErr {
				return
			}
			s.buf = s.buf[:0]
			s.st = stArr
			i = end
		case stArrValue:
			end, done := s.v.Advance(p, i)
			i = end
			if done {
				s.st = stArr
			}
		case stEnd:
			if !jsontext.IsSpace(p[i]) && p[i] != 0 {
				// Trailing bytes after a complete document: ignored, but noted.
				s.err = fmt.Errorf("byte %d: unexpected data after the end of the JSON document", s.off+int64(i))
				s.st = stErr
				s.stopAt = s.off + int64(i)
				return
			}
			i++
		case stErr:
			return
		}
	}
	s.off += int64(len(p))
}

// finish reports what was wrong with the document's end, if anything.
func (s *scanner) finish() (complete bool, problem string) {
	switch s.st {
	case stEnd:
		return true, ""
	case stErr:
		return false, s.err.Error()
	case stStart:
		return false, "empty input"
	case stEvent:
		return false, fmt.Sprintf("input ends at byte %d inside an event of traceEvents (truncated JSON)", s.off)
	case stArr, stArrValue:
		return false, fmt.Sprintf("input ends at byte %d inside traceEvents (truncated JSON)", s.off)
	default:
		return false, fmt.Sprintf("input ends at byte %d before the end of the JSON document (truncated)", s.off)
	}
}

func printable(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(rune(c))
	}
	return fmt.Sprintf("\\x%02x", c)
}
