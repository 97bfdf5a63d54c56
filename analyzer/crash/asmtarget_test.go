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
