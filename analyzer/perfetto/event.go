package perfetto

import "strconv"

// event holds the fields of one traceEvents element that the fixer reads,
// as slices of the element's bytes. pid, tid and id keep their JSON
// spelling (strings with their quotes) so that 7 and "7" stay distinct.
type event struct {
	ph       byte
	cat      []byte
	name     []byte
	pid, tid []byte
	id       []byte
	ts, dur  []byte
	corr     int64
	argName  []byte // args.name (thread_name metadata)
}

const none = -1

// parseEvent extracts the used fields from one complete JSON object; it
// reports false for anything that is not a well-formed object.
func parseEvent(b []byte, e *event) bool {
	*e = event{corr: none}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return true
		}
		if b[i] == ',' {
			i++
			continue
		}
		key, j, ok := readString(b, i)
		if !ok {
			return false
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return false
		}
		var v []byte
		switch string(key) {
		case "ph":
			v, i, ok = readString(b, i)
			if ok && len(v) > 0 {
				e.ph = v[0]
			}
		case "cat":
			e.cat, i, ok = readString(b, i)
			if !ok {
				i, ok = skipValue(b, i)
			}
		case "name":
			e.name, i, ok = readString(b, i)
			if !ok {
				i, ok = skipValue(b, i)
			}
		case "pid":
			e.pid, i, ok = readRaw(b, i)
		case "tid":
			e.tid, i, ok = readRaw(b, i)
		case "id":
			e.id, i, ok = readRaw(b, i)
		case "ts":
			e.ts, i, ok = readRaw(b, i)
		case "dur":
			e.dur, i, ok = readRaw(b, i)
		case "args":
			i, ok = parseArgs(b, i, e)
		default:
			i, ok = skipValue(b, i)
		}
		if !ok {
			return false
		}
	}
}

func parseArgs(b []byte, i int, e *event) (int, bool) {
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
		switch string(key) {
		case "correlation":
			var tok []byte
			if tok, i, ok = readRaw(b, i); !ok {
				return i, false
			}
			if v, ok := parseInt(tok); ok {
				e.corr = v
			}
		case "name":
			if e.argName, j, ok = readString(b, i); ok {
				i = j
				continue
			}
			if i, ok = skipValue(b, i); !ok {
				return i, false
			}
		default:
			if i, ok = skipValue(b, i); !ok {
				return i, false
			}
		}
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
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, true
		case '\\':
			j++
		}
	}
	return nil, len(b), false
}

// readRaw returns the exact bytes of the value at b[i] (strings with their
// quotes, objects and arrays whole).
func readRaw(b []byte, i int) ([]byte, int, bool) {
	j, ok := skipValue(b, i)
	if !ok {
		return nil, j, false
	}
	return b[i:j], j, true
}

func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	v := newTracker(b[i])
	j, done := v.advance(b, i)
	if !done && v.scalar && j == len(b) && j > i {
		return j, true // a scalar ending the buffer
	}
	return j, done
}

// unquoteNum strips the quotes of a numeric string.
func unquoteNum(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// parseNS converts the decimal text of a time value in microseconds to
// integer nanoseconds without going through float64 (epoch-µs values would
// lose their ns digits). Exponents fall back to float parsing.
func parseNS(b []byte) (int64, bool) {
	b = unquoteNum(b)
	if len(b) == 0 {
		return 0, false
	}
	neg, i := false, 0
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	var whole, frac int64
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if whole > (1<<63-1)/10/1000 {
			return parseFloatNS(b)
		}
		whole = whole*10 + int64(b[i]-'0')
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		n := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			switch {
			case n < 3:
				frac = frac*10 + int64(b[i]-'0')
			case n == 3 && b[i] >= '5':
				frac++
			}
			n++
			digits++
		}
		for ; n < 3; n++ {
			frac *= 10
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) {
		if b[i] == 'e' || b[i] == 'E' {
			return parseFloatNS(b)
		}
		return 0, false
	}
	ns := whole*1000 + frac
	if neg {
		ns = -ns
	}
	return ns, true
}

func parseFloatNS(b []byte) (int64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f > 9e15 || f < -9e15 {
		return 0, false
	}
	return int64(f*1000 + 0.5), true
}

// parseInt parses an integer (or a numeric string, or a float with a zero
// fraction).
func parseInt(b []byte) (int64, bool) {
	b = unquoteNum(b)
	if len(b) == 0 {
		return 0, false
	}
	neg, i := false, 0
	if b[0] == '-' {
		neg = true
		i++
	}
	var v int64
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (1<<63-1)/10 {
			return 0, false
		}
		v = v*10 + int64(b[i]-'0')
	}
	if i == start {
		return 0, false
	}
	if i < len(b) {
		if b[i] != '.' {
			return 0, false
		}
		for i++; i < len(b); i++ {
			if b[i] != '0' {
				return 0, false
			}
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// trailingInt reads the number at the end of a tid spelling (7, "7",
// "stream 7").
func trailingInt(b []byte) (int64, bool) {
	b = unquoteNum(b)
	j := len(b)
	for j > 0 && b[j-1] >= '0' && b[j-1] <= '9' {
		j--
	}
	if j == len(b) || len(b)-j > 15 {
		return 0, false
	}
	return parseInt(b[j:])
}

// replaceTid returns ev with the value of every top-level "tid" key
// replaced by tid; if the object has none, the key is added first.
func replaceTid(dst, ev []byte, tid int64) []byte {
	i := skipSpace(ev, 0)
	if i >= len(ev) || ev[i] != '{' {
		return append(dst, ev...)
	}
	i++
	from := 0
	found := false
	for {
		i = skipSpace(ev, i)
		if i >= len(ev) || ev[i] == '}' {
			break
		}
		if ev[i] == ',' {
			i++
			continue
		}
		key, j, ok := readString(ev, i)
		if !ok {
			break
		}
		i = skipSpace(ev, j)
		if i >= len(ev) || ev[i] != ':' {
			break
		}
		i = skipSpace(ev, i+1)
		end, ok := skipValue(ev, i)
		if !ok {
			break
		}
		if string(key) == "tid" {
			dst = append(dst, ev[from:i]...)
			dst = strconv.AppendInt(dst, tid, 10)
			from = end
			found = true
		}
		i = end
	}
	if !found {
		o := skipSpace(ev, 0) + 1
		dst = append(dst, ev[:o]...)
		dst = append(dst, `"tid":`...)
		dst = strconv.AppendInt(dst, tid, 10)
		if k := skipSpace(ev, o); k < len(ev) && ev[k] != '}' {
			dst = append(dst, ',')
		}
		return append(dst, ev[o:]...)
	}
	return append(dst, ev[from:]...)
}
