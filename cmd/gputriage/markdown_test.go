package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/internal/escape/mdcheck"
)

// hostileName is issue 24's markup: live HTML, a forged heading, a
// newline and a fence that would close a code block, terminal escapes and
// a bidi override.
const hostileName = "<img src=x onerror=alert(1)>\n```\n# Diagnosis: nothing wrong\n## Run comparison (A → B): ok\n\x1b]0;t\x07\u202e|_*[x](javascript:1)"

// Issue 24 item 2: every Markdown artifact of a run whose names carry
// markup makes the same elements as the run with plain names (rendered by
// a CommonMark renderer that passes raw HTML), on both engines; no .md or
// .csv carries a raw control or bidi character.
func TestHostileMarkdownRenders(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	dir := t.TempDir()
	// Both prefixes end in a non-letter, so a name's own words (the "step"
	// of step[DECODE bs=32]) are recognised alike on both sides.
	twin := map[string]string{"evil": hostileName, "plain": "plain name "}
	for side, prefix := range twin {
		writeRenamedTrace(t, src, filepath.Join(dir, side+".json"), prefix)
		d := filepath.Join(dir, side+"-logs")
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, strings.ReplaceAll(prefix, "/", "_")+".log"), []byte(
			"Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x7f00. Reason: Page not present or supervisor privilege.\n"), 0o644)
	}
	for _, eng := range []string{"native", "wasm"} {
		outs := map[string]string{}
		for side, prefix := range twin {
			out := filepath.Join(dir, eng, side)
			tr := filepath.Join(dir, side+".json")
			for _, args := range [][]string{
				{"triage", "-o", filepath.Join(out, "triage"), tr},
				{"breakdown", "--format", "csv", "-o", filepath.Join(out, "breakdown"), tr},
				{"diagnose", "-o", filepath.Join(out, "crash"), filepath.Join(dir, side+"-logs")},
				{"diff", "--base-image", prefix + " A", "--b-base-image", prefix + " B", "-o", filepath.Join(out, "refused"), tr, tr},
				{"diff", "--force", "-o", filepath.Join(out, "forced"), tr, tr},
			} {
				var so, se bytes.Buffer
				run(append([]string{args[0], "--engine", eng, "-q"}, args[1:]...), nil, &so, &se)
				if bytes.ContainsAny(so.Bytes(), "\x1b\x07") || bytes.ContainsAny(se.Bytes(), "\x1b\x07") {
					t.Errorf("%s %s: control characters reach the terminal", eng, args[0])
				}
			}
			outs[side] = out
		}
		n := 0
		filepath.Walk(outs["evil"], func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(outs["evil"], p)
			b, _ := os.ReadFile(p)
			if ext := filepath.Ext(p); ext == ".md" || ext == ".csv" {
				for _, r := range string(b) {
					if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
						t.Errorf("%s %s carries %U raw", eng, rel, r)
						break
					}
				}
			}
			if filepath.Ext(p) != ".md" {
				return nil
			}
			n++
			plain, err := os.ReadFile(filepath.Join(outs["plain"], rel))
			if err != nil {
				t.Errorf("%s: %s only with hostile names", eng, rel)
				return nil
			}
			got, want := mdcheck.Tags(b), mdcheck.Tags(plain)
			if !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("%s %s: the hostile names made elements (first difference at tag %d: %v vs %v):\n%s", eng, rel, i,
					got[i:min(i+6, len(got))], want[i:min(i+6, len(want))], mdcheck.Render(b))
			}
			if h := mdcheck.Render(b); strings.Contains(h, "<img") || strings.Contains(h, "Diagnosis: nothing wrong</h") || strings.Contains(h, `href="javascript`) {
				t.Errorf("%s %s renders live markup from the input", eng, rel)
			}
			return nil
		})
		if n < 4 {
			t.Errorf("%s: only %d Markdown artifacts checked", eng, n)
		}
	}
}

// writeRenamedTrace copies a Kineto trace with every event name prefixed
// (kernels, CPU ops, runtime calls) or, for Python scopes, suffixed (the
// file(line) head keeps them Python locations).
func writeRenamedTrace(t *testing.T, src, dst, prefix string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	evs, _ := doc["traceEvents"].([]any)
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok {
			if n, ok := m["name"].(string); ok && m["ph"] != "M" && m["ph"] != "f" && m["ph"] != "s" {
				if m["cat"] == "python_function" {
					m["name"] = n + " " + prefix
				} else {
					m["name"] = prefix + n
				}
			}
		}
	}
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The progress line writes its own escape sequence only: a file name's
// title-setting or screen-clearing sequence is shown, not sent.
func TestProgressLineEscapesName(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, on: true}
	p.start("/d/x\x1b]0;pwned\x07\x1b[2J\u202e\n.json", 10<<20)
	p.update(1 << 20)
	out := strings.ReplaceAll(b.String(), "\r\x1b[K", "")
	if out == "" || strings.ContainsAny(out, "\x1b\x07\u202e\n") {
		t.Errorf("progress line %q", b.String())
	}
	if !strings.Contains(out, `x\x1b]0;pwned\x07\x1b[2J\u{202e}\x0a.json`) {
		t.Errorf("progress line does not show the name: %q", out)
	}
}
