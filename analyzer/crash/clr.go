package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// clrParser reads HIP/CLR runtime messages (docs section 4): queue aborts in
// all wordings, HSA status codes anywhere, the queue-error packet dump and
// AMD_LOG_LEVEL API traces (hipLaunchKernel geometry, "Returned hipErrorX").
type clrParser struct {
	s     *Session
	pkt   packetDump
	abort queueAbort       // the last "Callback: Queue … aborting" (its dump may follow it)
	funcs map[int]*fetched // per pid: functions looked up by name (clrtrace.go)
}

// queueAbort: where a queue abort was read and the finding it made, so a
// "Kernel Name:" dump printed after it (ROCm's order) names its kernel.
type queueAbort struct {
	line  int
	class string
	pid   int
}

type packetDump struct {
	kernel   string
	hwq, swq string
	grid, wg string
	groupSeg string
	privSeg  string
	rw       string
	line     int
	ev       Evidence
	set      bool
}

var (
	reHSAName       = lazyre.New(`HSA_STATUS_[A-Z_]+`)
	reHSACode       = lazyre.New(`code: ?(0x[0-9a-fA-F]+)`)
	reQueueAddr     = lazyre.New(`Queue (0x[0-9a-fA-F]+)`)
	reHSAText       = lazyre.New(`HSA_STATUS_[A-Z_]+: ([^.]*\.?)`)
	reBracketInfo   = lazyre.New(`\[((?:host: [^\]]*, )?GPU index: [^\]]*)\]`)
	reKernelName    = lazyre.New(`Kernel Name: (\S.*)$`)
	reHWq           = lazyre.New(`HWq=(0x[0-9a-fA-F]+)`)
	reSWq           = lazyre.New(`SWq=(0x[0-9a-fA-F]+)`)
	rePktGrid       = lazyre.New(`grid=\[(\d+), ?(\d+), ?(\d+)\], ?workgroup=\[(\d+), ?(\d+), ?(\d+)\]`)
	rePktSeg        = lazyre.New(`private_seg_size=(\d+), ?group_seg_size=(\d+)`)
	rePktRW         = lazyre.New(`rptr=(\d+), ?wptr=(\d+)`)
	reHipLaunch     = lazyre.New(`hipLaunchKernel \( ?(0x[0-9a-fA-F]+|\S+), \{(\d+),(\d+),(\d+)\}, \{(\d+),(\d+),(\d+)\}, [^,]*, (\d+)`)
	reHipModLaunch  = lazyre.New(`hip(?:Ext)?ModuleLaunchKernel \( ?(0x[0-9a-fA-F]+|\S+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+)`)
	reReturned      = lazyre.New(`(\w+): Returned (hip\w+)`)
	reMissingCO     = lazyre.New(`Missing CO for these ISAs ?-? ?(.*)$`)
	reCannotFindCO  = lazyre.New(`Cannot find CO in the bundle.*?for ISA: ?(\S+)`)
	reMissingSymbol = lazyre.New(`Cannot find Symbol with name: ?(\S+)`)
	reNoCompatCO    = lazyre.New(`No compatible code objects? found for: ?(\S+)`)
)

func (p *clrParser) beginFile(*Session) { p.pkt, p.abort, p.funcs = packetDump{}, queueAbort{}, nil }
func (p *clrParser) endFile() {
	p.s.applyOverrideMismatch()
	p.s.applyBuildTargetMismatch()
}

func (p *clrParser) line(l *line) {
	t := l.text
	s := p.s
	if o, ok := extractOverride(t); ok {
		s.noteOverride(l, o)
	}
	if d, ok := extractDeviceArch(t); ok {
		s.noteDeviceArch(l, d)
	}
	if b, ok := extractBuildTargets(t); ok {
		s.noteBuildTargets(l, b)
	}
	if strings.Contains(t, "gfx") {
		s.noteArch(t)
	}
	p.packet(l)
	if f, ok := extractHSAStatus(t); ok {
		p.hsa(l, f)
	}
	if l.hipLevel >= 0 || strings.Contains(t, "Returned hip") || strings.Contains(t, "LaunchKernel (") || strings.Contains(t, "GetFunction (") || strings.Contains(t, "Cannot find the function") {
		p.trace(l)
	}
	if strings.Contains(t, "CO ") || strings.Contains(t, "code object") {
		p.codeObject(l)
	}
	if name, ok := extractMissingDeviceSymbol(t); ok {
		p.missingDeviceSymbol(l, name)
	}
}

// extractMissingDeviceSymbol reads CLR's kernel registration failure,
// "hip_global.cpp:114 : … Cannot find Symbol with name: _Z20GPU_DeviceMap…"
// (DeviceFunc: the host stub registered a kernel the loaded device program
// does not hold), and returns the kernel's symbol.
func extractMissingDeviceSymbol(t string) (string, bool) {
	m := findIf(t, "Cannot find Symbol with name", reMissingSymbol)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// missingDeviceSymbol: the host side knows the kernel (its stub registered
// the name, so it is no typo or mangling slip) but the code object loaded
// for this GPU has no such symbol — the fat binary's slice for this gfx
// target was built without the kernel (a library built for another arch,
// or arch-guarded device code). CLR aborts the process right after.
//
// Two findings, as for Triton's OutOfResources: kernel_not_found is what
// failed (the registered kernel is not in the device program), and
// arch_mismatch its likely root (device code built for other targets, or
// arch-guarded out). A build that drops the kernel for every target (a
// link or RDC slip) fails the same way, so the failure stands on its own.
func (p *clrParser) missingDeviceSymbol(l *line, name string) {
	s := p.s
	s.format("clr_code_object")
	for _, class := range []string{ClassArchMismatch, ClassKernelNotFound} {
		a := s.b.add(s, class, l, 0.75)
		a.setKernel(name, "CLR: no device symbol for the registered kernel", 70)
		a.detail("missing_symbol", name)
		a.addReason("the code object loaded for this GPU has no device code for kernel " + clip(name, 80) + " (Cannot find Symbol with name)")
		if class == ClassKernelNotFound {
			a.f.ConsequenceOf = ClassArchMismatch
			a.note("the kernel's device code is not in the code object CLR loaded for this GPU; when the binary was built for this GPU's gfx target, the kernel was dropped at build or link time instead (check the symbol with llvm-objdump --syms on the code object)")
		} else {
			a.note("the kernel's host stub exists, so the name is right: the device code for this GPU's gfx target is what is missing (a binary or library built only for other targets)")
		}
	}
}

// packetLine is one line of CLR's queue-error / dispatch dump as a typed
// fact: "Kernel Name: k" (or "Couldn't find kernel", a dump without a
// name), "HWq=0x…, SWq=0x…", "grid=[…], workgroup=[…]",
// "private_seg_size=…, group_seg_size=…", "rptr=…, wptr=…".
type packetLine struct {
	start             bool   // the line opens a dump
	kernel            string // its kernel, when named
	hwq, swq          string
	grid, wg          string
	privSeg, groupSeg string
	rw                string
}

func extractPacketLine(t string) (packetLine, bool) {
	if !containsAny(t, "Kernel Name:", "HWq=", "grid=[", "_seg_size=", "rptr=", "Couldn't find kernel") {
		return packetLine{}, false
	}
	var x packetLine
	if m := reKernelName.FindStringSubmatch(t); m != nil {
		x.start, x.kernel = true, strings.TrimSpace(m[1])
	}
	if strings.Contains(t, "Couldn't find kernel") {
		x.start, x.kernel = true, ""
	}
	if m := reHWq.FindStringSubmatch(t); m != nil {
		x.hwq = strings.ToLower(m[1])
	}
	x.swq = submatch(reSWq, t)
	if m := rePktGrid.FindStringSubmatch(t); m != nil {
		x.grid = "[" + m[1] + "," + m[2] + "," + m[3] + "]"
		x.wg = "[" + m[4] + "," + m[5] + "," + m[6] + "]"
	}
	if m := rePktSeg.FindStringSubmatch(t); m != nil {
		x.privSeg, x.groupSeg = m[1], m[2]
	}
	if m := rePktRW.FindStringSubmatch(t); m != nil {
		x.rw = "rptr=" + m[1] + " wptr=" + m[2]
	}
	return x, true
}

// packet assembles the dump's lines (at most 20 lines apart; an HWq line
// opens one without a name) into p.pkt, which the status rule reads.
func (p *clrParser) packet(l *line) {
	x, ok := extractPacketLine(l.text)
	if !ok {
		return
	}
	s := p.s
	if x.start {
		p.pkt = packetDump{kernel: x.kernel, line: l.no, ev: l.ev(s), set: true}
		s.format("clr_queue_error_dump")
		if x.kernel != "" {
			p.dumpAfterAbort(l)
		}
	}
	if !p.pkt.set || l.no-p.pkt.line > 20 {
		if x.hwq == "" {
			return
		}
		p.pkt = packetDump{line: l.no, ev: l.ev(s), set: true}
	}
	pk := &p.pkt
	for _, f := range []struct {
		dst *string
		v   string
	}{{&pk.hwq, x.hwq}, {&pk.swq, x.swq}, {&pk.grid, x.grid}, {&pk.wg, x.wg}, {&pk.privSeg, x.privSeg}, {&pk.groupSeg, x.groupSeg}, {&pk.rw, x.rw}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
}

// hsaFact: an HSA status in a runtime line — by name ("…aborting with
// error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: … code: 0x29", ROCm
// 4.x–7.x) or, in ROCm 3.x's queue abort, by code only
// ("Device::callbackQueue aborting with status: 0x100f",
// ROCm/legacy-rocm-build#1393).
type hsaFact struct {
	name   string // HSA_STATUS_…
	code   string // as printed, "" when absent
	status *hsaStatus
	abort  bool // a queue abort, not a status quoted in passing
	byCode bool // the name was looked up from the code
	quoted bool // the name stands between quotes: a mention, not a print
	// setup: a tool reports the status an HSA API call returned ("hsa api
	// call failure at: …rocminfo.cc:1102" / "Call returned HSA_STATUS_…"):
	// the runtime could not start (permissions, /dev/kfd, unsupported GPU)
	setup bool
	// the line's own facts beside the status
	queue     string // "Queue 0x…" (lower case)
	pid       int    // CLR's stamp "us: [pid:N tid:…]" / "us: N: [tid:…]" anywhere in the line
	host, gpu string // "[host: h, GPU index: g …]"
	kernel    string // "[… kernel: name]"
}

// quotedAt reports whether t[i:j] stands between a pair of the same quote
// characters. The runtimes never quote a status name they print; scripts'
// marker lists, grep patterns and notes do ("if grep -q
// \"HSA_STATUS_ERROR_EXCEPTION\" \"$LOG\"", _FAULT_MARKERS = ("FAILED",
// "HSA_STATUS_ERROR_EXCEPTION", …), 'no "HSA_STATUS_ERROR_EXCEPTION", no OOM
// kill').
func quotedAt(t string, i, j int) bool {
	if i == 0 || j >= len(t) {
		return false
	}
	q := t[i-1]
	return (q == '"' || q == '\'' || q == '`') && t[j] == q
}

var (
	reAbortStatus = lazyre.New(`aborting with status:? ?(0x[0-9a-fA-F]+)`)
	// CLR's log stamp "<us> us: [pid:N tid:0x…]" (ROCm 6+) or "<us> us: N : [tid:0x…]"
	// (ROCm 5): read wherever it stands, since a runner's or a report's
	// prefix ("brax.0 [stderr] ", "[Bug]: ", a backtick) keeps the normaliser
	// from taking it off the line start
	reCLRStampPID = lazyre.New(`\d us:\s*(?:(\d+)\s*: )?\[(?:pid:(\d+) )?tid:0x`)
)

func extractHSAStatus(t string) (hsaFact, bool) {
	f := hsaFact{abort: containsAny(t, "aborting with error", "aborting with status", "Queue error", "callbackQueue")}
	f.setup = !f.abort && strings.Contains(t, "Call returned HSA_STATUS_")
	if strings.Contains(t, "HSA_STATUS_") {
		if loc := reHSAName.FindStringIndex(t); loc != nil {
			f.name = t[loc[0]:loc[1]]
			f.quoted = quotedAt(t, loc[0], loc[1])
		}
		f.code = submatch(reHSACode, t)
		f.status = lookupHSA(f.name)
	} else if c := submatchIf(t, "aborting with status", reAbortStatus); c != "" {
		f.code, f.byCode = c, true
		f.status = lookupHSACode(c)
		if f.status != nil {
			f.name = f.status.fullName()
		}
	}
	if f.status == nil || f.name == "HSA_STATUS_SUCCESS" {
		return hsaFact{}, false
	}
	f.queue = strings.ToLower(submatchIf(t, "Queue 0x", reQueueAddr))
	if m := findIf(t, " us:", reCLRStampPID); m != nil {
		f.pid = atoiDef(m[1]+m[2], 0)
	}
	if m := findIf(t, "GPU index: ", reBracketInfo); m != nil {
		f.host = submatch(reMFEHost, m[1])
		f.gpu = submatch(reMFEGPU, m[1])
		f.kernel = submatch(reMFEKernel, m[1])
	}
	return f, true
}

// hsa is the rule for an HSA status: its table class (codes.go), weaker
// for a trap status (the debug agent tells which trap) and for resource
// exhaustion outside a queue abort; a packet dump printed before it names
// the kernel.
func (p *clrParser) hsa(l *line, f hsaFact) {
	s := p.s
	name, code, st, abort := f.name, f.code, f.status, f.abort
	class := st.class
	if class == "" || f.quoted && !abort {
		return // defeater: a quoted mention is not the runtime's print
	}
	if f.setup {
		return // defeater: a start-up API status (rocminfo) is a setup problem, no GPU failed
	}
	conf := 0.75
	if class == ClassDeviceAssert {
		conf = 0.6
	}
	if class == ClassVRAMOOM && !abort {
		conf = 0.5
	}
	s.format("hsa_status")
	if abort {
		s.format("clr_queue_abort")
	}
	a := s.b.add(s, class, l, conf)
	a.setHSA(name, st.code)
	if f.byCode {
		a.detail("hsa_status_from_code", "the log prints only the code "+code+"; "+name+" is its name")
	}
	if code != "" && !strings.EqualFold(code, st.code) {
		if strings.HasPrefix(strings.ToLower(st.code), strings.ToLower(code)) {
			a.note("the status code is cut in the log (" + code + "); " + name + " is " + st.code)
			s.flag("truncated_fields")
		} else {
			a.detail("hsa_code_printed", code)
		}
	}
	a.detail("hsa_meaning", st.meaning)
	if q := f.queue; q != "" {
		a.addQueue(q)
		if p.pkt.set && p.pkt.kernel != "" && (p.pkt.hwq == q || (p.pkt.hwq == "" && l.no-p.pkt.line < 30)) {
			a.setKernel(p.pkt.kernel, "CLR queue-error packet dump (Kernel Name)", 85)
			a.evidence(p.pkt.ev)
			a.detail("dispatch_grid", p.pkt.grid)
			a.detail("dispatch_workgroup", p.pkt.wg)
			a.detail("group_segment_size", p.pkt.groupSeg)
			a.detail("private_segment_size", p.pkt.privSeg)
			a.detail("queue_pointers", p.pkt.rw)
			a.detail("hw_queue", p.pkt.hwq)
		}
	} else if p.pkt.set && p.pkt.kernel != "" && l.no-p.pkt.line < 30 {
		a.setKernel(p.pkt.kernel, "CLR queue-error packet dump (Kernel Name)", 85)
		a.evidence(p.pkt.ev)
	}
	a.setStr(&a.f.Host, f.host)
	a.detail("gpu_index", f.gpu)
	if f.kernel != "" {
		a.setKernel(f.kernel, "CLR queue abort [kernel: …]", 85)
	}
	pid := l.pid
	if pid == 0 && f.pid > 0 {
		// the stamp a prefix kept from the line start names the line's
		// process, as the normaliser's l.pid would have
		pid = f.pid
		a.linePID = onePID(a.linePID, pid)
	}
	if pid > 0 {
		a.setPID(pid)
	}
	if abort && a.f.Kernel == "" {
		p.abort = queueAbort{line: l.no, class: class, pid: pid}
	}
}

// dumpAfterAbort is the rule for ROCm's order — "Callback: Queue … aborting"
// first, then CLR's dispatch dump "Kernel Name: …" (rocvirtual.cpp) a few
// lines later: the dump names the aborted queue's kernel. Defeated by
// distance (more than 5 lines) or another pid in the prefix.
func (p *clrParser) dumpAfterAbort(l *line) {
	ab := p.abort
	if ab.class == "" || l.no-ab.line > 5 || l.no < ab.line || (ab.pid > 0 && l.pid > 0 && ab.pid != l.pid) {
		return
	}
	p.abort = queueAbort{}
	if a := p.s.b.get(ab.class); a != nil {
		a.setKernel(p.pkt.kernel, "CLR dispatch dump after the queue abort (Kernel Name)", 85)
		a.evidence(p.pkt.ev)
	}
}

func (p *clrParser) trace(l *line) {
	s := p.s
	c, ok := extractCLRTrace(l.text)
	if !ok {
		return
	}
	switch c.kind {
	case ctLaunch:
		lc := c.launch
		lc.ev = l.ev(s)
		if strings.Contains(l.text, "ModuleLaunchKernel") {
			lc.kernel = p.funcs[l.pid].only()
		}
		s.lastLaunch = lc
		return
	case ctGetFunction:
		if p.funcs == nil {
			p.funcs = map[int]*fetched{}
		}
		if p.funcs[l.pid] == nil {
			if len(p.funcs) >= maxFetched*4 {
				return
			}
			p.funcs[l.pid] = &fetched{}
		}
		p.funcs[l.pid].add(c.name)
		return
	case ctNotFound:
		// CLR prints it without the pid prefix on some paths
		for pid, f := range p.funcs {
			if pid == l.pid || l.pid == 0 {
				f.drop(c.name)
			}
		}
		return
	}
	if c.api == "hipModuleGetFunction" {
		// the lookup failed: its name is not a function the process holds
		if f := p.funcs[l.pid]; f != nil {
			f.drop(f.last)
		}
	}
	e := lookupHIPName(c.status)
	if e == nil {
		return
	}
	api := c.api
	launch := strings.Contains(api, "Launch")
	class := e.class
	if e.name == "hipErrorInvalidValue" && launch {
		class = ClassInvalidLaunch
	}
	if e.name == "hipErrorNotReady" || class == "" {
		return
	}
	s.format("amd_log_level")
	a := s.b.add(s, class, l, 0.85)
	a.setHIP(e)
	a.detail("failing_api", api)
	if l.pid > 0 {
		a.setPID(l.pid)
	}
	if launch && s.lastLaunch.set {
		a.evidence(s.lastLaunch.ev)
		s.checkLaunch(a, s.lastLaunch)
		if k := s.lastLaunch.kernel; k != "" && strings.Contains(api, "ModuleLaunch") {
			a.setKernel(k, "the one function the process looked up (hipModuleGetFunction) before the launch", 60)
		}
	}
}

func (p *clrParser) codeObject(l *line) {
	s := p.s
	t := l.text
	var isa string
	switch {
	case strings.Contains(t, "Missing CO for these ISAs"):
		isa = submatch(reMissingCO, t)
	case strings.Contains(t, "Cannot find CO in the bundle"):
		isa = submatch(reCannotFindCO, t)
	case strings.Contains(t, "No compatible code object"):
		isa = submatch(reNoCompatCO, t)
	case strings.Contains(t, "Unable to find code object for all current devices"):
	default:
		return
	}
	s.format("clr_code_object")
	a := s.b.add(s, ClassArchMismatch, l, 0.85)
	if isa != "" {
		a.detail("missing_isa", isa)
	}
}

// findReturned returns the groups of the leftmost match of reReturned
// ((\w+): Returned (hip\w+)) in t. A match needs a word character on both
// sides of the literal; the first occurrence that has them is the leftmost
// match, its group 1 is the whole word run before it and group 2 "hip" and
// the whole word run after it.
func findReturned(t string) (api, name string, ok bool) {
	const lit = ": Returned hip"
	for off := 0; ; {
		i := strings.Index(t[off:], lit)
		if i < 0 {
			return "", "", false
		}
		q := off + i
		off = q + 1
		e := q + len(lit)
		if q == 0 || !isWord(t[q-1]) || e >= len(t) || !isWord(t[e]) {
			continue
		}
		r := q
		for r > 0 && isWord(t[r-1]) {
			r--
		}
		for e < len(t) && isWord(t[e]) {
			e++
		}
		return t[r:q], t[q+len(": Returned ") : e], true
	}
}

// matchHipLaunch returns the submatches of reHipLaunch in t like
// FindStringSubmatch:
//
//	hipLaunchKernel \( ?(0x[0-9a-fA-F]+|\S+), \{(\d+),(\d+),(\d+)\}, \{(\d+),(\d+),(\d+)\}, [^,]*, (\d+)
//
// Matches start at an occurrence of "hipLaunchKernel (", tried in order.
// Group 1 is the longest hex number after "0x" if ", {" follows it, else the
// run of non-space bytes up to ", {" (the only place a greedy \S+ can end
// before ", "); past it every quantifier is followed by a byte it cannot
// take, so the rest is matched in one pass.
func matchHipLaunch(t string) (m [9]string, ok bool) {
	const lit = "hipLaunchKernel ("
	for off := 0; ; {
		i := strings.Index(t[off:], lit)
		if i < 0 {
			return m, false
		}
		st := off + i
		off = st + 1
		g := st + len(lit)
		if g < len(t) && t[g] == ' ' {
			g++
		}
		// alternative 1: 0x[0-9a-fA-F]+
		if strings.HasPrefix(t[g:], "0x") {
			e := g + 2
			for e < len(t) && isHex(t[e]) {
				e++
			}
			if e > g+2 && hipLaunchRest(t, e, &m) {
				m[0], m[1] = t[st:len(t)-len(m[0])], t[g:e]
				return m, true
			}
		}
		// alternative 2: \S+ ending right before ", {"
		e := g
		for e < len(t) && !isSpace(t[e]) {
			e++
		}
		if e-1 > g && t[e-1] == ',' && hipLaunchRest(t, e-1, &m) {
			m[0], m[1] = t[st:len(t)-len(m[0])], t[g:e-1]
			return m, true
		}
	}
}

// hipLaunchRest matches ", {d,d,d}, {d,d,d}, [^,]*, d" at t[i:], filling
// m[2:9]; m[0] is set to the unmatched tail of t.
func hipLaunchRest(t string, i int, m *[9]string) bool {
	if !strings.HasPrefix(t[i:], ", {") {
		return false
	}
	i += 3
	for k, sep := range [...]string{",", ",", "}, {", ",", ",", "}, "} {
		e := digitsFrom(t, i)
		if e == i || !strings.HasPrefix(t[e:], sep) {
			return false
		}
		m[2+k] = t[i:e]
		i = e + len(sep)
	}
	for i < len(t) && t[i] != ',' {
		i++
	}
	if !strings.HasPrefix(t[i:], ", ") {
		return false
	}
	e := digitsFrom(t, i+2)
	if e == i+2 {
		return false
	}
	m[8] = t[i+2 : e]
	m[0] = t[e:]
	return true
}

// clrKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var clrKeywords = []string{"Cannot find Symbol", "aborting with status", "HSA_OVERRIDE_GFX_VERSION", "gfx", "Marketing Name", "Board name", "Card series", "Product Name", "Kernel Name:", "HWq=", "grid=[", "_seg_size=", "rptr=", "Couldn't find kernel", "HSA_STATUS_", "Kernel (", "GetFunction (", "Cannot find the function", "CO ", "code object"}

// clrReturnedKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var clrReturnedKeywords = []string{"Returned hip"}
