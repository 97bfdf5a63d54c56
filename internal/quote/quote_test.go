package quote

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// hostile are the issue 24 values: each must come back as itself, never run.
var hostile = []string{
	"sglang.custom_op.x'$(touch${IFS}pwned)'",
	"20260401_154232_001_pid1_x_call0007$(touch${IFS}pwned)",
	"/d/x');__import__('os').system('touch pwned');('",
	"`touch pwned`",
	`a\'b"c$HOME;|&<>(){}[]*?~!#`,
	"~root",
	"=ls",
	"-rf",
	"héllo ✓ 名前",
	"",
	"a b\tc",
}

func TestShell(t *testing.T) {
	for in, want := range map[string]string{
		"gfx942":                    "gfx942",
		"/workspace/dumps/a_call01": "/workspace/dumps/a_call01",
		"":                          "''",
		"x'$(touch${IFS}pwned)'":    `'x'\''$(touch${IFS}pwned)'\'''`,
		"a b":                       "'a b'",
		"~":                         "'~'",
	} {
		if got, ok := Shell(in); !ok || got != want {
			t.Errorf("Shell(%q) = %q, %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"a\nb", "nul\x00", "esc\x1b[2J", "bidi\u202e", "bad\xff"} {
		if got, ok := Shell(in); ok {
			t.Errorf("Shell(%q) = %q, want refused", in, got)
		}
	}
	if got, ok := Env("SGLANG_KERNEL_API_DUMP_INCLUDE", "*x'$(y)'*"); !ok || got != `SGLANG_KERNEL_API_DUMP_INCLUDE='*x'\''$(y)'\''*'` {
		t.Errorf("Env = %q", got)
	}
	for _, s := range hostile {
		checkShell(t, s)
	}
}

func TestPython(t *testing.T) {
	for in, want := range map[string]string{
		"/d/x');__import__('os').system('y');('": `'/d/x\');__import__(\'os\').system(\'y\');(\''`,
		"a\\b\n\x00\u202e é":                     `'a\\b\x0a\x00\u202e é'`,
	} {
		if got, ok := Python(in); !ok || got != want {
			t.Errorf("Python(%q) = %q, want %q", in, got, want)
		}
	}
	if _, ok := Python("bad\xff"); ok {
		t.Error("Python accepted invalid UTF-8")
	}
	for _, s := range append(hostile, "nl\nnul\x00esc\x1b bidi\u2066\u202e") {
		checkPython(t, s)
	}
}

// checkShell runs the quoted word through a real sh in an empty folder and
// compares the one argument it received with s; nothing may be created.
func checkShell(t *testing.T, s string) {
	t.Helper()
	w, ok := Shell(s)
	if !ok {
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no sh")
		}
		t.Skip("no sh")
	}
	dir := t.TempDir()
	cmd := exec.Command(sh, "-c", `printf '%s\0' `+w+` # `+w)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "IFS= "}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c with %s: %v", w, err)
	}
	if string(out) != s+"\x00" {
		t.Errorf("Shell(%q) = %s: sh saw %q", s, w, out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("Shell(%q) = %s created %s", s, w, ents[0].Name())
	}
}

// checkPython parses the literal with Python's own parser (one process
// for the whole test binary): it must be one str constant equal to s.
func checkPython(t *testing.T, s string) {
	t.Helper()
	lit, ok := Python(s)
	if !ok {
		return
	}
	got, err := pyParse(lit)
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, exec.ErrNotFound) {
			t.Skip("no python3")
		}
		t.Fatalf("Python(%q) = %s: %v", s, lit, err)
	}
	if got != s {
		t.Errorf("Python(%q) = %s: ast saw %q", s, lit, got)
	}
}

var py struct {
	sync.Mutex
	once sync.Once
	in   io.Writer
	out  *bufio.Reader
	err  error
}

// pyParse sends one literal (one line) to a python3 that answers with the
// JSON of the single str constant the line parses to, or an error line.
func pyParse(lit string) (string, error) {
	py.once.Do(func() {
		cmd := exec.Command("python3", "-c", `import ast,json,sys
for line in sys.stdin:
    try:
        e = ast.parse(line.rstrip("\n"), mode="eval").body
        assert isinstance(e, ast.Constant) and isinstance(e.value, str), ast.dump(e)
        print(json.dumps({"v": e.value}), flush=True)
    except Exception as x:
        print(json.dumps({"err": repr(x)}), flush=True)`)
		in, err := cmd.StdinPipe()
		if err != nil {
			py.err = err
			return
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			py.err = err
			return
		}
		if py.err = cmd.Start(); py.err == nil {
			py.in, py.out = in, bufio.NewReader(out)
		}
	})
	py.Lock()
	defer py.Unlock()
	if py.err != nil {
		return "", py.err
	}
	if _, err := io.WriteString(py.in, lit+"\n"); err != nil {
		return "", err
	}
	line, err := py.out.ReadBytes('\n')
	if err != nil {
		return "", err
	}
	var r struct{ V, Err string }
	if err := json.Unmarshal(line, &r); err != nil {
		return "", err
	}
	if r.Err != "" {
		return "", errors.New(r.Err)
	}
	return r.V, nil
}

// FuzzQuote checks every quoted word with a real sh and every literal with
// Python's parser.
func FuzzQuote(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if w, ok := Shell(s); ok {
			if strings.ContainsAny(w, "\n\x00") {
				t.Fatalf("Shell(%q) = %q holds a line break or NUL", s, w)
			}
			checkShell(t, s)
		}
		checkPython(t, s)
	})
}
