package main

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/internal/escape/mdcheck"
	"github.com/gputriage/gputriage/internal/fixture"
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
			// the rendered crash_summary.md shows each step as the JSON has
			// it (backslashes, quotes and stars survive rendering)
			md, _ := os.ReadFile(filepath.Join(out, "crash_summary.md"))
			page := html.UnescapeString(mdcheck.Render(md))
			for _, st := range steps {
				if !strings.Contains(page, st) {
					t.Errorf("%s %s: crash_summary.md renders the step differently from %q", eng, name, st)
				}
			}
			calls := quotetest.RunSteps(t, steps)
			if name == "flashinfer" && (len(calls) != 1 || len(calls[0]) != 3 || calls[0][2] != fi) {
				t.Errorf("%s: the replay step passed python %q, want the folder %q as its one argument", eng, calls, fi)
			}
		}
	}
}

// Issue 24, found by tools/hostile: a kernel or code-object name from a real
// crash log reached a step's prose raw ("… it is an async race and
// x;touch${IFS}pwned;# is the victim", "Check x;touch…'s indexing"), so
// pasting the step, or its tail after a colon, ran the input. Every shared
// log whose kernel name lands in a step, with the name replaced, on both
// engines.
func TestHostileKernelNameSteps(t *testing.T) {
	crash := filepath.Join(fixture.Shared(), "crash")
	dir := t.TempDir()
	for _, c := range []struct{ file, name string }{
		{"s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log", "Cijk_Ailk_Bljk_BBS_BH_MT128x96x32_MI32x32x4x1_SE_1LDSB0"},
		{"s15_debug_agent_disassembly_srun_hypre614.log", "rocprim::detail::single_scan_kernel"},
		{"fx02_rocm_debug_agent_rocm720_offload_fixture_mfc.txt", "__omp_offloading_8116438_1c00689b__QMm_time_steppersPs_tvd_rk_l486"},
	} {
		src, err := os.ReadFile(filepath.Join(crash, c.file))
		if err != nil {
			fixture.Missing(t, "%v", err)
			continue
		}
		if !bytes.Contains(src, []byte(c.name)) {
			t.Fatalf("%s no longer holds %s", c.file, c.name)
		}
		for i, p := range []string{"x;touch${IFS}pwned;#", "x$(touch${IFS}pwned)", "x'$(touch${IFS}pwned)'`touch${IFS}pwned`", "x >pwned <"} {
			in := filepath.Join(dir, fmt.Sprintf("%d_%s", i, c.file))
			os.WriteFile(in, bytes.ReplaceAll(src, []byte(c.name), []byte(p)), 0o644)
			for _, eng := range []string{"native", "wasm"} {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d-%s", eng, i, c.file))
				var o, e bytes.Buffer
				run([]string{"diagnose", "--engine", eng, "-q", "-o", out, in}, nil, &o, &e)
				b, err := os.ReadFile(filepath.Join(out, "crash_diagnosis.json"))
				if err != nil {
					t.Fatalf("%s %s: %v %s", eng, in, err, e.String())
				}
				var d struct {
					Findings []struct {
						NextSteps []string `json:"next_steps"`
					}
				}
				json.Unmarshal(b, &d)
				var steps []string
				named := false
				for _, f := range d.Findings {
					for _, s := range f.NextSteps {
						named = named || strings.Contains(s, "touch") || strings.Contains(s, "pwned")
						steps = append(steps, s)
					}
				}
				if !named && i < 3 {
					t.Errorf("%s %s: no step names the kernel (nothing checked): %q", eng, c.file, steps)
				}
				quotetest.RunSteps(t, steps)
			}
		}
	}
}
