package crash

import (
	"sort"
	"strconv"
	"strings"
)

// One incident across files (issue 9): hang evidence from rocgdb dumps,
// py-spy, NCCL logs, watchdogs, torchrun and flight-recorder dumps is kept
// session-wide (incidentFacts) and turned into findings, culprits and a
// root-cause order only when the diagnosis is assembled (finalize.go calls
// hangFindings, incident and orderByCause).

// HangEvidence is what rocgdb dumps show about a GPU-side hang.
type HangEvidence struct {
	Dumps       int          `json:"dumps"`
	Progress    string       `json:"progress"` // stuck | moving | single_dump | none
	AttachedPID *int         `json:"attached_pid"`
	Agents      []GPUAgent   `json:"agents,omitempty"`
	Dispatches  []Dispatch   `json:"dispatches,omitempty"`
	Queues      []QueueState `json:"stalled_queues,omitempty"`
	WaveGroups  []WaveGroup  `json:"wave_groups,omitempty"`
	HostStack   []string     `json:"host_stack,omitempty"`
	HostWait    string       `json:"host_wait,omitempty"` // item | synchronize | collective
	GPUBusy     []string     `json:"gpu_busy,omitempty"`  // rocm-smi rows at 100 %
}

// GPUAgent is one info agents row.
type GPUAgent struct {
	ID       int    `json:"id"`
	GPUID    string `json:"gpuid,omitempty"`
	Arch     string `json:"arch,omitempty"`
	Name     string `json:"name,omitempty"`
	Location string `json:"location,omitempty"` // PCI BDF
}

// Dispatch is one in-flight dispatch (info dispatches).
type Dispatch struct {
	ID        string `json:"id"` // agent:queue:dispatch
	Queue     string `json:"queue"`
	PKID      string `json:"pkid,omitempty"`
	Grid      string `json:"grid,omitempty"`
	Workgroup string `json:"workgroup,omitempty"`
	Fence     string `json:"fence,omitempty"`
	Kernel    string `json:"kernel"`
	GPU       string `json:"gpu,omitempty"`   // the agent's PCI location
	Dumps     int    `json:"dumps,omitempty"` // dumps that list it
}

// QueueState is one info queues row with packets pending (Write > Read).
type QueueState struct {
	ID      string `json:"id"` // agent:queue
	QID     string `json:"qid,omitempty"`
	Type    string `json:"type"` // HSA (kernels) | DMA (copies) | …
	Read    int64  `json:"read"`
	Write   int64  `json:"write"`
	Pending int64  `json:"pending"`
}

// WaveGroup is the waves of one kernel stopped at one PC (info threads).
type WaveGroup struct {
	PC         string   `json:"pc,omitempty"`
	Location   string   `json:"location,omitempty"` // file:line or code object
	Kernel     string   `json:"kernel"`
	Waves      int      `json:"waves"`
	Workgroups int      `json:"workgroups"`
	ThreadIdx  []int    `json:"thread_idx,omitempty"` // threadIdx.x of the active lanes listed
	Dispatches []string `json:"dispatches,omitempty"`
}

// Culprit names the rank / process / GPU that caused a hang or timeout.
type Culprit struct {
	Rank     *int       `json:"rank"`
	PID      *int       `json:"pid"`
	Host     *string    `json:"host"`
	GPU      *string    `json:"gpu"`
	Ranks    []int      `json:"ranks,omitempty"`
	PIDs     []int      `json:"pids,omitempty"`
	Reason   string     `json:"reason"`
	Method   string     `json:"method"` // how it was computed
	Evidence []Evidence `json:"evidence"`
}

// incidentFacts are the session-wide hang / multi-rank observations.
type incidentFacts struct {
	gdbDumps   []*gdbDump
	pyProcs    []*pyProc
	pidRank    map[int]int
	pidHost    map[int]string
	ranks      map[int]*rankState // watchdog / dump-signal per rank
	ops        map[string]*opState
	opSeqs     map[string]*opSeq // ncclops.go: calls per process and communicator
	worldSize  int
	ranksSeen  int // 1 + highest rank of any line prefix
	wsEv       *Evidence
	rootRank   int // torchrun "Root Cause" table (-1: not given)
	rootPID    int
	rootExit   int
	rootEv     *Evidence
	dumpFrom   []int // "dump signal … from rank N": the ranks that timed out first
	dumpFromEv *Evidence
	sigterm    []int // pids sent SIGTERM by the launcher
	smiBusy    []string
	smiEv      []Evidence
	fr         []frRank
	frTrace    []*frTraceRec // fr_trace's "Not all ranks joining collective" reports (frtrace.go)
	cuda       cudaHangFacts
	pyDist     []pyDistWait // py-spy threads inside a distributed collective (hang.go)
	pyDistN    int          // cpu_hang additions made by those dumps alone
	pyBusyN    int          // cpu_hang additions made by busy (active+gil) dumps alone
	pyCollN    int          // cpu_hang additions made by dumps waiting in a collective
	pyGPUWait  bool         // a py-spy dump waits for the GPU (gpu_kernel_hang)
}

type rankState struct {
	seq, enq, comp int
	hasSeq, hasEnq bool
	op             string
	pid            int
	ev             Evidence
}

type opState struct {
	host         string
	pid, dev     int
	rank, nranks int
	last         int64 // highest opCount
	op           string
	ev           Evidence
}

// pyProc is one process of a py-spy dump.
type pyProc struct {
	pid, rank int
	host      string
	state     string // gpu_wait | collective | busy | idle
	frame     string
	// the application frame below a GPU wait ("forward_decode (…/aiter_backend.py:812)")
	caller, callerFile string
	wantCaller         bool
	first              string // innermost frame of its first thread, "fn (file)" without the line
	threads            int
	parent             int // "Parent Process N:" of py-spy --subprocesses (0: not given)
	ev                 Evidence
}

func (inc *incidentFacts) mapPID(pid, rank int) {
	if pid <= 0 || rank < 0 {
		return
	}
	if inc.pidRank == nil {
		inc.pidRank = map[int]int{}
	}
	if _, ok := inc.pidRank[pid]; !ok && len(inc.pidRank) < maxRanks {
		inc.pidRank[pid] = rank
	}
}

func (inc *incidentFacts) rankOf(pid int) (int, bool) {
	r, ok := inc.pidRank[pid]
	return r, ok
}

func (inc *incidentFacts) rank(r int) *rankState {
	if inc.ranks == nil {
		inc.ranks = map[int]*rankState{}
	}
	st := inc.ranks[r]
	if st == nil {
		if len(inc.ranks) >= maxRanks {
			return &rankState{}
		}
		st = &rankState{}
		inc.ranks[r] = st
	}
	return st
}

func newAgg(class string, conf float64) *agg {
	a := &agg{f: Finding{Class: class}, ranks: map[int]bool{}, details: map[string]string{}, order: 1 << 19}
	a.conf = conf
	return a
}

// causes maps a consequence class to the classes that explain it, first
// match wins: a reset or watchdog caused by a hang never outranks the hang.
var causes = map[string][]string{
	ClassGPUHangReset:      {ClassGPUKernelHang, ClassDMADriverFault},
	ClassCollectiveTimeout: {ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassGPUKernelHang, ClassGPUHangReset, ClassHostSegfault, ClassRCCLTransport, ClassHostOOMKill},
	ClassCPUHang:           {ClassGPUKernelHang, ClassGPUMemoryFault, ClassDeviceAssert, ClassCollectiveTimeout},
	ClassHostOOMKill:       {},
	ClassRCCLTransport:     {},
}

// incident links findings of one incident: culprits for hang / timeout /
// multi-rank findings, the same GPU across files, consequence_of.
func (b *builder) incident(s *Session, work map[string]*agg) {
	inc := &b.facts.inc
	// a generic launch failure after the driver reported the GPU hung or
	// its firmware stopped answering (Xid 119 GSP RPC timeout, a reset) is
	// no memory fault: it is how the runtime reports the killed context
	if m, r := work[ClassGPUMemoryFault], work[ClassGPUHangReset]; m != nil && r != nil && genericLaunchFailure(m) && sameIncident(m, r) {
		mergeInto(r, m)
		r.note("the runtime's generic 'unspecified launch failure' (719: no address, kernel or fault line of its own) follows from this: the work in flight was killed with the context")
		delete(work, ClassGPUMemoryFault)
	}
	// the same generic launch failure after a launch the runtime refused
	// (too many resources, an invalid configuration) earlier in the same
	// file: the refused kernel never ran and the next one read what it
	// should have written; the refusal is the fault to fix
	if m, r := work[ClassGPUMemoryFault], work[ClassInvalidLaunch]; m != nil && r != nil && genericLaunchFailure(m) && firstInFile(r, m) {
		mergeInto(r, m)
		r.note("the runtime's generic 'unspecified launch failure' (719: no address, kernel or fault line of its own) came after this refused launch in the same process: a consequence, not a memory fault of its own")
		delete(work, ClassGPUMemoryFault)
	}
	for _, c := range Classes {
		a := work[c]
		if a == nil {
			continue
		}
		cs := causes[c]
		if c == ClassRCCLTransport && a.ncclRelay > 0 && a.ncclOwn == 0 {
			cs = relayCauses
		}
		for _, cause := range cs {
			ca := work[cause]
			if ca == nil || ca == a || !sameIncident(a, ca) {
				continue
			}
			// a reset explains a host-side wait as well as a hang explains
			// the reset: only a kernel seen stuck in a debugger dump wins
			if c == ClassGPUHangReset && cause == ClassGPUKernelHang && (ca.f.Hang == nil || len(ca.f.Hang.Dispatches)+len(ca.f.Hang.WaveGroups) == 0) {
				continue
			}
			// a copy engine's page fault stalls its ring: the ring timeout /
			// reset of that device after it follows from it (never the
			// vmid-0 debris a reset leaves behind, which comes after)
			if c == ClassGPUHangReset && cause == ClassDMADriverFault && !faultBeforeReset(ca, a) {
				continue
			}
			// a lost link or peer (NET/IB completion error, socket closed)
			// stalls the collective; a start-up warning ("Missing
			// amd_iommu=on", weak) explains no timeout
			if cause == ClassRCCLTransport && ca.conf < 0.5 {
				continue
			}
			// a rank the OOM killer took never joins the next collective
			// (slurmstepd's "Detected 1 oom_kill event" + "task 3: Out Of
			// Memory" before the others' watchdogs): only a kill the kernel
			// or the cgroup recorded (memProof) and printed before the
			// timeout — a bare "Killed" after a watchdog is the teardown
			if cause == ClassHostOOMKill && (!ca.memProof || !firstInFile(ca, a) && !b.victimSilent(ca, a)) {
				continue
			}
			a.f.ConsequenceOf = cause
			a.note("a consequence of the " + cause + " finding (root cause first)")
			break
		}
	}
	// the GPU reset on the device the stuck kernel runs on
	if r, h := work[ClassGPUHangReset], work[ClassGPUKernelHang]; r != nil && h != nil && h.f.Hang != nil {
		for _, d := range h.f.Hang.Dispatches {
			if d.GPU != "" && r.f.Device != "" && sameBDF(d.GPU, r.f.Device) {
				r.note("the reset GPU " + r.f.Device + " is the one running the stuck dispatch " + d.ID + " (" + shortKernel(d.Kernel) + ") in the rocgdb dump")
				h.note("the driver reset this GPU (" + r.f.Device + ", dmesg) after the kernel hung")
				break
			}
		}
	}
	if a := work[ClassCollectiveTimeout]; a != nil && len(inc.dumpFrom) > 0 {
		a.note("the dump signal came from rank(s) " + intsString(inc.dumpFrom) + ": the rank(s) whose watchdog fired first — a waiter, not necessarily the straggler")
		if inc.dumpFromEv != nil {
			a.evidence(*inc.dumpFromEv)
		}
	}
	cul := b.culprits(s, work)
	// a multi-process launch (torchrun) names its root cause: the top finding carries it
	top := ""
	_, dead := b.deadChild()
	_, deadW := b.deadWorker()
	deadW = deadW && work[ClassCollectiveTimeout] == nil // culprit.go: a watchdog's own exit
	if _, app := b.appFailure(); inc.rootEv != nil || len(inc.sigterm) > 0 || dead || deadW || app {
		for _, c := range Classes {
			if work[c] != nil {
				top = c
				break
			}
		}
	}
	k := &b.facts.kernelAPI
	dumpDied := k.crashedDump() != nil && k.crashedDump().pid > 0 && k.dumpPIDs() > 1
	dumpDiedOne := k.crashedDump() != nil && k.crashedDump().pid > 0 && k.dumpPIDs() == 1
	dumpRaised := k.crashedDump() == nil && k.raisedDump() != nil && k.dumpPIDs() > 1
	for _, c := range Classes {
		a := work[c]
		if a == nil {
			continue
		}
		multi := len(a.ranks) > 1 || a.queueN > 1
		// a GPU crash whose lines carry one rank names it (culprit.go rule 1)
		gpuErr := c == ClassGPUMemoryFault || c == ClassDeviceAssert || c == ClassIllegalInstruction
		one := len(a.ranks) == 1 && (gpuErr || c == ClassVRAMOOM) ||
			// … or one worker's pid prefix without a rank (culprit.go rule 1)
			len(a.ranks) == 0 && a.linePID > 0 && (gpuErr || c == ClassVRAMOOM || c == ClassHostSegfault) ||
			// … or the faulting wave's code object URI names its process (memory://<pid>#…)
			len(a.ranks) == 0 && gpuErr && codeObjectPID(a.f.CodeObject) > 0 ||
			// … or the kernel named the one process (OOM victim, timed-out
			// job's owner, the faulting address space's process — also when
			// the faulting client is the command processor or a copy engine)
			a.kernelPID > 0 && (c == ClassHostOOMKill || c == ClassGPUHangReset || c == ClassGPUMemoryFault || c == ClassDMADriverFault) ||
			// … or the line reporting the death named the one process
			a.deathPID > 0 && (c == ClassHostOOMKill || c == ClassHostSegfault) ||
			// … or a recorded OOM kill whose lines name one rank (srun's
			// "task 3: Out Of Memory" after slurmstepd's oom_kill event)
			c == ClassHostOOMKill && a.memProof && len(a.ranks) == 1 ||
			// … or one process's NCCL reported the transport failure
			a.reportPID > 0 && c == ClassRCCLTransport ||
			// … or the level-10 dumps of several processes name the one that died inside a call
			gpuErr && dumpDied ||
			// … or one process's dumps end inside a call (culprit.go)
			c == ClassHostSegfault && len(a.ranks) == 0 && dumpDiedOne ||
			// … or the one whose call raised (the exception's class, a launch refusal too)
			dumpRaised && (gpuErr || c == ClassInvalidLaunch || c == ClassVRAMOOM) ||
			// … or the shell's job notice names the process that aborted after the GPU error
			gpuErr && len(a.ranks) == 0 && a.details["exited_pid"] != "" ||
			// … or a GPU core file of one process was opened (culprit.go rule 6a)
			gpuErr && b.facts.corePID > 0 ||
			// … or the world rank that called MPI_Abort after it (mpiabort.go)
			abortNamed(&b.facts, c, a)
		// a first-forward hang in Triton's compiler (seed 000 pattern 4) seen
		// in py-spy dumps of several processes is a hang: the process the
		// others wait for is its culprit, as for any hang
		compileHang := c == ClassTritonCompile && a.strong && len(workerProcs(inc.pyProcs)) >= 2
		if c != ClassGPUKernelHang && c != ClassCollectiveTimeout && c != ClassCPUHang && !compileHang && !multi && !one && c != top {
			continue
		}
		a.f.Culprit = cul.forClass(c, a)
		if cp := a.f.Culprit; cp != nil {
			if cp.Rank != nil {
				a.detail("culprit_rank", strconv.Itoa(*cp.Rank))
			}
			if cp.PID != nil {
				a.detail("culprit_pid", strconv.Itoa(*cp.PID))
			}
			if cp.GPU != nil {
				a.detail("culprit_gpu", *cp.GPU)
			}
		}
	}
	_ = inc
}

// faultBeforeReset: a driver-path fault on the reset's own device (both
// named) whose first line precedes the reset's first line in one file.
// victimSilent: the OOM killer's victim is a worker of the job that did not
// report the timeout — a rank (its pid mapped by a launcher table or an
// NCCL init record) not among the ranks whose watchdogs fired, or the very
// pid the launcher reported killed ("failed (exitcode: -9) local_rank: 2
// (pid: 5133)", whose local rank is no global rank) — so it is the one the
// others waited for, wherever the paste put the kernel's lines (a dmesg
// appended after the job log). Only a kill the kernel recorded (memProof,
// checked by the caller): the launcher's teardown kills are no OOM victims.
func (b *builder) victimSilent(oom, timeout *agg) bool {
	pid := oom.kernelPID
	if timeout.f.Class != ClassCollectiveTimeout || pid <= 0 || len(timeout.ranks) == 0 {
		return false
	}
	if r, ok := b.facts.inc.rankOf(pid); ok {
		return !timeout.ranks[r]
	}
	for _, e := range b.facts.exits {
		if e.pid == pid && e.signal == "SIGKILL" {
			// the launcher's rank number, local or global, among the
			// reporters: it may have timed out itself; stay out
			return e.rank < 0 || !timeout.ranks[e.rank]
		}
	}
	return false
}

func faultBeforeReset(fault, reset *agg) bool {
	if fault.f.Device == "" || reset.f.Device == "" || !sameBDF(fault.f.Device, reset.f.Device) ||
		len(fault.evFirst) == 0 || len(reset.evFirst) == 0 {
		return false
	}
	f, r := fault.evFirst[0], reset.evFirst[0]
	return f.File == r.File && f.Line < r.Line
}

// firstInFile: a's first evidence line comes before b's in the same file.
func firstInFile(a, b *agg) bool {
	if len(a.evFirst) == 0 || len(b.evFirst) == 0 {
		return false
	}
	x, y := a.evFirst[0], b.evFirst[0]
	return x.File == y.File && x.Line < y.Line
}

// sameIncident: two findings belong to one incident unless their ranks or
// devices say otherwise.
func sameIncident(a, b *agg) bool {
	if a.f.Device != "" && b.f.Device != "" && !sameBDF(a.f.Device, b.f.Device) {
		return b.f.Class == ClassGPUKernelHang // a hang on one GPU stalls the collectives of all
	}
	return true
}

// genericLaunchFailure: a memory-fault finding that rests only on the
// runtime's "unspecified launch failure" (cudaErrorLaunchFailure /
// hipErrorLaunchFailure, 719) — CUDA's word for any exception that killed
// the context, a watchdog or reset included (crash-formats.md §6: "generic
// kernel exception at run time") — with no address, kernel, node or fault
// line of its own.
func genericLaunchFailure(a *agg) bool {
	if a.f.Address != "" || a.f.Kernel != "" || a.f.Node != nil || a.f.Device != "" {
		return false
	}
	return a.f.CUDAError == "cudaErrorLaunchFailure" || a.f.HIPError == "hipErrorLaunchFailure"
}

// sameBDF compares PCI addresses with or without the domain.
func sameBDF(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	trim := func(x string) string {
		if len(x) > 8 && x[4] == ':' {
			return x[5:]
		}
		return x
	}
	return trim(a) == trim(b)
}

// orderByCause moves every finding marked consequence_of after the finding
// it is a consequence of (stable otherwise).
func orderByCause(fs []Finding) {
	pos := func(class string) int {
		for i := range fs {
			if fs[i].Class == class {
				return i
			}
		}
		return -1
	}
	for range fs {
		moved := false
		for i := range fs {
			c := fs[i].ConsequenceOf
			if c == "" {
				continue
			}
			j := pos(c)
			if j > i {
				f := fs[i]
				copy(fs[i:j], fs[i+1:j+1])
				fs[j] = f
				moved = true
				break
			}
		}
		if !moved {
			return
		}
	}
}

func intsKey(xs []int) string {
	c := append([]int(nil), xs...)
	sort.Ints(c)
	return intsString(c)
}

// culpritWhere renders a computed culprit for the summary line.
func culpritWhere(f *Finding) string {
	c := f.Culprit
	if c == nil || c.Method == "none" || strings.Contains(c.Method, "victim side") {
		return ""
	}
	var parts []string
	switch {
	case c.Rank != nil:
		parts = append(parts, "rank "+strconv.Itoa(*c.Rank))
	case len(c.Ranks) > 0:
		parts = append(parts, "ranks "+intsString(c.Ranks))
	}
	if c.PID != nil && (f.PID == nil || *f.PID != *c.PID) {
		parts = append(parts, "pid "+strconv.Itoa(*c.PID))
	}
	if c.GPU != nil && f.Device == "" {
		parts = append(parts, "GPU "+*c.GPU)
	}
	if len(parts) == 0 {
		return ""
	}
	return "culprit " + strings.Join(parts, " ")
}

// mdIncident renders the hang / culprit part of a finding for
// crash_summary.md.
func mdIncident(b *strings.Builder, f *Finding) {
	if f.ConsequenceOf != "" {
		b.WriteString("Consequence of: **" + mdEscape(f.ConsequenceOf) + "** (root cause listed first)\n\n")
	}
	if c := f.Culprit; c != nil {
		who := []string{}
		if c.Rank != nil {
			who = append(who, "rank "+strconv.Itoa(*c.Rank))
		}
		if len(c.Ranks) > 0 {
			who = append(who, "ranks "+intsString(c.Ranks))
		}
		if c.PID != nil {
			who = append(who, "pid "+strconv.Itoa(*c.PID))
		}
		if len(c.PIDs) > 0 {
			who = append(who, "pids "+intsString(c.PIDs))
		}
		if c.Host != nil {
			who = append(who, "host "+*c.Host)
		}
		if c.GPU != nil {
			who = append(who, "GPU "+*c.GPU)
		}
		if len(who) == 0 {
			who = append(who, "unknown")
		}
		b.WriteString("Culprit: " + mdEscape(strings.Join(who, ", ")) + " — " + mdEscape(c.Reason) + " _(" + mdEscape(c.Method) + ")_\n\n")
	}
	h := f.Hang
	if h == nil {
		return
	}
	if len(h.Dispatches) > 0 {
		b.WriteString("| dispatch | queue | grid | workgroup | fence | GPU | dumps | kernel |\n|---|---|---|---|---|---|---|---|\n")
		for _, d := range h.Dispatches {
			b.WriteString("| " + mdCell(d.ID) + " | " + mdCell(d.Queue) + " | " + mdCell(d.Grid) + " | " + mdCell(d.Workgroup) + " | " + mdCell(d.Fence) + " | " + mdCell(d.GPU) + " | " + strconv.Itoa(d.Dumps) + " | " + mdCell(d.Kernel) + " |\n")
		}
		b.WriteString("\n")
	}
	if len(h.WaveGroups) > 0 {
		b.WriteString("| PC | waves | workgroups | threadIdx.x | kernel |\n|---|---|---|---|---|\n")
		for _, g := range h.WaveGroups {
			pc := g.PC
			if pc == "" {
				pc = g.Location
			}
			b.WriteString("| " + mdCell(pc) + " | " + strconv.Itoa(g.Waves) + " | " + strconv.Itoa(g.Workgroups) + " | " + intsString(g.ThreadIdx) + " | " + mdCell(g.Kernel) + " |\n")
		}
		b.WriteString("\n")
	}
	if len(h.HostStack) > 0 {
		b.WriteString("Main thread: " + mdEscape(strings.Join(h.HostStack[:min(6, len(h.HostStack))], " ← ")) + "\n\n")
	}
}

// incidentKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var incidentKeywords = append(append([]string{"SeqNum=", "enqueued", "opCount", "nranks", "Root Cause", "local_rank", "exitcode", "host", "closing signal", "GPU use", "Pyspy dump for PID", "world_size", "WORLD_SIZE", "tp_size", "tensor_parallel_size", "world size", "Virtual PC", "Active", ",0)"}, progressKeywords...), trainStepKeywords...)

// incidentRawKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var incidentRawKeywords = []string{"[rank"}
