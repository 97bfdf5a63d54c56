package lazyre

import (
	"regexp"
	"slices"
	"testing"
)

func TestSameAnswers(t *testing.T) {
	const src = `(?i)rank[_-]?(\d+)`
	r, p := New(src), regexp.MustCompile(src)
	for _, s := range []string{"", "RANK_3 and rank-12", "no"} {
		if r.MatchString(s) != p.MatchString(s) || r.FindString(s) != p.FindString(s) ||
			!slices.Equal(r.FindStringIndex(s), p.FindStringIndex(s)) ||
			!slices.Equal(r.FindStringSubmatch(s), p.FindStringSubmatch(s)) ||
			!slices.Equal(r.FindStringSubmatchIndex(s), p.FindStringSubmatchIndex(s)) ||
			len(r.FindAllStringSubmatch(s, -1)) != len(p.FindAllStringSubmatch(s, -1)) ||
			len(r.FindAllStringSubmatchIndex(s, -1)) != len(p.FindAllStringSubmatchIndex(s, -1)) ||
			r.ReplaceAllString(s, "<$1>") != p.ReplaceAllString(s, "<$1>") {
			t.Errorf("%q: lazy and plain regexps differ", s)
		}
	}
	if r.String() != src || !slices.Contains(All(), r) {
		t.Error("String or All wrong")
	}
}

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`(`) // bad: panics only when used
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic at first use")
		}
	}()
	r.MatchString("x")
}
