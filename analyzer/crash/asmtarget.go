package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

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

// The HIP/OpenCL runtime (CLR's devprogram.cpp) refuses to load a code
// object built for another ISA: "Error: The program ISA
// amdgcn-amd-amdhsa--gfx908:xnack- is not compatible with the device ISA
// amdgcn-amd-amdhsa--gfx1030", then "Error: Cannot create kernels." — a
// module (hipModuleLoadData, an OpenCL binary, a library's kernels)
// compiled for one gfx target run on a GPU of another. A paste may wrap
// the line inside the device's ISA name; the device arch is then unnamed.

const isaIncompatible = " is not compatible with the device ISA"

var reISAIncompatible = lazyre.New(`The program ISA (\S+) is not compatible with the device ISA ?(\S*)`)

// isaMismatch: the code object's and the device's gfx targets, as named.
type isaMismatch struct{ program, device string }

// extractISAIncompatible: the runtime's refusal on one line.
func extractISAIncompatible(t string) (isaMismatch, bool) {
	m := findIf(t, isaIncompatible, reISAIncompatible)
	if m == nil {
		return isaMismatch{}, false
	}
	return isaMismatch{program: reGfx.FindString(m[1]), device: reGfx.FindString(m[2])}, true
}

// applyISAIncompatible: arch_mismatch naming the two targets.
func (s *Session) applyISAIncompatible(l *line, x isaMismatch) {
	s.format("hip_runtime")
	a := s.b.add(s, ClassArchMismatch, l, 0.7)
	if x.program != "" {
		a.detail("code_object_arch", x.program)
	}
	if x.device != "" {
		a.detail("device_arch", x.device)
	}
	if len(a.f.Reason) == 0 {
		r := "the HIP runtime refused a code object built for another GPU"
		if x.program != "" && x.device != "" {
			r += " (" + x.program + " code on a " + x.device + ")"
		} else if x.program != "" {
			r += " (" + x.program + " code)"
		}
		a.addReason(r + ": the module or library was compiled for a different gfx target than the device it runs on")
		a.note("build the module for the device's own gfx target (--offload-arch / GPU_TARGETS), or pick the code object matching each GPU on a host with mixed GPUs (HIP_VISIBLE_DEVICES to one kind)")
	}
}
