package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// The stop instruction's address operand (seed 003 step 3: "the registers
// that hold the faulting address"). The debug agent marks the wave's pc with
// "=>" in its disassembly and rocgdb's x/i $pc does the same; both print
// LLVM AMDGPU assembler syntax (AMDGPUInstructionSyntax, AMDGPUModifierSyntax):
//
//	global_load_dword v1, v[2:3], off offset:16   vaddr64: the 64-bit VGPR pair
//	global_store_dword v1, v2, s[4:5]             saddr: SGPR pair + 32-bit VGPR offset
//	flat_load_dword v0, v[2:3]                    vaddr64 (flat has no saddr)
//	buffer_load_dword v1, v2, s[4:7], 0 offen     buffer: V# base[47:0] + soffset + VGPR (offen)
//	s_load_dwordx2 s[0:1], s[2:3], 0x10           sbase: SGPR pair + offset
//	s_buffer_load_dword s0, s[4:7], 0x10          buffer: V# base[47:0] + offset
//
// Not handled (no global address, or not from registers alone): scratch_*
// (private aperture), buffer idxen (needs the V# stride), ds_* (LDS).

// regRef is a register range: v2 = {'v', 2, 2}, s[4:7] = {'s', 4, 7}.
type regRef struct {
	file   byte
	lo, hi int
}

func (r regRef) ok() bool { return r.file != 0 }

func (r regRef) String() string {
	if r.lo == r.hi {
		return string(r.file) + strconv.Itoa(r.lo)
	}
	return string(r.file) + "[" + strconv.Itoa(r.lo) + ":" + strconv.Itoa(r.hi) + "]"
}

// addrOperand says where a memory instruction's address comes from.
type addrOperand struct {
	insn   string
	form   string // "vaddr64", "saddr", "sbase", "buffer"
	vaddr  regRef // 64-bit pair (vaddr64) or 32-bit offset (saddr, buffer offen)
	sbase  regRef // SGPR pair (saddr, sbase) or V# quad (buffer)
	soff   regRef // buffer / SMEM SGPR offset
	offset int64  // immediates: offset:N, the SMEM offset, the buffer soffset literal
}

func parseReg(s string) (regRef, bool) {
	if len(s) < 2 || (s[0] != 'v' && s[0] != 's') {
		return regRef{}, false
	}
	f, rest := s[0], s[1:]
	if rest[0] == '[' && rest[len(rest)-1] == ']' {
		lo, hi, ok := strings.Cut(rest[1:len(rest)-1], ":")
		a, e1 := strconv.Atoi(lo)
		b, e2 := strconv.Atoi(hi)
		if !ok || e1 != nil || e2 != nil || b < a || b-a > 15 {
			return regRef{}, false
		}
		return regRef{f, a, b}, true
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return regRef{}, false
	}
	return regRef{f, n, n}, true
}

func parseImm(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 0, 64)
	return v, err == nil
}

// parseStopInsn reads the address operand of a memory instruction.
func parseStopInsn(insn string) (addrOperand, bool) {
	insn = strings.TrimSpace(insn)
	if i := strings.IndexAny(insn, ";"); i >= 0 {
		insn = insn[:i]
	}
	if i := strings.Index(insn, "//"); i >= 0 {
		insn = insn[:i]
	}
	mn, rest, _ := strings.Cut(strings.TrimSpace(insn), " ")
	var ops, mods []string
	for i, f := range strings.Split(rest, ",") {
		f = strings.TrimSpace(f)
		if i > 0 || f != "" {
			ops = append(ops, f)
		}
	}
	if n := len(ops); n > 0 { // modifiers follow the last operand
		fs := strings.Fields(ops[n-1])
		if len(fs) == 0 {
			return addrOperand{}, false
		}
		ops[n-1], mods = fs[0], fs[1:]
	}
	o := addrOperand{insn: strings.TrimSpace(insn)}
	offen := false
	for _, m := range mods {
		switch {
		case strings.HasPrefix(m, "offset:"):
			v, ok := parseImm(m[len("offset:"):])
			if !ok {
				return addrOperand{}, false
			}
			o.offset += v
		case m == "offen":
			offen = true
		case m == "idxen":
			return addrOperand{}, false // needs the V# stride
		}
	}
	switch {
	case strings.HasPrefix(mn, "global_"), strings.HasPrefix(mn, "flat_"):
		if strings.HasPrefix(mn, "global_") {
			if len(ops) < 2 {
				return addrOperand{}, false
			}
			sa := ops[len(ops)-1]
			ops = ops[:len(ops)-1]
			if sa != "off" {
				r, ok := parseReg(sa)
				if !ok || r.file != 's' || r.hi != r.lo+1 {
					return addrOperand{}, false
				}
				o.sbase = r
			}
		}
		idx := 1 // loads: vdst, vaddr; atomics with return: vdst, vaddr, vdata
		switch {
		case strings.Contains(mn, "_store"), strings.Contains(mn, "load_lds"), strings.Contains(mn, "_atomic") && len(ops) == 2:
			idx = 0
		}
		if idx >= len(ops) {
			return addrOperand{}, false
		}
		r, ok := parseReg(ops[idx])
		if !ok || r.file != 'v' {
			return addrOperand{}, false
		}
		o.vaddr = r
		if o.sbase.ok() {
			o.form = "saddr"
			return o, r.lo == r.hi
		}
		o.form = "vaddr64"
		return o, r.hi == r.lo+1
	case strings.HasPrefix(mn, "buffer_"):
		// vdata, vaddr|off, srsrc, soffset
		if len(ops) != 4 {
			return addrOperand{}, false
		}
		rs, ok := parseReg(ops[2])
		if !ok || rs.file != 's' || rs.hi != rs.lo+3 {
			return addrOperand{}, false
		}
		o.form, o.sbase = "buffer", rs
		if offen {
			r, ok := parseReg(ops[1])
			if !ok || r.file != 'v' {
				return addrOperand{}, false
			}
			o.vaddr = regRef{'v', r.lo, r.lo}
		}
		return o, o.soffset(ops[3])
	case strings.HasPrefix(mn, "s_load_"), strings.HasPrefix(mn, "s_buffer_load_"):
		// sdst, sbase, offset (SGPR or immediate)
		if len(ops) != 3 {
			return addrOperand{}, false
		}
		rb, ok := parseReg(ops[1])
		if !ok || rb.file != 's' {
			return addrOperand{}, false
		}
		o.sbase = rb
		if strings.HasPrefix(mn, "s_buffer_") {
			o.form = "buffer"
			ok = rb.hi == rb.lo+3
		} else {
			o.form = "sbase"
			ok = rb.hi == rb.lo+1
		}
		return o, ok && o.soffset(ops[2])
	}
	return addrOperand{}, false
}

// soffset reads an SGPR or immediate offset operand ("off"/"null" = 0).
func (o *addrOperand) soffset(s string) bool {
	if s == "off" || s == "null" {
		return true
	}
	if v, ok := parseImm(s); ok {
		o.offset += v
		return true
	}
	r, ok := parseReg(s)
	if !ok || r.file != 's' || r.lo != r.hi {
		return false
	}
	o.soff = r
	return true
}

// waveRegs: one wave's 32-bit register values as a dump printed them.
type waveRegs struct {
	s    map[int]uint32
	v    map[int]map[int]uint32 // register → lane → value
	exec uint64
	hasX bool // exec known
}

const maxWaveRegs = 512

func (w *waveRegs) setS(n int, v uint32) {
	if w.s == nil {
		w.s = map[int]uint32{}
	}
	if len(w.s) < maxWaveRegs {
		w.s[n] = v
	}
}

func (w *waveRegs) setV(n, lane int, v uint32) {
	if w.v == nil {
		w.v = map[int]map[int]uint32{}
	}
	ls := w.v[n]
	if ls == nil {
		if len(w.v) >= maxWaveRegs {
			return
		}
		ls = map[int]uint32{}
		w.v[n] = ls
	}
	if lane >= 0 && lane < maxWaveLanes {
		ls[lane] = v
	}
}

// lane picks the lane to read: the one the debugger switched to, else the
// first active lane (exec) the dump printed for reg.
func (w *waveRegs) lane(want, reg int) (int, bool) {
	ls := w.v[reg]
	if want >= 0 {
		_, ok := ls[want]
		return want, ok
	}
	for i := 0; i < maxWaveLanes; i++ {
		if _, ok := ls[i]; ok && (!w.hasX || w.exec&(1<<uint(i)) != 0) {
			return i, true
		}
	}
	return 0, false
}

func (w *waveRegs) pair(r regRef, lane int) (uint64, bool) {
	if r.file == 's' {
		lo, ok1 := w.s[r.lo]
		hi, ok2 := w.s[r.lo+1]
		return uint64(hi)<<32 | uint64(lo), ok1 && ok2
	}
	lo, ok1 := w.v[r.lo][lane]
	hi, ok2 := w.v[r.lo+1][lane]
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

func hex64(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// address composes the faulting address of one lane (want < 0: the first
// active lane) and says how.
func (o addrOperand) address(w *waveRegs, want int) (uint64, string, bool) {
	var addr uint64
	var how []string
	lane := -1
	if o.vaddr.ok() {
		l, ok := w.lane(want, o.vaddr.lo)
		if !ok {
			return 0, "", false
		}
		lane = l
	}
	switch o.form {
	case "vaddr64":
		v, ok := w.pair(o.vaddr, lane)
		if !ok {
			return 0, "", false
		}
		addr, how = v, []string{o.vaddr.String() + " = " + hex64(v)}
	case "saddr", "sbase", "buffer":
		base, ok := w.pair(o.sbase, 0)
		if !ok {
			return 0, "", false
		}
		if o.form == "buffer" {
			base &= 1<<48 - 1 // V# base address is bits 47:0
		}
		addr, how = base, []string{o.sbase.String() + " base " + hex64(base)}
		if o.vaddr.ok() {
			v, ok := w.v[o.vaddr.lo][lane]
			if !ok {
				return 0, "", false
			}
			addr += uint64(v)
			how = append(how, o.vaddr.String()+" = "+hex64(uint64(v)))
		}
		if o.soff.ok() {
			v, ok := w.s[o.soff.lo]
			if !ok {
				return 0, "", false
			}
			addr += uint64(v)
			how = append(how, o.soff.String()+" = "+hex64(uint64(v)))
		}
	default:
		return 0, "", false
	}
	if o.offset != 0 {
		addr += uint64(o.offset)
		how = append(how, "offset "+strconv.FormatInt(o.offset, 10))
	}
	s := strings.Join(how, " + ")
	if lane >= 0 {
		s += " (lane " + strconv.Itoa(lane) + ")"
	}
	return addr, s, true
}

// stopAddr is an address composed from a stop instruction and its wave's
// registers; the runtime's own address line outranks it (finalize).
type stopAddr struct {
	addr string
	how  string
	ev   Evidence
}

const maxStopAddrs = 8

func (f *facts) addStopAddr(insn string, w *waveRegs, lane int, ev Evidence) {
	if len(f.stopAddrs) >= maxStopAddrs {
		return
	}
	o, ok := parseStopInsn(insn)
	if !ok {
		return
	}
	v, how, ok := o.address(w, lane)
	if !ok || v == 0 {
		return
	}
	f.stopAddrs = append(f.stopAddrs, stopAddr{addr: hex64(v), how: o.insn + ": " + how, ev: ev})
}

// addressFromStopInsn gives a memory fault without a runtime-printed
// address the one its stop instruction's registers hold, marked as computed.
func addressFromStopInsn(a *agg, f *facts) {
	if a.f.Class != ClassGPUMemoryFault || a.f.Address != "" || len(f.stopAddrs) == 0 {
		return
	}
	sa := f.stopAddrs[0]
	a.setAddress(sa.addr)
	a.evidence(sa.ev)
	a.detail("address_source", "stop instruction registers: "+sa.how)
	a.note("address " + sa.addr + " computed from the stop instruction's registers (" + sa.how + "); no runtime line printed it, so it is less certain")
}

var (
	reGdbInsnRow = lazyre.New(`^=>\s*0x[0-9a-fA-F]+(?: <.*?>)?:\s+(.+)$`)
	reGdbRegRow  = lazyre.New(`^(v|s|exec)(\d*)\s+(\{.*\}|0x[0-9a-fA-F]+)`)
)

// readGdbReg reads one row of rocgdb's "info registers": "s2  0x10  16",
// "exec  0xffffffff  4294967295", or a vector register's lane array
// "v4  {0x31e00000, 0x31e00002, 0x31e0001e <repeats 62 times>}".
func readGdbReg(t string, w *waveRegs) bool {
	m := reGdbRegRow.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	if m[1] == "exec" {
		v, err := strconv.ParseUint(m[3], 0, 64)
		w.exec, w.hasX = v, err == nil
		return err == nil
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return false
	}
	if m[1] == "s" {
		v, err := strconv.ParseUint(m[3], 0, 32)
		if err == nil {
			w.setS(n, uint32(v))
		}
		return err == nil
	}
	if m[3][0] != '{' {
		return false
	}
	lane := 0
	for _, e := range strings.Split(strings.Trim(m[3], "{}"), ",") {
		val, rep, _ := strings.Cut(strings.TrimSpace(e), " <repeats ")
		v, err := strconv.ParseUint(val, 0, 32)
		if err != nil {
			return false
		}
		k := 1
		if rep != "" {
			k = atoiDef(strings.TrimSuffix(rep, " times>"), 1)
		}
		for i := 0; i < k && lane < maxWaveLanes; i++ {
			w.setV(n, lane, uint32(v))
			lane++
		}
	}
	return true
}
