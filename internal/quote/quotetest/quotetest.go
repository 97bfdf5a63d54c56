// Package quotetest checks suggested steps the way a user would use them:
// pasted into sh. Used by tests and by the hostile-input sweep (tools/hostile).
package quotetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputriage/gputriage/internal/fixture"
)

// RunSteps is Paste for a test: a step that ran the input's command is a
// test error; without sh or touch the test is skipped (fails under CI).
func RunSteps(t testing.TB, steps []string) [][]string {
	t.Helper()
	ran, calls, err := Paste(steps)
	if err != nil {
		fixture.Missing(t, "%v", err) // a failure under CI
	}
	for _, r := range ran {
		t.Error(r)
	}
	return calls
}

// Paste pastes each step, and each tail of it after a ": " (where prose
// hands over to a command), into sh in an empty folder whose PATH holds only
// touch (the payload's tool) and a python that records its arguments.
// Nothing named pwned may appear: ran names each paste that made one. calls
// are each python call's arguments.
func Paste(steps []string) (ran []string, calls [][]string, err error) {
	sh, err := exec.LookPath("sh")
	touch, err2 := exec.LookPath("touch")
	if err != nil || err2 != nil {
		return nil, nil, errors.New("sh and touch are needed")
	}
	tmp, err := os.MkdirTemp("", "quotetest-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	bin, work := filepath.Join(tmp, "bin"), filepath.Join(tmp, "work")
	argsFile := filepath.Join(tmp, "python.args")
	if err := errors.Join(os.Mkdir(bin, 0o755), os.Mkdir(work, 0o755), os.Symlink(touch, filepath.Join(bin, "touch"))); err != nil {
		return nil, nil, err
	}
	stub := "#!" + sh + "\nprintf '%s\\0' \"$@\" >> '" + argsFile + "'\nprintf '\\n\\0' >> '" + argsFile + "'\n"
	for _, n := range []string{"python", "python3"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(stub), 0o755); err != nil {
			return nil, nil, err
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
					ran = append(ran, fmt.Sprintf("pasting %q ran the input's command: %s exists", c, strings.TrimPrefix(p, tmp+string(os.PathSeparator))))
					os.RemoveAll(p)
				}
				return nil
			})
		}
	}
	b, _ := os.ReadFile(argsFile)
	for _, call := range strings.Split(string(b), "\n\x00") {
		if call == "" {
			continue
		}
		calls = append(calls, strings.Split(strings.TrimSuffix(call, "\x00"), "\x00"))
	}
	return ran, calls, nil
}
