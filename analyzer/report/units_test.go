package report

import "testing"

func TestMarkdownEscapes(t *testing.T) {
	// inside the caller's backticks: "``a\|b`c d``", backtick shown
	if s := mdCode("a|b`c\nd"); s != "`a\\|b`c d`" {
		t.Errorf("mdCode = %q", s)
	}
	if s := mdText("<img src=x>|"); s != `&lt;img src=x&gt;\|` {
		t.Errorf("mdText = %q", s)
	}
}
