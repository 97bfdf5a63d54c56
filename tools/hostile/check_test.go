package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The judge must see what it is for: live markup, a forged heading, raw
// controls, and a step that runs the input when pasted.
func TestJudgeSeesAttacks(t *testing.T) {
	for md, want := range map[string]string{
		"# Report\n\n| k |\n|---|\n| `x` |\n": "",
		"text <img src=x onerror=alert(1)>\n": "live <img>",
		"```\nk\n```\n# Forged heading\n":     "forged heading",
		"a **PWNst** b\n":                     "strong markup",
		"[x](javascript:alert(1))\n":          "javascript: link",
		"`<img src=x>` and `**PWN**`\n":       "",
	} {
		if got := liveMarkup([]byte(md)); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("liveMarkup(%q) = %q, want %q", md, got, want)
		}
	}
	if rawControl([]byte("a\tb\nc")) != "" || rawControl([]byte("a\x1b[2J")) != "U+001B" || rawControl([]byte("x\u202ey")) != "U+202E" {
		t.Error("rawControl")
	}
	for _, tool := range []string{"sh", "touch", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	diag := func(step string) []byte {
		return []byte(`{"findings":[{"next_steps":[` + jsonString(step) + `]}]}`)
	}
	if p := steps(diag("Replay it: python -c 'import torch; torch.load('\\''/d/x'\\'')'")); len(p) != 0 {
		t.Errorf("a safe step flagged: %v", p)
	}
	if p := steps(diag("Set it: X='*x'$(touch${IFS}pwned)'*'")); len(p) == 0 || !strings.Contains(p[0], "ran the input's command") {
		t.Errorf("a step that runs the input passed: %v", p)
	}
	if p := steps(diag("Replay: python -c 'torch.load(\"x\");__import__(\"os\").system(\"id\")'")); len(p) == 0 || !strings.Contains(p[0], "__import__") {
		t.Errorf("a smuggled python call passed: %v", p)
	}
}

// Time is judged on CPU seconds, and the two ways a run is stopped are told
// apart: a busy machine's wall clock is not a failure, a hang is not "slow".
func TestJudgeTimeOnCPU(t *testing.T) {
	c := Case{ID: "c", TimeS: 60, MemMB: 1024}
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Exit: 0, Seconds: 400, CPUSeconds: 5, RSSMB: 100}, ""},
		{Run{Exit: 0, Seconds: 70, CPUSeconds: 65, RSSMB: 100}, "over CPU budget: 65 CPU s > 60 s"},
		{Run{Exit: -1, TimedOut: true, Stop: StopCPU, Error: "over CPU budget: stopped at 120 s CPU (900 s wall)", CPUSeconds: 120}, "over CPU budget"},
		{Run{Exit: -1, TimedOut: true, Stop: StopHang, Error: "hang guard: no end after 360 s wall clock (0.1 s CPU)", CPUSeconds: 0.1}, "hang guard"},
		{Run{Exit: 0, Seconds: 10, CPUSeconds: 1, RSSMB: 2048}, "memory: 2048 MB > 1024 MB"},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out", "c", "native")
		os.MkdirAll(filepath.Join(out, "art"), 0o755)
		b, _ := json.Marshal(tc.run)
		os.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
		probs, _ := judge(dir, c, "native")
		got := strings.Join(probs, "; ")
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("judge(%+v) = %q, want %q", tc.run, got, tc.want)
		}
	}
	s := summary([]verdict{{Host: "wasm"}, {Host: "wasm", Problems: []string{"hang guard: x"}}, {Host: "wasm", Problems: []string{"not run"}}})
	if !strings.Contains(s, "| wasm | 3 | 2 | 1 | 1 | hang guard 1 |") {
		t.Errorf("summary:\n%s", s)
	}
}

// -only takes ids and id prefixes ending in '*', keeping the list's order.
func TestOnlyPrefixes(t *testing.T) {
	cs := []Case{{ID: "a-1"}, {ID: "b-1"}, {ID: "a-2"}, {ID: "c"}}
	var got []string
	for _, c := range ordered(cs, "c,a-*") {
		got = append(got, c.ID)
	}
	if strings.Join(got, " ") != "c a-1 a-2" {
		t.Errorf("ordered = %v, want c a-1 a-2", got)
	}
	if selected("a", "a-1") || !selected("", "x") || !selected("b-*", "b-1") {
		t.Error("selected")
	}
}
