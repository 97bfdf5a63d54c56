package crash

import "bytes"

// Defeater: text inside a command's usage / --help output is not evidence.
// Option descriptions quote the errors they help with ("Use this if you see
// 'Memory access fault by GPU'", "lower this value on CUDA out of memory");
// read as log lines they become findings. An argparse-style block starts
// with "usage: " at column 0 and runs over indented lines, blank lines and
// section headers ("options:", "positional arguments:") until the next
// unindented line.

// argparse prints the parser's description between the usage line and
// the first section; the description is read as log (it is one short
// paragraph), and a section header right after it resumes the block.
// Go's flag package opens its block with "Usage of prog:".

// helpDescMax bounds the description paragraph (lines after the usage line).
const helpDescMax = 8

// helpLine reports whether line b belongs to a help block (and so is not
// handed to any parser).
func (s *Session) helpLine(b []byte) bool {
	f := s.cur
	if s.docDiffLine(b) { // docdiff.go
		return true
	}
	if s.mdTableLine(b) {
		return true
	}
	if mdGlossaryItem(b) {
		f.quality["markdown_glossary_skipped"] = true
		return true
	}
	if f.help {
		if len(b) == 0 || b[0] == ' ' || b[0] == '\t' || helpHeader(b) {
			if len(b) > 0 && b[0] != ' ' && b[0] != '\t' {
				f.helpDesc = 0 // a section: the block is confirmed
			}
			return true
		}
		f.help = false
	}
	if f.helpDesc > 0 {
		f.helpDesc++
		switch {
		case helpHeader(b):
			f.help, f.helpDesc = true, 0
			return true
		case f.helpDesc > helpDescMax || bytes.Contains(b, []byte(": error: ")):
			f.helpDesc = 0 // no section followed (argparse's "prog: error:")
		}
	}
	if len(b) > 7 && (bytes.HasPrefix(b, []byte("usage: ")) || bytes.HasPrefix(b, []byte("Usage: ")) || bytes.HasPrefix(b, []byte("Usage of "))) {
		f.help, f.helpDesc = true, 1
		f.quality["help_text_skipped"] = true
		return true
	}
	if usageHeader(b) {
		// clap 2/3's "USAGE:" (and similar "Usage:") alone on its line, the
		// usage indented below it, then "OPTIONS:" / "SUBCOMMANDS:" sections
		f.help, f.helpDesc = true, 0
		f.quality["help_text_skipped"] = true
		return true
	}
	return false
}

// usageHeader: a usage section header alone on its line at column 0
// ("USAGE:", "Usage:"): clap-rs/clap#36, guonaihong/clop#23.
func usageHeader(b []byte) bool {
	b = bytes.TrimRight(b, " \r")
	return bytes.Equal(b, []byte("USAGE:")) || bytes.Equal(b, []byte("Usage:"))
}

// helpHeader: "options:", "positional arguments:", "Optional Arguments:" —
// a few words ending in a colon.
func helpHeader(b []byte) bool {
	b = bytes.TrimRight(b, " ")
	if len(b) == 0 || len(b) > 40 || b[len(b)-1] != ':' {
		return false
	}
	for _, c := range b[:len(b)-1] {
		if !(c == ' ' || c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Defeater: the rows of a Markdown table are documentation. Runbooks,
// skills and wiki pages tabulate the errors they explain ("| hipErrorAssert
// | Device-side assert triggered | … |", "| Signal 137 | OOM killed by host
// kernel |"); read as log lines every row becomes a finding. A table is
// known by its delimiter row ("|---|:---:|"), so tool output drawn with
// '|' (nvidia-smi's "|=====|" and "+----+" frames) stays evidence; the
// header row above the delimiter names columns and is harmless.
func (s *Session) mdTableLine(b []byte) bool {
	f := s.cur
	t := bytes.TrimLeft(b, " \t")
	if f.mdTable {
		if len(t) > 0 && t[0] == '|' {
			return true
		}
		f.mdTable = false
	}
	if mdDelimiterRow(t) {
		f.mdTable = true
		f.quality["markdown_table_skipped"] = true
		return true
	}
	return false
}

// mdDelimiterRow: "|---|---:|", "| :--- | --- |" — pipes, dashes, colons
// and spaces only, with at least two cells.
func mdDelimiterRow(t []byte) bool {
	t = bytes.TrimRight(t, " \t\r")
	if len(t) < 5 || t[0] != '|' || !bytes.Contains(t, []byte("---")) || bytes.Count(t, []byte("|")) < 3 {
		return false
	}
	for _, c := range t {
		if c != '|' && c != '-' && c != ':' && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// Defeater: a Markdown list item that defines a term is documentation, like
// a table row. Notes and skills list the errors they explain as bullets —
// "- `hipErrorAssert` — device-side assert triggered", "- Signal 137 — OOM
// killed by host kernel", "- `Memory access fault …` means a GPU page
// fault" (seed 000's error table retold as a list) — the quoted error is
// followed by its meaning. A tool prints no em/en dash and quotes nothing
// in backticks, and a bug report's bullet that carries a real error has no
// definition after it ("- `RuntimeError: HIP error: …`" stays evidence).
func mdGlossaryItem(b []byte) bool {
	t := bytes.TrimLeft(b, " \t")
	if len(t) < 4 || (t[0] != '-' && t[0] != '*') || t[1] != ' ' {
		return false
	}
	t = bytes.TrimLeft(t[2:], " ")
	var rest []byte
	if t[0] == '`' {
		end := bytes.IndexByte(t[1:], '`')
		if end < 0 {
			return false
		}
		rest = bytes.TrimLeft(t[end+2:], " ")
		if bytes.HasPrefix(rest, []byte("means ")) || bytes.HasPrefix(rest, []byte("is ")) {
			return true
		}
	} else {
		// a short term before the dash: "Signal 137 — …"
		i := bytes.Index(t, []byte(" \u2014 "))
		if j := bytes.Index(t, []byte(" \u2013 ")); i < 0 || (j >= 0 && j < i) {
			i = j
		}
		if i < 0 || i > 40 {
			return false
		}
		rest = bytes.TrimLeft(t[i:], " ")
	}
	return bytes.HasPrefix(rest, []byte("\u2014 ")) || bytes.HasPrefix(rest, []byte("\u2013 ")) || bytes.HasPrefix(rest, []byte("- ")) || bytes.HasPrefix(rest, []byte(": "))
}
