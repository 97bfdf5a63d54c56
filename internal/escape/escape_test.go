package escape

import "testing"

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"plain\tline\n":                "plain\tline\n",
		"\x1b]0;pwned\x07\x1b[2J":      `\x1b]0;pwned\x07\x1b[2J`,
		"csi \u009b2J bidi \u202eab":   `csi \u{009b}2J bidi \u{202e}ab`,
		"bad \xff utf8":                `bad \xff utf8`,
		"é ✓":                          "é ✓",
		"marks \u061c\u200e\u200f":     `marks \u{061c}\u{200e}\u{200f}`,
		"bom \ufeff seps \u2028\u2029": `bom \u{feff} seps \u{2028}\u{2029}`,
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	in := "<img src=x onerror=alert(1)>|`x`\n\x1b[2J"
	if got, want := MarkdownText(in), `&lt;img src=x onerror=alert(1)&gt;\|\`+"`"+`x\`+"`"+` \\x1b\[2J`; got != want {
		t.Errorf("MarkdownText = %q, want %q", got, want)
	}
	if got, want := MarkdownCode(in), "`<img src=x onerror=alert(1)>\\|`x` \\x1b[2J`"; got != want {
		t.Errorf("MarkdownCode = %q, want %q", got, want)
	}
	for in, want := range map[string]string{
		"# Diagnosis: ok":           `\# Diagnosis: ok`,
		"  - item":                  `\- item`,
		"12. x 3.5":                 `12\. x 3.5`,
		"a_b_c _x_ __y":             `a_b_c \_x_ \_\_y`,
		"[x](javascript:1) ![i](u)": `\[x\](javascript:1) !\[i\](u)`,
		"**b** ~~s~~ a&amp;b":       `\*\*b\*\* \~\~s\~\~ a&amp;amp;b`,
		`'x'\''y'`:                  `'x'\\''y'`,
		"bidi\u202eab":              `bidi\\u{202e}ab`,
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"a":        "`a`",
		"a`b":      "``a`b``",
		"``x":      "``` ``x ```",
		"x\x1b[2J": "`x\\x1b[2J`",
	} {
		if got := CodeSpan(in); got != want {
			t.Errorf("CodeSpan(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := Fence("text", "k\n```\n# Diagnosis: ok\x07\n"), "````text\nk\n```\n# Diagnosis: ok\\x07\n````\n"; got != want {
		t.Errorf("Fence = %q, want %q", got, want)
	}
	if got, want := Line("a\nb\t\x1b]0;t\x07"), `a\x0ab\x09\x1b]0;t\x07`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestCell(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://x","y")`: `'=HYPERLINK("http://x","y")`,
		"-2+3+cmd|' /C calc'!A0":     "'-2+3+cmd|' /C calc'!A0",
		"@SUM(A1)":                   "'@SUM(A1)",
		"-12.5":                      "-12.5",
		"a\tb\nc":                    "a b c",
		"-Inf":                       "'-Inf",
		"a\x1bb\u202ec":              `a\x1bb\u{202e}c`,
	} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("\x1b]0;x\x07<a>|`")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Terminal(s) {
			if r != '\n' && r != '\t' && unsafeRune(r) {
				t.Fatalf("Terminal left %U in %q", r, s)
			}
		}
		for _, r := range MarkdownText(s) + MarkdownCode(s) {
			if unsafeRune(r) || r == '\n' {
				t.Fatalf("Markdown left %U in %q", r, s)
			}
		}
	})
}
