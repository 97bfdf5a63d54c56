package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// rocBLAS loads its GEMM kernels from per-arch Tensile libraries; on a GPU
// the installed build was not made for, it says so with the arch and aborts:
// "rocBLAS error: Cannot read /opt/rocm-6.4.1/lib/rocblas/library/
// TensileLibrary.dat: No such file or directory for GPU arch : gfx1036"
// (Linux and the Windows HIP SDK alike; the first letter is sometimes lost
// to a carriage return: "ocBLAS error: …"). Without "for GPU arch" the same
// message is a broken install ("Illegal seek", a wrong path), not read here.
// The torch parser hands it lines with "rror" (torch.go).

var reTensileArch = lazyre.New(`BLAS error: Cannot read (.*TensileLibrary\S*?):? .*for GPU arch ?: ?(gfx[0-9a-f]+)`)

// tensileArch is rocBLAS's missing Tensile library for the device's arch.
type tensileArch struct {
	library, arch string
}

func extractTensileArch(t string) (tensileArch, bool) {
	m := findIf(t, "for GPU arch", reTensileArch)
	if m == nil {
		return tensileArch{}, false
	}
	return tensileArch{library: m[1], arch: m[2]}, true
}

// applyTensileArch: the installed rocBLAS has no kernels for this GPU's arch
// — the same failure as a fat binary without the gfx target.
func (s *Session) applyTensileArch(l *line, x tensileArch) {
	s.format("rocblas")
	a := s.b.add(s, ClassArchMismatch, l, 0.85)
	a.detail("missing_isa", x.arch)
	a.detail("library", "rocBLAS Tensile ("+x.library+")")
	a.addReason("rocBLAS has no Tensile library for " + x.arch + ": the installed ROCm / rocBLAS build does not support this GPU")
}
