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
		// the API object's reason as a JSON value, not docker's key: kubelet
		// 2014 ("OOM Killed"), kubectl get -o json ("OOMKilled"), and the
		// go-template map of the same object
		{"https://github.com/kubernetes/kubernetes/pull/3044", `"reason": "OOM Killed",`,
			containerLine{source: "kubernetes", code: 137, oom: true, hasOOM: true}},
		{"https://github.com/openshift/origin/issues/7064", `"reason": "OOMKilled",`,
			containerLine{source: "kubernetes", code: 137, oom: true, hasOOM: true}},
		{"https://github.com/ContainerSolutions/runbooks/issues/45", `LastState: map[terminated:map[exitCode:137 reason:OOM Killed startedAt:2015-07-07T20:58:43Z]]`,
			containerLine{source: "kubernetes", code: 137, oom: true, hasOOM: true}},
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

// The kubelet's eviction for node memory pressure is a kill for the host's
// memory (host_oom_kill); an eviction for disk is not.
func TestK8sMemoryEviction(t *testing.T) {
	cases := []struct {
		src, text string
		oom       bool
	}{
		{"https://github.com/FederatedAI/KubeFATE/issues/64", "4m11s       Warning   Evicted               pod/egg-<id here>    The node was low on resource: memory. Container egg was using 5053216Ki, which exceeds its request of 0.", true},
		{"https://github.com/FederatedAI/KubeFATE/issues/64", "4m7s        Warning   Evicted               pod/egg-<id2 here>    The node had condition: [MemoryPressure].", true},
		{"https://github.com/derailed/k9s/issues/174", "Message:            The node was low on resource: memory. Container proprietary-crawler was using 9402820Ki, which exceeds its request of 7G. ", true},
		{"https://github.com/kubeflow/kubeflow/issues/1261", "`The node was low on resource: memory.`", true},
		{"https://github.com/kubernetes/kubernetes/issues/112927", "Message:        The node was low on resource: memory. Container citadel was using 43536Ki, which exceeds its request of 0.**", true},
		{"https://github.com/caoyingjunz/go-learning/issues/55", "Warning  Evicted           6m5s   kubelet            The node was low on resource: ephemeral-storage. Container harbor-chart-rsync-client was using 76Ki, which exceeds its request of 0.", false},
	}
	for _, c := range cases {
		d := diagnoseWhole("events.txt", []byte(c.text+"\n"))
		if got := hasClass(d, ClassHostOOMKill) != nil; got != c.oom {
			t.Errorf("%s: %q: %v, want host_oom_kill %v", c.src, c.text, classesOf(d), c.oom)
		}
	}
}
