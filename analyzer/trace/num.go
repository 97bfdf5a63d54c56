package trace

import "strconv"

// parseNS converts the decimal text of a Kineto time value (microseconds) to
// integer nanoseconds without going through float64: at epoch-µs magnitudes
// (≈1.7e15) a float64 step is 0.25 µs and the ns digits would be lost.
// Fractions beyond 3 digits are rounded half up; exponents fall back to
// float parsing (never seen in real traces). ok is false for non-numbers.
func parseNS(b []byte) (ns int64, ok bool) {
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
	if err != nil {
		return 0, false
	}
	return int64(f*1000 + 0.5), true
}

// parseInt parses an integer value, accepting numeric strings and floats with
// a zero fraction (some writers emit ids as 12.0).
func parseInt(b []byte) (int64, bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
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
	}
	var v int64
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
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
