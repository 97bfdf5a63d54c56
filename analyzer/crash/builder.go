package crash

import (
	"sort"
	"strconv"
	"strings"
)

const (
	evKeepFirst = 8
	evKeepLast  = 4
	maxList     = 16
	maxQueues   = 256
	maxRanks    = 4096
	maxDetails  = 48
	maxNotes    = 12
)

// builder aggregates one finding per class for the whole session.
type builder struct {
	byClass map[string]*agg
	seq     int
	facts   facts
}

// facts are session-wide observations that parsers record and the final
// assembly (finalize.go) turns into findings or attaches to them.
type facts struct {
	corePID    int // the process a GPU core file was generated from (rocgdb.go coreProcess)
	corePIDEv  Evidence
	asyncHint  *Evidence // "might be asynchronously reported"
	asyncSites []string  // the distinct Python locations the async errors were reported at (bounded)
	asyncRanks []int     // the line rank of each asyncSites entry (-1: none)
	asyncFrom  string    // C++ "Exception raised from X" of an async error
	location   string    // last Python frame "file:line in fn"
	locCode    string    // source text of that frame
	locEv      *Evidence
	// crashLoc: the first frame of faulthandler's "Current thread" block
	// (the thread that crashed; the other "Thread 0x" blocks are bystanders)
	crashLoc         string
	crashLocEv       *Evidence
	aborts           []exitFact // SIGABRT-style ends (attached to the primary GPU finding)
	exits            []exitFact
	gpuArch          []string      // gfx names seen
	override         string        // HSA_OVERRIDE_GFX_VERSION value
	gfx              overrideFacts // override vs the device's arch (override.go)
	progress         progressFacts // generation going on (progress.go)
	steps            stepFacts     // training step counters (trainstep.go)
	build            buildFacts    // the gfx targets a build names (buildtarget.go)
	vramText         string
	kernelAPI        kernelAPIFact
	disasm           []*disasmBlock // disassembly blocks not attached to waves
	pyspyMiss        *Evidence
	pyspyDenied      bool  // the dump failed for lack of ptrace rights, py-spy is there (hang.go pyspyDenied)
	pyspyFailPIDs    []int // the pids SGLang's watchdog could not dump
	coreDumpNoise    int
	lastException    string
	blasMissing      *blasLibMissing // hipBLASLt could not load its per-arch kernels (blaslib.go)
	blasStatusFailed bool            // a BLAS library call returned an error status (blaslib.go)
	lastExcEv        *Evidence
	traceback        bool
	gpuMarkers       int // lines that mention a GPU runtime at all
	fp8              *Evidence
	launchBlocking   bool
	kernelHints      []kernelHint
	lastTritonLaunch string           // kernel of the last "k[grid](" traceback line (triton.go)
	tritonCacheFrame lineRef          // the last traceback frame inside Triton's cache manager (triton.go)
	childFailure     *Evidence        // a supervisor saw a child die (exit.go): defeats a later bare "Killed"
	forceKilled      []int            // pids torchelastic SIGKILLed while tearing down (forcekill.go)
	schedCancel      *Evidence        // Slurm cancelled the job (slurm.go): defeats a later SIGKILL without memory pressure
	mpiAbort         *Evidence        // a rank called MPI_Abort (mpiabort.go): defeats mpirun's teardown kills
	mpiAbortRank     int              // that rank in MPI_COMM_WORLD, -1 for another communicator (mpiabort.go)
	miopenKernel     miopenKernelFact // the last kernel MIOpen prepared (miopenkernel.go)
	deadWorkers      []deadWorker     // an executor's "Worker proc … died unexpectedly" (hang.go)
	vendorNV         bool             // NVIDIA-only evidence formats (session.go)
	vendorAMD        bool             // ROCm-only evidence formats
	runtimeNV        bool             // the framework's own text names CUDA (runtimeVendor, evidence.go)
	runtimeAMD       bool             // … names HIP / ROCm
	notes            []string         // session-level notes for the summary
	inc              incidentFacts    // hang / multi-rank evidence across files (incident.go)
	container        containerFact    // container.go
	inHand           inHand           // evidence.go
	regAddrs         regAddrs         // wave register values per kernel (regaddr.go)
	stopAddrs        []stopAddr       // addresses from stop instructions' registers (stopinsn.go)
	ldsLog           int64            // LDS per workgroup the log states (launch.go)
	xnackOn          *Evidence        // dmesg "XNACK is enabled, retry faults will be handled by SVM"
	svmMiss          *Evidence        // dmesg "failed to find prange" / "not in any svm range"
	mixed            mixedText        // interleaved wave-header text (interleave.go)
}

type exitFact struct {
	code    int
	hasCode bool
	signal  string
	rank    int
	pid     int
	host    string
	task    string
	ev      Evidence
}

func newBuilder() *builder { return &builder{byClass: map[string]*agg{}} }

// agg is the aggregate behind one Finding.
type agg struct {
	f          Finding
	order      int
	kernelPrio int
	conf       float64
	evFirst    []Evidence
	evLast     []Evidence
	evN        int
	lastEvKey  string
	reasons    []string
	queues     []string
	queueN     int
	ranks      map[int]bool
	addresses  []string
	nodes      []int
	kernels    []string
	notes      []string
	details    map[string]string
	seqs       []int
	strong     bool // evidence beyond a generic trap status (HSA 0x1016, hipErrorLaunchFailure)
	linePID    int  // the worker-prefix pid of its lines ("(VllmWorkerProcess pid=2421)"); -1 when they differ
	kernelPID  int  // the process the kernel's own line names (OOM victim, owner of a timed-out job); -1 when several
	kernelEv   Evidence
	deathPID   int // the process the death line itself names (a shell's job line); -1 when several
	deathEv    Evidence
	reportPID  int // rccl_transport: the process whose NCCL WARN reported the failure; -1 when several (ncclreporter.go)
	reportEv   Evidence
	// host_oom_kill: a record of memory pressure (the kernel's OOM killer,
	// a cgroup's OOM event) backs it, not a bare SIGKILL / exit 137
	memProof bool
	// lines whose class is CUDA's reading of an error HIP reads otherwise
	// (codes.go cudaErrors); undone on a ROCm session (finalize.go)
	cudaReadings int
	// rccl_transport: lines that only relay a CUDA / HIP error (NCCL's
	// "unhandled cuda error", "Cuda failure …") and lines that are the
	// library's or network's own failure; relayed-only makes a GPU
	// finding of the incident its root (incident.go, relayCauses)
	ncclRelay, ncclOwn int
}

func (a *agg) ncclRelayed(relay bool) {
	if relay {
		a.ncclRelay++
	} else {
		a.ncclOwn++
	}
}

// add returns the aggregate of class, creating it, and records evidence.
func (b *builder) add(s *Session, class string, l *line, conf float64) *agg {
	a := b.byClass[class]
	if a == nil {
		b.seq++
		a = &agg{f: Finding{Class: class}, order: b.seq, ranks: map[int]bool{}, details: map[string]string{}}
		b.byClass[class] = a
	}
	a.f.Count++
	if conf > a.conf {
		a.conf = conf
	}
	if l != nil {
		a.evidence(l.ev(s))
		if l.rank >= 0 {
			a.rank(l.rank)
		}
		a.linePID = onePID(a.linePID, l.pid)
	}
	return a
}

func (b *builder) get(class string) *agg { return b.byClass[class] }

func (a *agg) evidence(e Evidence) {
	key := e.File + "\x00" + strconv.Itoa(e.Line)
	if key == a.lastEvKey {
		return
	}
	for _, x := range a.evFirst {
		if x.File == e.File && x.Line == e.Line {
			return
		}
	}
	a.lastEvKey = key
	a.evN++
	if len(a.evFirst) < evKeepFirst {
		a.evFirst = append(a.evFirst, e)
		return
	}
	if len(a.evLast) < evKeepLast {
		a.evLast = append(a.evLast, e)
		return
	}
	copy(a.evLast, a.evLast[1:])
	a.evLast[len(a.evLast)-1] = e
}

func (a *agg) setKernel(name, source string, prio int) {
	name = strings.TrimSpace(name)
	if name == "" || name == "<unknown>" {
		return
	}
	if len(a.kernels) < maxList && !containsStr(a.kernels, name) {
		a.kernels = append(a.kernels, name)
	}
	if prio <= a.kernelPrio && a.f.Kernel != "" {
		return
	}
	a.kernelPrio = prio
	a.f.Kernel, a.f.KernelMangled = demangleName(name)
	a.f.KernelSource = source
}

func (a *agg) setAddress(addr string) {
	n, ok := normAddr(addr)
	if !ok {
		if addr != "" {
			a.detail("address_text", addr)
		}
		return
	}
	if a.f.Address == "" {
		a.f.Address = n
	}
	if len(a.addresses) < maxList && !containsStr(a.addresses, n) {
		a.addresses = append(a.addresses, n)
	}
}

func (a *agg) setNode(n int) {
	if a.f.Node == nil {
		a.f.Node = intp(n)
	}
	for _, x := range a.nodes {
		if x == n {
			return
		}
	}
	if len(a.nodes) < maxList*4 {
		a.nodes = append(a.nodes, n)
	}
}

func (a *agg) setPID(pid int) {
	if pid > 0 && a.f.PID == nil {
		a.f.PID = intp(pid)
	}
}

// kernelNamed records a process the kernel itself named for this finding;
// two different ones leave no single process to blame.
func (a *agg) kernelNamed(pid int, ev Evidence) {
	if a.kernelPID == 0 && pid > 0 {
		a.kernelEv = ev
	}
	a.kernelPID = onePID(a.kernelPID, pid)
}

// deathNamed records a process the line reporting its death named.
func (a *agg) deathNamed(pid int, ev Evidence) {
	if a.deathPID == 0 && pid > 0 {
		a.deathEv = ev
	}
	a.deathPID = onePID(a.deathPID, pid)
}

// onePID folds one more pid into "the one pid seen so far": 0 none yet, -1
// several; a pid ≤ 0 is no reading.
func onePID(cur, pid int) int {
	switch {
	case pid <= 0:
		return cur
	case cur == 0:
		return pid
	case cur != pid:
		return -1
	}
	return cur
}

func (a *agg) setExit(code int) {
	if a.f.ExitCode == nil {
		a.f.ExitCode = intp(code)
	}
}

func (a *agg) addReason(r string) {
	r = strings.TrimSpace(r)
	if r == "" {
		return
	}
	if a.f.Reason == "" {
		a.f.Reason = r
	}
	if len(a.reasons) < maxList && !containsStr(a.reasons, r) {
		a.reasons = append(a.reasons, r)
	}
}

func (a *agg) addQueue(q string) {
	if q == "" {
		return
	}
	if a.f.Queue == "" {
		a.f.Queue = q
	}
	if containsStr(a.queues, q) {
		return
	}
	a.queueN++
	if len(a.queues) < maxQueues {
		a.queues = append(a.queues, q)
	}
}

func (a *agg) rank(r int) {
	if r >= 0 && len(a.ranks) < maxRanks {
		a.ranks[r] = true
	}
}

func (a *agg) seq(n int) {
	for _, x := range a.seqs {
		if x == n {
			return
		}
	}
	if len(a.seqs) < maxList*4 {
		a.seqs = append(a.seqs, n)
	}
}

func (a *agg) setHSA(name, code string) {
	if a.f.HSAStatus == "" && name != "" {
		a.f.HSAStatus = name
		if code != "" {
			a.f.HSACode = code
		}
	}
}

func (a *agg) setHIP(e *hipErr) {
	if e == nil || a.f.HIPError != "" {
		return
	}
	a.f.HIPError = e.name
	a.f.HIPErrorCode = intp(e.code)
	if e.cuda != "" {
		a.f.CUDAError = e.cuda
	}
}

func (a *agg) detail(k, v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	if _, ok := a.details[k]; ok || len(a.details) >= maxDetails {
		return
	}
	a.details[k] = clip(v, 300)
}

func (a *agg) note(n string) {
	if len(a.notes) < maxNotes && !containsStr(a.notes, n) {
		a.notes = append(a.notes, n)
	}
}

func (a *agg) setStr(dst *string, v string) {
	if *dst == "" {
		*dst = strings.TrimSpace(v)
	}
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func intp(n int) *int { return &n }

// normAddr renders an address as lowercase hex without leading zeros;
// "(nil)" is 0x0.
func normAddr(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ".,;:)")
	if s == "(nil" || s == "(nil)" || s == "nil" || s == "NULL" {
		return "0x0", true
	}
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if t == s && !strings.HasPrefix(s, "0") {
		// accept bare hex only when it looks like one
		if len(t) < 4 {
			return "", false
		}
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X") // kernarg "0x0x…"
	if t == "" || len(t) > 16 {
		return "", false
	}
	v, err := strconv.ParseUint(t, 16, 64)
	if err != nil {
		return "", false
	}
	return "0x" + strconv.FormatUint(v, 16), true
}

func addrValue(s string) (uint64, bool) {
	n, ok := normAddr(s)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(n[2:], 16, 64)
	return v, err == nil
}

func sortedInts(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
