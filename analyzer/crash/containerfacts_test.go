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
		// a reason line is read as such; only inside a Terminated state
		// does the parser take it for the runtime's verdict
		{"https://github.com/NVIDIA/gpu-operator/issues/331", "Reason:       CrashLoopBackOff", containerLine{k8sReason: "CrashLoopBackOff"}},
		{"https://github.com/kubernetes/kubernetes/issues/122256", "Last State: Terminated", containerLine{k8sTerminated: true}},
		{"https://github.com/kubernetes/kubernetes/issues/122256", "Reason: Error", containerLine{k8sReason: "Error"}},
		{"https://github.com/kubernetes/kubernetes/issues/123176", `"terminated": {`, containerLine{k8sTerminated: true}},
		{"https://github.com/kubernetes/kubernetes/issues/123176", `"reason": "Error",`, containerLine{k8sReason: "Error"}},
	}
	for _, c := range cases {
		if got := extractContainerLine(c.text); got != c.want {
			t.Errorf("%s: extractContainerLine(%q) =\n %+v, want\n %+v", c.src, c.text, got, c.want)
		}
	}
}

// Exit 137 is SIGKILL; without OOMKilled (Kubernetes "Reason: Error",
// docker's OOMKilled=false) and without a record of memory pressure it is
// not an OOM kill (kubernetes/kubernetes#122256: an exec probe failing;
// kubernetes/kubernetes#19825: docker inspect 137 / false). With the
// kernel's OOM killer line the host OOM kill stands.
func TestExit137WithoutOOMKilled(t *testing.T) {
	describe := `    Last State: Terminated
      Reason: Error
      Exit Code: 137
`
	d := diagnoseWhole("pod.txt", []byte(describe))
	if hasClass(d, ClassHostOOMKill) != nil {
		t.Errorf("Reason: Error + exit 137 is not an OOM kill: %s", d.JSON())
	}
	oom := `    Last State: Terminated
      Reason: OOMKilled
      Exit Code: 137
`
	if d := diagnoseWhole("pod.txt", []byte(oom)); hasClass(d, ClassHostOOMKill) == nil {
		t.Errorf("Reason: OOMKilled is an OOM kill: %s", d.JSON())
	}
	kernel := describe + "[ 812.1] Out of memory: Killed process 4242 (python3) total-vm:81234567kB, anon-rss:61234567kB, file-rss:0kB, shmem-rss:0kB\n"
	if d := diagnoseWhole("pod.txt", []byte(kernel)); hasClass(d, ClassHostOOMKill) == nil {
		t.Errorf("the kernel's OOM killer line outweighs the runtime: %s", d.JSON())
	}
}
