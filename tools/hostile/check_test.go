package main

import (
	"os/exec"
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
