// Package jsontext holds the byte-level JSON primitives the streaming
// readers share (the trace reader, the perfetto-fix rewriter): a value
// tracker that follows nesting across chunk boundaries, tolerant token
// readers, and exact decimal time parsing. Nothing here allocates.
package jsontext

import (
	"bytes"
	"math"
	"strconv"
)

// Tracker follows one JSON value across chunks: nesting depth and string
// state only, so it is cheap and never fails.
type Tracker struct {
	depth  int
	InStr  bool // inside a string (set to start inside one, e.g. a key)
	Esc    bool // just after a backslash inside a string
	scalar bool
}

// Advance scans p from i and returns the index just past the value's end and
// true, or len(p) and false if the value continues in the next chunk.
//
// Work is linear in len(p): inside a string the next quote is found once and
// reused across the backslashes before it (searching for it again after each
// escape made a string of n escapes cost n²).
func (v *Tracker) Advance(p []byte, i int) (int, bool) {
	quote := -1 // index in p of the next '"' at or after i, -1: not searched yet
	for i < len(p) {
		if v.InStr {
			if v.Esc {
				v.Esc = false
				i++
				continue
			}
			if quote < i {
				if q := bytes.IndexByte(p[i:], '"'); q < 0 {
					quote = len(p)
				} else {
					quote = i + q
				}
				scanned(quote - i)
			}
			j := quote
			if bs := bytes.IndexByte(p[i:j], '\\'); bs >= 0 {
				j = i + bs
			}
			scanned(j - i)
			if j == len(p) {
				return j, false
			}
			if p[j] == '\\' {
				v.Esc = true
				i = j + 1
				continue
			}
			v.InStr = false
			i = j + 1
			if v.depth == 0 {
				return i, true
			}
			continue
		}
		c := p[i]
		if v.scalar {
			switch c {
			case ',', '}', ']', ' ', '\n', '\r', '\t':
				return i, true
			}
			i++
			continue
		}
		switch c {
		case '"':
			v.InStr = true
		case '{', '[':
			v.depth++
		case '}', ']':
			v.depth--
			if v.depth <= 0 {
				return i + 1, true
			}
		}
		i++
	}
	return i, false
}

// scanHook, when set (tests only), is told how many bytes each search
// inside a string covers, so a test can bound the work of a scan instead of
// its time.
var scanHook func(n int)

func scanned(n int) {
	if scanHook != nil {
		scanHook(n)
	}
}

// Scalar reports whether the tracked value is a number, literal or other
// bare token (which ends at a delimiter rather than a bracket or quote).
func (v *Tracker) Scalar() bool { return v.scalar }

// NewTracker starts tracking a value whose first byte is first.
func NewTracker(first byte) Tracker {
	switch first {
	case '{', '[', '"':
		return Tracker{}
	}
	return Tracker{scalar: true}
}

// IsSpace reports JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// ReadString reads a JSON string at b[i] and returns its raw body.
func ReadString(b []byte, i int) ([]byte, int, bool) {
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

// ReadToken reads a string (returning its raw body) or a scalar (returning
// its text). Objects and arrays are skipped and return nil.
func ReadToken(b []byte, i int) ([]byte, int, bool) {
	switch b[i] {
	case '"':
		return ReadString(b, i)
	case '{', '[':
		j, ok := SkipValue(b, i)
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

// SkipValue returns the index just past the value at b[i].
func SkipValue(b []byte, i int) (int, bool) {
	v := NewTracker(b[i])
	return v.Advance(b, i)
}

// ParseNS converts the decimal text of a Kineto time value (microseconds) to
// integer nanoseconds without going through float64: at epoch-µs magnitudes
// (≈1.7e15) a float64 step is 0.25 µs and the ns digits would be lost.
// Fractions beyond 3 digits are rounded half up; exponents fall back to
// float parsing (never seen in real traces). ok is false for non-numbers.
func ParseNS(b []byte) (ns int64, ok bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' { // numeric string
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i++
	} else if b[0] == '+' {
		i++
	}
	var whole int64
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if whole > (1<<63-1)/10/1000 {
			return parseFloatNS(b)
		}
		whole = whole*10 + int64(b[i]-'0')
		digits++
	}
	var frac int64
	if i < len(b) && b[i] == '.' {
		i++
		n := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			switch {
			case n < 3:
				frac = frac*10 + int64(b[i]-'0')
			case n == 3 && b[i] >= '5':
				frac++ // round half up on the 4th digit
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
	ns = whole*1000 + frac
	if neg {
		ns = -ns
	}
	return ns, true
}

func parseFloatNS(b []byte) (int64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	// Out of int64's range the conversion is implementation-defined
	// (native and wasm give different numbers): refuse instead.
	if err != nil || f != f || f*1000 >= 9e18 || f*1000 <= -9e18 {
		return 0, false
	}
	return int64(math.Floor(f*1000 + 0.5)), true
}

// ParseInt parses an integer value, accepting numeric strings and floats with
// a zero fraction (some writers emit ids as 12.0). An integer outside int64
// is no number (2^64+7 must not wrap onto 7): see ParseIntRange.
func ParseInt(b []byte) (int64, bool) {
	v, ok, _ := ParseIntRange(b)
	return v, ok
}

// ParseIntRange is ParseInt that also reports an integer written in full
// but outside int64 (over), so a reader can count it rather than mistake
// it for an absent value.
func ParseIntRange(b []byte) (v int64, ok, over bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 {
		return 0, false, false
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i++
	}
	// Accumulate negatively: -2^63 is in range, 2^63 is not.
	const minCut = math.MinInt64 / 10
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		d := int64(b[i] - '0')
		if v < minCut || v*10 < math.MinInt64+d {
			over = true
		}
		v = v*10 - d
	}
	if i == start {
		return 0, false, false
	}
	if i < len(b) {
		if b[i] != '.' {
			return 0, false, false
		}
		for i++; i < len(b); i++ {
			if b[i] != '0' {
				return 0, false, false
			}
		}
	}
	if !neg {
		if v == math.MinInt64 {
			over = true
		}
		v = -v
	}
	if over {
		return 0, false, true
	}
	return v, true, false
}

// TrailingIntRange is TrailingInt reporting an id outside int64 (over).
func TrailingIntRange(b []byte) (v int64, ok, over bool) {
	j := len(b)
	for j > 0 && b[j-1] >= '0' && b[j-1] <= '9' {
		j--
	}
	if j == len(b) {
		return -1, false, false
	}
	if j > 0 && b[j-1] == '-' {
		j--
	}
	return ParseIntRange(b[j:])
}

// TrailingInt reads the number at the end of a pid/tid token ("7", "stream 7").
func TrailingInt(b []byte) (int64, bool) {
	v, ok, _ := TrailingIntRange(b)
	if !ok {
		return -1, false
	}
	return v, true
}
