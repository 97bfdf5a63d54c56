// Package quote builds the commands gputriage suggests. A value taken from
// the input (a dump folder, an API name, a pid) becomes exactly one literal
// shell word or one Python string literal, so pasting a suggested step never
// runs code the input carried.
package quote

import (
	"strings"
	"unicode/utf8"
)

// Shell returns s as one POSIX shell word that expands to exactly s: bare
// when every byte is one no shell treats specially, else single-quoted with
// each ' written as '\”. ok is false when s cannot be pasted as one line of
// text: NUL (no argument can hold it), newlines and other control or bidi
// characters (a step is one line, and every output shows these escaped, so
// the pasted word would differ), invalid UTF-8. Callers leave such a value
// out and say so.
func Shell(s string) (word string, ok bool) {
	if !pasteable(s) {
		return "", false
	}
	if s != "" && bare(s) {
		return s, true
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", true
}

// Env returns the assignment name=value as one shell word (name must be a
// shell identifier; it is the program's, never the input's).
func Env(name, value string) (word string, ok bool) {
	v, ok := Shell(value)
	if !ok {
		return "", false
	}
	return name + "=" + v, true
}

// Python returns s as one Python str literal equal to s: single-quoted,
// with \ and ' escaped and every non-printing character written as \xNN,
// \uNNNN or \UNNNNNNNN. ok is false only for invalid UTF-8, which no str
// literal holds.
func Python(s string) (lit string, ok bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r < 0x100 && (r < 0x20 || r >= 0x7f && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		case unsafe(r):
			b.WriteString(`\u`)
			for sh := 12; sh >= 0; sh -= 4 {
				b.WriteByte(hex[r>>sh&15])
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String(), true
}

// bare reports whether s needs no quoting: letters, digits and _@%+=:,./-
// (no glob, expansion, redirection, separator or quote character; a leading
// ~ or = outside this set could expand, so they are quoted).
func bare(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("_@%+:,./-", c) >= 0:
		case c == '=' && i > 0:
		default:
			return false
		}
	}
	return true
}

func pasteable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || unsafe(r) {
			return false
		}
	}
	return true
}

// unsafe is escape's rule: C1 controls, bidi embeddings/overrides/isolates,
// and the other invisible format characters a paste would carry unseen.
func unsafe(r rune) bool {
	return r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200b || r == 0x200e || r == 0x200f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xd800 && r < 0xe000
}
