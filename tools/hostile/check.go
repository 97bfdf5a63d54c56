package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gputriage/gputriage/internal/escape/mdcheck"
	"github.com/gputriage/gputriage/internal/quote/quotetest"
)

var hosts = []string{"native", "wasm", "page", "worker"}

// check judges every case × host of only (every case when empty) and
// writes the result table and the findings as Markdown; a run not made is
// "not run", counted apart.
func check(dir, only string, w io.Writer) error {
	cases, err := loadCases(dir)
	if err != nil {
		return err
	}
	cases = ordered(cases, only)
	var pwned []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), "pwned") {
			pwned = append(pwned, p)
		}
		return nil
	})
	fmt.Fprintf(w, "| case | kind | %s |\n|---|---|%s\n", strings.Join(hosts, " | "), strings.Repeat("---|", len(hosts)))
	var findings []string
	runs, bad := 0, 0
	var verdicts []verdict
	defer func() {
		b, _ := json.MarshalIndent(verdicts, "", " ")
		os.WriteFile(filepath.Join(dir, "verdicts.json"), b, 0o644)
	}()
	for _, c := range cases {
		row := []string{"`" + c.ID + "`", c.Kind}
		for _, h := range hosts {
			if !has(c.Hosts, h) {
				row = append(row, "n/a")
				continue
			}
			probs, note := judge(dir, c, h)
			verdicts = append(verdicts, verdict{c.ID, c.Kind, h, probs, note})
			runs++
			if len(probs) == 0 {
				row = append(row, "ok"+note)
				continue
			}
			bad++
			row = append(row, "**"+strings.Join(probs, "; ")+"**"+note)
			findings = append(findings, fmt.Sprintf("- `%s` on %s (%s): %s", c.ID, h, c.What, strings.Join(probs, "; ")))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintf(w, "\n%d of %d case × host runs not handled.\n", bad, runs)
	fmt.Fprint(w, "\n"+summary(verdicts))
	if len(pwned) > 0 {
		fmt.Fprintf(w, "\n**Executed**: %s\n", strings.Join(pwned, ", "))
	}
	for _, f := range findings {
		fmt.Fprintln(w, f)
	}
	return nil
}

// judge lists what host h got wrong on c, and a note (time, memory).
func judge(dir string, c Case, h string) (probs []string, note string) {
	out := filepath.Join(dir, "out", c.ID, h)
	var r Run
	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil || json.Unmarshal(b, &r) != nil {
		return []string{"not run"}, ""
	}
	note = fmt.Sprintf(" %.1fs", r.Seconds)
	if r.RSSMB > 0 {
		note += fmt.Sprintf(" %.0fMB", r.RSSMB)
	}
	stderr, _ := os.ReadFile(filepath.Join(out, "stderr"))
	stdout, _ := os.ReadFile(filepath.Join(out, "stdout"))
	text := string(stderr) + r.Error
	if r.CPUSeconds > 0 {
		note = fmt.Sprintf(" %.1fs(%.1f CPU)", r.Seconds, r.CPUSeconds)
		if r.RSSMB > 0 {
			note += fmt.Sprintf(" %.0fMB", r.RSSMB)
		}
	}
	switch {
	case r.Stop == StopCPU:
		return []string{"over CPU budget: " + r.Error}, note
	case r.Stop == StopHang:
		return []string{"hang guard: " + r.Error}, note
	case r.TimedOut || r.Exit == -1:
		return []string{"did not end: " + r.Error}, note
	}
	if s := string(stderr); strings.Contains(s, "panic:") || strings.Contains(s, "fatal error:") || strings.Contains(s, "goroutine ") {
		probs = append(probs, "crashed: "+firstLine(s, "panic:", "fatal error:"))
	}
	probs = append(probs, r.Problems...)
	exits := c.Exits
	if len(exits) == 0 {
		exits = []int{0, 1}
	}
	if h == "page" && hasInt(exits, 3) {
		exits = append(exits, 0, 1) // the page shows a refusal as its report: no exit code 3
	}
	if !hasInt(exits, r.Exit) {
		probs = append(probs, fmt.Sprintf("exit %d (want %v): %.200s", r.Exit, exits, strings.TrimSpace(text)))
	}
	// time is judged on CPU seconds (the host's process tree) whenever the
	// host reports them: wall clock on a shared machine measures its load
	if r.CPUSeconds > 0 {
		if r.CPUSeconds > float64(c.TimeS) {
			probs = append(probs, fmt.Sprintf("over CPU budget: %.0f CPU s > %d s", r.CPUSeconds, c.TimeS))
		}
	} else if r.Seconds > float64(c.TimeS) {
		probs = append(probs, fmt.Sprintf("slow: %.0f s wall > %d s (no CPU time reported)", r.Seconds, c.TimeS))
	}
	if r.RSSMB > float64(c.MemMB) {
		probs = append(probs, fmt.Sprintf("memory: %.0f MB > %d MB", r.RSSMB, c.MemMB))
	}
	art := artifacts(filepath.Join(out, "art"))
	all := text
	for _, b := range art {
		all += string(b)
	}
	if c.Flag != "" && !strings.Contains(all, c.Flag) {
		probs = append(probs, "partial or refusal without naming "+c.Flag)
	}
	if c.Flag != "" && r.Exit == 0 {
		probs = append(probs, "exit 0: over a limit yet not flagged")
	}
	if c.Want != "" && !strings.Contains(all, c.Want) {
		probs = append(probs, fmt.Sprintf("answer lacks %q: %.200s", c.Want, strings.TrimSpace(text)))
	}
	// one answer on every engine
	if h != "native" && has(c.Hosts, "native") && !sameRefusal(dir, c, r, text) {
		ref := artifacts(filepath.Join(dir, "out", c.ID, "native", "art"))
		if d := differ(ref, art); d != "" {
			probs = append(probs, "differs from native: "+d)
		}
	}
	// nothing live, controls visible
	names := make([]string, 0, len(art))
	for n := range art {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b := art[n]
		switch filepath.Ext(n) {
		case ".md":
			if p := liveMarkup(b); p != "" {
				probs = append(probs, n+": "+p)
			}
			fallthrough
		case ".csv", ".xml", ".tsv":
			if p := rawControl(b); p != "" {
				probs = append(probs, n+": raw "+p)
			} else if loneCR(b) {
				probs = append(probs, n+": raw lone CR (a line break to CommonMark, a line overwrite on a terminal)")
			}
		}
	}
	for n, b := range map[string][]byte{"stdout": stdout, "stderr": stderr} {
		if p := rawControl(b); p != "" {
			probs = append(probs, n+" (terminal): raw "+p)
		}
	}
	// nothing executed
	if c.Steps {
		if d, ok := art["crash_diagnosis.json"]; ok {
			probs = append(probs, steps(d)...)
		} else if r.Exit != 2 {
			probs = append(probs, "no crash_diagnosis.json to check the steps of")
		}
	}
	return probs, note
}

// sameRefusal tells whether host and native refused the input (exit 2)
// with the same words: the page and the Worker show the refusal, the CLI
// also writes the artifacts of what it refused.
func sameRefusal(dir string, c Case, r Run, text string) bool {
	var n Run
	b, err := os.ReadFile(filepath.Join(dir, "out", c.ID, "native", "run.json"))
	if err != nil || json.Unmarshal(b, &n) != nil || n.Exit != 2 || r.Exit != 2 {
		return false
	}
	se, _ := os.ReadFile(filepath.Join(dir, "out", c.ID, "native", "stderr"))
	msg := strings.TrimSpace(firstLine(string(se), ": "))
	msg = strings.TrimPrefix(msg, ": ")
	return msg != "" && strings.Contains(text, msg)
}

func firstLine(s string, marks ...string) string {
	for _, m := range marks {
		if i := strings.Index(s, m); i >= 0 {
			s = s[i:]
			break
		}
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func hasInt(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// artifacts reads a host's artifact folder (the CLI's manifest left out:
// the page and the Worker return the artifacts themselves).
func artifacts(dir string) map[string][]byte {
	m := map[string][]byte{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "artifacts.json" {
			return nil
		}
		b, _ := os.ReadFile(p)
		m[filepath.ToSlash(rel)] = b
		return nil
	})
	return m
}

func differ(a, b map[string][]byte) string {
	var d []string
	for n, x := range a {
		y, ok := b[n]
		switch {
		case !ok:
			d = append(d, n+" missing")
		case !bytes.Equal(x, y):
			i := 0
			for i < len(x) && i < len(y) && x[i] == y[i] {
				i++
			}
			d = append(d, fmt.Sprintf("%s at byte %d (%q vs %q)", n, i, clip(x[i:], 40), clip(y[i:], 40)))
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			d = append(d, n+" extra")
		}
	}
	sort.Strings(d)
	return strings.Join(d, ", ")
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// The elements a report writes itself; anything else came from the input.
var allowed = map[string]bool{"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "table": true, "thead": true,
	"tbody": true, "tr": true, "th": true, "td": true, "code": true, "pre": true, "ul": true, "ol": true, "li": true, "strong": true, "em": true,
	"a": true, "blockquote": true, "hr": true, "br": true, "del": true}

var (
	reHeading = regexp.MustCompile(`(?s)<h[1-6][^>]*>(.*?)</h[1-6]>`)
	reInline  = regexp.MustCompile(`(?s)<(strong|em|del|a)[^>]*>(.*?)</(strong|em|del|a)>`)
	reHref    = regexp.MustCompile(`href="([^"]*)"`)
)

// liveMarkup renders md with raw HTML passed (as a CI step summary does)
// and names the first element the input made.
func liveMarkup(md []byte) string {
	for _, t := range mdcheck.Tags(md) {
		if !allowed[strings.TrimPrefix(strings.ToLower(t), "/")] {
			return "live <" + t + "> from the input"
		}
	}
	html := mdcheck.Render(md)
	for _, m := range reHeading.FindAllStringSubmatch(html, -1) {
		if strings.Contains(m[1], "PWN") || strings.Contains(m[1], "Forged") {
			return "forged heading " + clip([]byte(m[1]), 60)
		}
	}
	for _, m := range reInline.FindAllStringSubmatch(html, -1) {
		if strings.Contains(m[2], "PWN") && !strings.Contains(m[2], "<code>") {
			return "the input's " + m[1] + " markup rendered (" + clip([]byte(m[2]), 40) + ")"
		}
	}
	for _, m := range reHref.FindAllStringSubmatch(html, -1) {
		if strings.HasPrefix(strings.ToLower(m[1]), "javascript") {
			return "javascript: link"
		}
	}
	return ""
}

// rawControl names the first raw C0 (but tab, newline, CR), DEL, C1 or
// bidi control.
func rawControl(b []byte) string {
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
			r == 0x061c || r == 0x200e || r == 0x200f || r == 0x2028 || r == 0x2029 || r == 0xfeff {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

// loneCR tells whether b holds a CR not followed by LF (the reports
// write LF line ends; a lone CR came from the input).
func loneCR(b []byte) bool {
	for i, c := range b {
		if c == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			return true
		}
	}
	return false
}

// steps pastes every suggested step (and each tail after ": ", where prose
// hands over to a command) into sh in an empty folder whose PATH holds only
// touch and a python that records its arguments, then parses every python
// -c program with Python's ast for calls the input smuggled in.
func steps(diag []byte) []string {
	var d struct {
		Findings []struct {
			NextSteps []string `json:"next_steps"`
		} `json:"findings"`
	}
	if json.Unmarshal(diag, &d) != nil {
		return []string{"crash_diagnosis.json unreadable"}
	}
	var all []string
	for _, f := range d.Findings {
		all = append(all, f.NextSteps...)
	}
	py, _ := exec.LookPath("python3")
	if py == "" {
		return []string{"sh, touch and python3 are needed"}
	}
	probs, calls, err := quotetest.Paste(all)
	if err != nil {
		return []string{err.Error()}
	}
	for _, args := range calls {
		for i, a := range args {
			if a != "-c" || i+1 >= len(args) {
				continue
			}
			cmd := exec.Command(py, "-c", pyCheck)
			cmd.Stdin = strings.NewReader(args[i+1])
			o, _ := cmd.CombinedOutput()
			if s := strings.TrimSpace(string(o)); s != "ok" {
				probs = append(probs, fmt.Sprintf("python -c program: %s: %.160q", s, args[i+1]))
			}
		}
	}
	return probs
}

// pyCheck parses a program from stdin and names a call the input smuggled
// in (the steps' own programs import torch and call its functions).
const pyCheck = `
import ast, sys
try:
    t = ast.parse(sys.stdin.read())
except SyntaxError as e:
    print("does not parse:", e); sys.exit()
bad = {"__import__", "eval", "exec", "compile", "system", "popen", "getattr", "execve", "spawnv", "run", "check_output", "Popen"}
for n in ast.walk(t):
    if isinstance(n, ast.Call):
        f = n.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in bad:
            print("calls", name); sys.exit()
print("ok")
`

type verdict struct {
	Case, Kind, Host string
	Problems         []string `json:",omitempty"`
	Note             string
}

// reason is the class of a problem for the summary: its text up to the
// first colon ("over CPU budget", "hang guard", "not run", "exit 2 (want …)").
func reason(p string) string {
	if i := strings.IndexAny(p, ":("); i > 0 {
		return strings.TrimSpace(p[:i])
	}
	return p
}

// summary counts per host the runs made, handled and not handled (by the
// reason of their first problem); "not run" is counted apart.
func summary(vs []verdict) string {
	var b strings.Builder
	b.WriteString("| host | cases | ran | handled | not handled | by reason |\n|---|---|---|---|---|---|\n")
	for _, h := range hosts {
		cases, ran, ok := 0, 0, 0
		why := map[string]int{}
		for _, v := range vs {
			if v.Host != h {
				continue
			}
			cases++
			if len(v.Problems) == 1 && v.Problems[0] == "not run" {
				continue
			}
			ran++
			if len(v.Problems) == 0 {
				ok++
				continue
			}
			why[reason(v.Problems[0])]++
		}
		var keys []string
		for k := range why {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, why[k]))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", h, cases, ran, ok, ran-ok, strings.Join(parts, ", "))
	}
	return b.String()
}
