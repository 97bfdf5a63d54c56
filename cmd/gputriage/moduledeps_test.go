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
		if strings.HasPrefix(p, "github.com/santhosh-tekuri/jsonschema") {
			t.Fatalf("gputriage.wasm links %s: the schema validator is for tests only", p)
		}
	}
}

// The JSON Schema validator is a test dependency: neither the CLI nor the
// Worker links it.
func TestBinariesLeaveOutValidator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "../../worker/...").Output()
	if err != nil {
		fixture.Missing(t, "go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/santhosh-tekuri/jsonschema") || p == "github.com/gputriage/gputriage/schemas" {
			t.Errorf("a binary links %s: the schema validator is for tests only", p)
		}
	}
}
