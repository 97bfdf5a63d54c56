package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// reFormatSpec: a printf conversion (%s, %u, %d, %lu, %p, %5.2f, the
// "0x%" PRIx64 of <inttypes.h>) or a brace placeholder ({}, {0}, {:>8})
// of Python's str.format, fmt / Rust's format!. The space flag is left out:
// "100% done" is prose.
var reFormatSpec = lazyre.New(`%[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L|q)?[sdiuxXpfFeEgGc]|%"\s*PRI|\{\d*(?::[^{}"]*)?\}`)

// quotedFormat reports whether t holds a string literal of source code that
// still has its placeholders — a format string quoted in a diff, a review
// thread or a source excerpt ("Memory Fault Error [host: %s, GPU index:
// %u, …]", `pr_err("kfd: cp queue preemption time out (%dms)\n"`). A
// program prints the text with its values filled in; the format itself is
// no event, so no parser may read it as evidence. The placeholder must sit
// between double quotes (a literal cut at the end of the line counts, as a
// diff wraps a long format over several lines).
func quotedFormat(t string) bool {
	q := strings.IndexByte(t, '"')
	if q < 0 || !strings.ContainsAny(t[q:], "%{") {
		return false
	}
	in := false
	start := 0
	for i := 0; i < len(t); i++ {
		if t[i] != '"' || i > 0 && t[i-1] == '\\' {
			continue
		}
		// the closing quote's next bytes hold the PRIx64 of "0x%" PRIx64
		if in && reFormatSpec.MatchString(t[start:min(len(t), i+8)]) {
			return true
		}
		in = !in
		start = i
	}
	return in && reFormatSpec.MatchString(t[start:])
}
