package crash

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Log decoding (issue 13 item 10): logs that are text but not plain UTF-8
// lines. A PowerShell or Windows redirect writes UTF-16 (with or without a
// byte-order mark); logrotate's copytruncate leaves the file's old length
// as a run of NUL bytes in front of (or between) new lines; old macOS tools
// and some progress printers end lines with a bare CR. The decoder turns all
// of them into UTF-8 with '\n' line ends before the line splitter sees them.
//
// The encoding and the line-end convention are decided once per file from
// its first decideBytes bytes (or fewer at the end of the file), so the
// result does not depend on how the host chunks the input.

const decideBytes = 4096

type textEncoding uint8

const (
	encUTF8 textEncoding = iota
	encUTF16LE
	encUTF16BE
)

func (e textEncoding) String() string {
	switch e {
	case encUTF16LE:
		return "utf16le"
	case encUTF16BE:
		return "utf16be"
	}
	return "utf8"
}

// detectEncoding reads the head of a file: a UTF-16 byte-order mark, or the
// UTF-16 pattern of ASCII text (every other byte NUL) after any leading NUL
// run. It returns the encoding and the number of BOM bytes to drop.
func detectEncoding(head []byte) (textEncoding, int) {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return encUTF16LE, 2
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return encUTF16BE, 2
	}
	h := bytes.TrimLeft(head, "\x00")
	// the NUL run may end at an odd offset; judge the pattern on pairs
	if len(h) < 8 {
		return encUTF8, 0
	}
	var zeroEven, zeroOdd, pairs int
	for i := 0; i+1 < len(h); i += 2 {
		pairs++
		if h[i] == 0 {
			zeroEven++
		}
		if h[i+1] == 0 {
			zeroOdd++
		}
	}
	// ASCII in UTF-16LE: "a\0b\0" — the high bytes (odd) are NUL, the low
	// bytes almost never. Offset parity of the trimmed head matters only
	// when the NUL run had odd length; then the roles swap.
	le := zeroOdd*10 >= pairs*3 && zeroEven*20 <= pairs
	be := zeroEven*10 >= pairs*3 && zeroOdd*20 <= pairs
	odd := (len(head)-len(h))%2 == 1
	switch {
	case le && !odd, be && odd:
		return encUTF16LE, 0
	case be && !odd, le && odd:
		return encUTF16BE, 0
	}
	return encUTF8, 0
}

// detectCROnly reports a file whose lines end in a bare CR: carriage
// returns, none followed by '\n', and no '\n' at all in the head. (A tqdm
// bar also uses bare CRs, but its log has '\n' lines around it.)
func detectCROnly(utf8Head []byte) bool {
	return bytes.IndexByte(utf8Head, '\n') < 0 && bytes.Count(utf8Head, []byte{'\r'}) >= 2
}

// logDecoder converts one file's bytes to UTF-8 lines.
type logDecoder struct {
	decided bool
	head    []byte
	enc     textEncoding
	crOnly  bool
	odd     []byte // an odd trailing byte of UTF-16 input, or a cut surrogate pair
	out     []byte // reused output buffer
	nuls    int    // NUL bytes dropped
	bomSkip int
}

// write decodes p and calls emit with UTF-8 bytes (possibly several times).
// Bytes are held back until the file's encoding is decided.
func (d *logDecoder) write(p []byte, emit func([]byte)) {
	if !d.decided {
		d.head = append(d.head, p...)
		if len(d.head) < decideBytes {
			return
		}
		d.decide()
		p = d.head
		d.head = nil
		d.convert(p, emit)
		return
	}
	d.convert(p, emit)
}

// flush ends the file: decides on what was held back and emits it.
func (d *logDecoder) flush(emit func([]byte)) {
	if !d.decided {
		d.decide()
		p := d.head
		d.head = nil
		d.convert(p, emit)
	}
	if len(d.odd) > 0 && d.enc == encUTF8 {
		emit(d.odd)
	}
	d.odd = d.odd[:0]
}

func (d *logDecoder) decide() {
	d.decided = true
	d.enc, d.bomSkip = detectEncoding(d.head)
	h := d.head[d.bomSkip:]
	if d.enc != encUTF8 {
		h = decodeUTF16(nil, h, d.enc == encUTF16LE)
	}
	d.crOnly = detectCROnly(h)
}

func (d *logDecoder) convert(p []byte, emit func([]byte)) {
	if d.bomSkip > 0 {
		n := min(d.bomSkip, len(p))
		p = p[n:]
		d.bomSkip -= n
	}
	if len(p) == 0 {
		return
	}
	if d.enc == encUTF8 {
		if !d.crOnly && bytes.IndexByte(p, 0) < 0 {
			emit(p) // the common case: no copy
			return
		}
		out := d.out[:0]
		for _, c := range p {
			switch {
			case c == 0:
				d.nuls++
			case c == '\r' && d.crOnly:
				out = append(out, '\n')
			default:
				out = append(out, c)
			}
		}
		d.out = out
		emit(out)
		return
	}
	// UTF-16: keep an odd byte for the next chunk
	buf := append(d.odd[:0:0], d.odd...)
	buf = append(buf, p...)
	n := len(buf) &^ 1
	// do not split a surrogate pair across chunks
	if n >= 2 {
		var u uint16
		if d.enc == encUTF16LE {
			u = uint16(buf[n-2]) | uint16(buf[n-1])<<8
		} else {
			u = uint16(buf[n-1]) | uint16(buf[n-2])<<8
		}
		if u >= 0xd800 && u < 0xdc00 {
			n -= 2
		}
	}
	d.odd = append(d.odd[:0], buf[n:]...)
	out := decodeUTF16(d.out[:0], buf[:n], d.enc == encUTF16LE)
	// NULs and CR-only line ends, as for UTF-8
	w := 0
	for _, c := range out {
		switch {
		case c == 0:
			d.nuls++
			continue
		case c == '\r' && d.crOnly:
			c = '\n'
		}
		out[w] = c
		w++
	}
	d.out = out[:w]
	if w > 0 {
		emit(d.out)
	}
}

// decodeUTF16 appends the UTF-8 form of the UTF-16 bytes b (even length) to dst.
func decodeUTF16(dst, b []byte, le bool) []byte {
	for i := 0; i+1 < len(b); i += 2 {
		var u uint16
		if le {
			u = uint16(b[i]) | uint16(b[i+1])<<8
		} else {
			u = uint16(b[i+1]) | uint16(b[i])<<8
		}
		r := rune(u)
		if utf16.IsSurrogate(r) && i+3 < len(b) {
			var u2 uint16
			if le {
				u2 = uint16(b[i+2]) | uint16(b[i+3])<<8
			} else {
				u2 = uint16(b[i+3]) | uint16(b[i+2])<<8
			}
			if dec := utf16.DecodeRune(r, rune(u2)); dec != utf8.RuneError {
				r = dec
				i += 2
			} else {
				r = utf8.RuneError
			}
		} else if utf16.IsSurrogate(r) {
			r = utf8.RuneError
		}
		if r == 0xfeff { // a BOM inside the text (concatenated files)
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// LooksText reports whether head (a file's first bytes) is a text log in a
// form the crash session decodes: UTF-16 (BOM or pattern) or UTF-8 text
// behind a run of NUL bytes (logrotate copytruncate). Plain UTF-8 text is
// also text. The analyzer's sniffing uses it so such logs are not refused
// as binary.
func LooksText(head []byte) bool {
	enc, bom := detectEncoding(head)
	h := head[bom:]
	if enc != encUTF8 {
		h = decodeUTF16(nil, h[:len(h)&^1], enc == encUTF16LE)
	}
	h = bytes.ReplaceAll(h, []byte{0}, nil)
	if len(h) == 0 {
		// a BOM alone is an empty UTF-16 text; NUL bytes alone are not
		// text (the analyzer skips a leading NUL run before it sniffs)
		return len(head) > 0 && enc != encUTF8
	}
	bad, n := 0, 0
	for i := 0; i < len(h); {
		r, size := utf8.DecodeRune(h[i:])
		n++
		if (r == utf8.RuneError && size == 1 && len(h)-i >= utf8.UTFMax) || (r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != 0x1b && r != '\f' && r != '\b') {
			bad++
		}
		i += size
	}
	return bad*20 < n
}
