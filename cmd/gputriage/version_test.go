package main

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// Issue 22 item 13: version shows the commit the binary was built from.
func TestVersionCommit(t *testing.T) {
	info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionOf(info); got != "0.1.0 (commit 0123456789ab+dirty)" {
		t.Errorf("versionOf = %q", got)
	}
	if got := versionOf(&debug.BuildInfo{}); got != "0.1.0" {
		t.Errorf("no vcs info: %q", got)
	}
}

// Issue 22 item 13: TERM=dumb and NO_COLOR get no escape sequences.
func TestEscapesOK(t *testing.T) {
	for env, want := range map[[2]string]bool{{"xterm-256color", ""}: true, {"dumb", ""}: false, {"xterm", "1"}: false} {
		get := func(k string) string {
			if k == "TERM" {
				return env[0]
			}
			if k == "NO_COLOR" {
				return env[1]
			}
			return ""
		}
		if got := escapesOK(get); got != want {
			t.Errorf("TERM=%q NO_COLOR=%q: escapes %v, want %v", env[0], env[1], got, want)
		}
	}
}

// Issue 22 item 13: make serve PORT=… serves on that port.
func TestMakeServePort(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command(mk, "-n", "-C", "../..", "serve", "PORT=9123").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n serve: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "-serve 127.0.0.1:9123") {
		t.Errorf("make -n serve PORT=9123:\n%s", out)
	}
}

// Issue 22 item 13: make run prints the takeaways and where the artifacts
// are, not the whole summary.
func TestMakeRunTakeaways(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command(mk, "-n", "-C", "../..", "-o", "build", "run").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "> /dev/null") || !strings.Contains(s, "## Takeaways") || !strings.Contains(s, "Artifacts: out/default/") {
		t.Errorf("make run does not print only the takeaways and the artifacts' place:\n%s", s)
	}
	// every recipe line parses as shell (a dry run alone let an
	// unterminated quote through)
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if o, err := exec.Command("sh", "-n", "-c", line).CombinedOutput(); err != nil {
			t.Errorf("make run recipe line does not parse: %s\n%s", line, o)
		}
	}
	// and it runs, when the CLI is built (make test builds it first)
	if _, err := os.Stat("../../bin/gputriage"); err == nil {
		out, err := exec.Command(mk, "-s", "-C", "../..", "-o", "build", "run").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "## Takeaways") || !strings.Contains(string(out), "Artifacts: out/default/") {
			t.Errorf("make run: %v\n%s", err, out)
		}
	}
}
