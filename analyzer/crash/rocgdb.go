package crash

import (
	"sort"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// rocgdbParser reads rocgdb batch dumps (docs section 7): info agents,
// queues, dispatches (incl. -full and MI records), threads/lanes, stop
// banners with the lane switch, and backtraces. Rows are recognised by the
// shape of their values, not by column positions, so misaligned pastes work.
type rocgdbParser struct {
	s          *Session
	dumps      int // number of "info dispatches" outputs in the file
	dispatches map[string]*dispatchSeen
	stops      []*gdbStop
	pending    []string // queues with Write > Read
	g          gdbState // hang dumps (gdbdump.go)
	attachPID  int
	snapshot   string   // why the file's dumps show no hang ("" when they may; see snapshotOf)
	core       coreTrap // core-file listing (coretrap.go)
}

type dispatchSeen struct {
	target, kernel, fence, queue string
	firstDump, lastDump          int
	n, lineNo                    int
	ev                           Evidence
}

type gdbStop struct {
	thread, name, sig, what string
	gpu                     bool
	imprecise               bool
	wave                    string // agent:queue:dispatch:wave
	workgroup, workItem     string
	lane                    string
	frame, frameFrom        string
	frameFn                 string
	memFn, memFrom          string
	frames                  int
	ev                      Evidence
	l                       *line
	evs                     []Evidence
	insn                    string   // the "=>" row of x/i $pc
	insnEv                  Evidence //
	prevMem                 string   // the last memory instruction listed before the "=>" row
	prevMemEv               Evidence //
	regs                    waveRegs // info registers of the stopped lane's wave
}

// gdbStopWindow: lines after a stop banner read as its context.
const gdbStopWindow = 24

var (
	reGdbDispatch = lazyre.New(`^\*?\s*(\d+)\s+AMDGPU Dispatch (\d+):(\d+):(\d+) \(PKID (\d+)\)\s+(\[[\d,]*\])\s+(\[[\d,]*\])\s+([BAaRs|]+|-)?\s*(?:Shared\(\d+\), Private\(\d+\)\s+(?:0x[0-9a-fA-F]+|\(nil\))\s+(?:0x[0-9a-fA-F]+|\(nil\))\s+(?:0x[0-9a-fA-F]+|\(nil\))\s+)?(.*)$`)
	reGdbQueue    = lazyre.New(`^\*?\s*(\d+)\s+AMDGPU Queue (\d+):(\d+) \(QID (\d+)\)\s+(HSA(?: \(\w+\))?|DMA|XGMI|PM4|Unknown)\s+(?:(\d+)\s+(\d+)\s+)?(\d+)\s+(0x[0-9a-fA-F]+)`)
	reGdbAgent    = lazyre.New(`^\*?\s*(\d+)\s+(?:(\w)\s+)?AMDGPU Agent \(GPUID (\d+)\)\s+(?:(gfx\w+)\s+)?(.*?)\s+(\d+)\s+(\d+)\s+((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)\s*$`)
	// gdb names the thread when the inferior has several ("Thread N "x"
	// received signal"), and says "Program received signal" when it has
	// one; a paste may lose the banner's first letter ("hread 27 …").
	reGdbStop = lazyre.New(`(?:\b[Tt]?hread (\d+)(?: "([^"]*)")?|\bProgram) received signal (SIG\w+|CUDA_EXCEPTION_\d+), ([^.]*)`)
	reGdbLane = lazyre.New(`AMDGPU Lane (\d+:\d+:\d+:\d+)/(\d+) \((\d+,\d+,\d+)\)\[(\d+,\d+,\d+)\]`)
	reGdbWave = lazyre.New(`AMDGPU Wave (\d+:\d+:\d+:\d+) \((\d+,\d+,\d+)\)/(\d+)`)
	// A frame's function may carry its demangled parameter list when there
	// is no debug info ("0x… in gather_kv_pages_kernel(int const*, …) ()
	// from memory://…", "rocr::core::InterruptSignal::WaitRelaxed(…) () from
	// …/libhsa-runtime64.so.1"): the last " (…)" before at/from is the
	// frame's argument list, not the first "(".
	reGdbFrame   = lazyre.New(`^(?:#\d+\s+)?(?:0x[0-9a-fA-F]+ in )?([^\s(].*?) \(([^()]*)\)(?: at (\S+:\d+)| from (\S+))?\s*$`)
	reMIDispatch = lazyre.New(`target-id="AMDGPU Dispatch (\d+:\d+:\d+)[^"]*"[^}]*?kernel-function="([^"]*)"`)
)

func (p *rocgdbParser) beginFile(*Session) {
	p.dumps = 0
	p.dispatches = map[string]*dispatchSeen{}
	p.stops = nil
	p.pending = nil
	p.snapshot = ""
	p.g = gdbState{}
	p.attachPID = 0
	p.core = coreTrap{}
}

func (p *rocgdbParser) line(l *line) {
	t := l.text
	s := p.s
	if len(p.stops) > 0 {
		p.stopContext(l)
	}
	if w := snapshotOf(t); w != "" && p.snapshot == "" {
		p.snapshot = w
	}
	if p.snapshot == "core file" && s.b.facts.corePID == 0 {
		if pid := extractCoreThreadPID(t); pid > 0 {
			s.b.facts.corePID, s.b.facts.corePIDEv = pid, l.ev(s)
		}
	}
	if p.snapshot == "core file" {
		p.coreLine(l)
	}
	if p.dumpLine(l) {
		return
	}
	if !containsAny(t, "AMDGPU", "received signal", "Target Id", "No dispatches", "No queues", "No agents", "dispatches=") {
		return
	}
	switch {
	case strings.Contains(t, "received signal"):
		if b, ok := extractGdbStop(t); ok {
			s.format("gdb_stop")
			st := &gdbStop{thread: b.thread, name: b.name, sig: b.sig, what: b.what, ev: l.ev(s), l: keepLine(l)}
			if strings.HasPrefix(b.sig, "CUDA_EXCEPTION") {
				return // handled by the NVIDIA parser
			}
			if len(p.stops) < 8 {
				p.stops = append(p.stops, st)
			}
		}
	case strings.Contains(t, "Target Id") && strings.Contains(t, "Kernel Function"), strings.Contains(t, "No dispatches are currently active"):
		s.format("rocgdb_info_dispatches")
		p.dumps++
	case strings.Contains(t, "dispatches=["):
		p.dumps++
		for _, d := range extractMIDispatches(t) {
			p.dispatch(l, d.target, d.kernel, d.fence)
		}
	case strings.Contains(t, "AMDGPU Dispatch"):
		if d, ok := extractDispatchRow(t); ok {
			if p.dumps == 0 {
				p.dumps = 1
			}
			p.dispatch(l, d.target, d.kernel, d.fence)
		}
	case strings.Contains(t, "AMDGPU Queue"):
		if q, ok := extractQueueRow(t); ok {
			s.format("rocgdb_info_queues")
			// a queue whose write index is ahead of its read index holds packets the GPU never consumed
			if q.read != "" && atoi64(q.write) > atoi64(q.read) && len(p.pending) < 64 {
				p.pending = append(p.pending, q.id+" ("+q.typ+", read "+q.read+" < write "+q.write+")")
			}
		}
	case strings.Contains(t, "AMDGPU Agent"):
		if _, ok := extractAgentRow(t); ok {
			s.format("rocgdb_info_agents")
		}
	}
}

// gdbStopBanner: "Thread N ["name"] received signal SIGX, What." — rocgdb's
// and gdb's stop banner (cuda-gdb's CUDA_EXCEPTION_N too).
type gdbStopBanner struct {
	thread, name, sig, what string
}

func extractGdbStop(t string) (gdbStopBanner, bool) {
	m := reGdbStop.FindStringSubmatch(t)
	if m == nil {
		return gdbStopBanner{}, false
	}
	return gdbStopBanner{thread: m[1], name: m[2], sig: m[3], what: m[4]}, true
}

// dispatchRow: one dispatch of "info dispatches" (a table row, or an MI
// record's target-id / kernel-function pair).
type dispatchRow struct {
	target string // "agent:queue:dispatch PKID n" (table) or "agent:queue:dispatch" (MI)
	kernel string
	fence  string // "B|Aa|Rs" as printed, "" when absent
	// table rows only
	id, queue, pkid string // "agent:queue:dispatch", "agent:queue", PKID
	grid, workgroup string // "[x,y,z]" as printed
}

func extractDispatchRow(t string) (dispatchRow, bool) {
	m := reGdbDispatch.FindStringSubmatch(t)
	if m == nil {
		return dispatchRow{}, false
	}
	id := m[2] + ":" + m[3] + ":" + m[4]
	return dispatchRow{target: id + " PKID " + m[5], kernel: strings.TrimSpace(m[9]), fence: m[8],
		id: id, queue: m[2] + ":" + m[3], pkid: m[5], grid: m[6], workgroup: m[7]}, true
}

// extractMIDispatches reads up to 64 dispatches of an MI "dispatches=[…]" record.
func extractMIDispatches(t string) []dispatchRow {
	var ds []dispatchRow
	for _, m := range reMIDispatch.FindAllStringSubmatch(t, 64) {
		ds = append(ds, dispatchRow{target: m[1], kernel: m[2]})
	}
	return ds
}

// queueRow: one queue of "info queues"; read and write are the ring
// indices as printed, "" in versions that print neither.
type queueRow struct {
	id, typ     string // "agent:queue", "HSA (Multiple)"
	qid         string
	read, write string
}

func extractQueueRow(t string) (queueRow, bool) {
	m := reGdbQueue.FindStringSubmatch(t)
	if m == nil {
		return queueRow{}, false
	}
	return queueRow{id: m[2] + ":" + m[3], typ: m[5], qid: m[4], read: m[6], write: m[7]}, true
}

func (p *rocgdbParser) dispatch(l *line, target, kernel, fence string) {
	s := p.s
	s.format("rocgdb_info_dispatches")
	key := target + "|" + kernel
	d := p.dispatches[key]
	if d == nil {
		if len(p.dispatches) >= 256 {
			return
		}
		q := target
		if i := strings.LastIndexByte(strings.Fields(target)[0], ':'); i > 0 {
			q = target[:i]
		}
		d = &dispatchSeen{target: target, kernel: kernel, fence: fence, queue: q, firstDump: p.dumps, ev: l.ev(s)}
		p.dispatches[key] = d
	}
	d.lastDump = p.dumps
	d.n++
	d.lineNo = l.no
}

// stopContext reads the lines after a stop banner: precise-memory warning,
// lane/wave switch, first frame.
func (p *rocgdbParser) stopContext(l *line) {
	st := p.stops[len(p.stops)-1]
	if l.no-st.l.no > gdbStopWindow || st.frames >= 4 {
		return
	}
	t := strings.TrimSpace(l.text)
	add := false
	switch {
	case strings.HasPrefix(t, "=>"):
		if m := reGdbInsnRow.FindStringSubmatch(t); m != nil && st.insn == "" {
			st.insn, st.insnEv = strings.TrimSpace(m[1]), l.ev(p.s)
		}
		return
	case readGdbReg(t, &st.regs):
		return
	case st.insn == "" && strings.HasPrefix(t, "0x"):
		// x/Ni $pc-K rows before the stop row: the access an imprecise
		// pc (on the s_waitcnt after it) stands for
		if m := reGdbListRow.FindStringSubmatch(t); m != nil {
			if _, ok := parseStopInsn(m[2]); ok {
				st.prevMem, st.prevMemEv = strings.TrimSpace(m[2]), l.ev(p.s)
				return
			}
		}
	}
	if l.no-st.l.no > 12 {
		return
	}
	switch {
	case strings.Contains(t, "precise memory violation signal reporting is not enabled"), strings.Contains(t, "precise ALU exception reporting is not enabled"):
		st.gpu, st.imprecise, add = true, true, true
	case strings.HasPrefix(t, "[Switching to thread"):
		if m := reGdbLane.FindStringSubmatch(t); m != nil {
			st.gpu, st.wave, st.lane, st.workgroup, st.workItem = true, m[1], m[2], m[3], m[4]
		} else if m := reGdbWave.FindStringSubmatch(t); m != nil {
			st.gpu, st.wave, st.workgroup = true, m[1], m[2]
		}
		add = true
	default:
		if m := reGdbFrame.FindStringSubmatch(t); m != nil && (strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "#")) {
			st.frames++
			if st.frame == "" {
				st.frameFn = strings.TrimSpace(m[1])
				st.frame = st.frameFn
				if m[3] != "" {
					st.frame += " at " + m[3]
				}
				st.frameFrom = m[4]
			}
			if st.memFn == "" && (strings.HasPrefix(m[4], "memory://") || strings.HasPrefix(m[4], "file://")) {
				st.memFn, st.memFrom = strings.TrimSpace(m[1]), m[4]
			}
			add = true
		}
	}
	if add && len(st.evs) < 6 {
		st.evs = append(st.evs, l.ev(p.s))
	}
}

func (p *rocgdbParser) endFile() {
	s := p.s
	for _, st := range p.stops {
		p.resolve(st)
	}
	// a file with a GPU stop is a crash, not a hang: its dumps only name
	// the kernel of the stopped wave; a core file or a session stopped at the
	// user's breakpoint shows waves frozen by the debugger, not stuck ones
	if len(p.stops) > 0 || p.snapshot != "" {
		for _, d := range s.b.facts.inc.gdbDumps {
			if d.file != s.fileName(s.cur.idx) {
				continue
			}
			d.crash = true
			if p.snapshot == "core file" {
				// the core's waves are the ones the process died with: their
				// kernel is the crash's suspect
				for _, id := range d.waveIDs {
					if w := d.waves[id]; w.fn != "" {
						s.kernelHintEv(w.fn, "rocgdb: AMDGPU wave in the core file", 65, w.ev)
					}
				}
			}
		}
	}
	p.g = gdbState{}
}

func (p *rocgdbParser) resolve(st *gdbStop) {
	s := p.s
	if !st.gpu {
		if st.sig == "SIGSEGV" || st.sig == "SIGBUS" {
			a := s.b.add(s, ClassHostSegfault, st.l, 0.6)
			a.setStr(&a.f.Signal, st.sig)
			a.setStr(&a.f.Location, st.frame)
			a.detail("source", "gdb stop on a host thread")
		}
		return
	}
	class := ""
	switch st.sig {
	case "SIGSEGV", "SIGBUS":
		class = ClassGPUMemoryFault
	case "SIGILL":
		class = ClassIllegalInstruction
	case "SIGFPE", "SIGTRAP", "SIGABRT":
		class = ClassDeviceAssert
	}
	if class == "" {
		return
	}
	s.format("rocgdb_gpu_stop")
	a := s.b.add(s, class, st.l, 0.85)
	a.strong = true
	for _, e := range st.evs {
		a.evidence(e)
	}
	a.setStr(&a.f.Signal, st.sig)
	a.addReason(st.sig + " on an AMDGPU wave (" + st.what + ")")
	a.setStr(&a.f.Location, st.frame)
	a.detail("gdb_thread", st.thread)
	if class == ClassGPUMemoryFault && st.insn != "" {
		insn, ev := st.insn, st.insnEv
		if _, ok := parseStopInsn(insn); !ok && st.prevMem != "" {
			// without precise memory the pc is past the faulting access,
			// typically on the s_waitcnt that waits for it: the listed
			// memory instruction before the pc is the access
			insn, ev = st.prevMem, st.prevMemEv
			a.detail("access_instruction", insn)
		}
		s.b.facts.addStopAddr(insn, &st.regs, atoiDef(st.lane, -1), ev)
	}
	a.detail("wave", st.wave)
	a.detail("lane", st.lane)
	a.detail("workgroup", st.workgroup)
	a.detail("work_item", st.workItem)
	if st.imprecise {
		a.note("rocgdb: precise memory reporting was off, so the reported location may be after the faulting instruction (set amdgpu precise-memory on)")
	}
	// the dispatch the wave belongs to names the kernel: nearest listing
	// after the stop, else nearest before
	if st.wave != "" {
		parts := strings.Split(st.wave, ":")
		if len(parts) == 4 {
			prefix := strings.Join(parts[:3], ":") + " "
			var best *dispatchSeen
			score := func(d *dispatchSeen) int {
				if d.lineNo >= st.l.no {
					return d.lineNo - st.l.no
				}
				return 1<<20 + st.l.no - d.lineNo
			}
			for _, k := range sortedDispatchKeys(p.dispatches) {
				d := p.dispatches[k]
				if strings.HasPrefix(d.target, prefix) && (best == nil || score(d) < score(best)) {
					best = d
				}
			}
			if best != nil {
				a.setKernel(best.kernel, "rocgdb info dispatches (dispatch of the stopped wave)", 65)
				a.evidence(best.ev)
			}
		}
	}
	if st.memFn != "" {
		a.setKernel(st.memFn, "rocgdb frame without debug info (code object "+st.memFrom+")", 60)
		if a.f.CodeObject == "" {
			a.f.CodeObject = st.memFrom
			a.f.SavedCodeObject = savedCodeObjectName(st.memFrom)
		}
	}
}

func sortedDispatchKeys(m map[string]*dispatchSeen) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// snapshotOf: the line shows the debugger froze the process itself, so the
// dispatches and waves it lists are no evidence of a hang — GDB on a core
// file ("Core was generated by `…'." then "Program terminated with signal
// SIGABRT, Aborted.", ROCm/ROCgdb#216, ROCm/ROCgdb#85), a stop at the
// user's breakpoint ("Thread 68 hit Breakpoint 1, with lanes [0-63], …"),
// an inferior that ran to its end ("[Inferior 1 (process N) exited
// normally]", gdb's infrun wording).
func snapshotOf(t string) string {
	switch {
	case strings.HasPrefix(t, "Core was generated by "):
		return "core file"
	case strings.Contains(t, " hit Breakpoint ") || strings.Contains(t, " hit Temporary breakpoint "):
		return "breakpoint stop"
	case strings.HasPrefix(t, "[Inferior ") && strings.HasSuffix(strings.TrimSpace(t), "exited normally]"):
		return "exited normally"
	}
	return ""
}

var reCoreCurrent = lazyre.New(`^\[Current thread is 1 \((?:.*\()?LWP (\d+)\)`)

// extractCoreThreadPID: gdb's "[Current thread is 1 (Thread 0x7f… (LWP
// 88102))]" (without libthread_db: "[Current thread is 1 (LWP 28198)]") on a
// core — thread 1's LWP is the process id.
func extractCoreThreadPID(t string) int {
	if !strings.HasPrefix(t, "[Current thread is 1 ") {
		return 0
	}
	return atoiDef(submatch(reCoreCurrent, t), 0)
}

// rocgdbKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var rocgdbKeywords = []string{"gdb ", "AMDGPU", "received signal", "Target Id", "No dispatches", "No queues", "No agents", "dispatches=", "Attaching to", ") detached]", "queues=[", "agents=[", "thread-group-started", "Core was generated by ", "[Current thread is 1 ", " hit Breakpoint ", " hit Temporary breakpoint ", "exited normally]", "==="}
