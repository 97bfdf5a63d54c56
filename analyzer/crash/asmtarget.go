package crash

import "strings"

// The AMDGPU assembler refuses an instruction the target ISA lacks — inline
// asm in a HIP source built for an older or newer GPU, Tensile's generated
// kernels assembled for the wrong ISA, a kernel runtime-compiled with
// hiprtc: "custom_kernels.hip:404:17: error: instruction not supported on
// this GPU" (then the asm line and a caret). The code was written for
// another gfx target than the one it is built for: the build's arch
// mismatch, seen before anything runs.

const asmUnsupported = "error: instruction not supported on this GPU"

// extractAsmUnsupported: the assembler's refusal on one line.
func extractAsmUnsupported(t string) bool { return strings.Contains(t, asmUnsupported) }

// applyAsmUnsupported: one finding per session, however many instructions
// the assembler lists.
func (s *Session) applyAsmUnsupported(l *line) {
	s.format("amdgpu_asm")
	a := s.b.add(s, ClassArchMismatch, l, 0.75)
	if len(a.f.Reason) == 0 {
		a.addReason("the AMDGPU assembler refused an instruction the target GPU does not have: kernel code (inline asm, generated assembly) written for another gfx target than the one being built")
		a.note("build for the GPU's own gfx target (--offload-arch / PYTORCH_ROCM_ARCH) or use a release of the code that supports it; an HSA_OVERRIDE_GFX_VERSION does not change what the assembler accepts")
	}
}
