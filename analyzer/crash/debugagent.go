package crash

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// agentParser reads rocm-debug-agent wave dumps (docs section 2) in every
// header version, register blocks (incl. lane-indexed vector registers),
// local memory, disassembly blocks with the "=>" stop line and code-object
// URIs. Headers are found by anchored search anywhere in a line so that
// character-interleaved output from several processes still yields waves.
type agentParser struct {
	s        *Session
	byClass  map[string]*waveAgg
	blocks   []*disasmBlock // bounded, session-wide
	dis      *disasmBlock   // open block
	regClass string
	first    *waveInfo // representative wave of the current file
	cur      string    // kernel of the wave whose registers are being read
	regs     regReader
	running  int
	stopped  int
	runWaves []runningWave // running waves not yet ruled (endFile)
	quitPID  int           // the pid a "kill -s SIGQUIT N" of this file named (sigquitpid.go)
}

// runningWave: one "(running)" header, held until the file ends — with a
// stopped wave beside it, it is an --all bystander, not a hang.
type runningWave struct {
	ev     Evidence
	rank   int
	kernel string
}

type waveAgg struct {
	n       int
	pcs     map[string]*pcStat
	reasons map[string]int
	kernels map[string]int
	cls     string
}

type pcStat struct {
	n      int
	kernel string
	val    uint64
}

type waveInfo struct {
	id, pc, kernel, reason, exec, lanes string
	localMem                            string
}

type disasmBlock struct {
	function   string
	codeObject string
	lo, hi     uint64
	stopPC     string
	stopInsn   string
	stopOff    string
	rows       []string
	after      int
	ev         Evidence
	hasStop    bool
}

var (
	reWaveHead   = lazyre.New(`wave_(\d+): ?pc=(0x[0-9a-fA-F]+)`)
	reStopReason = lazyre.New(`reason: ?([A-Z][A-Z0-9_|]*[A-Z0-9_])`)
	reRegClass   = lazyre.New(`^\s*(\w+) registers:\s*$`)
	reRegCell    = lazyre.New(`\b(exec|pc|trapsts|status|m0|mode): ([0-9a-fA-F]+)\b`)
	reVecLane    = lazyre.New(`\[(\d+)\] [0-9a-fA-F]+`)
	reLocalMem   = lazyre.New(`^\s*Local memory content(?: \((\d+) bytes\))?:`)
	reDisHead    = lazyre.New(`^\s*Disassembly(?: for function (.*))?:\s*$`)
	reCodeObject = lazyre.New(`code object: (\S+)`)
	reLoadedAt   = lazyre.New(`loaded at: \[(0x[0-9a-fA-F]+)-(0x[0-9a-fA-F]+)\]`)
	reDisRow     = lazyre.New(`^\s*(=>)?\s*(0x[0-9a-fA-F]+) <([+-]\d+)>:\s+(.*)$`)
)

func (p *agentParser) beginFile(*Session) {
	p.dis, p.regClass, p.first, p.quitPID = nil, "", nil, 0
	if p.byClass == nil {
		p.byClass = map[string]*waveAgg{}
	}
}

func stopReasonClass(reasons string) string {
	best, rank := "", 99
	for _, r := range strings.Split(reasons, "|") {
		c, k := "", 99
		switch {
		case r == "MEMORY_VIOLATION" || r == "ADDRESS_ERROR":
			c, k = ClassGPUMemoryFault, 0
		case r == "ILLEGAL_INSTRUCTION" || r == "INVALID_OPCODE":
			c, k = ClassIllegalInstruction, 1
		case r == "ASSERT_TRAP" || r == "TRAP":
			c, k = ClassDeviceAssert, 2
		case r == "ECC_ERROR":
			c, k = ClassECCRAS, 3
		case strings.HasPrefix(r, "FP_") || r == "INT_DIVIDE_BY_0":
			c, k = ClassDeviceAssert, 4
		case r == "FATAL_HALT":
			c, k = ClassGPUHangReset, 5
		}
		if c != "" && k < rank {
			best, rank = c, k
		}
	}
	return best
}

func (p *agentParser) line(l *line) {
	t := l.text
	s := p.s
	if p.dis != nil {
		if p.disasmLine(l) {
			return
		}
	}
	if strings.Contains(t, "wave_") && strings.Contains(t, "pc=") {
		p.header(l)
		return
	}
	if pid := extractSigquitTarget(t); pid > 0 {
		p.quitPID = pid
		return
	}
	if r, ok := extractSplicedStop(t); ok {
		p.splicedStop(l, r)
		return
	}
	if strings.HasPrefix(strings.TrimSpace(t), "Disassembly") {
		if m := reDisHead.FindStringSubmatch(t); m != nil {
			p.openDisasm(l, m[1])
			return
		}
	}
	if agentSeparator(t) {
		s.format("rocm_debug_agent")
		return
	}
	if m := findIf(t, " registers:", reRegClass); m != nil {
		p.regClass = m[1]
		return
	}
	if p.first != nil && p.regClass != "" {
		p.register(l)
		p.regs.line(t, p.regClass, func(v uint64) {
			if p.cur != "" {
				p.s.b.facts.regAddrs.add(p.cur, v)
			}
		})
	}
	if strings.Contains(t, "rocm-debug-agent:") || strings.Contains(t, "rocm-dbgapi:") || strings.Contains(t, "Precise memory not supported") {
		s.format("rocm_debug_agent")
		s.b.facts.notes = appendCap(s.b.facts.notes, "debug agent: "+clip(strings.TrimSpace(t), 200), 8)
	}
}

// agentSeparator: the agent prints exactly 56 dashes before every wave
// (debug_agent.cpp; fx01–fx04). Other tools' rules are other widths and say
// nothing about the vendor: FlashInfer's API log draws 80 ("-"×80 under
// each call, fx07 / crash-heldout2 d16), py-spy --subprocesses the terminal
// width, pytest and kubectl their own.
func agentSeparator(t string) bool {
	t = strings.TrimRight(t, " \t")
	return len(t) == 56 && strings.Trim(t, "-") == ""
}

// waveHeader: one "wave_N: pc=0x… [(kernel_code_entry=0x… <sym>,
// kernargs=0x…)] (stopped, reason: R[|R…])" or "… (running)" header, in
// every debug-agent version (the kernel part is absent before ROCm 6.4).
type waveHeader struct {
	id, pc  string // pc lower-cased
	kernel  string // "" when the header has no kernel_code_entry symbol
	reason  string // "|"-joined stop reasons as printed, "" when none
	running bool   // "(running)" in the header's own segment
}

// extractWaveHeaders reads every wave header on a line. Interleaved output
// from several processes can put several on one line, or text before the
// first: spliced says so. A header whose own segment holds neither a reason
// nor "(running)" was cut; its reason is looked for anywhere after it.
func extractWaveHeaders(t string) (hs []waveHeader, spliced bool) {
	all := reWaveHead.FindAllStringSubmatchIndex(t, -1)
	if all == nil {
		return nil, false
	}
	spliced = len(all) > 1 || strings.TrimLeft(t[:all[0][0]], " \t") != ""
	for i, m := range all {
		end := len(t)
		if i+1 < len(all) {
			end = all[i+1][0]
		}
		seg := t[m[0]:end]
		h := waveHeader{id: t[m[2]:m[3]], pc: strings.ToLower(t[m[4]:m[5]]), kernel: headerKernel(seg)}
		h.reason = submatch(reStopReason, seg)
		h.running = strings.Contains(seg, "(running)")
		if h.reason == "" && !h.running {
			h.reason = submatch(reStopReason, t[m[0]:])
		}
		hs = append(hs, h)
	}
	return hs, spliced
}

// extractSplicedStop: a "(stopped, reason: X)" whose wave header was
// spliced away by interleaving. ok says the line has that shape; reason is
// "" when no reason token survived.
func extractSplicedStop(t string) (reason string, ok bool) {
	if !strings.Contains(t, "reason: ") || !strings.Contains(t, "stopped") {
		return "", false
	}
	return submatch(reStopReason, t), true
}

// splicedStop: a stop reason without its wave still names the class, at a
// lower confidence, and marks the input interleaved.
func (p *agentParser) splicedStop(l *line, r string) {
	if r == "" {
		return
	}
	c := stopReasonClass(r)
	if c == "" {
		return
	}
	s := p.s
	s.flag("interleaved")
	a := s.b.add(s, c, l, 0.7)
	a.addReason(r)
	a.strong = true
}

func (p *agentParser) header(l *line) {
	hs, spliced := extractWaveHeaders(l.text)
	if hs == nil {
		return
	}
	s := p.s
	s.format("rocm_debug_agent")
	if spliced {
		s.flag("interleaved")
	}
	for _, h := range hs {
		p.wave(l, h)
	}
}

// wave is the rule for one header: a running wave (SIGQUIT dump) is a hang
// candidate; a stopped wave's reasons decide its class; the first stopped
// wave of a file is the representative whose registers are read.
func (p *agentParser) wave(l *line, h waveHeader) {
	s := p.s
	if h.running && h.reason == "" {
		p.running++
		agg := p.agg("running")
		p.note(agg, h.pc, h.kernel, "running")
		if len(p.runWaves) < 1024 {
			p.runWaves = append(p.runWaves, runningWave{ev: l.ev(s), rank: l.rank, kernel: h.kernel})
		}
		return
	}
	cls := stopReasonClass(h.reason)
	if cls == "" && h.reason == "" && h.kernel != "" {
		// a header the paste cut before its state still names the kernel
		// (the class comes from the runtime's queue-error line)
		s.kernelHint(h.kernel, "debug-agent wave header cut by the paste", 55, l)
	}
	if cls == "" {
		return
	}
	p.stopped++
	agg := p.agg(cls)
	p.note(agg, h.pc, h.kernel, h.reason)
	a := s.b.add(s, cls, l, 0.95)
	a.strong = true
	for _, r := range strings.Split(h.reason, "|") {
		a.addReason(r)
	}
	a.setKernel(h.kernel, "rocm-debug-agent wave header", 90)
	p.cur = h.kernel
	p.regs.reset()
	if p.first == nil {
		p.first = &waveInfo{id: h.id, pc: h.pc, kernel: h.kernel, reason: h.reason}
		a.detail("representative_wave", "wave_"+h.id+" pc="+h.pc)
	}
}

// headerKernel extracts the symbol from "(kernel_code_entry=0x… <sym>, kernargs=0x…)".
func headerKernel(seg string) string {
	i := strings.Index(seg, "kernel_code_entry=")
	if i < 0 {
		return ""
	}
	rest := seg[i+len("kernel_code_entry="):]
	j := strings.IndexAny(rest, " ,)")
	if j < 0 || !strings.HasPrefix(rest[j:], " <") {
		return ""
	}
	sym := rest[j+2:]
	k := strings.LastIndex(sym, ">, kernargs=")
	if k < 0 {
		k = strings.LastIndex(sym, ">)")
	}
	if k < 0 {
		k = strings.LastIndex(sym, ">")
	}
	if k < 0 {
		k = len(sym)
	}
	return strings.TrimSpace(sym[:k])
}

func (p *agentParser) agg(cls string) *waveAgg {
	a := p.byClass[cls]
	if a == nil {
		a = &waveAgg{pcs: map[string]*pcStat{}, reasons: map[string]int{}, kernels: map[string]int{}, cls: cls}
		p.byClass[cls] = a
	}
	return a
}

func (p *agentParser) note(a *waveAgg, pc, kernel, reason string) {
	a.n++
	if len(a.reasons) < 32 {
		a.reasons[reason]++
	}
	if kernel != "" && (len(a.kernels) < 32 || a.kernels[kernel] > 0) {
		a.kernels[kernel]++
	}
	st := a.pcs[pc]
	if st == nil {
		if len(a.pcs) >= 64 {
			return
		}
		v, _ := addrValue(pc)
		st = &pcStat{val: v}
		a.pcs[pc] = st
	}
	st.n++
	if st.kernel == "" {
		st.kernel = kernel
	}
}

func (p *agentParser) register(l *line) {
	t := l.text
	w := p.first
	if p.regClass == "vector" {
		if w.lanes == "" && strings.Contains(t, "[0] ") {
			if all := reVecLane.FindAllStringSubmatch(t, -1); len(all) > 0 {
				maxLane := atoiDef(all[len(all)-1][1], 0)
				if maxLane >= 32 {
					w.lanes = "wave64"
				} else if maxLane > 0 && !strings.Contains(t, "...") {
					w.lanes = "wave32"
				}
			}
		}
		return
	}
	for _, m := range reRegCell.FindAllStringSubmatch(t, -1) {
		if m[1] == "exec" && w.exec == "" {
			w.exec = "0x" + m[2]
		}
	}
	if m := reLocalMem.FindStringSubmatch(t); m != nil {
		w.localMem = "present"
		if m[1] != "" {
			w.localMem = m[1] + " bytes"
		}
	}
}

func (p *agentParser) openDisasm(l *line, fn string) {
	p.s.format("rocm_debug_agent")
	b := &disasmBlock{function: strings.TrimSpace(fn), ev: l.ev(p.s)}
	p.dis = b
	p.regClass = ""
	if len(p.blocks) < 16 {
		p.blocks = append(p.blocks, b)
	}
}

// disasmLine consumes a line of an open disassembly block.
func (p *agentParser) disasmLine(l *line) bool {
	b := p.dis
	t := l.text
	tt := strings.TrimSpace(t)
	switch {
	case strings.HasPrefix(tt, "End of disassembly"):
		p.dis = nil
		return true
	case strings.HasPrefix(tt, "code object:"):
		b.codeObject = submatch(reCodeObject, tt)
		return true
	case strings.HasPrefix(tt, "loaded at:"):
		if m := reLoadedAt.FindStringSubmatch(tt); m != nil {
			b.lo, _ = addrValue(m[1])
			b.hi, _ = addrValue(m[2])
		}
		return true
	case strings.HasPrefix(tt, "wave_") || strings.Contains(tt, " registers:") || strings.HasPrefix(tt, "-----"):
		p.dis = nil
		return false
	}
	if r, ok := extractDisasmRow(t); ok {
		row := clip(strings.TrimSpace(t), 160)
		if r.stop {
			b.hasStop = true
			b.stopPC = r.pc
			b.stopOff = r.off
			b.stopInsn = r.insn
			b.rows = append(b.rows, row)
			b.ev = l.ev(p.s)
			p.s.b.facts.addStopAddr(r.insn, &p.regs.w, -1, b.ev)
			return true
		}
		if b.hasStop {
			if b.after < 3 {
				b.rows = append(b.rows, row)
				b.after++
			}
		} else {
			b.rows = append(b.rows, row)
			if len(b.rows) > 6 {
				b.rows = b.rows[1:]
			}
		}
		return true
	}
	if tt == "..." || tt == "…" {
		p.s.flag("elided")
		return true
	}
	// source lines (-ggdb), blanks and "Cannot access memory" stay in the block
	return tt == "" || strings.Contains(tt, "Cannot access memory") || strings.HasSuffix(tt, ":") || (len(tt) > 0 && tt[0] >= '0' && tt[0] <= '9') || strings.Contains(tt, "No such file")
}

// disasmRow: one "[=>] 0x… <+off>:    insn" row of a Disassembly block;
// stop marks the "=>" row at the wave's pc.
type disasmRow struct {
	stop bool
	pc   string // lower-cased
	off  string // "+7484", "-8"
	insn string
}

func extractDisasmRow(t string) (disasmRow, bool) {
	m := reDisRow.FindStringSubmatch(t)
	if m == nil {
		return disasmRow{}, false
	}
	return disasmRow{stop: m[1] == "=>", pc: strings.ToLower(m[2]), off: m[3], insn: strings.TrimSpace(m[4])}, true
}

// blockFor finds the disassembly block that contains pc.
func (p *agentParser) blockFor(pc uint64, kernel string) *disasmBlock {
	for _, b := range p.blocks {
		if b.lo != 0 && pc >= b.lo && pc <= b.hi {
			return b
		}
	}
	for _, b := range p.blocks {
		if v, ok := addrValue(b.stopPC); ok && v == pc {
			return b
		}
	}
	if kernel != "" {
		for _, b := range p.blocks {
			if b.function != "" && (strings.Contains(kernel, b.function) || strings.HasPrefix(b.function, firstWord(kernel))) {
				return b
			}
		}
	}
	return nil
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, "<("); i > 0 {
		return s[:i]
	}
	return s
}

func (p *agentParser) endFile() {
	s := p.s
	p.ruleRunning()
	for _, cls := range sortedAggKeys(p.byClass) {
		w := p.byClass[cls]
		fcls := cls
		if cls == "running" {
			if p.stopped > 0 {
				continue
			}
			fcls = ClassGPUKernelHang
		}
		a := s.b.get(fcls)
		if a == nil {
			continue
		}
		// resolve kernels of PCs through the disassembly blocks
		var hist []PCCount
		var best *disasmBlock
		kcount := map[string]int{}
		// In PC order: which block is best and the histogram's ties must
		// not depend on map iteration (same input, same bytes).
		pcs := make([]string, 0, len(w.pcs))
		for pc := range w.pcs {
			pcs = append(pcs, pc)
		}
		sort.Strings(pcs)
		for _, pc := range pcs {
			st := w.pcs[pc]
			b := p.blockFor(st.val, st.kernel)
			if st.kernel == "" && b != nil && b.function != "" {
				st.kernel = b.function
			}
			if b != nil && (best == nil || b.hasStop && !best.hasStop) {
				best = b
			}
			if st.kernel != "" {
				kcount[st.kernel] += st.n
			}
			hist = append(hist, PCCount{PC: pc, Waves: st.n, Kernel: st.kernel})
		}
		sort.Slice(hist, func(i, j int) bool {
			if hist[i].Waves != hist[j].Waves {
				return hist[i].Waves > hist[j].Waves
			}
			return hist[i].PC < hist[j].PC
		})
		if len(hist) > 16 {
			hist = hist[:16]
		}
		a.f.StopPCs = hist
		a.f.Waves = w.n
		if k := topKey(kcount); k != "" {
			a.setKernel(k, "rocm-debug-agent wave (kernel resolved via disassembly block)", 88)
		}
		if best != nil {
			p.attachBlock(a, best)
		}
		if p.first != nil {
			a.detail("exec_mask", p.first.exec)
			a.detail("wave_size", p.first.lanes)
			a.detail("local_memory", p.first.localMem)
		}
		if len(hist) > 1 {
			a.note("several waves stopped at different PCs: a memory fault does not say which wave caused it; every wave is a candidate")
		}
	}
	// blocks not attached to any wave: kernel hints for the GPU finding
	for _, b := range p.blocks {
		if b.function != "" {
			s.kernelHintEv(b.function, "rocm-debug-agent disassembly block", 80, b.ev)
			s.b.facts.disasm = appendBlock(s.b.facts.disasm, b)
		}
	}
	p.dis = nil
}

func appendBlock(xs []*disasmBlock, b *disasmBlock) []*disasmBlock {
	for _, x := range xs {
		if x == b {
			return xs
		}
	}
	if len(xs) >= 8 {
		return xs
	}
	return append(xs, b)
}

// ruleRunning is the rule for running waves: with no stopped wave they are
// a hang candidate (a SIGQUIT dump of a stuck kernel, rocr_debug_agent user
// guide: "print the state of all AMDGPU wavefronts by sending a SIGQUIT");
// defeated by a stopped wave — with --all the agent prints every wave of the
// process at a fault, and the running ones are bystanders (crash-heldout2
// d01: a fill kernel running beside moe_sum_reduce's MEMORY_VIOLATION).
func (p *agentParser) ruleRunning() {
	s := p.s
	if len(p.runWaves) == 0 {
		return
	}
	if p.stopped > 0 {
		p.runWaves = p.runWaves[:0]
		return
	}
	for _, w := range p.runWaves {
		a := s.b.add(s, ClassGPUKernelHang, nil, 0.5)
		a.evidence(w.ev)
		if w.rank >= 0 {
			a.rank(w.rank)
		}
		a.setKernel(w.kernel, "rocm-debug-agent wave header", 90)
		if p.quitPID > 0 {
			a.setPID(p.quitPID)
			a.detail("sigquit_pid", strconv.Itoa(p.quitPID))
		}
	}
	p.runWaves = p.runWaves[:0]
}

// attachBlock copies a disassembly block's facts onto a finding.
func (p *agentParser) attachBlock(a *agg, b *disasmBlock) {
	attachDisasm(a, b)
}

// reMemoryURI: a code object loaded from memory, "memory://<pid>#offset=…&size=…"
// (LLVM AMDGPUUsage, "Code Object Uniform Resource Identifier (URI)": the
// process id whose address space holds the code object).
var reMemoryURI = lazyre.New(`^memory://(\d+)#`)

// codeObjectPID is the process a memory:// code object URI names (0: none).
func codeObjectPID(uri string) int {
	return atoiDef(submatch(reMemoryURI, uri), 0)
}

func attachDisasm(a *agg, b *disasmBlock) {
	if a.f.CodeObject == "" && b.codeObject != "" {
		a.f.CodeObject = b.codeObject
		a.f.SavedCodeObject = savedCodeObjectName(b.codeObject)
		if lib := codeObjectLibrary(b.codeObject); lib != "" {
			a.detail("code_object_library", lib)
		}
	}

	if len(a.f.Disassembly) == 0 && len(b.rows) > 0 {
		a.f.Disassembly = append([]string(nil), b.rows...)
	}
	if b.hasStop {
		a.detail("stop_pc", b.stopPC)
		a.detail("stop_instruction", b.stopInsn)
		if v, ok := addrValue(b.stopPC); ok && b.lo != 0 && v >= b.lo {
			a.detail("stop_pc_offset_in_code_object", "0x"+strconv.FormatUint(v-b.lo, 16))
		}
		a.evidence(b.ev)
		insn := b.stopInsn
		switch {
		case strings.HasPrefix(insn, "s_waitcnt"):
			a.note("the stop pc is on s_waitcnt: without --precise-memory the pc is after the faulting memory instruction — look at the loads/stores just before it")
		case strings.HasPrefix(insn, "s_endpgm"):
			a.note("the stop pc is on s_endpgm right after s_trap: the assert condition was tested a few instructions earlier (s_cbranch + s_trap 2)")
		case strings.HasPrefix(insn, "s_trap"):
			a.note("the stop pc is on s_trap 2: a device-side assert / __builtin_trap")
		case strings.HasPrefix(insn, ".long") || strings.HasPrefix(insn, ".word") || strings.HasPrefix(insn, ".byte"):
			// the disassembler found data where the pc points
			a.detail("code_object_corrupt", "the instruction at the stop pc is data ("+clip(insn, 60)+"): a corrupted code object (an allocator stomp on the kernel binary) or a jump into data")
			a.note("the stop pc holds " + clip(insn, 60) + ", not an instruction: the code object in memory is corrupt — compare the saved code object with the one on disk; suspect a stray device write over the kernel binary")
		}
	}
	if b.function != "" && a.f.Kernel == "" {
		a.setKernel(b.function, "rocm-debug-agent disassembly block", 80)
	}
}

func topKey(m map[string]int) string {
	best, n := "", -1
	for k, v := range m {
		if v > n || v == n && k < best {
			best, n = k, v
		}
	}
	return best
}

func sortedAggKeys(m map[string]*waveAgg) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// agentKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var agentKeywords = []string{"QUIT", "kill -3", "wave_", "reason: ", "Disassembly", "--------", " registers:", "[0] ", "exec: ", "Local memory content", "rocm-debug-agent:", "rocm-dbgapi:", "Precise memory not supported"}
