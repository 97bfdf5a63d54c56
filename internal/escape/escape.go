// Package escape holds one helper per medium a user-supplied string (a file
// name, a kernel name, a log line) leaves the program through: the terminal
// and Markdown here; HTML is the page's textContent, and spreadsheet cells
// (the page's TSV copy) are site/render/tsv.js with the same rule as Cell.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// unsafeRune reports characters a terminal or a renderer may act on:
// C0 and C1 controls and DEL (escape sequences: OSC title, CSI clear),
// and the bidirectional overrides that reorder what is shown.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Terminal makes s safe to print: newlines and tabs stay, every other
// control character is shown as \xNN or \u{NNNN}, invalid UTF-8 as \xNN.
func Terminal(s string) string {
	if safeTerminal(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func safeTerminal(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

// MarkdownText makes s safe as Markdown prose or a table cell: it stays on
// one line and one cell, and no HTML tag or autolink survives.
func MarkdownText(s string) string {
	return textReplacer.Replace(controls(s))
}

var textReplacer = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;")

// MarkdownCode makes s safe inside a one-backtick code span (where < and &
// are literal): no backtick closes the span, no pipe ends the cell.
func MarkdownCode(s string) string {
	return codeReplacer.Replace(controls(s))
}

var codeReplacer = strings.NewReplacer("`", "'", "|", `\|`, "\n", " ", "\r", " ")

// controls replaces control characters other than newlines (which the
// Markdown helpers fold) with U+FFFD.
func controls(s string) string {
	ok := true
	for _, r := range s {
		if unsafeRune(r) && r != '\n' && r != '\r' {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafeRune(r) && r != '\n' && r != '\r' {
			return '\uFFFD'
		}
		return r
	}, s)
}

// Cell neutralises a spreadsheet cell (TSV, CSV): text starting with
// = + - @ would be run as a formula when pasted, so it gets a leading
// apostrophe (numbers such as -2.5 stay numbers); tabs and newlines become
// spaces. site/render/tsv.js applies the same rule to the page's Copy.
func Cell(s string) string {
	s = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) && !number(s) {
		s = "'" + s
	}
	return s
}

func number(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, "xXpPnNiI_")
}
