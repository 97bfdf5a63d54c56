package trace

import (
	"unicode/utf8"
)

// unquote decodes the body of a JSON string (without its quotes) tolerantly:
// unknown escapes such as the `\q` of an unescaped Windows path are kept as
// the two literal characters, raw control characters are kept, and invalid
// UTF-8 becomes U+FFFD. It never fails.
func unquote(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c == '\\' && i+1 < len(b) {
			e := b[i+1]
			switch e {
			case '"', '\\', '/':
				dst = append(dst, e)
				i += 2
				continue
			case 'b':
				dst = append(dst, '\b')
				i += 2
				continue
			case 'f':
				dst = append(dst, '\f')
				i += 2
				continue
			case 'n':
				dst = append(dst, '\n')
				i += 2
				continue
			case 'r':
				dst = append(dst, '\r')
				i += 2
				continue
			case 't':
				dst = append(dst, '\t')
				i += 2
				continue
			case 'u':
				if r, n := decodeU(b[i:]); n > 0 {
					dst = utf8.AppendRune(dst, r)
					i += n
					continue
				}
			}
			dst = append(dst, '\\') // unknown escape: keep literally
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			dst = append(dst, "\uFFFD"...)
			i++
			continue
		}
		dst = append(dst, b[i:i+n]...)
		i += n
	}
	return dst
}

// decodeU decodes \uXXXX (and a following low surrogate) at the start of b.
func decodeU(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if r >= 0xD800 && r < 0xDC00 {
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if r2, ok := hex4(b[6:]); ok && r2 >= 0xDC00 && r2 < 0xE000 {
				return (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000, 12
			}
		}
		return utf8.RuneError, 6
	}
	if r >= 0xDC00 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 6 {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// plain reports whether a raw string body can be used as is: no escapes and
// valid UTF-8.
func plain(b []byte) bool {
	ascii := true
	for _, c := range b {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}
