package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// torchParser reads PyTorch texts (docs section 10): out-of-memory messages,
// device-side asserts, "<HIP|CUDA> error: …" lines, the asynchrony hint,
// C++ terminate blocks, Python tracebacks and faulthandler dumps, NVHPC
// "Accelerator Fatal Error".
type torchParser struct {
	s          *Session
	lastFrame  string
	lastFrameL *line
	wantCode   bool
	asserts    map[string]*assertGroup
	faultStack bool // inside a faulthandler "Current thread" block
	curThread  bool // inside the crashing thread's block (no frame read yet)
	// an XLA status a paste wrapped after "Resource exhausted: Out": the
	// size is on the next line (xla.go)
	xlaHead string
	xlaLine int
	// the C++ terminate handler's "what():  …" message, which a long
	// message wraps onto the next line
	what   string // a "what():" message that reads no error alone
	whatNo int
	fh     fhDump
	// a library handle TensorFlow / XLA could not create, held one line for
	// the stream executor's "Memory usage: …" report after it (cudalib.go)
	handle  *line
	handleX *libStatus
	// PyTorch's "HIP error: invalid argument" (hipErrorInvalidValue), held
	// to the file's end; memCall: the file names a memory API call (a copy,
	// a set, an allocation), which takes the error's launch reading away
	invalidValue *line
	memCall      bool
}

// fhDump is what a file's faulthandler thread dump says about itself: its
// block headers, whether one is the "Current thread" (a thread that
// crashed or ran a signal handler), a fatal-error header, and a timeout
// header (faulthandler.dump_traceback_later, a test runner's watchdog).
type fhDump struct {
	headers        int
	current, fatal bool
	timeout        bool
	first          *line
}

type assertGroup struct {
	threads map[string]bool
	blocks  map[string]bool
	n       int
}

var (
	reOOMTried   = lazyre.New(`(?i)(HIP|CUDA)? ?out of memory\. Tried to allocate ([\d.]+ ?(?:bytes|[KMGTP]i?B))`)
	reOOMCap     = lazyre.New(`GPU (\d+) has a total capacity of ([\d.]+ ?\w+) of which ([\d.]+ ?\w+) is free`)
	reOOMCapV1   = lazyre.New(`\(GPU (\d+); ([\d.]+ ?\w+) total capacity; ([\d.]+ ?\w+) already allocated; ([\d.]+ ?\w+) free; (?:([\d.]+ ?\w+) allowed; )?([\d.]+ ?\w+) (?:reserved in total by PyTorch|cached)`)
	reOOMInUse   = lazyre.New(`this process has ([\d.]+ ?\w+) memory in use`)
	reOOMAlloc   = lazyre.New(`Of the allocated memory ([\d.]+ ?\w+) is allocated by PyTorch(?:, with ([\d.]+ ?\w+) allocated in private pools(?: \([^)]*\))?)?, and ([\d.]+ ?\w+) is reserved by PyTorch but unallocated`)
	reOOMAllowed = lazyre.New(`([\d.]+ ?\w+) allowed;`)
	reOOMEnv     = lazyre.New(`(PYTORCH_(?:HIP_|CUDA_)?ALLOC_CONF)=`)
	reHIPAssert  = lazyre.New("^(?:\\(\\S+ pid=\\d+\\) )?(.*?):(\\d+): (.*?): Device-side assertion `(.*)' failed")
	reAssertLine = lazyre.New("^(.*?):(\\d+): ([^:]+(?:::[^:]+)*?): block: \\[(\\d+),(\\d+),(\\d+)\\], thread: \\[(\\d+),(\\d+),(\\d+)\\] Assertion (?:`(.*)` failed|([^`].*) failed)")
	// llama.cpp / ggml prints its backend's name: "ROCm error: invalid
	// device function" (ggml-org/llama.cpp#14370) on a HIP build
	reTorchErr      = lazyre.New(`\b(HIP|CUDA|ROCm) error: (.*)$`)
	reSearchFor     = lazyre.New("Search for `((?:hip|cuda)Error\\w+)'")
	reErrName       = lazyre.New(`\b((?:hip|cuda)Error[A-Z]\w+)\b`)
	reHIPErrNumber  = lazyre.New(`\bhipError_t\((\d{1,4})\)`)
	reHIPWord       = lazyre.New(`(?i)\bhip`)
	reDriverErrName = lazyre.New(`\b(CUDA_ERROR_[A-Z_]+)\b`)
	reTerminate     = lazyre.New(`terminate called after throwing an instance of '([^']+)'`)
	reRaisedFrom    = lazyre.New(`Exception raised from (\S+) at (\S+)`)
	rePyFrame       = lazyre.New(`^\s*File "([^"]+)", line (\d+)(?:,)? in (\S+)`)
	rePyExc         = lazyre.New(`^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt)): ?(.*)$`)
	// faulthandler's "Fatal Python error: Segmentation fault"; pygame installs
	// its own handler, the "parachute": "Fatal Python error: pygame_parachute:
	// (pygame parachute) Segmentation Fault" (pygame 2; 1.x without the
	// "pygame_parachute: " function name)
	reFatalPy     = lazyre.New(`Fatal Python error: (?:pygame_parachute: )?(?:\(pygame parachute\) )?(Segmentation [Ff]ault|Aborted|Bus error|Floating point exception|Illegal instruction)`)
	reAccelFatal  = lazyre.New(`Accelerator Fatal Error: call to (\w+) returned error (\d+)(?: \((\w+)\))?:? ?(.*)`)
	reForDebug    = lazyre.New(`consider passing (\w+=\d+)`)
	reLaunchBlock = lazyre.New(`(?:CUDA_LAUNCH_BLOCKING|HIP_LAUNCH_BLOCKING|AMD_SERIALIZE_KERNEL)=[13]\b`)
	reFP8KV       = lazyre.New(`kv[-_]cache[-_]dtype[ =]+["']?fp8`)
	// glibc's assert() in host code: "prog: file.cpp:46: void f(): Assertion `engine' failed."
	// (a device assert carries "block: […], thread: […]" and closes the
	// condition with a backtick, HIP's says "Device-side assertion")
	reHostAssert = lazyre.New("^(?:\\S+: )?\\S+?:\\d+: .*\\bAssertion `.*' failed")
	// the condition alone: backtick … apostrophe, no backtick inside
	reBareHostAssert = lazyre.New("^\\s*Assertion `[^`]*' failed")
	// faulthandler's block header and its watchdog's timeout header
	reFHHeader  = lazyre.New(`^(Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):`)
	reFHTimeout = lazyre.New(`^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!|timed out with traceback:`)
)

func (p *torchParser) beginFile(*Session) {
	p.lastFrame, p.lastFrameL, p.wantCode, p.faultStack = "", nil, false, false
	p.xlaHead, p.fh, p.what = "", fhDump{}, ""
	p.handle, p.handleX = nil, nil
}

// flushHandle rules on a held handle failure: the device's free memory the
// next line reported, or none.
func (p *torchParser) flushHandle(mem dnnMemUsage, ok bool) {
	if p.handle == nil {
		return
	}
	l, x := p.handle, p.handleX
	p.handle, p.handleX = nil, nil
	p.s.applyTFHandleFailure(l, x, mem, ok) // cudalib.go
}

// endFile holds the faulthandler rule: a dump of every thread with no fatal
// error — its watchdog's "Timeout (0:05:00)!" / a harness's "timed out with
// traceback:" header, or only "Thread 0x…" blocks (no thread crashed or ran
// a handler: the watchdog thread is no Python thread) — is a snapshot of a
// process that stopped making progress, not a crash. Defeated by a fatal
// error header and by any other finding of the file.
func (p *torchParser) endFile() {
	p.flushHandle(dnnMemUsage{}, false)
	p.invalidValueRule()
	fh := p.fh
	p.fh = fhDump{}
	if fh.first == nil || fh.fatal || !(fh.timeout || !fh.current && fh.headers >= 2) || len(p.s.b.byClass) > 0 {
		return
	}
	s := p.s
	s.format("faulthandler_dump")
	a := s.b.add(s, ClassCPUHang, fh.first, 0.6)
	a.detail("source", "Python faulthandler thread dump")
	a.addReason("faulthandler dumped every thread without a crash: the process stopped making progress")
	a.note("a faulthandler dump with no fatal error is a watchdog's or a signal's stack snapshot: read where each thread waits (a lock, a queue, a socket, a collective)")
}

// invalidValueRule: a runtime check's "HIP error: invalid argument" /
// "CUDA error: invalid argument" (hipErrorInvalidValue 1) with no other
// finding is invalid_launch, less sure (0.5). PyTorch's checks that print
// it stand after kernel launches (C10_CUDA_KERNEL_LAUNCH_CHECK) and after
// the attribute calls that size a launch (cudaFuncSetAttribute's dynamic
// shared memory), and the class table reads hipErrorInvalidValue "at
// launch" as grid/block/LDS over the limits (crash-formats.md §14, seed
// 002). Defeated by any other finding and by a memory API call named in
// the file (the error was a copy's or an allocation's: llama.cpp#6201).
func (p *torchParser) invalidValueRule() {
	l, mem := p.invalidValue, p.memCall
	p.invalidValue, p.memCall = nil, false
	s := p.s
	if l == nil || mem || len(s.b.byClass) > 0 {
		return
	}
	s.format("torch_runtime_error")
	a := s.b.add(s, ClassInvalidLaunch, l, 0.5)
	if e := lookupHIPName("hipErrorInvalidValue"); e != nil {
		a.setHIP(e)
	}
	a.addReason("a GPU runtime call rejected an argument (hipErrorInvalidValue / cudaErrorInvalidValue); the call is not named")
	a.note("PyTorch checks for this error after kernel launches, where it means a launch configuration the device refuses (grid or block of 0 or over the limits, dynamic shared memory over the per-block limit); a copy or an allocation with a bad pointer or size raises it too: serialize the launches to name the call")
}

func (p *torchParser) line(l *line) {
	t := l.text
	s := p.s
	f := &s.b.facts
	if !p.memCall && extractMemAPICall(t) {
		p.memCall = true
	}
	if p.handle != nil && l.no > p.handle.no {
		mem, ok := extractDNNMemUsage(t)
		p.flushHandle(mem, ok && l.no == p.handle.no+1)
		if ok {
			return
		}
	}
	if p.xlaHead != "" {
		head, no := p.xlaHead, p.xlaLine
		p.xlaHead = ""
		if l.no == no+1 {
			if x, ok := extractXLAOOM(head + " " + strings.TrimSpace(t)); ok {
				s.applyXLAOOM(l, x) // xla.go
				return
			}
		}
	}
	if p.what != "" {
		head, no := p.what, p.whatNo
		p.what = ""
		if l.no == no+1 && whatContinues(t) {
			// the message read whole; the line is still read on its own
			w := *l
			w.text = head + " " + strings.TrimSpace(t)
			p.line(&w)
		}
	}
	if w := strings.TrimLeft(t, " \t"); strings.HasPrefix(w, "what():") && len(w) < 1024 && !readsError(w) {
		p.what, p.whatNo = w, l.no
	}
	if p.wantCode {
		p.wantCode = false
		if code := strings.TrimSpace(t); code != "" && !strings.HasPrefix(code, "File \"") && !strings.HasPrefix(code, "^") {
			f.locCode = clip(code, 200)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(t), "File \"") {
		if fr, ok := extractTraceFrame(t); ok {
			loc := fr.loc()
			if p.faultStack {
				if f.location == "" {
					f.location = loc
				}
				if p.curThread {
					p.curThread = false
					f.crashLoc = loc
					ev := l.ev(s)
					f.crashLocEv = &ev
				}
			} else {
				f.location = loc
				f.locCode = ""
				ev := l.ev(s)
				f.locEv = &ev
				p.wantCode = true
			}
		}
		return
	}
	if strings.HasPrefix(t, "Traceback (most recent call last)") {
		f.traceback = true
		s.format("python_traceback")
		return
	}
	if reFHTimeout.MatchString(t) {
		p.fh.timeout = true
		if p.fh.first == nil {
			p.fh.first = keepLine(l)
		}
		return
	}
	if strings.HasPrefix(t, "Current thread 0x") || strings.HasPrefix(t, "Thread 0x") {
		if reFHHeader.MatchString(t) {
			p.fh.headers++
			p.fh.current = p.fh.current || strings.HasPrefix(t, "Current")
			if p.fh.first == nil {
				p.fh.first = keepLine(l)
			}
		}
		p.faultStack = true
		p.curThread = strings.HasPrefix(t, "Current thread 0x")
		f.location = ""
		return
	}
	if exc, ok := extractPyException(t); ok {
		f.lastException = exc
		ev := l.ev(s)
		f.lastExcEv = &ev
		s.tritonCacheFailure(l, exc) // triton.go
	}
	if extractLaunchBlocking(l.raw, t) {
		f.launchBlocking = true
	}
	if f.fp8 == nil && strings.Contains(t, "fp8") && reFP8KV.MatchString(t) {
		ev := l.ev(s)
		f.fp8 = &ev
	}
	if x, ok := extractCyclesCUDA(t); ok && !commandLike(t) {
		s.applyCyclesCUDA(l, x) // cycles.go
		return
	}
	if !containsAny(t, "what():", "memory", "rror", "ssert", "terminate", "asynchronously", "Fatal", "raised from", "consider passing", "NVML_SUCCESS", "OOM when", "oom when", "CUBLAS_STATUS_", "CUDNN_STATUS_", "CUFFT_", "CUSPARSE_STATUS", "CUSOLVER_STATUS", "CURAND_STATUS", "_STATUS_EXECUTION_FAILED", "_STATUS_ALLOC_FAILED", "CUDA_ERROR_", "CUresult", "CUDA failure", "Cuda failure", "initialize CUDA", "initialize ROCm", "rocblas_status_", "HIPBLAS_STATUS_", "miopenStatus", "esource exhausted", "RESOURCE_EXHAUSTED", "from device: ", "kernel image", "allocate buffer: ", "hipModuleLoad failed", " failed with code", "Err: hip") {
		return
	}
	if arch, ok := extractBlasLibMissing(t); ok && !commandLike(t) {
		s.noteBlasLibMissing(l, arch) // blaslib.go
		return
	}
	if x, ok := extractLibStatus(t); ok && !commandLike(t) {
		if strings.Contains(t, "BLAS") {
			s.blasFailed(l, false) // blaslib.go
		}
		if x.class != "" {
			s.applyLibStatus(l, x) // cudalib.go
			return
		}
		if extractTFHandleFailure(t) {
			p.flushHandle(dnnMemUsage{}, false)
			p.handle, p.handleX = keepLine(l), x
			return
		}
	}
	if x, ok := extractRocLibStatus(t); ok && !commandLike(t) {
		if strings.Contains(x.name, "BLAS") || strings.HasPrefix(x.name, "rocblas") {
			s.blasFailed(l, false) // blaslib.go
		}
		if s.applyRocLibStatus(l, x) { // roclib.go
			return
		}
	}
	if x, ok := extractXLAOOM(t); ok && !commandLike(t) {
		s.applyXLAOOM(l, x) // xla.go
		return
	} else if xlaExhausted(t) && !commandLike(t) {
		p.xlaHead, p.xlaLine = strings.TrimSpace(t), l.no
	}
	if x, ok := extractTFDeviceAlloc(t); ok && !commandLike(t) {
		s.applyTFDeviceAlloc(l, x) // tfalloc.go
		return
	}
	if x, ok := extractRocAllocBuffer(t); ok && !commandLike(t) {
		s.applyRocAllocBuffer(l, x) // rocalloc.go
		return
	}
	if x, ok := extractTFOOM(t); ok && !commandLike(t) {
		s.applyTFOOM(l, x) // xla.go
		return
	}
	if x, ok := extractTRTOOM(t); ok && !commandLike(t) {
		s.applyTRTOOM(l, x) // tensorrt.go
		return
	}
	if x, ok := extractFrameworkAlloc(t); ok && !commandLike(t) {
		s.applyFrameworkAlloc(l, x) // fwalloc.go
		return
	}
	if extractAllocatorNVMLAssert(t) && !commandLike(t) {
		// the caching allocator ran out of device memory and its NVML
		// query for the report failed (pytorch#112377): the OOM message
		// is replaced by the assert
		s.format("torch_oom")
		a := s.b.add(s, ClassVRAMOOM, l, 0.6)
		a.detail("allocator_assert", "NVML_SUCCESS == r")
		a.addReason("PyTorch's caching allocator failed an allocation and its NVML report failed with it (NVML_SUCCESS INTERNAL ASSERT in CUDACachingAllocator.cpp): device memory exhausted, often on a MIG slice")
		return
	}
	// out of memory
	if strings.Contains(t, "out of memory") {
		if m := reOOMTried.FindStringSubmatch(t); m != nil {
			p.oom(l, m)
			return
		}
		if x, ok := extractGGMLAlloc(t); ok && !commandLike(t) {
			s.applyGGMLAlloc(l, x)
			return
		}
		if x, ok := extractCheckOOM(t); ok && !commandLike(t) {
			s.applyCheckOOM(l, x) // checkoom.go
			return
		}
	}
	if !strings.Contains(t, "out of memory") {
		if x, ok := extractTorchOOMType(t); ok && !commandLike(t) {
			s.applyTorchOOMType(l, x) // torchoomtype.go
			return
		}
	}
	if x, ok := extractTensileArch(t); ok && !commandLike(t) {
		s.applyTensileArch(l, x)
		return
	}
	if extractAsmUnsupported(t) {
		s.applyAsmUnsupported(l) // asmtarget.go
		return
	}
	if x, ok := extractISAIncompatible(t); ok && !commandLike(t) {
		s.applyISAIncompatible(l, x) // asmtarget.go
		return
	}
	if strings.Contains(t, "Device-side assertion `") {
		// ROCm's device assert printf (HIP's __assert_fail):
		// "file.cpp:50: void f(…): Device-side assertion `cond' failed."
		if r := reHIPAssert.FindStringSubmatch(t); r != nil {
			var m [11]string
			m[1], m[2], m[3], m[10] = r[1], r[2], r[3], r[4]
			p.assert(l, m[:])
			return
		}
	}
	if fn, ok := extractFatBinAssert(t); ok { // clrassert.go
		s.applyFatBinAssert(l, fn)
		return
	}
	if strings.Contains(t, "Assertion `") || strings.Contains(t, "] Assertion ") && strings.Contains(t, " failed") {
		if m, ok := matchAssertLine(t); ok {
			p.assert(l, m[:])
			return
		}
		if extractHostAssert(t) {
			// glibc's assert() in host code aborts the process; no kernel asserted
			f.aborts = append(f.aborts, exitFact{signal: "SIGABRT", rank: l.rank, ev: l.ev(s)})
			if len(f.aborts) > 16 {
				f.aborts = f.aborts[len(f.aborts)-16:]
			}
			return
		}
		if strings.Contains(t, "failed") {
			a := s.b.add(s, ClassDeviceAssert, l, 0.85)
			a.addReason("device-side assertion failed")
			return
		}
	}
	if extractAsyncHint(t) {
		if f.asyncHint == nil {
			ev := l.ev(s)
			f.asyncHint = &ev
		}
		if f.location != "" && !containsStr(f.asyncSites, f.location) && len(f.asyncSites) < 4 {
			f.asyncSites = append(f.asyncSites, f.location)
			f.asyncRanks = append(f.asyncRanks, l.rank)
		}
		if strings.Contains(t, "consider passing") {
			// the rerun hint on the same line still tells the runtime
			if v := extractDebugSetting(t); v != "" {
				s.b.facts.notes = appendCap(s.b.facts.notes, "the runtime suggests rerunning with "+v, 8)
			}
		}
		if errorBeforeHint(t) {
			// The error and the runtime's hint on one line: a paste whose
			// line ends were lost, an exception's repr with "\n" escapes.
			p.errorText(l)
		}
		return
	}
	if strings.Contains(t, "consider passing") {
		if v := extractDebugSetting(t); v != "" {
			s.b.facts.notes = appendCap(s.b.facts.notes, "the runtime suggests rerunning with "+v, 8)
		}
		return
	}
	if m := findIf(t, "terminate called after throwing an instance of '", reTerminate); m != nil {
		f.aborts = append(f.aborts, exitFact{signal: "SIGABRT", rank: l.rank, ev: l.ev(s)})
		if len(f.aborts) > 16 {
			f.aborts = f.aborts[len(f.aborts)-16:]
		}
		// a paste that lost its line ends glues the handler's next line,
		// "  what():  <message>", on: the message is read as that line
		if i := strings.Index(t, "what():"); i > 0 {
			w := *l
			w.text = t[i:]
			p.line(&w)
		}
		return
	}
	if m := findIf(t, "Exception raised from ", reRaisedFrom); m != nil {
		if f.asyncFrom == "" {
			f.asyncFrom = m[1] + " at " + m[2]
		}
		return
	}
	if m := findIf(t, "Fatal Python error: ", reFatalPy); m != nil {
		switch m[1] {
		case "Segmentation fault", "Segmentation Fault":
			a := s.b.add(s, ClassHostSegfault, l, 0.85)
			a.setStr(&a.f.Signal, "SIGSEGV")
			if strings.Contains(t, "pygame parachute") {
				a.detail("source", "pygame's signal handler (parachute)")
			}
			a.detail("source", "Python faulthandler")
			p.faultStack = true
		case "Bus error":
			a := s.applySIGBUS(l, 0, false, "", "", sharedMemoryWords(t)) // sigbus.go
			a.detail("source", "Python faulthandler")
			p.faultStack = true
		case "Aborted":
			f.aborts = append(f.aborts, exitFact{signal: "SIGABRT", rank: l.rank, ev: l.ev(s)})
		}
		return
	}
	if m := findIf(t, "Accelerator Fatal Error: call to ", reAccelFatal); m != nil {
		code := atoiDef(m[2], -1)
		e := lookupHIPName(m[3])
		if e == nil {
			e = lookupHIPCode(code)
		}
		if e != nil && e.class != "" {
			a := s.b.add(s, e.class, l, 0.85)
			a.setHIP(e)
			a.detail("failing_api", m[1])
		}
		return
	}
	if x, ok := extractHIPCallCode(t); ok { // hipcallcode.go
		s.applyHIPCallCode(l, x)
		return
	}
	p.errorText(l)
}

func (p *torchParser) oom(l *line, m []string) {
	s := p.s
	t := l.text
	s.format("torch_oom")
	a := s.b.add(s, ClassVRAMOOM, l, 0.95)
	a.setStr(&a.f.RequestedBytesText, m[2])
	if m[1] != "" {
		a.detail("runtime", m[1])
	}
	req := parseSize(m[2])
	var capB, freeB, allocB, resB float64 = -1, -1, -1, -1
	cappedV1 := false
	if c := reOOMCap.FindStringSubmatch(t); c != nil {
		a.detail("gpu", c[1])
		a.detail("total_capacity", c[2])
		a.detail("free", c[3])
		capB, freeB = parseSize(c[2]), parseSize(c[3])
	}
	if c := reOOMCapV1.FindStringSubmatch(t); c != nil && capB < 0 {
		// PyTorch ≤ 2.0: "(GPU 0; 10.76 GiB total capacity; 9.25 GiB
		// already allocated; 16.12 MiB free; 9.74 GiB reserved in total by
		// PyTorch)" (≤ 1.4: "… cached)"); reserved includes allocated
		a.detail("gpu", c[1])
		a.detail("total_capacity", c[2])
		a.detail("allocated_by_pytorch", c[3])
		a.detail("free", c[4])
		a.detail("reserved_by_pytorch", c[6])
		capB, allocB, freeB = parseSize(c[2]), parseSize(c[3]), parseSize(c[4])
		if r := parseSize(c[6]); r >= 0 && allocB >= 0 && r >= allocB {
			resB = r - allocB
		}
		if c[5] != "" {
			a.detail("per_process_cap", c[5])
			cappedV1 = true
		}
	}
	if c := reOOMInUse.FindStringSubmatch(t); c != nil {
		a.detail("process_in_use", c[1])
	}
	if c := reOOMAlloc.FindStringSubmatch(t); c != nil {
		a.detail("allocated_by_pytorch", c[1])
		if c[2] != "" {
			a.detail("private_pools", c[2])
		}
		a.detail("reserved_unallocated", c[3])
		allocB, resB = parseSize(c[1]), parseSize(c[3])
	}
	allowed := reOOMAllowed.FindStringSubmatch(t)
	if allowed != nil {
		a.detail("per_process_cap", allowed[1])
	}
	if e := submatch(reOOMEnv, t); e != "" {
		a.detail("allocator_env", e)
	}
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
	if a.f.SubKind == "" {
		a.f.SubKind = oomSubKind(req, capB, freeB, allocB, resB, allowed != nil || cappedV1)
	}
}

// oomSubKind follows the table of docs section 10.1.
func oomSubKind(req, capB, freeB, allocB, resB float64, capped bool) string {
	switch {
	case req > 0 && capB > 0 && req > capB:
		return "device_capacity"
	case capped && freeB > req:
		return "per_process_cap"
	case resB > 0 && req > 0 && (resB >= req || (freeB >= 0 && freeB < req && resB > req/2)):
		return "fragmentation"
	case allocB >= 0 && capB > 0 && freeB >= 0 && allocB >= 0.8*(capB-freeB) && (resB < 0 || resB < req):
		return "exhaustion"
	case freeB >= 0 && capB > 0 && freeB < 0.05*capB && allocB >= 0 && allocB < 0.5*capB:
		return "other_tenants"
	case freeB > req && req > 0:
		return "driver_or_uma_refusal"
	}
	return ""
}

var oomSubKindText = map[string]string{
	"device_capacity":       "the request is larger than the device's total capacity: not a leak; on APUs/UMA the capacity is the GTT/TTM carve-out",
	"per_process_cap":       "a per-process memory fraction cap is hit while the device has free memory",
	"fragmentation":         "reserved-but-unallocated memory is large compared with the request: allocator fragmentation",
	"exhaustion":            "PyTorch itself holds almost all device memory: genuine exhaustion (batch / model / KV cache too large)",
	"other_tenants":         "almost no memory is free while PyTorch holds little: another process uses the GPU",
	"driver_or_uma_refusal": "more memory is free than requested yet the allocation failed: driver / UMA refusal",
}

// parseSize converts "6.64 GiB" to bytes (−1 when unparsable).
func parseSize(s string) float64 {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return -1
	}
	unit := strings.TrimSpace(s[i:])
	mult := map[string]float64{"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[unit]
	if mult == 0 {
		return -1
	}
	return v * mult
}

func (p *torchParser) assert(l *line, m []string) {
	s := p.s
	s.format("device_assert_printf")
	a := s.b.add(s, ClassDeviceAssert, l, 0.95)
	fn := strings.TrimSpace(m[3])
	file := m[1]
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	kernel := fn
	if fn == "operator()" || fn == "operator ()" {
		kernel = ""
	}
	a.setKernel(kernel, "device assert message", 75)
	a.setStr(&a.f.Location, file+":"+m[2]+" in "+fn)
	a.addReason("Assertion `" + clip(m[10], 200) + "` failed")
	cond := m[10]
	if q := strings.Index(cond, `"`); q >= 0 {
		msg := strings.Trim(cond[q:], `"`)
		a.detail("assert_message", msg)
		if a.f.KernelMeaning == "" {
			if op := strings.Index(msg, "():"); op > 0 {
				a.f.KernelMeaning = "Tensor." + strings.TrimSpace(msg[:op]) + " with an out-of-bounds index" // e.g. index_copy_
			}
		}
	}
	if p.asserts == nil {
		p.asserts = map[string]*assertGroup{}
	}
	key := file + ":" + m[2]
	g := p.asserts[key]
	if g == nil {
		if len(p.asserts) >= 16 {
			return
		}
		g = &assertGroup{threads: map[string]bool{}, blocks: map[string]bool{}}
		p.asserts[key] = g
	}
	g.n++
	if len(g.threads) < 4096 {
		g.threads[m[7]+","+m[8]+","+m[9]] = true
	}
	if len(g.blocks) < 4096 {
		g.blocks[m[4]+","+m[5]+","+m[6]] = true
	}
	a.details["assert_lines"] = strconv.Itoa(g.n)
	a.details["assert_threads"] = strconv.Itoa(len(g.threads))
	a.details["assert_blocks"] = strconv.Itoa(len(g.blocks))
}

// errorText handles "<HIP|CUDA> error: <string>", hipErrorX/cudaErrorX names
// and the plain runtime strings.
func (p *torchParser) errorText(l *line) {
	s := p.s
	t := l.text
	if strings.Contains(t, "Triton Error [") {
		// Triton's driver wraps the HIP/CUDA error of loading or launching
		// its own code object: triton.go's rule reads it (a code object that
		// does not load is a Triton cache / compile failure, not the arch)
		return
	}
	x := extractTorchError(t)
	var e *hipErr
	if x.text != "" {
		e = lookupHIPText(x.text)
		if e == nil && strings.Contains(x.text, "out of memory") {
			e = lookupHIPName("hipErrorOutOfMemory")
		}
	}
	if x.search != "" {
		// the search hint names the error precisely; attach to the finding of that class
		if e2 := lookupHIPName(x.search); e2 != nil {
			if a := s.b.get(e2.class); a != nil && e2.class != "" {
				a.evidence(l.ev(s))
				if a.f.HIPError == "" || a.f.HIPError != e2.name {
					a.f.HIPError, a.f.HIPErrorCode = e2.name, intp(e2.code)
				}
				if strings.HasPrefix(x.search, "cuda") {
					a.f.CUDAError = x.search
				}
				return
			}
			e = e2
		}
	}
	if e == nil && x.name != "" {
		e = lookupHIPName(x.name)
	}
	if e == nil && x.phrase != "" {
		e = lookupHIPText(x.phrase)
	}
	cudaReading := false
	if x.cuda || e == nil { // an error only CUDA has is CUDA's, whoever prints it ("[CUDA] Error: …")
		text := x.text
		if text == "" {
			text = x.phrase
		}
		if c := lookupCUDA(e, text); c != nil {
			cudaReading = e != nil && e.name != "" // HIP reads it otherwise: finalize may restore that
			e = c
		}
	}
	if e != nil && e.name == "hipErrorFileNotFound" && !commandLike(t) {
		s.blasFailed(l, true) // blaslib.go
	}
	if e != nil && e.name == "hipErrorInvalidValue" && x.text != "" && p.invalidValue == nil && !commandLike(t) {
		p.invalidValue = keepLine(l) // endFile rules on it
	}
	if e == nil || e.class == "" {
		// an error the HIP table lacks or reads as nothing: CUDA's own
		// catalog (cudaerr.go) — hardware stack error, NVLink, fabric
		// manager, a PTX from a newer toolkit …
		if c, ok := extractCUDAError(t); ok && !commandLike(t) {
			s.applyCUDAError(l, c)
		}
		return
	}
	if e.name == "hipErrorInvalidValue" {
		return
	}
	s.format("torch_runtime_error")
	conf := 0.85
	if e.class == ClassNotGPU {
		conf = 0.6
	}
	a := s.b.add(s, e.class, l, conf)
	if l.rank < 0 {
		// the watchdog thread that found the error names its rank (nccl.go)
		if r := extractWatchdogThreadRank(t); r >= 0 {
			a.rank(r)
		}
	}
	if e.name != "" {
		a.setHIP(e)
	} else if a.f.CUDAError == "" {
		a.f.CUDAError = e.cuda // a CUDA-only reading names no HIP error
	}
	if cudaReading {
		a.cudaReadings++
	}
	if x.cudaName != "" {
		a.f.CUDAError = x.cudaName
		// a cudaError* enum name is the CUDA runtime's own: ROCm builds
		// name hipError* (their "CUDA error: …" text decides nothing)
		a.detail("runtime", "CUDA")
	}
	if x.text != "" {
		a.detail("error_text", x.text)
	}
	if e.class == ClassGPUMemoryFault {
		a.addReason(e.text)
	}
	if e.class == ClassDeviceAssert {
		a.addReason(e.text)
	}
}

// Extractors (doc.go, Layering): pure functions from one line's text to a
// typed fact; they keep no session state and never decide a class.

// reMemAPICall: a runtime memory call written as a call — llama.cpp's
// "cudaMemcpyAsync((char *)tensor->data + offset, …)", an API trace's
// "hipMemcpy ( 0x7f…, …)", "cuMemAlloc_v2(" — not the word in prose.
var reMemAPICall = lazyre.New(`\b(?:cuda|hip|cu)(?:Memcpy|Memset|Malloc|MemAlloc|HostRegister|HostAlloc|Free)\w* ?\(`)

// extractMemAPICall reports a line naming a runtime memory API call.
func extractMemAPICall(t string) bool {
	return containsAny(t, "Memcpy", "Memset", "Malloc", "MemAlloc", "HostRegister", "HostAlloc", "Free") && reMemAPICall.MatchString(t)
}

// traceFrame is one Python traceback frame:
// `  File "generate.py", line 70, in <module>`.
type traceFrame struct{ file, line, fn string }

func (f traceFrame) loc() string { return f.file + ":" + f.line + " in " + f.fn }

func extractTraceFrame(t string) (traceFrame, bool) {
	m := rePyFrame.FindStringSubmatch(t)
	if m == nil {
		return traceFrame{}, false
	}
	return traceFrame{file: m[1], line: m[2], fn: m[3]}, true
}

// extractPyException returns the line (clipped) when it is a Python
// exception line "<Name>Error: text" starting at column 0.
func extractPyException(t string) (string, bool) {
	if len(t) == 0 || t[0] == ' ' || !containsAny(t, "rror:", "xception:", "Interrupt:", "rror ", "xception ") {
		return "", false
	}
	if !rePyExc.MatchString(t) {
		return "", false
	}
	return clip(t, 300), true
}

// extractLaunchBlocking reports a CUDA_LAUNCH_BLOCKING / HIP_LAUNCH_BLOCKING
// / AMD_SERIALIZE_KERNEL setting that is in effect (raw is the unnormalized
// line). The runtime's own "For debugging consider passing …" hint is a
// suggestion, not a setting.
func extractLaunchBlocking(raw, t string) bool {
	return containsAny(raw, "_LAUNCH_BLOCKING=", "AMD_SERIALIZE_KERNEL=") && reLaunchBlock.MatchString(raw) && !strings.Contains(t, "consider passing")
}

// extractAsyncHint: the runtime's "kernel errors might be asynchronously
// reported at some other API call" (the stack may not be the failing one).
func extractAsyncHint(t string) bool {
	return strings.Contains(t, "might be asynchronously reported")
}

// errorBeforeHint: the line holds an error ("CUDA error: …", "HIP error:
// …") before the asynchronous-report hint, as when a traceback's lines were
// joined into one (an issue title, a logged exception repr with "\n"
// escapes) — the error is read, not dropped with the hint.
func errorBeforeHint(t string) bool {
	i := strings.Index(t, "might be asynchronously reported")
	if i < 0 {
		return false
	}
	h := strings.ToLower(t[:i])
	return strings.Contains(h, "error:") || strings.Contains(h, "error ")
}

// extractDebugSetting returns the setting of "For debugging consider
// passing AMD_SERIALIZE_KERNEL=3" ("" when the line holds none).
func extractDebugSetting(t string) string { return submatch(reForDebug, t) }

// extractAllocatorNVMLAssert: "NVML_SUCCESS == r INTERNAL ASSERT FAILED at
// "…/c10/cuda/CUDACachingAllocator.cpp":830" (also "== DriverAPI::get()->
// nvml…()"), PyTorch 2.1+'s out-of-memory path failing in its NVML query.
func extractAllocatorNVMLAssert(t string) bool {
	i := strings.Index(t, "NVML_SUCCESS ==")
	return i >= 0 && strings.Contains(t[i:], "INTERNAL ASSERT FAILED") && strings.Contains(t[i:], "CUDACachingAllocator")
}

// torchErrFact is what a "<HIP|CUDA> error: …" line, its "Search for
// `hipError…'" hint or a bare runtime error name / phrase says.
type torchErrFact struct {
	cuda     bool   // CUDA's wording ("CUDA error: ", THCudaCheck, a cudaError / CUDA_ERROR_ name)
	text     string // after "HIP error: " / "CUDA error: "
	search   string // the name in "Search for `hipErrorX'"
	name     string // the first hipError*/cudaError* name (not on an API trace "Returned" line)
	phrase   string // a known runtime error phrase
	cudaName string // the first error name when it is a cudaError* one
}

// torchErrPhrases are runtime error texts read wherever they stand on a
// line the parser sees: CUDA's own, then every hipError_t text of a class
// long enough to be the runtime's words and no one else's (hipPhrases).
var torchErrPhrases = append([]string{"device-side assert triggered", "an illegal memory access was encountered", "invalid device function", "no kernel image is available for execution on the device", "device kernel image is invalid", "unspecified launch failure", "the launch timed out and was terminated", "uncorrectable ECC error encountered", "misaligned address", "an illegal instruction was encountered"}, hipPhrases(24)...)

func extractTorchError(t string) torchErrFact {
	var x torchErrFact
	if m := findIf(t, " error: ", reTorchErr); m != nil {
		x.text = m[2]
		x.cuda = m[1] == "CUDA"
	}
	// THC's "cuda runtime error (4) : …" and the driver API's CUDA_ERROR_X
	// names are CUDA's own wordings too
	if containsAny(t, "THCudaCheck", "cudaError", "CUDA_ERROR_", "cuda runtime error (") {
		x.cuda = true
	}
	if !x.cuda && namesCUDAOnly(t) {
		// any other wrapper that names CUDA and not HIP — Caffe's "Cuda
		// kernel failed. Error: …", MatConvNet's "CUDA kernel error (…)",
		// darknet's "CUDA Error: …", RELION's "KERNEL_ERROR: … in
		// …/cuda_helper_functions.cu": the error is CUDA's, where a launch
		// failure is a crashed kernel and not ROCm's trap
		x.cuda = true
	}
	x.search = submatchIf(t, "Search for `", reSearchFor)
	if !strings.Contains(t, "Returned ") {
		x.name = errName(t)
		if x.name == "" {
			// the driver API's name alone: Numba's "Call to cuMemcpyDtoH
			// results in CUDA_ERROR_LAUNCH_TIMEOUT", TensorFlow's
			// "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"
			x.name = submatchIf(t, "CUDA_ERROR_", reDriverErrName)
		}
	}
	for _, ph := range torchErrPhrases {
		if strings.Contains(t, ph) {
			x.phrase = ph
			break
		}
	}
	if strings.Contains(t, "cudaError") || strings.Contains(t, "CUDA error") {
		if m := reErrName.FindStringSubmatch(t); m != nil && strings.HasPrefix(m[1], "cuda") {
			x.cudaName = m[1]
		}
	}
	return x
}

// namesCUDAOnly: the line says "cuda" (any case, a word, an API or a path)
// and nothing on it says HIP — a hipified build prints both.
func namesCUDAOnly(t string) bool {
	return containsFoldASCII(t, "cuda") && !reHIPWord.MatchString(t)
}

// extractHostAssert: glibc's assert() message from host code ("prog:
// file:line: function: Assertion `cond' failed."), which a device assert's
// block/thread coordinates and "Device-side assertion" set apart.
//
// A host assertion wrapped by its printer (LLVM's, inside Triton's or a
// compiler's process: "…/Casting.h:650:" and the function on the lines
// before) leaves "Assertion `cond' failed." alone on its line; glibc's
// quoting — a backtick closed by an apostrophe — tells it from CUDA's
// device assert ("Assertion `cond` failed.", backticks both sides).
func extractHostAssert(t string) bool {
	if strings.Contains(t, "block: [") || strings.Contains(t, "Device-side") {
		return false
	}
	return reHostAssert.MatchString(t) || reBareHostAssert.MatchString(t)
}

// assertLineRE is reAssertLine's match with the condition in group 10
// whichever alternative (backticks or none) matched.
func assertLineRE(t string) (m [11]string, ok bool) {
	r := reAssertLine.FindStringSubmatch(t)
	if r == nil {
		return m, false
	}
	copy(m[:], r[:11])
	if r[10] == "" {
		m[10] = r[11]
	}
	return m, true
}

// matchAssertLine matches reAssertLine and returns its submatches like
// FindStringSubmatch:
//
//	^(.*?):(\d+): ([^:]+(?:::[^:]+)*?): block: \[(\d+),(\d+),(\d+)\], thread: \[(\d+),(\d+),(\d+)\] Assertion (?:`(.*)` failed|([^`].*) failed)
//
// Group 1 is lazy: every ':' is tried in order as its end. Past it the
// pattern is deterministic: maximal digit runs, a function name made of
// non-colon runs joined by "::" that ends at ": block: [", and the
// condition (greedy) ends at the last "` failed" — or, when a markdown
// paste ate the backticks, at the last " failed" (assertLineRE's group 10).
func matchAssertLine(t string) (m [11]string, ok bool) {
	if strings.IndexByte(t, '\n') >= 0 { // '.' does not match a newline (lines have none)
		return assertLineRE(t)
	}
	for p := 0; p < len(t); p++ {
		if t[p] != ':' {
			continue
		}
		d := digitsFrom(t, p+1)
		if d == p+1 || !strings.HasPrefix(t[d:], ": ") {
			continue
		}
		q := d + 2
		i, fn := q, -1
		for {
			r := i
			for r < len(t) && t[r] != ':' {
				r++
			}
			if r == i {
				break
			}
			if strings.HasPrefix(t[r:], ": block: [") {
				fn = r
				break
			}
			if !strings.HasPrefix(t[r:], "::") {
				break
			}
			i = r + 2
		}
		if fn < 0 {
			continue
		}
		var nums [6]string
		j := fn + len(": block: [")
		good := true
		for k, sep := range [...]string{",", ",", "], thread: [", ",", ",", "] Assertion "} {
			e := digitsFrom(t, j)
			if e == j || !strings.HasPrefix(t[e:], sep) {
				good = false
				break
			}
			nums[k] = t[j:e]
			j = e + len(sep)
		}
		if !good {
			continue
		}
		// the condition between backticks; a markdown paste eats them
		// ("… thread: [2,0,0] Assertion t >= 0 && t < n_classes failed.")
		end, min := "` failed", 0
		if strings.HasPrefix(t[j:], "`") {
			j++
		} else {
			end, min = " failed", 1
		}
		f := strings.LastIndex(t[j:], end)
		if f < min {
			continue
		}
		m = [11]string{t[:f+j+len(end)], t[:p], t[p+1 : d], t[q:fn], nums[0], nums[1], nums[2], nums[3], nums[4], nums[5], t[j : j+f]}
		return m, true
	}
	return m, false
}

// errName is submatch(reErrName, t): every match contains "hipError" or "cudaError".
func errName(t string) string {
	if !strings.Contains(t, "hipError") && !strings.Contains(t, "cudaError") {
		return ""
	}
	if n := submatch(reErrName, t); n != "" {
		return n
	}
	return hipErrorNumberName(t)
}

// hipErrorNumberName: XLA's StreamExecutor prints a HIP status by its
// number alone — "Failed call to hipGetFuncBySymbol: hipError_t(98)",
// "Failed to launch ROCm kernel: … hipError_t(303)" — which names the
// catalog's error of that code ("" for a number the catalog lacks).
func hipErrorNumberName(t string) string {
	m := findIf(t, "hipError_t(", reHIPErrNumber)
	if m == nil {
		return ""
	}
	if e := lookupHIPCode(atoiDef(m[1], -1)); e != nil {
		return e.name
	}
	return ""
}

// torchKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var torchKeywords = []string{"bytes free, ", "what():", "allocate buffer: ", "hipModuleLoad failed", "esource exhausted", "RESOURCE_EXHAUSTED", "from device: ", "kernel image", "Timeout (", "timed out with traceback", "NVML_SUCCESS", "OOM when", "oom when", "CUDA_ERROR_", "CUresult", "CUDA failure", "Cuda failure", "initialize CUDA", "initialize ROCm", "rocblas_status_", "HIPBLAS_STATUS_", "miopenStatus", "CUBLAS_STATUS_", "CUDNN_STATUS_", "CUFFT_", "CUSPARSE_STATUS", "CUSOLVER_STATUS", "CURAND_STATUS", "_STATUS_EXECUTION_FAILED", "_STATUS_ALLOC_FAILED", "File \"", "Traceback (most recent call last)", "Current thread 0x", "Thread 0x", "rror", "xception", "Interrupt:", "fp8", "memory", "ssert", "terminate", "asynchronously", "Fatal", "raised from", "consider passing", "Illegal address", "ILLEGAL_ADDRESS", "Out of memory in ", "OUT_OF_MEMORY in ", " in CUDA queue ", " failed with code", "Err: hip", "Memcpy", "Memset", "Malloc", "MemAlloc", "HostRegister", "HostAlloc"}

// torchRawKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var torchRawKeywords = []string{"_LAUNCH_BLOCKING=", "AMD_SERIALIZE_KERNEL="}

// whatContinues: a line right after the terminate handler's "what():  …"
// that goes on with its message — flush left, not another record of the
// handler or the shell (TuSimple/mx-maskrcnn#98's "cudaMalloc fail" /
// "ed: out of memory", a path ending "(42):" before "error: out of memory").
func whatContinues(t string) bool {
	if t == "" || t[0] == ' ' || t[0] == '\t' {
		return false
	}
	return !strings.HasPrefix(t, "terminate called") && !strings.HasPrefix(t, "what():") && !strings.HasPrefix(t, "Aborted")
}

// readsError reports whether a line reads as a GPU runtime error by itself.
func readsError(t string) bool {
	if x := extractTorchError(t); x.text != "" || x.name != "" || x.phrase != "" {
		return true
	}
	_, ok := extractCUDAError(t)
	return ok
}
