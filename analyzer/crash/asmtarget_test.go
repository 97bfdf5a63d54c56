package crash

import "testing"

// The assembler's "instruction not supported on this GPU" is an arch
// mismatch of the build (sources per row); its neighbour about operands
// and the same words in prose are not read.
func TestAsmUnsupportedInstruction(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/vllm-project/vllm/issues/6565 (gfx906, inline v_dot2c_f32_f16)": "/root/vllm/build/temp.linux-x86_64-cpython-310/csrc/custom/custom_kernels.hip:404:17: error: instruction not supported on this GPU",
		"https://github.com/hashcat/hashcat/issues/3920 (hiprtc, inline asm)":               "<inline asm>:1:2: error: instruction not supported on this GPU",
		"https://github.com/ROCm/ROCmValidationSuite/issues/248 (Tensile ISA803 kernels)":   "Cijk_Ailk_Bljk_SB_MT128x016x16_AF0EM01_ASEM01_BL1_GRVW02_GSU32_ISA803_K1_KLA_LPB00_MGWVW01_NLCA01_NLCB01_PGR1_PLR1_TT08_02_VAW01_VW02_WG16_08_02_WGM01.s:1272:1: error: instruction not supported on this GPU",
	} {
		if !extractAsmUnsupported(l) {
			t.Errorf("%s: not read: %q", src, l)
		}
		d := diagnoseWhole("build.log", []byte(l+"\n"))
		if hasClass(d, ClassArchMismatch) == nil {
			t.Errorf("%s: no arch_mismatch: %v", src, classesOf(d))
		}
	}
	for _, l := range []string{
		"<inline asm>:1:2: error: operands are not valid for this GPU or mode",
		"Is the instruction not supported on this GPU? asked the reporter",
	} {
		if extractAsmUnsupported(l) {
			t.Errorf("read: %q", l)
		}
	}
}

// The runtime's "The program ISA … is not compatible with the device ISA …"
// is arch_mismatch naming both targets (real lines, source per row; the
// real17 case wraps inside the device's ISA name).
func TestISAIncompatible(t *testing.T) {
	for _, c := range []struct{ src, text, prog, dev string }{
		{"https://github.com/ROCm/ROCm/issues/2328 (gfx900 code on a gfx906, mixed GPUs)", ":1:devprogram.cpp           :1873: 1265234165 us: 21877: [tid:0x7f3bf549b740] Error: The program ISA amdgcn-amd-amdhsa--gfx900:xnack- is not compatible with the device ISA amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-Error: create kernel metadata map using COMgr", "gfx900", "gfx906"},
		{"https://github.com/Lolliedieb/lolMiner-releases/issues/2112 (OpenCL build log)", "Build Log: Error: The program ISA amdgcn-amd-amdhsa--gfx1030 is not compatible with the device ISA amdgcn-amd-amdhsa--gfx1031", "gfx1030", "gfx1031"},
		{"https://github.com/ROCm/rocm-libraries/issues/3413 (wrapped)", ":1:devprogram.cpp           :1800: 8051876383 us: [pid:73665 tid: 0x7f49326c11c0] Error: The program ISA amdgcn-amd-amdhsa--gfx908:xnack- is not compatible with the device ISA amdgcn-amd", "gfx908", ""},
	} {
		x, ok := extractISAIncompatible(c.text)
		if !ok || x.program != c.prog || x.device != c.dev {
			t.Errorf("%s: got %+v %v, want %s on %s", c.src, x, ok, c.prog, c.dev)
		}
		d := diagnoseWhole("run.log", []byte(c.text+"\n"))
		f := hasClass(d, ClassArchMismatch)
		if f == nil {
			t.Errorf("%s: no arch_mismatch: %v", c.src, classesOf(d))
		} else if c.dev != "" && f.Details["device_arch"] != c.dev {
			t.Errorf("%s: device_arch %q, want %q", c.src, f.Details["device_arch"], c.dev)
		}
	}
	for _, l := range []string{
		`      buildLog_ += " is not compatible with the device ISA " + device().isa().isaName() + "\n";`,
		"The runtime then reports \"program ISA gfx1102 is not compatible with the device ISA gfx1031\" in our notes",
	} {
		if _, ok := extractISAIncompatible(l); ok {
			t.Errorf("read: %q", l)
		}
	}
}
