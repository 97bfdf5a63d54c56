package crash

import "strings"

// A Python logger prints a multi-line message — a traceback formatted into
// one record — with its header (stamp, rank) on the first line only:
// SGLang's "[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback
// (most recent call last):" is followed by bare frame and exception lines
// (sgl-project/sglang#8336, #6624). Those lines are the rank's: the rank of
// the header carries to them until a blank line, a line that names its own
// rank, or another bracketed record header.

// opensTraceback reports whether text (prefixes stripped) is a record whose
// message starts a traceback on the following lines.
func opensTraceback(text string) bool {
	return strings.HasSuffix(strings.TrimRight(text, " \t"), "Traceback (most recent call last):")
}

// carryRank applies the record's rank to a line of its traceback, and
// starts or ends the carry; rest is the line after its prefixes.
func (f *fileState) carryRank(l *line, rest string) {
	switch {
	case l.rank >= 0:
		f.tbCarry = opensTraceback(rest)
		f.tbRank = l.rank
	case f.tbCarry && strings.HasPrefix(rest, "["):
		f.tbCarry = false
	case f.tbCarry:
		l.rank = f.tbRank
	}
}

// endCarry ends a traceback carry at a blank line or a bracketed record
// header no parser reads (raw is the line before any prefix is removed).
func (f *fileState) endCarry(raw []byte) {
	if !f.tbCarry {
		return
	}
	t := strings.TrimSpace(string(raw))
	if t == "" || t[0] == '[' {
		f.tbCarry = false
	}
}
