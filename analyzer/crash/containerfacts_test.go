package crash

import "testing"

// Real wordings of container state (URLs per row) and what
// extractContainerLine reads from each trimmed line.
func TestExtractContainerLine(t *testing.T) {
	cases := []struct {
		src, text string
		want      containerLine
	}{
		// docker inspect State, one field a line
		{"https://github.com/docker/cli/issues/2665", `"OOMKilled": false,`,
			containerLine{source: "docker inspect", hasOOM: true}},
		{"https://github.com/docker/cli/issues/2665", `"ExitCode": 137,`,
			containerLine{source: "docker inspect", code: 137, hasCode: true}},
		{"https://github.com/moby/moby/issues/15621", `"OOMKilled": true,`,
			containerLine{source: "docker inspect", oom: true, hasOOM: true}},
		// kubectl describe pod
		{"https://github.com/gimlet-io/gimlet/issues/649", "Reason:       OOMKilled",
			containerLine{source: "kubernetes", code: 137, oom: true, hasOOM: true}},
		{"https://github.com/NVIDIA/gpu-operator/issues/331", "Reason:       OOMKilled",
			containerLine{source: "kubernetes", code: 137, oom: true, hasOOM: true}},
		// the answer of docker inspect --format '{{.State.ExitCode}} {{.State.OOMKilled}}'
		{"docker inspect --format output", "137 true",
			containerLine{source: "docker inspect --format", code: 137, hasCode: true, oom: true, hasOOM: true}},
		{"docker inspect --format output", "'139 false'",
			containerLine{source: "docker inspect --format", code: 139, hasCode: true, hasOOM: true}},
		// the "signal N" shorthand, as an exit code
		{"shorthand", "worker exited with signal 9 (SIGKILL)", containerLine{sigCode: 137}},
		{"shorthand", "container amdpilot-trial-1 exited: signal 139", containerLine{name: "amdpilot-trial-1", sigCode: 139}},
		{"signal name disagrees", "killed by signal 9 (SIGSEGV)", containerLine{}},
		// docker inspect's container name
		{"docker inspect Name field", `"Name": "/redis",`, containerLine{name: "redis"}},
		// a running state's ExitCode-less line says nothing
		{"https://github.com/NVIDIA/gpu-operator/issues/331", "Reason:       CrashLoopBackOff", containerLine{}},
	}
	for _, c := range cases {
		if got := extractContainerLine(c.text); got != c.want {
			t.Errorf("%s: extractContainerLine(%q) =\n %+v, want\n %+v", c.src, c.text, got, c.want)
		}
	}
}
