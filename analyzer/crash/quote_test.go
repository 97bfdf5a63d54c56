package crash

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/internal/quote"
	"github.com/gputriage/gputriage/internal/quote/quotetest"
)

// Issue 24: names taken from the input (a kernel-API name, a dump folder)
// reach the suggested commands as one quoted word or one Python literal;
// pasting every step into sh runs nothing the input carried.
func TestStepsQuoteInput(t *testing.T) {
	const (
		sgAPI  = "sglang.custom_op.x'$(touch${IFS}pwned)'"
		sgDir  = "/tmp/d/20260401_154232_001_pid1_x_call0007$(touch${IFS}pwned)"
		fiDir  = "/tmp/d/x');__import__('os').system('touch${IFS}pwned');('"
		assert = "torch.AcceleratorError: CUDA error: device-side assert triggered\n"
	)
	type file struct{ name, text string }
	for _, c := range []struct {
		name  string
		files []file
		want  string // a step holds it
		py    []string
	}{
		{"api name", []file{{"log.txt", "SGLANG_KERNEL_API_LOGLEVEL=3\nSGLang Kernel API Call: " + sgAPI + "\n" + assert}},
			`SGLANG_KERNEL_API_DUMP_INCLUDE='*custom_op.x'\''$(touch${IFS}pwned)'\''*'`, nil},
		{"api name with backticks", []file{{"log.txt", "SGLANG_KERNEL_API_LOGLEVEL=3\nSGLang Kernel API Call: sglang.op.`touch${IFS}pwned`\n" + assert}},
			"SGLANG_KERNEL_API_DUMP_INCLUDE='*op.`touch${IFS}pwned`*'", nil},
		{"dump folder in a log", []file{{"log.txt", "SGLANG_KERNEL_API_LOGLEVEL=10\nSGLang Kernel API Call: sglang.custom_op.fused\nDumped inputs to: " + sgDir + "\n" + assert}},
			`torch.load('` + sgDir + `/inputs.pt')`, nil},
		{"dump folder name", []file{{"log.txt", "SGLANG_KERNEL_API_LOGLEVEL=10\n" + assert},
			{sgDir + "/metadata.json", `{"function_name": "sglang.custom_op.fused", "execution_status": "inputs_saved", "input_tensor_keys": ["arg_0"]}`}},
			`torch.load('` + sgDir + `/inputs.pt')`, nil},
		{"python breakout", []file{{"log.txt", "FLASHINFER_LOGLEVEL=10\nFlashInfer API Call: flashinfer.decode.run\nDumped inputs to: " + fiDir + "\n" + assert}},
			"replay_from_dump(sys.argv[1])", []string{"-c", "import sys; from flashinfer.api_logging import replay_from_dump; replay_from_dump(sys.argv[1])", fiDir}},
		{"assert location", []file{{"log.txt", "/pytorch/aten/src/ATen/native/cuda/Indexing.cux'$(touch${IFS}pwned)'`touch${IFS}pwned2`:1478: indexSelectSmallIndex: block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n" + assert}},
			`The failing check is 'Indexing.cux'\''$(touch${IFS}pwned)'\''`, nil},
		{"python breakout in torch.load", []file{{"log.txt", "SGLANG_KERNEL_API_LOGLEVEL=10\nSGLang Kernel API Call: sglang.custom_op.fused\nDumped inputs to: " + fiDir + "\n" + assert}},
			`torch.load('/tmp/d/x\');__import__(\'os\').system(\'touch${IFS}pwned\');(\'/inputs.pt')`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			for _, f := range c.files {
				s.BeginFile(f.name)
				s.Write([]byte(f.text))
				s.EndFile()
			}
			d := s.Diagnosis()
			var steps []string
			for _, f := range d.Findings {
				steps = append(steps, f.NextSteps...)
			}
			all := strings.Join(steps, "\n")
			if !strings.Contains(all, c.want) {
				t.Fatalf("no step holds %s:\n%s", c.want, all)
			}
			calls := quotetest.RunSteps(t, steps)
			if c.py != nil && (len(calls) == 0 || strings.Join(calls[len(calls)-1], "\x00") != strings.Join(c.py, "\x00")) {
				t.Errorf("python got %q, want %q", calls, c.py)
			}
			for _, st := range steps {
				if i := strings.Index(st, "torch.load("); i >= 0 {
					lit := st[i+len("torch.load(") : strings.LastIndex(st, ") and call")]
					// the prose names the same folder, as one quoted word
					got := pyString(t, lit)
					w, _ := quote.Shell(strings.TrimSuffix(got, "/inputs.pt"))
					if !strings.HasSuffix(got, "/inputs.pt") || !strings.Contains(all, "dump "+w+" has") {
						t.Errorf("torch.load(%s) reads %q", lit, got)
					}
				}
			}
		})
	}
}

// pyString parses lit with Python's parser: it must be one str literal.
func pyString(t *testing.T, lit string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no python3")
		}
		t.Skip("no python3")
	}
	cmd := exec.Command(py, "-c", `import ast,sys
e = ast.parse(sys.stdin.read(), mode="eval").body
assert isinstance(e, ast.Constant) and isinstance(e.value, str), ast.dump(e)
sys.stdout.write(e.value)`)
	cmd.Stdin = strings.NewReader(lit)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s is not one Python string literal: %v", lit, err)
	}
	return string(out)
}
