package kernels

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// pattern is a regexp of the rule tables, compiled on first use and guarded
// by a literal prefilter: the literals that any match must contain, derived
// from the parsed pattern. A name that holds none of them cannot match, so
// it is refused without running (or even compiling) the regexp.
//
// Most rules refuse most names, and an unanchored regexp scans the whole
// window of every name it refuses (tens of µs per rule natively, ten times
// that in gputriage.wasm); compiling the ~110 patterns at package init also
// slowed every start of the module (with the crash package's regexps made
// lazy too, instantiating it went from ~71 to ~24 ms in one loaded run).
// FuzzPatternPrefilter checks that match and find agree with the plain
// regexps.
type pattern struct {
	src  string
	once sync.Once
	lits []literal // any match contains one of these; nil: no prefilter
	re   *lazyre.Regexp
}

// literal is a byte string a match must contain; fold: ASCII letters
// compare case-insensitively (s is lower-case).
type literal struct {
	s    string
	fold bool
}

func newPattern(src string) *pattern { return &pattern{src: src, re: lazyre.New(src)} }

// String returns the source text, as regexp.Regexp.String does.
func (p *pattern) String() string { return p.src }

// init parses the pattern and derives its literals; the regexp itself is
// compiled (lazyre) when a name first passes the prefilter. A bad pattern panics
// here, as regexp.MustCompile would (TestPatternsCompile compiles them all).
func (p *pattern) init() {
	p.once.Do(func() {
		re, err := syntax.Parse(p.src, syntax.Perl)
		if err != nil {
			panic("kernels: bad pattern " + p.src + ": " + err.Error())
		}
		p.lits = required(re)
	})
}

// possible reports whether s may match: false only if s holds none of the
// pattern's literals.
func (p *pattern) possible(s string) bool {
	p.init()
	if p.lits == nil {
		return true
	}
	ascii := -1 // unknown yet
	for _, l := range p.lits {
		if !l.fold {
			if strings.Contains(s, l.s) {
				return true
			}
			continue
		}
		// Unicode folds K and S onto non-ASCII runes (K KELVIN SIGN,
		// ſ LONG S): ASCII folding decides only for ASCII names.
		if ascii < 0 {
			ascii = 1
			for i := 0; i < len(s); i++ {
				if s[i] >= utf8.RuneSelf {
					ascii = 0
					break
				}
			}
		}
		if ascii == 0 || containsFold(s, l.s) {
			return true
		}
	}
	return false
}

// MatchString is regexp.MatchString behind the prefilter.
func (p *pattern) MatchString(s string) bool {
	return p.possible(s) && p.re.MatchString(s)
}

// FindStringSubmatch is regexp.FindStringSubmatch behind the prefilter.
func (p *pattern) FindStringSubmatch(s string) []string {
	if !p.possible(s) {
		return nil
	}
	return p.re.FindStringSubmatch(s)
}

// containsFold reports whether s contains lower (ASCII lower-case) with
// ASCII letters compared case-insensitively.
func containsFold(s, lower string) bool {
	n := len(lower)
	if n == 0 {
		return true
	}
	c0, u0 := lower[0], upper(lower[0])
	for i := 0; i+n <= len(s); i++ {
		if c := s[i]; c != c0 && c != u0 {
			continue
		}
		j := 1
		for j < n && (s[i+j] == lower[j] || s[i+j] == upper(lower[j])) {
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// required returns literals of which every match of re contains at least
// one, or nil when it cannot tell (then every string may match).
func required(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		if l, ok := literalOf(re); ok {
			return []literal{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part of a concatenation is matched: any part's literals
		// are required. Take the part with the longest shortest literal.
		var best []literal
		for _, sub := range re.Sub {
			if l := required(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			l := required(sub)
			if l == nil {
				return nil // this branch needs no literal
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

// literalOf turns a literal node into the bytes a match holds.
func literalOf(re *syntax.Regexp) (literal, bool) {
	if len(re.Rune) == 0 {
		return literal{}, false
	}
	fold := re.Flags&syntax.FoldCase != 0
	var b strings.Builder
	for _, r := range re.Rune {
		// U+FFFD also matches invalid UTF-8, whose bytes differ; folded
		// non-ASCII letters have several spellings.
		if r == utf8.RuneError || (fold && r >= utf8.RuneSelf) {
			return literal{}, false
		}
		if fold && 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return literal{s: b.String(), fold: fold}, true
}

func shortest(ls []literal) int {
	n := -1
	for _, l := range ls {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}
