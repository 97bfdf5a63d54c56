package analyzer

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// JSON encodes the result for the module's result buffer: what
// encoding/json writes for it (HTML characters unescaped), in one buffer of
// the exact size. Through json.Encoder a job's 60 MB of artifacts were held
// four times at once (the texts, the encoder's growing buffer, the copy it
// wrote out and that buffer's growth), which set the module's high-water
// mark; here they are held twice.
func (r *Result) JSON() []byte {
	m := r.materialized()
	head := marshal(struct {
		ExitCode int          `json:"exit_code"`
		Error    string       `json:"error,omitempty"`
		Files    []FileResult `json:"files"`
	}{m.ExitCode, m.Error, m.Files})
	var tail []byte
	if len(m.Runs) > 0 {
		tail = append([]byte(`,"runs":`), marshal(m.Runs)...)
	}
	const key = `,"artifacts":`
	n := len(head) - 1 + len(key) + len(tail) + len("}\n")
	if m.Artifacts == nil {
		n += len("null")
	} else {
		n += len("[]")
		for i, a := range m.Artifacts {
			n += len(`{"name":,"text":}`) + quotedLen(a.Name) + quotedLen(a.Text)
			if i > 0 {
				n++
			}
		}
	}
	b := make([]byte, 0, n)
	b = append(b, head[:len(head)-1]...) // without its closing brace
	b = append(b, key...)
	if m.Artifacts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, a := range m.Artifacts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendQuoted(b, a.Name)
			b = append(b, `,"text":`...)
			b = appendQuoted(b, a.Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, tail...)
	return append(b, "}\n"...)
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // our own types: nothing fails
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// controlEscapes are \u00XX for the control bytes without a short escape.
var controlEscapes = func() (t [0x20]string) {
	const hex = "0123456789abcdef"
	for c := range t {
		t[c] = `\u00` + hex[c>>4:c>>4+1] + hex[c&0xf:c&0xf+1]
	}
	return t
}()

// jsonEscape is how encoding/json writes an ASCII byte inside a string
// (HTML characters unescaped): "" for the byte itself.
func jsonEscape(c byte) string {
	switch c {
	case '\\':
		return `\\`
	case '"':
		return `\"`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if c < 0x20 {
		return controlEscapes[c]
	}
	return ""
}

// appendQuoted appends s as encoding/json writes it with HTML characters
// unescaped: invalid UTF-8 becomes \ufffd, U+2028 and U+2029 are escaped.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if e := jsonEscape(c); e != "" {
				b = append(b, s[start:i]...)
				b = append(b, e...)
				start = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var e string
		switch {
		case r == utf8.RuneError && size == 1:
			e = `\ufffd`
		case r == '\u2028':
			e = `\u2028`
		case r == '\u2029':
			e = `\u2029`
		}
		if e != "" {
			b = append(b, s[start:i]...)
			b = append(b, e...)
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// quotedLen is len(appendQuoted(nil, s)).
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if e := jsonEscape(c); e != "" {
				n += len(e)
			} else {
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`)
		default:
			n += size
		}
		i += size
	}
	return n
}
