// Package quotetest checks suggested steps the way a user would use them:
// pasted into sh. Tests only.
package quotetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RunSteps pastes each step, and each tail of it after a ": " (where prose
// hands over to a command), into sh in an empty folder whose PATH holds only
// touch (the payload's tool) and a python that records its arguments.
// Nothing named pwned may appear. It returns each python call's arguments.
func RunSteps(t testing.TB, steps []string) [][]string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	touch, err2 := exec.LookPath("touch")
	if err != nil || err2 != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("sh and touch are needed")
		}
		t.Skip("no sh or touch")
	}
	bin, work := t.TempDir(), t.TempDir()
	if err := os.Symlink(touch, filepath.Join(bin, "touch")); err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(t.TempDir(), "python.args")
	stub := "#!" + sh + "\nprintf '%s\\0' \"$@\" >> '" + argsFile + "'\nprintf '\\n\\0' >> '" + argsFile + "'\n"
	for _, n := range []string{"python", "python3"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range steps {
		tails := []string{s}
		for i := strings.Index(s, ": "); i >= 0; {
			tails = append(tails, s[i+2:])
			j := strings.Index(s[i+2:], ": ")
			if j < 0 {
				break
			}
			i += 2 + j
		}
		for _, c := range tails {
			cmd := exec.Command(sh, "-c", c)
			cmd.Dir = work
			cmd.Env = []string{"PATH=" + bin, "HOME=" + work}
			cmd.WaitDelay = time.Second
			done := make(chan struct{})
			go func() {
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					if cmd.Process != nil {
						cmd.Process.Kill()
					}
				}
			}()
			cmd.Run() // prose fails to parse or run: what matters is what it left
			close(done)
			filepath.Walk(work, func(p string, fi os.FileInfo, err error) error {
				if err == nil && strings.Contains(fi.Name(), "pwned") {
					t.Errorf("pasting %q ran the input's command: %s exists", c, p)
					os.RemoveAll(p)
				}
				return nil
			})
		}
	}
	b, _ := os.ReadFile(argsFile)
	var calls [][]string
	for _, call := range strings.Split(string(b), "\n\x00") {
		if call == "" {
			continue
		}
		calls = append(calls, strings.Split(strings.TrimSuffix(call, "\x00"), "\x00"))
	}
	return calls
}
