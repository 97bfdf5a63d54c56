package trace

import "bytes"

// rawEvent holds the fields of one traceEvents element that the analyses
// use, as slices of the element's bytes.
type rawEvent struct {
	ph       byte
	cat      []byte
	name     []byte
	pid, tid []byte
	ts, dur  []byte
	ext      int64
	corr     int64
	stream   int64
	device   int64
}

// Outcomes of parseEventAt.
const (
	parsed = iota
	incomplete
	malformed
)

// parseEvent extracts the used fields from one complete JSON object and
// reports false for anything that is not a well-formed object.
func parseEvent(b []byte, e *rawEvent) bool {
	_, st := parseEventAt(b, e)
	return st == parsed
}

// parseEventAt parses the object starting at b[0] and returns where it ends.
// Keys may come in any order; unknown keys and values are skipped without
// decoding. incomplete means b ends inside the object.
func parseEventAt(b []byte, e *rawEvent) (int, int) {
	end, ok := parseObject(b, e)
	switch {
	case ok:
		return end, parsed
	case end >= len(b):
		return end, incomplete
	}
	return end, malformed
}

func parseObject(b []byte, e *rawEvent) (int, bool) {
	*e = rawEvent{ext: None, corr: None, stream: None, device: None}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			return i + 1, true
		}
		if b[i] == ',' {
			i++
			continue
		}
		key, j, ok := readString(b, i)
		if !ok {
			return j, false
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		switch string(key) {
		case "ph":
			v, j, ok := readString(b, i)
			if !ok {
				return j, false
			}
			if len(v) > 0 {
				e.ph = v[0]
			}
			i = j
		case "cat":
			e.cat, i, ok = readToken(b, i)
		case "name":
			e.name, i, ok = readToken(b, i)
		case "pid":
			e.pid, i, ok = readToken(b, i)
		case "tid":
			e.tid, i, ok = readToken(b, i)
		case "ts":
			e.ts, i, ok = readToken(b, i)
		case "dur":
			e.dur, i, ok = readToken(b, i)
		case "args":
			// Python frames and unkept categories need no args: skip them
			// without reading keys (they are most of a with_stack trace).
			if e.cat != nil && skipArgs(e.cat) {
				i, ok = skipValue(b, i)
			} else {
				i, ok = parseArgs(b, i, e)
			}
		default:
			i, ok = skipValue(b, i)
		}
		if !ok {
			return i, false
		}
	}
}

func parseArgs(b []byte, i int, e *rawEvent) (int, bool) {
	if b[i] != '{' {
		return skipValue(b, i)
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			return i + 1, true
		}
		if b[i] == ',' {
			i++
			continue
		}
		key, j, ok := readString(b, i)
		if !ok {
			return i, false
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		var dst *int64
		switch string(key) {
		case "External id", "external id":
			dst = &e.ext
		case "correlation":
			dst = &e.corr
		case "stream":
			dst = &e.stream
		case "device":
			dst = &e.device
		}
		if dst == nil {
			if i, ok = skipValue(b, i); !ok {
				return i, false
			}
			continue
		}
		tok, j, ok := readToken(b, i)
		if !ok {
			return i, false
		}
		if v, ok := parseInt(tok); ok {
			*dst = v
		}
		i = j
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// readString reads a JSON string at b[i] and returns its raw body.
func readString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	// Fast path: no escape before the closing quote (IndexByte is vectorised,
	// also in wasm).
	if q := bytes.IndexByte(b[i+1:], '"'); q >= 0 {
		if bytes.IndexByte(b[i+1:i+1+q], '\\') < 0 {
			return b[i+1 : i+1+q], i + 2 + q, true
		}
	} else {
		return nil, len(b), false
	}
	j := i + 1
	for j < len(b) {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, true
		case '\\':
			j += 2
		default:
			j++
		}
	}
	return nil, j, false
}

// readToken reads a string (returning its raw body) or a scalar (returning
// its text). Objects and arrays are skipped and return nil.
func readToken(b []byte, i int) ([]byte, int, bool) {
	switch b[i] {
	case '"':
		return readString(b, i)
	case '{', '[':
		j, ok := skipValue(b, i)
		return nil, j, ok
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\n', '\r', '\t':
			return b[i:j], j, true
		}
		j++
	}
	return nil, j, false
}

func skipValue(b []byte, i int) (int, bool) {
	v := newTracker(b[i])
	return v.advance(b, i)
}

// skipArgs reports categories whose args the analyses never read.
func skipArgs(cat []byte) bool {
	switch kindOf(cat) {
	case KindPython, KindOther:
		return true
	}
	return false
}
