package crash

import "testing"

// Wordings: LLVM AMDGPU syntax docs (gfx9/gfx10 vaddr_flat_global: "Address =
// vaddr + offset" when saddr is off, "saddr + vaddr + offset" otherwise;
// FLATInstructions.td asm strings, reviews.llvm.org/D88920), compiler output
// quoted in ROCm/triton#26 ("s_load_dwordx2 s[6:7], s[8:9], 0x0",
// "global_load_byte v5, v[0:1], off"), and the "=>" rows of agent dumps in
// testdata (crash-heldout b01, crash-heldout3 e03, crash-heldout8 k02/k09).
func TestParseStopInsn(t *testing.T) {
	cases := []struct {
		insn  string
		ok    bool
		form  string
		vaddr string
		sbase string
		off   int64
	}{
		{"global_load_dword v1, v[2:3], off", true, "vaddr64", "v[2:3]", "", 0},
		{"global_store_dwordx4 v[4:5], v[6:9], off offset:16", true, "vaddr64", "v[4:5]", "", 16},
		{"global_load_dwordx4 v[8:11], v[0:1], off offset:-32", true, "vaddr64", "v[0:1]", "", -32},
		{"global_store_dword v[2:3], v4, off", true, "vaddr64", "v[2:3]", "", 0},        // crash-heldout b01
		{"global_store_dwordx2 v[0:1], v[4:5], off", true, "vaddr64", "v[0:1]", "", 0},  // crash-heldout3 e03
		{"global_load_b32 v1, v[2:3], off", true, "vaddr64", "v[2:3]", "", 0},           // gfx12 mnemonic
		{"global_load_byte v5, v[0:1], off", true, "vaddr64", "v[0:1]", "", 0},          // ROCm/triton#26
		{"global_load_dword v1, v2, s[4:5] offset:8", true, "saddr", "v2", "s[4:5]", 8}, // SGPR base + 32-bit VGPR offset
		{"global_store_dword v2, v1, s[4:5]", true, "saddr", "v2", "s[4:5]", 0},
		{"global_atomic_add v[0:1], v2, off", true, "vaddr64", "v[0:1]", "", 0},                   // no return
		{"global_atomic_add v0, v[1:2], v3, off glc", true, "vaddr64", "v[1:2]", "", 0},           // returns the old value
		{"global_atomic_cmpswap v[0:1], v[2:3], off", true, "vaddr64", "v[0:1]", "", 0},           // no return: vaddr first
		{"flat_load_dword v0, v[2:3]", true, "vaddr64", "v[2:3]", "", 0},                          // flat: no saddr operand
		{"flat_store_dword v[2:3], v0 offset:4", true, "vaddr64", "v[2:3]", "", 4},                //
		{"buffer_load_dword v1, v2, s[4:7], 0 offen", true, "buffer", "v2", "s[4:7]", 0},          // V# base + VGPR
		{"buffer_store_dword v1, off, s[8:11], s12 offset:64", true, "buffer", "", "s[8:11]", 64}, // soffset SGPR
		{"s_load_dwordx2 s[0:1], s[2:3], 0x10", true, "sbase", "", "s[2:3]", 16},
		{"s_load_dwordx2 s[6:7], s[8:9], 0x0", true, "sbase", "", "s[8:9]", 0}, // ROCm/triton#26
		{"s_buffer_load_dword s0, s[4:7], 0x10", true, "buffer", "", "s[4:7]", 16},
		{"global_load_dword v1, v2, off", false, "", "", "", 0},             // off needs a 64-bit pair
		{"scratch_load_dword v1, v2, off", false, "", "", "", 0},            // private aperture: not a global address
		{"buffer_load_dword v1, v2, s[4:7], 0 idxen", false, "", "", "", 0}, // needs the V# stride
		{"ds_read_b32 v1, v2", false, "", "", "", 0},                        // LDS
		{"s_endpgm", false, "", "", "", 0},
		{"v_add_co_u32 v2, vcc_lo, s8, v2", false, "", "", "", 0},
	}
	for _, c := range cases {
		o, ok := parseStopInsn(c.insn)
		if ok != c.ok {
			t.Errorf("%q: ok = %v, want %v", c.insn, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		va, sb := "", ""
		if o.vaddr.ok() {
			va = o.vaddr.String()
		}
		if o.sbase.ok() {
			sb = o.sbase.String()
		}
		if o.form != c.form || va != c.vaddr || sb != c.sbase || o.offset != c.off {
			t.Errorf("%q: form %s vaddr %s sbase %s offset %d, want %s %s %s %d", c.insn, o.form, va, sb, o.offset, c.form, c.vaddr, c.sbase, c.off)
		}
	}
}

func TestStopAddressLanes(t *testing.T) {
	// agent wave32 lane table (values as in crash-heldout8 k02's layout): lane 0 unless exec says otherwise
	var w waveRegs
	var r regReader
	r.reset()
	for _, l := range []string{
		"            v2: [0] d4403100 [1] d4403104 [2] d4403108 ... [31] d440317c",
		"            v3: [0] 00007a71 [1] 00007a71 [2] 00007a71 ... [31] 00007a71",
	} {
		r.line(l, "vector", func(uint64) {})
	}
	w = r.w
	o, _ := parseStopInsn("global_load_b32 v1, v[2:3], off offset:8")
	if v, _, ok := o.address(&w, -1); !ok || v != 0x7a71d4403108 {
		t.Errorf("lane 0 + offset: %x %v", v, ok)
	}
	w.exec, w.hasX = 0xfffffffe, true // lane 0 inactive: the first active lane
	if v, how, ok := o.address(&w, -1); !ok || v != 0x7a71d440310c {
		t.Errorf("first active lane: %x %q %v", v, how, ok)
	}
	if _, _, ok := o.address(&w, 40); ok {
		t.Error("lane 40 of a wave32 table must not resolve")
	}

	// rocgdb info registers: wave64 lane arrays with <repeats>, SGPR rows
	var g waveRegs
	for _, l := range []string{
		"v4             {0x31e00000, 0x31e00002, 0x31e0001e <repeats 62 times>}",
		"v5             {0x7ffe <repeats 64 times>}",
		"s4             0x40000000          1073741824",
		"s5             0x7f12              32530",
		"v2             {0x100, 0x200 <repeats 63 times>}",
	} {
		if !readGdbReg(l, &g) {
			t.Fatalf("not read: %q", l)
		}
	}
	o64, _ := parseStopInsn("global_store_short v[4:5], v8, off")
	if v, _, ok := o64.address(&g, 63); !ok || v != 0x7ffe31e0001e {
		t.Errorf("lane 63 (repeats): %x %v", v, ok)
	}
	if v, _, ok := o64.address(&g, 1); !ok || v != 0x7ffe31e00002 {
		t.Errorf("lane 1: %x %v", v, ok)
	}
	os, _ := parseStopInsn("global_load_dword v1, v2, s[4:5] offset:16")
	if v, _, ok := os.address(&g, 1); !ok || v != 0x7f1240000000+0x200+16 {
		t.Errorf("saddr form: %x %v", v, ok)
	}
	if readGdbReg("vcc            0x0                 0", &g) {
		t.Error("vcc read as a VGPR")
	}
}
