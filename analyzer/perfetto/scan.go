package perfetto

import "github.com/gputriage/gputriage/analyzer/internal/jsontext"

// scanner walks a chrome-trace JSON document pushed in chunks and splits it
// into pass-through bytes and the elements of "traceEvents": every object
// element is handed over whole (buffered across chunks), everything else —
// header values before or after the events, separators, whitespace, the
// array's brackets — goes to raw unchanged, so that concatenating the raw
// bytes and the events in call order gives back the input exactly. Chunk
// boundaries may fall anywhere. A broken document switches to pass-through
// for the rest of the input.
type scanner struct {
	st     scanState
	v      jsontext.Tracker
	key    []byte
	buf    []byte // event straddling chunks
	bare   bool   // the document is a bare array of events
	broken bool
	n      int64 // events handed over

	raw      func([]byte) // may be nil
	event    func([]byte)
	arrayEnd func() // just before the closing ']' of traceEvents goes to raw
}

type scanState uint8

const (
	sStart    scanState = iota
	sKey                // expecting a key or '}'
	sKeyStr             // inside a key
	sColon              // expecting ':'
	sValue              // expecting a value
	sHeader             // inside a header value
	sArr                // inside traceEvents, expecting an element or ']'
	sEvent              // inside an event object
	sArrValue           // inside a non-object array element
	sEnd                // document complete
	sErr                // broken: the rest passes through
)

func (s *scanner) emit(p []byte) {
	if s.raw != nil && len(p) > 0 {
		s.raw(p)
	}
}

// write consumes one chunk.
func (s *scanner) write(p []byte) {
	i, from := 0, 0 // from: first byte of p not yet handed over
	for i < len(p) {
		switch s.st {
		case sStart:
			c := p[i]
			switch {
			case jsontext.IsSpace(c) || c == 0xEF || c == 0xBB || c == 0xBF:
				i++
			case c == '{':
				s.st = sKey
				i++
			case c == '[':
				s.bare = true
				s.st = sArr
				i++
			default:
				s.st, s.broken = sErr, true
			}
		case sKey:
			c := p[i]
			switch {
			case jsontext.IsSpace(c) || c == ',':
				i++
			case c == '"':
				s.key = s.key[:0]
				s.v = jsontext.Tracker{}
				s.st = sKeyStr
				i++
			case c == '}':
				s.st = sEnd
				i++
			default:
				s.st, s.broken = sErr, true
			}
		case sKeyStr:
			j := i
			for j < len(p) && (s.v.Esc || p[j] != '"') {
				s.v.Esc = !s.v.Esc && p[j] == '\\'
				j++
			}
			s.key = append(s.key, p[i:j]...)
			if j == len(p) {
				i = j
				continue
			}
			s.st = sColon
			i = j + 1
		case sColon:
			c := p[i]
			switch {
			case jsontext.IsSpace(c):
				i++
			case c == ':':
				s.st = sValue
				i++
			default:
				s.st, s.broken = sErr, true
			}
		case sValue:
			c := p[i]
			if jsontext.IsSpace(c) {
				i++
				continue
			}
			if c == '[' && string(s.key) == "traceEvents" {
				s.st = sArr
				i++
				continue
			}
			s.v = jsontext.NewTracker(c)
			s.st = sHeader
		case sHeader:
			end, done := s.v.Advance(p, i)
			i = end
			if done {
				s.st = sKey
			}
		case sArr:
			c := p[i]
			switch {
			case jsontext.IsSpace(c) || c == ',':
				i++
			case c == ']':
				s.emit(p[from:i])
				from = i
				if s.arrayEnd != nil {
					s.arrayEnd()
				}
				if s.bare {
					s.st = sEnd
				} else {
					s.st = sKey
				}
				i++
			case c == '{':
				s.emit(p[from:i])
				from = i
				s.v = jsontext.Tracker{}
				s.buf = s.buf[:0]
				s.st = sEvent
			case c == '}' || c == ':':
				s.st, s.broken = sErr, true
			default:
				s.v = jsontext.NewTracker(c)
				s.st = sArrValue
			}
		case sEvent:
			end, done := s.v.Advance(p, i)
			if !done {
				s.buf = append(s.buf, p[from:end]...)
				from, i = end, end
				continue
			}
			ev := p[from:end]
			if len(s.buf) > 0 {
				s.buf = append(s.buf, ev...)
				ev = s.buf
			}
			s.n++
			s.event(ev)
			s.buf = s.buf[:0]
			s.st = sArr
			from, i = end, end
		case sArrValue:
			end, done := s.v.Advance(p, i)
			i = end
			if done {
				s.st = sArr
			}
		case sEnd:
			if !jsontext.IsSpace(p[i]) && p[i] != 0 {
				s.st, s.broken = sErr, true
			}
			i++
		case sErr:
			i = len(p)
		}
	}
	if s.st != sEvent {
		s.emit(p[from:])
	}
}

// close flushes an event cut short by the end of input as raw bytes, so
// that the output still holds every input byte.
func (s *scanner) close() {
	if s.st == sEvent {
		s.emit(s.buf)
		s.buf = s.buf[:0]
		s.st, s.broken = sErr, true
	}
}

// complete reports whether the document ended properly.
func (s *scanner) complete() bool { return s.st == sEnd }
