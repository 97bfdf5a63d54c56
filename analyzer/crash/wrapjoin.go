package crash

import (
	"bytes"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// A terminal, or a browser's copy, wraps a long line at its width: one
// message reaches the paste as two or more lines, cut mid-word ("Assertion
// `t >= 0 && t < n_classes` fail" / "ed.") or inside an argument list
// ("…(Dtype *, Dtype" / "*, long *, …"). The session joins such lines back
// (with the first one's file:line) so that every extractor reads the
// message whole; no rule has to know about wrapping.

const (
	// wrapMinCols: a line shorter than this was not cut by a terminal
	// (70 columns is the narrowest wrap seen in real pastes)
	wrapMinCols = 70
	// wrapMaxParts bounds how many lines one message is joined from
	wrapMaxParts = 8
)

// reRecordStart: a line that begins a record of its own even when it starts
// lower-case — "what():  …", "srun: error: …", "kernel: …", "amdgpu
// 0000:03:00.0: …", "terminate called …".
var reRecordStart = lazyre.New(`^(?:[a-z][\w.\-]*(?:\(\))?:(?:\s|$)|[\w./\-]+:\d+[: ]|[a-z]\w* [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d|terminate called )`)

// wrapJoin reports whether next continues prev, the last line of a message
// being held (prev is that physical line, not the joined text), and the
// separator to put between them. It joins only when prev is long enough to
// have been cut, next is not longer than the cut width, next cannot start a
// record (no indentation, timestamp, bracket, rank or "name:" prefix), and
// the cut shows: prev ends mid-word (a letter, next a lower-case letter:
// joined with nothing) or prev leaves a bracket, parenthesis or backquote
// open and next begins with what can only continue it (joined with a blank,
// the one the terminal dropped at the cut).
//
// widest is the longest line of the file before prev: a terminal's wrap
// fills its width, so a cut line is never shorter than one before it (one
// column less when the terminal dropped a blank at the cut).
func wrapJoin(prev, next []byte, widest int) (sep string, ok bool) {
	if len(prev) < wrapMinCols || len(prev)+1 < widest || len(next) == 0 || len(next) > len(prev)+1 {
		return "", false
	}
	last, first := prev[len(prev)-1], next[0]
	switch {
	case isLower(first):
		if reRecordStart.Regexp().Match(next) {
			return "", false
		}
		if sep, ok := cutWord(prev, next); ok {
			return sep, true
		}
		if isBlank(last) && !isBlank(prev[len(prev)-2]) {
			return "", true // cut after a word; padding (two blanks or more) ends a line
		}
		if unclosed(prev) {
			return " ", true
		}
	case bytes.IndexByte([]byte(",;)]}*&|"), first) >= 0:
		if unclosed(prev) {
			return " ", true
		}
	}
	return "", false
}

// wrapCandidate: a line that may have been cut by a terminal (the next line
// decides).
func wrapCandidate(b []byte) bool {
	if len(b) < wrapMinCols {
		return false
	}
	last := b[len(b)-1]
	return isLetter(last) || isBlank(last) && !isBlank(b[len(b)-2]) || unclosed(b)
}

// cutWord: prev ends in a word of letters, not all capitals ("fail", not
// "COMPLETE" or the hex "00ea4fac"), and next begins with lower-case
// letters that are not an identifier ("grid.x", "n_classes"). A cut inside
// a word leaves a fragment ("ed.", "or 1800010"): joined with nothing; a
// cut between words (a program's own wrap, a paste from a narrow window)
// starts next with a whole word ("while executing …"): joined with a
// blank. A fragment of three letters or more before a blank reads as a
// word; that misjoins a few cut words ("privi" / "lege …"), never a pair
// of words.
func cutWord(prev, next []byte) (sep string, ok bool) {
	i := len(prev)
	upper := true
	for i > 0 && isLetter(prev[i-1]) {
		upper = upper && !isLower(prev[i-1])
		i--
	}
	if i == len(prev) || upper && len(prev)-i > 1 || i > 0 && (prev[i-1] == '_' || isDigit(prev[i-1])) {
		return "", false
	}
	j := 0
	for j < len(next) && isLower(next[j]) {
		j++
	}
	switch {
	case j == 0:
		return "", false
	case j == len(next):
		return "", true
	case isLetter(next[j]):
		return "", true // a camel-case name cut ("WorkNCCL(S" / "eqNum=…")
	case next[j] == '_' || isDigit(next[j]):
		return "", false
	case j+1 < len(next) && !isBlank(next[j]) && (isLetter(next[j+1]) || isDigit(next[j+1])):
		return "", false // "grid.x", "what():"-like names are no fragment
	case isBlank(next[j]) && j >= 3:
		return " ", true
	}
	return "", true
}

// unclosed reports whether b leaves a '(' or '[' open, or holds an odd
// number of backquotes.
func unclosed(b []byte) bool {
	paren, brack, bq := 0, 0, 0
	for _, c := range b {
		switch c {
		case '(':
			paren++
		case ')':
			paren--
		case '[':
			brack++
		case ']':
			brack--
		case '`':
			bq++
		}
	}
	return paren > 0 || brack > 0 || bq%2 == 1
}

func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isLetter(c byte) bool { return isLower(c) || 'A' <= c && c <= 'Z' }
