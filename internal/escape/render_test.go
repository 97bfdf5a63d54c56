package escape_test

import (
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/internal/escape"
	"github.com/gputriage/gputriage/internal/escape/mdcheck"
)

// hostile strings of issue 24: each must render as text only.
var hostile = []string{
	"<img src=x onerror=alert(1)>",
	"x\n## Run comparison (A → B): ok\n",
	"k\n```\n# Diagnosis: nothing wrong\n```",
	"# heading", "- item", "1. item", "> quote", "---", "===", "    code",
	"[link](javascript:alert(1)) ![i](x)", "<https://x>", "**b** _e_ ~~s~~ `c`",
	"a | b | c", "&lt;script&gt; &#60;b&#62;", "\\<b>\\", "``` fence", "~~~",
	"\x1b]0;title\x07\x1b[2J \u202etxt.exe \u2066x",
	"[^1]: note", "<!-- c -->", "*a*b*", "__init__", "x_", "_",
}

// contexts an artifact puts MarkdownText in; the benign twin renders the
// elements the artifact itself makes.
var contexts = []string{"%s", "1. %s\n", "- %s\n", "**Reason:** %s.\n", "_%s_\n", "| a | b |\n|---|---|\n| %s | x |\n", "## 1. %s\n"}

func check(t *testing.T, s string) {
	t.Helper()
	for _, c := range contexts {
		got := mdcheck.Tags([]byte(strings.ReplaceAll(c, "%s", escape.MarkdownText(s))))
		want := mdcheck.Tags([]byte(strings.ReplaceAll(c, "%s", "plain")))
		if !slices.Equal(got, want) {
			t.Errorf("MarkdownText(%q) in %q makes %v, want %v:\n%s", s, c, got, want, mdcheck.Render([]byte(strings.ReplaceAll(c, "%s", escape.MarkdownText(s)))))
		}
	}
	// a code span shows s verbatim (controls visible, newlines as spaces)
	span := mdcheck.Render([]byte("x " + escape.CodeSpan(s) + " y\n"))
	if got := mdcheck.Tags([]byte("x " + escape.CodeSpan(s) + " y\n")); !slices.Equal(got, []string{"p", "code", "/code", "/p"}) {
		t.Errorf("CodeSpan(%q) makes %v: %s", s, got, span)
	}
	// a fence holds the whole text: one pre/code, nothing after it
	doc := "a\n\n" + escape.Fence("text", s) + "\nb\n"
	if got := mdcheck.Tags([]byte(doc)); !slices.Equal(got, []string{"p", "/p", "pre", "code", "/code", "/pre", "p", "/p"}) {
		t.Errorf("Fence(%q) makes %v: %s", s, got, mdcheck.Render([]byte(doc)))
	}
	if r := html.UnescapeString(mdcheck.Render([]byte(escape.Fence("", s)))); !strings.Contains(r, strings.TrimSuffix(escape.Visible(s), "\n")) {
		t.Errorf("Fence(%q) does not show the text verbatim: %s", s, r)
	}
}

func TestMarkdownRenders(t *testing.T) {
	for _, s := range hostile {
		check(t, s)
	}
}

func FuzzMarkdownRenders(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, '\r') || !utf8Valid(s) || strings.TrimSpace(s) == "" {
			return // Fence shows CR as \x0d; invalid UTF-8 as \xNN (checked by FuzzEscape)
		}
		check(t, s)
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// A table cell's code span shows the input's backticks as they are (issue
// 24: they were turned into '), stays one cell, and makes nothing else.
func TestTableCellBackticks(t *testing.T) {
	for s, want := range map[string]string{
		"plain":                   "plain",
		"a`b":                     "a`b",
		"`anonymous namespace'":   "`anonymous namespace'",
		"x``y`":                   "x``y`",
		"```":                     "```",
		"`":                       "`",
		" padded ":                " padded ",
		"a | b":                   "a | b",
		"a\\|b":                   `a\x5c|b`, // a backslash before a pipe cannot survive GFM's cell split
		"k\n```\n# x\n```":        "k ``` # x ```",
		"<img src=x onerror=y>`":  "<img src=x onerror=y>`",
		"\x1b[2J`\u202e|`":        "\\x1b[2J`\\u{202e}|`",
		"``|``":                   "``|``",
		"`` ` ``":                 "`` ` ``",
		"x\\`":                    "x\\`",
		"**b** [l](u) ~~s~~ `c` ": "**b** [l](u) ~~s~~ `c` ",
	} {
		doc := "| a | b |\n|---|---|\n| `" + escape.MarkdownCode(s) + "` | x |\n"
		tags := mdcheck.Tags([]byte(doc))
		wantTags := []string{"table", "thead", "tr", "th", "/th", "th", "/th", "/tr", "/thead", "tbody", "tr", "td", "code", "/code", "/td", "td", "/td", "/tr", "/tbody", "/table"}
		if !slices.Equal(tags, wantTags) {
			t.Errorf("%q: %v\n%s", s, tags, doc)
			continue
		}
		r := mdcheck.Render([]byte(doc))
		code := r[strings.Index(r, "<code>")+6 : strings.Index(r, "</code>")]
		if got := html.UnescapeString(code); got != want {
			t.Errorf("%q shows %q, want %q\n%s", s, got, want, doc)
		}
	}
}
