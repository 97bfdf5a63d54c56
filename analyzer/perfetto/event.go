package perfetto

import (
	"strconv"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
)

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
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for {
		i = jsontext.SkipSpace(b, i)
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
		key, j, ok := jsontext.ReadString(b, i)
		if !ok {
			return false
		}
		i = jsontext.SkipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = jsontext.SkipSpace(b, i+1)
		if i >= len(b) {
			return false
		}
		var v []byte
		switch string(key) {
		case "ph":
			v, i, ok = jsontext.ReadString(b, i)
			if ok && len(v) > 0 {
				e.ph = v[0]
			}
		case "cat":
			e.cat, i, ok = jsontext.ReadString(b, i)
			if !ok {
				i, ok = skipValue(b, i)
			}
		case "name":
			e.name, i, ok = jsontext.ReadString(b, i)
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
		i = jsontext.SkipSpace(b, i)
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
		key, j, ok := jsontext.ReadString(b, i)
		if !ok {
			return i, false
		}
		i = jsontext.SkipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = jsontext.SkipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		switch string(key) {
		case "correlation":
			var tok []byte
			if tok, i, ok = readRaw(b, i); !ok {
				return i, false
			}
			if v, ok := jsontext.ParseInt(tok); ok {
				e.corr = v
			}
		case "name":
			if e.argName, j, ok = jsontext.ReadString(b, i); ok {
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
	v := jsontext.NewTracker(b[i])
	j, done := v.Advance(b, i)
	if !done && v.Scalar() && j == len(b) && j > i {
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
	return jsontext.ParseInt(b[j:])
}

// replaceTid returns ev with the value of every top-level "tid" key
// replaced by tid; if the object has none, the key is added first.
func replaceTid(dst, ev []byte, tid int64) []byte {
	i := jsontext.SkipSpace(ev, 0)
	if i >= len(ev) || ev[i] != '{' {
		return append(dst, ev...)
	}
	i++
	from := 0
	found := false
	for {
		i = jsontext.SkipSpace(ev, i)
		if i >= len(ev) || ev[i] == '}' {
			break
		}
		if ev[i] == ',' {
			i++
			continue
		}
		key, j, ok := jsontext.ReadString(ev, i)
		if !ok {
			break
		}
		i = jsontext.SkipSpace(ev, j)
		if i >= len(ev) || ev[i] != ':' {
			break
		}
		i = jsontext.SkipSpace(ev, i+1)
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
		o := jsontext.SkipSpace(ev, 0) + 1
		dst = append(dst, ev[:o]...)
		dst = append(dst, `"tid":`...)
		dst = strconv.AppendInt(dst, tid, 10)
		if k := jsontext.SkipSpace(ev, o); k < len(ev) && ev[k] != '}' {
			dst = append(dst, ',')
		}
		return append(dst, ev[o:]...)
	}
	return append(dst, ev[from:]...)
}
