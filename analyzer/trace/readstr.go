package trace

import "github.com/gputriage/gputriage/analyzer/internal/jsontext"

// The loop versions of jsontext's ReadString, ReadToken and SkipValue: the
// same results, in one pass over the bytes and without calls. In Go's wasm
// code bytes.IndexByte is a byte loop behind a call (no SIMD), and
// jsontext makes two per string (the closing quote, then a backslash before
// it), for every key and string value of every event: the module parses with
// these (readstr_wasm.go). Natively IndexByte is vectorised, so native builds
// keep jsontext's (readstr_other.go). TestLoopsMatchJSONText and
// FuzzLoopsMatchJSONText hold them to jsontext's results.

func readStringLoop(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, true
		case '\\':
			return jsontext.ReadString(b, i) // escapes are rare
		}
	}
	return nil, len(b), false
}

func readTokenLoop(b []byte, i int) ([]byte, int, bool) {
	switch b[i] {
	case '"':
		return readStringLoop(b, i)
	case '{', '[':
		j, ok := skipValueLoop(b, i)
		return nil, j, ok
	}
	return jsontext.ReadToken(b, i)
}

func skipValueLoop(b []byte, i int) (int, bool) {
	switch b[i] {
	case '{', '[', '"':
	default: // a scalar ends at a delimiter
		for j := i; j < len(b); j++ {
			switch b[j] {
			case ',', '}', ']', ' ', '\n', '\r', '\t':
				return j, true
			}
		}
		return len(b), false
	}
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			for i++; i < len(b); i++ {
				if b[i] == '\\' {
					i++
					continue
				}
				if b[i] == '"' {
					break
				}
			}
			if i >= len(b) {
				return len(b), false
			}
			if depth == 0 {
				return i + 1, true
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return i + 1, true
			}
		}
		i++
	}
	return len(b), false
}
