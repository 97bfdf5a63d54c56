package main

import (
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The module's size is the page's load time and the CLI's wasm start-up
// (issue 12): goccy/go-json alone was 2.8 MB of its 8.8 MB of code, and
// encoding/json, linked in anyway, writes the same bytes. Keep it out.
func TestModuleLeavesOutHeavyDeps(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "../../wasm")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		fixture.Missing(t, "go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/goccy/go-json") {
			t.Fatalf("gputriage.wasm links %s (≈2.8 MB of wasm code): use encoding/json in analyzer/ (same output)", p)
		}
	}
}
