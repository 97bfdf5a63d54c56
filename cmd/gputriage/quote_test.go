package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/internal/quote/quotetest"
)

// Issue 24: a kernel-API name and dump folder names made to break out of
// the suggested commands, through diagnose on both engines. The page and
// the Worker show the same crash_diagnosis.json next steps (the module's).
func TestHostileSuggestedCommands(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	assert := "torch.AcceleratorError: CUDA error: device-side assert triggered\n"
	sg := filepath.Join(in, "dumps", "20260401_154232_001_pid1_x_call0007$(touch${IFS}pwned)")
	fi := filepath.Join(in, "fi", "x');__import__('os').system('touch${IFS}pwned');('")
	for _, d := range []string{sg, fi} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(in, "server.log"), []byte("SGLANG_KERNEL_API_LOGLEVEL=10\n"+assert), 0o644)
	os.WriteFile(filepath.Join(sg, "metadata.json"), []byte(`{"function_name": "sglang.custom_op.x'$(touch${IFS}pwned)'", "execution_status": "inputs_saved", "input_tensor_keys": ["arg_0"]}`), 0o644)
	fiLog := filepath.Join(dir, "fi.log")
	os.WriteFile(fiLog, []byte("FLASHINFER_LOGLEVEL=10\nFlashInfer API Call: flashinfer.decode.run\nDumped inputs to: "+fi+"\n"+assert), 0o644)
	apiLog := filepath.Join(dir, "api.log")
	os.WriteFile(apiLog, []byte("SGLANG_KERNEL_API_LOGLEVEL=3\nSGLang Kernel API Call: sglang.custom_op.x'$(touch${IFS}pwned)'\n"+assert), 0o644)

	for _, eng := range []string{"native", "wasm"} {
		for name, input := range map[string]string{"folder": in, "flashinfer": fiLog, "api": apiLog} {
			out := filepath.Join(dir, eng+"-"+name)
			var o, e bytes.Buffer
			run([]string{"diagnose", "--engine", eng, "-q", "-o", out, input}, nil, &o, &e)
			b, err := os.ReadFile(filepath.Join(out, "crash_diagnosis.json"))
			if err != nil {
				t.Fatalf("%s %s: %v %s", eng, name, err, e.String())
			}
			var d struct {
				Findings []struct {
					NextSteps []string `json:"next_steps"`
				}
			}
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			var steps []string
			for _, f := range d.Findings {
				steps = append(steps, f.NextSteps...)
			}
			joined := strings.Join(steps, "\n")
			if !strings.Contains(joined, "replay") && !strings.Contains(joined, "DUMP_INCLUDE") {
				t.Fatalf("%s %s: no escalation step to check:\n%s", eng, name, joined)
			}
			calls := quotetest.RunSteps(t, steps)
			if name == "flashinfer" && (len(calls) != 1 || len(calls[0]) != 3 || calls[0][2] != fi) {
				t.Errorf("%s: the replay step passed python %q, want the folder %q as its one argument", eng, calls, fi)
			}
		}
	}
}
