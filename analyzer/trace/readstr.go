package trace

import (
	"encoding/binary"
	"math/bits"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
)

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
	j := quoteOrEscape(b, i+1)
	switch {
	case j >= len(b):
		return nil, len(b), false
	case b[j] == '"':
		return b[i+1 : j], j + 1, true
	}
	return jsontext.ReadString(b, i) // escapes are rare
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteOrEscape returns the index of the first '"' or '\\' at or after i,
// or len(b): eight bytes per step (a zero byte of v^'"' or v^'\\' sets its
// high bit in (x-ones)&^x; the lowest one is exact), then byte by byte.
func quoteOrEscape(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		q := v ^ ('"' * ones)
		e := v ^ ('\\' * ones)
		if m := ((q-ones)&^q | (e-ones)&^e) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return len(b)
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
			for i = quoteOrEscape(b, i+1); i < len(b) && b[i] == '\\'; {
				i = quoteOrEscape(b, i+2) // past the escaped byte
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
