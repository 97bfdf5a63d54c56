package diff

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/gputriage/gputriage/internal/escape"
)

// JUnit returns diff_junit.xml: one test case for the comparability check
// and one per --fail-on rule, for CI systems that read JUnit reports.
func (r *Result) JUnit() []byte {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type tc struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name `xml:"testsuite"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Cases    []tc     `xml:"testcase"`
	}
	s := suite{Name: "gputriage diff"}
	c := tc{Name: "runs are comparable", Classname: "gputriage.diff"}
	if r.Refused {
		c.Failure = &failure{Message: "refused", Text: xmlText(r.Reason)}
	}
	s.Cases = append(s.Cases, c)
	for _, g := range r.Gate {
		c := tc{Name: xmlText(g.Text), Classname: "gputriage.diff.fail_on"}
		if g.Failed {
			c.Failure = &failure{Message: "regression", Text: xmlText(g.Subject) + ": " + g.DeltaUS.Signed() + " us (" + pct(g.Change) + ")"}
		}
		s.Cases = append(s.Cases, c)
	}
	for _, c := range s.Cases {
		if c.Failure != nil {
			s.Failures++
		}
	}
	s.Tests = len(s.Cases)
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	enc.Encode(s)
	b.WriteString("\n")
	return b.Bytes()
}

// xmlText shows the input's control and bidi characters as escape.Visible
// does in every other artifact (\x1b, \u{202e}), and the characters XML
// 1.0 cannot carry at all (U+FFFE, U+FFFF) the same way: encoding/xml
// would turn them into U+FFFD, hiding what the input held.
func xmlText(s string) string {
	s = escape.Visible(s)
	if !strings.ContainsAny(s, "\uFFFE\uFFFF") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == 0xFFFE || r == 0xFFFF {
			fmt.Fprintf(&b, `\u{%04x}`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
