// Package escape holds one helper per medium a user-supplied string (a file
// name, a kernel name, a log line) leaves the program through: the terminal
// (Terminal, Line), Markdown (MarkdownText, MarkdownCode, CodeSpan, Fence)
// and .csv cells (Visible, Cell); HTML is the page's textContent, and the
// page's TSV copy is site/render/tsv.js with the same rule as Cell. Shell
// and Python commands are internal/quote's.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafeRune reports characters a terminal or a renderer may act on:
// C0 and C1 controls and DEL (escape sequences: OSC title, CSI clear),
// the bidirectional overrides and isolates that reorder what is shown, the
// invisible direction marks (U+061C ALM, U+200E LRM, U+200F RLM) that steer
// them, U+FEFF (a BOM mid-text, invisible), and the line and paragraph
// separators U+2028/U+2029 (a line break to some renderers, none to others).
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x061c || r == 0x200e || r == 0x200f || r == 0x2028 || r == 0x2029 || r == 0xfeff
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

// Visible shows every control and bidi character of s as \xNN (C0, DEL)
// or \u{NNNN} (C1, bidi), and invalid UTF-8 as \xNN, keeping tabs and
// newlines: what .csv cells and fenced Markdown blocks carry.
func Visible(s string) string {
	if safeTerminal(s) {
		return s
	}
	return Terminal(s)
}

// Line is Terminal for one line (a progress line, a table cell): tabs and
// newlines are shown as \x09 and \x0a too.
func Line(s string) string {
	return lineReplacer.Replace(Terminal(s))
}

var lineReplacer = strings.NewReplacer("\n", `\x0a`, "\t", `\x09`)

// MarkdownText makes s literal text in Markdown prose, a list item or a
// table cell: one line, controls visible (\x1b), every character that could
// open markup backslash-escaped or written as an entity (CommonMark: an
// escaped ASCII punctuation character is literal), so a renderer shows s
// and nothing else: no HTML, link, image, emphasis, code, heading, list,
// quote or table cell comes from s.
func MarkdownText(s string) string {
	s = strings.Trim(Line(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), " \t")
	var b strings.Builder
	b.Grow(len(s) + 8)
	prev := rune(-1) // -1: start of the text (a line start, maybe)
	lead := true     // only digits so far (an ordered-list marker needs them)
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '[', ']', '~', '|':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '_':
			// only an underscore not inside a word can open emphasis
			if !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
				b.WriteByte('\\')
			}
			b.WriteByte('_')
		case '#', '+', '-', '=':
			// block markers at a line start: heading, list, setext underline
			if prev == -1 {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case '.', ')':
			if lead && prev != -1 {
				b.WriteByte('\\') // "1." / "1)" would start an ordered list
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		lead = lead && r >= '0' && r <= '9'
		prev = r
	}
	return b.String()
}

// MarkdownCode makes s the inside of a code span in a table cell whose
// caller writes one backtick on each side ("`" + MarkdownCode(s) + "`"):
// one line, controls visible, no pipe ends the cell (\|, which GFM turns
// back into | inside the span), and backticks shown as they are. When s
// holds backticks, the result starts and ends with more of them, so that
// with the caller's own the delimiters are longer than any backtick run in
// s (CommonMark's rule), padded with a space when s starts or ends with a
// backtick or with spaces on both sides (one space each side is
// stripped). Without backticks in s the result is s itself, escaped.
func MarkdownCode(s string) string {
	s = Line(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	// A backslash before a pipe would escape the pipe's own escape.
	s = strings.ReplaceAll(strings.ReplaceAll(s, `\|`, `\x5c|`), "|", `\|`)
	extra := strings.Repeat("`", longestRun(s, '`'))
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		return extra + " " + s + " " + extra
	}
	return extra + s + extra
}

// CodeSpan returns s as a whole inline code span for prose (not a table):
// its backtick delimiters are longer than any backtick run in s
// (CommonMark's rule), so s shows verbatim; controls are visible.
func CodeSpan(s string) string {
	s = Line(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s == "" {
		return "` `"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s != "" && strings.Trim(s, " ") == "" {
		return fence + " " + s + " " + fence // one space each side is stripped
	}
	return fence + s + fence
}

// Fence returns text (lines) as a fenced code block: the fence is longer
// than any backtick run in the text, so no line of it closes the block;
// controls other than tabs and newlines are visible. info is the
// program's (a language name), never the input's.
func Fence(info, text string) string {
	text = Visible(strings.ReplaceAll(text, "\r", `\x0d`))
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + info + "\n" + text + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// Cell neutralises a spreadsheet cell (TSV, CSV): text starting with
// = + - @ would be run as a formula when pasted, so it gets a leading
// apostrophe (numbers such as -2.5 stay numbers); tabs and newlines become
// spaces. site/render/tsv.js applies the same rule to the page's Copy.
func Cell(s string) string {
	s = Line(strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s))
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) && !number(s) {
		s = "'" + s
	}
	return s
}

func number(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, "xXpPnNiI_")
}
