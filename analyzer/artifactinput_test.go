package analyzer

import (
	"strings"
	"testing"
)

// An earlier run's artifacts left in the traces' folder (-o into it) are
// neither traces nor crash evidence: a rerun over the folder analyses the
// traces as before and exits 0; artifacts alone are refused (exit 2).
func TestEarlierArtifactsIgnored(t *testing.T) {
	trace := []byte(`{"traceEvents":[
{"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":10,"dur":50,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":70,"dur":20,"args":{"device":0,"stream":7,"correlation":2}}]}`)
	first := runJob(t, Options{Command: "breakdown"}, []string{"run/rank0.json"}, [][]byte{trace})
	if first.ExitCode != ExitOK {
		t.Fatalf("first run: exit %d: %s", first.ExitCode, first.Error)
	}
	names, data := []string{"run/rank0.json"}, [][]byte{trace}
	var kt string
	for _, a := range first.Artifacts {
		if strings.HasSuffix(a.Name, ".json") {
			names, data = append(names, "run/"+a.Name), append(data, []byte(a.Text))
		}
		if a.Name == "kernel_table.json" {
			kt = a.Text
		}
	}
	if len(names) < 4 {
		t.Fatalf("only %d JSON artifacts", len(names)-1)
	}
	again := runJob(t, Options{Command: "breakdown"}, names, data)
	if again.ExitCode != ExitOK {
		t.Fatalf("rerun over the folder: exit %d: %s", again.ExitCode, again.Error)
	}
	for _, f := range again.Files[1:] {
		if f.Kind != "json" || !strings.Contains(f.Problem, "gputriage artifact") {
			t.Errorf("%s: kind %q, problem %q", f.Name, f.Kind, f.Problem)
		}
	}
	for _, a := range again.Artifacts {
		if a.Name == "kernel_table.json" && rowsOf(a.Text) != rowsOf(kt) {
			t.Errorf("kernel_table.json rows changed by the artifacts beside the trace")
		}
	}
	for _, cmd := range []string{"breakdown", "diagnose"} {
		only := runJob(t, Options{Command: cmd}, names[1:], data[1:])
		if only.ExitCode != ExitUsage || !strings.Contains(only.Error, "gputriage diff") {
			t.Errorf("%s on artifacts only: exit %d, %q", cmd, only.ExitCode, only.Error)
		}
	}
}

func rowsOf(s string) string {
	if i := strings.Index(s, `"rows"`); i >= 0 {
		return s[i:]
	}
	return s
}

// Artifacts too big to keep whole are told by how they begin.
func TestArtifactStart(t *testing.T) {
	for in, want := range map[string]bool{
		"{\n  \"tool\": \"gputriage\",\n  \"schema_version\": \"0.2.0\"": true,
		`{"tool":"gputriage"`:            true,
		`{"tool": "other"}`:              false,
		`{"traceEvents": [], "tool": 1}`: false,
		`[{"tool": "gputriage"}]`:        false,
	} {
		if got := artifactStart([]byte(in)); got != want {
			t.Errorf("artifactStart(%q) = %v", in, got)
		}
	}
}
