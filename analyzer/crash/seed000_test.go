package crash

import (
	"path/filepath"
	"strings"
	"testing"
)

// diagnoseNamed runs fixtures under testdata/seed000 through one session,
// each named by its path relative to that folder (dump folders matter).
func diagnoseNamed(t *testing.T, rel ...string) *Diagnosis {
	t.Helper()
	s := New()
	for _, r := range rel {
		_, data := readInput(t, filepath.Join("testdata/seed000", r))
		s.BeginFile(r)
		s.Write(data)
		s.EndFile()
	}
	return s.Diagnosis()
}

func golden000(t *testing.T, golden string, rel ...string) *Diagnosis {
	t.Helper()
	d := diagnoseNamed(t, rel...)
	checkGolden(t, "seed000/"+golden, d.JSON())
	return d
}

// Seed 000 step 3: the docker inspect --format answer "137 true".
func TestSeed000InspectFormatOOM(t *testing.T) {
	d := golden000(t, "inspect_format_oom.golden.json", "inspect_format_oom.txt")
	f := hasClass(d, ClassHostOOMKill)
	if f == nil || f.ConfidenceLevel != "high" || f.ExitCode == nil || *f.ExitCode != 137 || len(d.Findings) != 1 {
		t.Fatalf("%s", d.JSON())
	}
	for _, e := range f.Evidence {
		if commandLike(e.Text) {
			t.Errorf("a command line is evidence: %q", e.Text)
		}
	}
}

// "1 false" + a Python ValueError: the ValueError is the failure, and the
// command line that names OOMKilled never yields an OOM kill.
func TestSeed000InspectFormatValueError(t *testing.T) {
	d := golden000(t, "inspect_format_valueerror.golden.json", "inspect_format_valueerror.log")
	if hasClass(d, ClassHostOOMKill) != nil || len(d.Findings) != 1 {
		t.Fatalf("%s", d.JSON())
	}
	f := hasClass(d, ClassNotGPU)
	if f == nil || !strings.HasPrefix(f.Reason, "ValueError:") || f.ConfidenceLevel == "high" {
		t.Fatalf("%s", d.JSON())
	}
	if !strings.Contains(d.FailureReason, "ValueError") {
		t.Errorf("failure_reason %q", d.FailureReason)
	}
}

// A question or a command alone is no evidence.
func TestCommandOrQuestionIsNoEvidence(t *testing.T) {
	for _, txt := range []string{
		"Why did the trial exit with code 137? Was it OOMKilled?\n",
		"docker inspect --format='{{.State.ExitCode}} {{.State.OOMKilled}}' trial\n",
		"$ dmesg | grep -i 'killed process'\n",
		"# If signal 137: check container OOM, reduce batch size on retry\n",
	} {
		d := diagnoseWhole("q.log", []byte(txt))
		for _, f := range d.Findings {
			t.Errorf("%q gives %s (%s)", txt, f.Class, f.ConfidenceLevel)
		}
	}
}

func TestSeed000DockerInspectJSON(t *testing.T) {
	d := golden000(t, "docker_inspect.golden.json", "docker_inspect.json")
	f := hasClass(d, ClassHostOOMKill)
	if f == nil || f.ConfidenceLevel != "high" || d.DetailJSON["gpu_state"] == nil {
		t.Fatalf("%s", d.JSON())
	}
	if !DockerInspect([]byte("[\n    {\n        \"Id\": \"5b1e\"")) || DockerInspect([]byte(`[{"ph":"X","name":"k"}]`)) {
		t.Error("DockerInspect sniffing")
	}
}

func TestSeed000SignalLines(t *testing.T) {
	d := golden000(t, "signal_lines.golden.json", "signal_lines.log")
	if f := hasClass(d, ClassHostOOMKill); f == nil || f.Signal != "SIGKILL" {
		t.Fatalf("%s", d.JSON())
	}
	for txt, class := range map[string]string{
		"Trial 4 failed with signal 139\n":                     ClassHostSegfault,
		"trial_5: killed by signal 137 after 1200 s\n":         ClassHostOOMKill,
		"worker terminated by signal 11 (SIGSEGV)\n":           ClassHostSegfault,
		"the trial exited with signal 9 (SIGKILL) at step 3\n": ClassHostOOMKill,
	} {
		if d := diagnoseWhole("x.log", []byte(txt)); hasClass(d, class) == nil {
			t.Errorf("%q: want %s, got %s", txt, class, d.JSON())
		}
	}
}

// Level 10: the collector's JSON, the dump folders' metadata.json (the
// newest has inputs but no outputs) and a find listing.
func TestSeed000Level10Dumps(t *testing.T) {
	d := golden000(t, "level10.golden.json", "crash_diagnostics.json",
		"dumps/20260401_154231_877_pid950349_sglang.custom_op.fused_moe_call0041/metadata.json",
		"dumps/20260401_154232_001_pid950349_sglang.custom_op.fused_moe_call0042/metadata.json",
		"dump_listing.txt")
	want := "20260401_154232_001_pid950349_sglang.custom_op.fused_moe_call0042"
	if !strings.Contains(d.FailureReason, "crashed inside sglang.custom_op.fused_moe") || !strings.Contains(d.FailureReason, want) {
		t.Errorf("failure_reason %q", d.FailureReason)
	}
	cd, _ := d.DetailJSON["crash_dump"].(map[string]any)
	if cd == nil || !strings.HasSuffix(cd["path"].(string), want) {
		t.Errorf("detail_json crash_dump %v", cd)
	}
	f := hasClass(d, ClassHostSegfault)
	if f == nil {
		t.Fatalf("%s", d.JSON())
	}
	steps := strings.Join(f.NextSteps, "\n")
	if !strings.Contains(steps, want+"/inputs.pt") || strings.Contains(steps, "Escalate") {
		t.Errorf("next steps must replay the dump and not ask to escalate:\n%s", steps)
	}
	for _, in := range d.Inputs {
		if in.Truncated {
			t.Errorf("%s flagged truncated", in.Name)
		}
	}
}

// Level 5: the first call whose output has NaN while its inputs are clean.
func TestSeed000Level5NaN(t *testing.T) {
	d := golden000(t, "level5_nan.golden.json", "kernel_api_level5_nan.log")
	f := hasClass(d, ClassNumericalNaN)
	if f == nil || f.Details["first_nan_call"] != "sglang.quant_method.Fp8LinearMethod.apply" || f.Evidence[0].Line != 30 {
		t.Fatalf("%s", d.JSON())
	}
}

// Level 3 in a per-process file: the failing call's arguments, its pid.
func TestSeed000Level3PerPID(t *testing.T) {
	d := golden000(t, "level3_pid.golden.json", "kernel_api_rank950351.log")
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil {
		t.Fatalf("%s", d.JSON())
	}
	args := f.Details["kernel_api_call_args"]
	if !strings.Contains(args, "arg[0]: Tensor shape=(8, 4096) dtype=torch.bfloat16 contiguous=False") || !strings.Contains(args, "inplace: True") || f.Details["kernel_api_pid"] != "950351" {
		t.Fatalf("args %q pid %q", args, f.Details["kernel_api_pid"])
	}
	steps := strings.Join(f.NextSteps, "\n")
	if !strings.Contains(steps, "SGLANG_KERNEL_API_LOGLEVEL=10") || !strings.Contains(steps, "DUMP_INCLUDE='*custom_op.fused_moe*'") {
		t.Errorf("level 3 evidence escalates to level 10 with a filter:\n%s", steps)
	}
}

func FuzzSideDoc(f *testing.F) {
	for _, p := range []string{"testdata/seed000/docker_inspect.json", "testdata/seed000/crash_diagnostics.json", "testdata/seed000/dumps/20260401_154232_001_pid950349_sglang.custom_op.fused_moe_call0042/metadata.json", "testdata/metadata.json"} {
		_, data := readInput(f, p)
		f.Add(data, len(data)/3)
	}
	f.Add([]byte("{\"function_name\":\"a\",\"execution_status\":\"inputs_saved\"}\n{\"function_name\":\"a\",\"execution_status\":\"completed\"}\n"), 10)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, newParsers, data, cut)
	})
}
