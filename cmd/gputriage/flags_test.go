package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// Bool flags take =false (a CI script passing --force=$FORCE must be able
// to turn it off), and alone mean true.
func TestFlagsBoolFalse(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		get  func(flags) bool
		want bool
	}{
		{"diff", []string{"--force=false", "a", "b"}, func(f flags) bool { return f.force }, false},
		{"diff", []string{"--force", "a", "b"}, func(f flags) bool { return f.force }, true},
		{"perfetto-fix", []string{"--gzip=false", "-o", "d", "a"}, func(f flags) bool { return f.gzip }, false},
		{"perfetto-fix", []string{"a", "--gzip", "-o", "d"}, func(f flags) bool { return f.gzip }, true},
		{"triage", []string{"-q=false", "a"}, func(f flags) bool { return f.quiet }, false},
		{"triage", []string{"a", "--quiet"}, func(f flags) bool { return f.quiet }, true},
	} {
		f, err := parseFlags(c.cmd, c.args)
		if err != nil {
			t.Fatalf("%s %v: %v", c.cmd, c.args, err)
		}
		if got := c.get(f); got != c.want {
			t.Errorf("%s %v: %v, want %v", c.cmd, c.args, got, c.want)
		}
	}
}

// --preflight-passed is a bool: alone it is true and does not swallow the
// next argument; =false is false.
func TestFlagsPreflightBool(t *testing.T) {
	f, err := parseFlags("breakdown", []string{"--preflight-passed", "trace.json"})
	if err != nil || f.run.PreflightPassed == nil || !*f.run.PreflightPassed || !slices.Equal(f.inputs, []string{"trace.json"}) {
		t.Fatalf("--preflight-passed trace.json: %+v, %v", f, err)
	}
	f, err = parseFlags("breakdown", []string{"--preflight-passed=false", "trace.json"})
	if err != nil || f.run.PreflightPassed == nil || *f.run.PreflightPassed {
		t.Fatalf("--preflight-passed=false: %+v, %v", f.run.PreflightPassed, err)
	}
	if _, err = parseFlags("breakdown", []string{"--preflight-passed=maybe", "trace.json"}); err == nil {
		t.Fatal("--preflight-passed=maybe accepted")
	}
}

// Flags go before, between and after the inputs, in order; after "--"
// everything is an input; --mapping/--formal files are inputs in place.
func TestFlagsInterleaved(t *testing.T) {
	f, err := parseFlags("triage", []string{"a", "--mapping", "m", "-q", "b", "--stage", "decode", "--", "-c", "--stage"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "m", "b", "-c", "--stage"}; !slices.Equal(f.inputs, want) {
		t.Errorf("inputs %q, want %q", f.inputs, want)
	}
	if f.stage != "decode" || !f.quiet || !slices.Equal(f.mapping, []string{"m"}) {
		t.Errorf("flags %+v", f)
	}
	// A value that starts with "-" is still the flag's value.
	if f, err = parseFlags("breakdown", []string{"--server-flags", "--tp 2", "x"}); err != nil || f.run.ServerFlags != "--tp 2" {
		t.Errorf("--server-flags '--tp 2': %q, %v", f.run.ServerFlags, err)
	}
}

// A flag of another subcommand is refused (exit 2), naming its owner.
func TestFlagsNotForThisCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"triage", "--force", "x.json"}, "--force does not apply to triage (it is a flag of diff"},
		{[]string{"breakdown", "--gzip", "x.json"}, "--gzip does not apply to breakdown (it is a flag of perfetto-fix"},
		{[]string{"diagnose", "--mapping", "m", "x.log"}, "--mapping does not apply to diagnose"},
		{[]string{"breakdown", "--num-steps", "3", "x.json"}, "--num-steps does not apply to breakdown (it is a flag of profile"},
		{[]string{"diff", "--fial-on", "total:+5%", "a", "b"}, "unknown flag --fial-on"},
		{[]string{"triage", "--parsers", "-1", "x"}, "--parsers"},
	} {
		var so, se bytes.Buffer
		if code := run(c.args, nil, &so, &se); code != 2 || !strings.Contains(se.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, se.String(), c.want)
		}
	}
}

// Each subcommand's -h lists its own flags, and only those.
func TestFlagsHelpPerCommand(t *testing.T) {
	helpOf := func(args ...string) string {
		var so, se bytes.Buffer
		if code := run(args, nil, &so, &se); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, se.String())
		}
		return so.String()
	}
	seen := map[string]string{}
	for cmd := range commands {
		h := helpOf(cmd, "-h")
		if h2 := helpOf("help", cmd); h2 != h {
			t.Errorf("help %s differs from %s -h", cmd, cmd)
		}
		if other, ok := seen[h]; ok {
			t.Errorf("%s -h is the same as %s -h", cmd, other)
		}
		seen[h] = cmd
		if !strings.HasPrefix(h, "gputriage "+cmd) {
			t.Errorf("%s -h starts %q", cmd, h[:min(len(h), 40)])
		}
	}
	tr, df := helpOf("triage", "--help"), helpOf("diff", "-h")
	if !strings.Contains(tr, "--mapping FILE") || strings.Contains(tr, "--force") || strings.Contains(tr, "--a-base-image") {
		t.Errorf("triage -h:\n%s", tr)
	}
	if !strings.Contains(df, "--force") || !strings.Contains(df, "--fail-on RULE") || strings.Contains(df, "--mapping") {
		t.Errorf("diff -h:\n%s", df)
	}
	if p := helpOf("profile", "-h"); !strings.Contains(p, "--num-steps N") || !strings.Contains(p, "--mapping FILE") {
		t.Errorf("profile -h:\n%s", p)
	}
}

// profile refuses a bad flag or URL before it sends the server anything.
func TestProfileFlagsBeforeServer(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", srv.URL, "--fromat", "json"}, "unknown flag --fromat"},
		{[]string{"--url", srv.URL, "--force"}, "--force does not apply to profile"},
		{[]string{"--url", srv.URL, "--format", "yaml"}, "--format must be md or json"},
		{[]string{"--url", srv.URL, "--num-steps", "x"}, "--num-steps"},
		{[]string{"--url", strings.TrimPrefix(srv.URL, "http://")}, "give the scheme and host, e.g. http://127.0.0.1:30000"},
		{[]string{"--url", "localhost:30000"}, "give the scheme and host"},
		{[]string{"--url", srv.URL, "trace.json"}, "profile takes its traces from the server"},
	} {
		var so, se bytes.Buffer
		if code := runProfile(c.args, &so, &se, &se); code != 2 || !strings.Contains(se.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, se.String(), c.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server got %d requests before the flags were checked", n)
	}
}

// Input without a trace is a usage error naming the file (the README's
// exit 2), not "no crash evidence found" and exit 0; so is a --stage the
// traces do not have.
func TestExitCodesNoTraceUnknownStage(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "notes.txt")
	csv := filepath.Join(dir, "kernels.csv")
	os.WriteFile(txt, []byte("hello, this is not a trace\n"), 0o644)
	os.WriteFile(csv, []byte("name,dur\ngemm,12\n"), 0o644)
	logs := filepath.Join(dir, "logs")
	os.MkdirAll(logs, 0o755)
	os.WriteFile(filepath.Join(logs, "server.log"), []byte("INFO started\nINFO done\n"), 0o644)
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"breakdown", txt}, []string{"no profiler trace", "notes.txt"}},
		{[]string{"triage", csv}, []string{"no profiler trace", "kernels.csv"}},
		{[]string{"breakdown", logs}, []string{"no profiler trace", "server.log"}},
		{[]string{"breakdown", "--stage", "prefil", tr}, []string{`--stage "prefil": no such stage`, "decode"}},
		{[]string{"triage", "--stage", "prefil", tr}, []string{`--stage "prefil": no such stage`}},
	} {
		var so, se bytes.Buffer
		code := run(append(c.args, "-q", "--engine", "native"), nil, &so, &se)
		for _, w := range c.want {
			if code != 2 || !strings.Contains(se.String(), w) {
				t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, se.String(), w)
			}
		}
	}
	// A known stage still works.
	var so, se bytes.Buffer
	if code := run([]string{"breakdown", "-q", "--stage", "decode", tr}, nil, &so, &se); code != 0 {
		t.Errorf("--stage decode: exit %d: %s", code, se.String())
	}
}
