package crash

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Container exit evidence (seed 000 step 3 "Container Exit Analysis"):
// `docker inspect` JSON (sidedoc.go decodes it), the answer of
// `docker inspect --format='{{.State.ExitCode}} {{.State.OOMKilled}}'`
// ("137 true"), pasted "OOMKilled": … / "ExitCode": … lines, Kubernetes
// "Reason: OOMKilled", and the seed's shorthand "signal 137" / "signal 139"
// / "exited with signal 9 (SIGKILL)". A line that is a command or a question
// is never evidence: it only names what to look for.
type containerParser struct {
	s          *Session
	terminated int // line of the last Kubernetes "Terminated" state
}

// containerFact is what the container runtime said about the process end.
type containerFact struct {
	exitCode  *int
	oomKilled *bool
	source    string // "docker inspect", "docker inspect --format", "kubernetes"
	name      string // container name
	errText   string // State.Error
	ev        *Evidence
}

var (
	reInspectFormat = lazyre.New(`^['"]?(-?\d{1,3})\s+(true|false)['"]?$`)
	reJSONOOM       = lazyre.New(`"OOMKilled"\s*:\s*(true|false)`)
	reJSONExit      = lazyre.New(`"ExitCode"\s*:\s*(-?\d+)`)
	// kubectl describe's "Reason: OOMKilled", the API object's "reason":
	// "OOMKilled" (kubectl get -o json, kubelet status; the 2014 kubelet
	// wrote "OOM Killed")
	reK8sOOM = lazyre.New(`\b(?:Reason|reason)"?\s*[:=]\s*"?OOM ?Killed\b`)
	// a Kubernetes container state: kubectl describe's "Last State:
	// Terminated" / "Reason: Error", the API object's "terminated": { and
	// "reason": "Error"
	reK8sTerminated = lazyre.New(`^(?:(?:Last )?State:\s+Terminated\b|"terminated"\s*:\s*\{)`)
	reK8sReason     = lazyre.New(`^"?[Rr]eason"?\s*:\s*"?([A-Za-z]+)"?,?$`)
	// "signal 137" (the seed's shorthand for exit 137), "killed by signal 9",
	// "exited with signal 9 (SIGKILL)", "terminated by signal 11".
	// "container amdpilot-trial-1", "container: x", docker inspect "Name": "/x"
	reContainerName = lazyre.New(`(?i)\bcontainer[:=]?\s+["'/]?([A-Za-z0-9][\w.-]{0,127}?)["']?(?:[\s:,;)]|$)`)
	reInspectName   = lazyre.New(`^"Name"\s*:\s*"/?([A-Za-z0-9][\w.-]{0,127})"`)
	reSignalN       = lazyre.New(`(?i)\b(?:(?:exited|killed|terminated|died|ended|stopped) (?:with|by|due to|on) |received |got )?signal (\d{1,3})\b(?:\s*\((SIG[A-Z]+)\))?`)
)

func (p *containerParser) beginFile(*Session) { p.terminated = 0 }
func (p *containerParser) endFile()           {}
func (p *containerParser) gate() uint64       { return kwContainer }
func (p *containerParser) active(int) bool    { return false }

func (p *containerParser) line(l *line) {
	t := strings.TrimSpace(l.text)
	if t == "" || commandLike(t) {
		return
	}
	s := p.s
	x := extractContainerLine(t)
	if c := &s.b.facts.container; c.name == "" && x.name != "" {
		// the container's name fills the docker commands of the advice
		c.name = x.name
	}
	switch {
	case x.evictedMemory:
		// the kubelet's eviction for node memory pressure: the pod died for
		// the host's memory, the same diagnosis as an OOM kill
		s.format("kubernetes")
		a := s.b.add(s, ClassHostOOMKill, l, 0.8)
		a.memProof = true
		a.addReason("the kubelet evicted the pod: the node was low on memory (memory-pressure eviction)")
		a.detail("source", "kubernetes eviction")
	case x.k8sTerminated:
		p.terminated = l.no
	case x.k8sReason != "" && p.terminated > 0 && l.no-p.terminated <= 6:
		// the reason of a terminated state: OOMKilled is the cgroup OOM
		// killer; any other (Error, Completed) says it did not act
		p.terminated = 0
		s.containerState(l, "kubernetes", 0, false, x.k8sReason == "OOMKilled", true)
	case x.source != "":
		if x.source == "docker inspect --format" {
			s.format("docker_inspect_format")
		}
		s.containerState(l, x.source, x.code, x.hasCode, x.oom, x.hasOOM)
	case x.sigCode != 0:
		s.exitCode(l, x.sigCode, -1, 0)
	}
}

// containerLine is what one line of container evidence states: the
// container's name, the runtime's recorded state (source set), or a
// "signal N" shorthand as the exit code it stands for.
type containerLine struct {
	name        string
	source      string // "docker inspect --format", "docker inspect", "kubernetes"
	code        int
	hasCode     bool
	oom, hasOOM bool
	sigCode     int // 128+N of "signal N" (N itself when ≥ 64); 0 when none
	// Kubernetes: a "Terminated" container state, the reason line inside it
	k8sTerminated bool
	k8sReason     string
	// the kubelet evicted the pod for the node's memory ("The node was low
	// on resource: memory.", "The node had condition: [MemoryPressure].")
	evictedMemory bool
}

// extractContainerLine reads one trimmed, non-command line (a pure
// extractor: doc.go, Layering).
func extractContainerLine(t string) containerLine {
	var x containerLine
	if m := reInspectName.FindStringSubmatch(t); m != nil {
		x.name = m[1]
	} else if m := findFoldIf(t, "container ", reContainerName); m != nil && !containerWord(m[1]) {
		x.name = m[1]
	}
	if strings.Contains(t, "The node was low on resource: memory") || strings.Contains(t, "The node had condition: [MemoryPressure]") {
		x.evictedMemory = true
		return x
	}
	if m := reInspectFormat.FindStringSubmatch(t); m != nil {
		x.source, x.code, x.hasCode, x.oom, x.hasOOM = "docker inspect --format", atoiDef(m[1], 0), true, m[2] == "true", true
		return x
	}
	if strings.Contains(t, `"OOMKilled"`) {
		// docker's key ("OOMKilled": true); the same word as a value is
		// Kubernetes' reason ("reason": "OOMKilled"), read below
		if m := reJSONOOM.FindStringSubmatch(t); m != nil {
			x.source, x.oom, x.hasOOM = "docker inspect", m[1] == "true", true
			return x
		}
	}
	if strings.Contains(t, `"ExitCode"`) {
		if m := reJSONExit.FindStringSubmatch(t); m != nil {
			x.source, x.code, x.hasCode = "docker inspect", atoiDef(m[1], 0), true
		}
		return x
	}
	if (strings.Contains(t, "OOMKilled") || strings.Contains(t, "OOM Killed")) && reK8sOOM.MatchString(t) {
		x.source, x.code, x.oom, x.hasOOM = "kubernetes", 137, true, true
		return x
	}
	if reK8sTerminated.MatchString(t) {
		x.k8sTerminated = true
		return x
	}
	if m := findFoldIf(t, "reason", reK8sReason); m != nil {
		x.k8sReason = m[1]
		return x
	}
	if m := findFoldIf(t, "signal ", reSignalN); m != nil {
		if strings.Contains(t, "received by PID") || strings.Contains(t, "Signal 11 (SIGSEGV)") && strings.Contains(t, "traceback") {
			return x // torchrun's failure table (nccl.go)
		}
		n := atoiDef(m[1], 0)
		code := n
		if n > 0 && n < 64 {
			code = 128 + n
		}
		if sig := exitSignal(code); sig != "" && (m[2] == "" || m[2] == sig) {
			x.sigCode = code
		}
	}
	return x
}

// containerState records the runtime's verdict. hasCode / hasOOM say which
// of the two values the evidence carries.
func (s *Session) containerState(l *line, source string, code int, hasCode, oom, hasOOM bool) {
	c := &s.b.facts.container
	if c.ev == nil || source == "docker inspect --format" {
		e := l.ev(s)
		c.ev = &e
		c.source = source
	}
	if hasCode {
		c.exitCode = intp(code)
		if code != 137 && exitSignal(code) != "" {
			s.exitCode(l, code, -1, 0) // 139 → host segfault, 134 → abort
		}
	}
	if hasOOM {
		c.oomKilled = &oom
	}
}

// commandLike reports a line that is a shell command, a command template or
// a question: it names evidence to collect, it is not evidence.
func commandLike(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	if strings.Contains(t, "{{.") || strings.HasSuffix(t, "?") {
		return true
	}
	for _, p := range []string{"$ ", "# ", "% ", ">>> ", "(gdb) "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if i := strings.IndexByte(t, ' '); i > 0 {
		switch strings.ToLower(t[:i]) {
		case "docker", "podman", "kubectl", "sudo", "grep", "egrep", "dmesg", "journalctl", "cat", "tail", "echo", "export",
			"rocm-smi", "amd-smi", "nvidia-smi", "rocgdb", "py-spy", "rocminfo":
			return true
		}
	}
	return false
}

// applyContainer turns the runtime's verdict into findings (called from
// the final assembly, finalize.go).
func (b *builder) applyContainer(s *Session, work map[string]*agg) {
	c := b.facts.container
	if c.ev == nil {
		return
	}
	code := -1
	if c.exitCode != nil {
		code = *c.exitCode
	}
	oomKnown := c.oomKilled != nil
	oom := oomKnown && *c.oomKilled
	switch {
	case oom:
		a := work[ClassHostOOMKill]
		if a == nil {
			a = &agg{f: Finding{Class: ClassHostOOMKill, Count: 1}, ranks: map[int]bool{}, details: map[string]string{}, order: 1 << 19}
			work[ClassHostOOMKill] = a
		}
		a.evidence(*c.ev)
		a.conf = max(a.conf, 0.9)
		a.setStr(&a.f.Signal, "SIGKILL")
		if code >= 0 {
			a.setExit(code)
		}
		a.addReason("the container runtime reports OOMKilled=true: the container's memory limit (cgroup OOM killer) killed it")
		a.detail("source", c.source+" reports OOMKilled=true")
	case oomKnown:
		// the runtime says the OOM killer did not act
		if a := work[ClassHostOOMKill]; a != nil {
			if !a.memProof {
				// only a SIGKILL / exit 137 backed the finding: a kill
				// without OOMKilled is SIGKILL from something else (a
				// liveness probe, a stop timeout, kill -9), not a proven OOM
				delete(work, ClassHostOOMKill)
				b.facts.notes = appendCap(b.facts.notes, "exit 137 is SIGKILL; "+c.source+" reports the container was not OOM-killed: a liveness probe, a stop / orchestrator timeout or a manual kill -9, not the OOM killer", 8)
				return
			}
			if code == 137 || code == -9 || a.f.ExitCode != nil && (*a.f.ExitCode == 137 || *a.f.ExitCode == -9) {
				a.evidence(*c.ev)
				a.conf = min(a.conf, 0.5)
				a.addReason("SIGKILL with OOMKilled=false: not the container's OOM killer — a manual kill -9, a launcher / orchestrator timeout, or the host OOM killer outside the container's cgroup")
				a.note("the container runtime reports OOMKilled=false")
			} else {
				// an exit code other than 137 contradicts a kill
				delete(work, ClassHostOOMKill)
			}
		}
	}
	if code >= 0 && code != 137 && code != 139 && code != 134 {
		// "1 false": the process exited on its own (a Python exception)
		if a := work[ClassHostOOMKill]; a != nil && !oom {
			delete(work, ClassHostOOMKill)
		}
	}
}

// containerNotGPU backs an application-error finding with the runtime's
// "exited with 1, not OOM-killed" (called after that finding is made).
func (b *builder) containerNotGPU(work map[string]*agg) {
	c := b.facts.container
	if c.ev == nil || c.exitCode == nil {
		return
	}
	code := *c.exitCode
	oomKnown := c.oomKilled != nil
	oom := oomKnown && *c.oomKilled
	if na := work[ClassNotGPU]; na != nil && code == 1 {
		na.evidence(*c.ev)
		na.conf = max(na.conf, 0.7)
		na.note("the container exited with code 1 (a Python exception), not by a signal" + map[bool]string{true: "; OOMKilled=false", false: ""}[oomKnown && !oom])
	}
}

// containerDetail is the runtime verdict for the dashboard object.
func (c *containerFact) detail() map[string]any {
	if c.ev == nil {
		return nil
	}
	m := map[string]any{"source": c.source}
	if c.exitCode != nil {
		m["exit_code"] = *c.exitCode
		if sig := exitSignal(*c.exitCode); sig != "" {
			m["signal"] = sig
		}
	}
	if c.oomKilled != nil {
		m["oom_killed"] = *c.oomKilled
	}
	if c.name != "" {
		m["container"] = c.name
	}
	if c.errText != "" {
		m["error"] = c.errText
	}
	m["evidence"] = c.ev.File + ":" + strconv.Itoa(c.ev.Line)
	return m
}

// DockerInspect reports whether head (a file's first bytes) is `docker
// inspect` / `podman inspect` output: a JSON array of objects whose first
// key is "Id". A top-level array is also the Trace Event Format's array
// form, so the analyzer asks before taking such a file for a trace.
func DockerInspect(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	t = bytes.TrimLeft(t[1:], " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	t = bytes.TrimLeft(t[1:], " \t\r\n")
	return bytes.HasPrefix(t, []byte(`"Id"`))
}

// commandOnlyCap keeps a finding whose every evidence line is a command or
// a question at low confidence: such text names evidence, it is none.
func commandOnlyCap(a *agg, ev []Evidence) float64 {
	if len(ev) == 0 {
		return a.conf
	}
	for _, e := range ev {
		if !commandLike(e.Text) {
			return a.conf
		}
	}
	a.note("every evidence line is a command or a question, not output: this finding is a guess")
	return min(a.conf, 0.3)
}

// containerWord: words that follow "container" in prose, not names.
func containerWord(w string) bool {
	switch strings.ToLower(w) {
	case "exited", "killed", "was", "is", "has", "had", "with", "runtime", "memory", "limit", "id", "name", "the", "a", "and", "or", "to", "in", "of", "for", "started", "stopped", "died", "crashed", "restarted", "terminated", "oomkilled", "image", "engine", "process", "logs", "exit", "status", "state":
		return true
	}
	return false
}

// containerKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var containerKeywords = []string{"low on resource: memory", "[MemoryPressure]", " true", " false", "OOMKilled", "\"ExitCode\"", "ignal ", "IGNAL ", "container ", "\"Name\"", "Terminated", "terminated", "eason"}
