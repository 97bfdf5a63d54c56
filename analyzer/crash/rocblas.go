package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// rocBLAS loads its GEMM kernels from per-arch Tensile libraries; on a GPU
// the installed build was not made for, it says so with the arch and aborts:
// "rocBLAS error: Cannot read /opt/rocm-6.4.1/lib/rocblas/library/
// TensileLibrary.dat: No such file or directory for GPU arch : gfx1036"
// (Linux and the Windows HIP SDK alike; the first letter is sometimes lost
// to a carriage return: "ocBLAS error: …"). Before that wording (ROCm 5.2 –
// 5.7) rocBLAS looked for the per-arch TensileLibrary_<gfx>.dat, and when
// none matched the device it fell back to the single TensileLibrary.dat that
// 5.2 split away, so the same failure reads "Cannot read …/library/
// TensileLibrary.dat: Illegal seek" (or "No such file or directory"): no
// library for this GPU, arch unnamed (the rocBLAS maintainers in rocBLAS#1267).
// With lazy loading (ROCm 5.7+, the Windows HIP SDK) the same failure reads
// "rocBLAS error: Could not load …/TensileLibrary_lazy_gfx1103.dat", then
// "Could not initialize Tensile library" and rocblas_abort(): the arch is
// the file's suffix. hipBLASLt's "rocblaslt error: Could not load …" is
// another library that may fall back (blaslib.go), so only rocBLAS's
// capitalised "BLAS error" counts here. When no device in the process matches
// any Tensile library at all, rocBLAS's Tensile host says "Could not
// initialize Tensile host: No devices found" and aborts (an RX 580 gfx803, a
// Radeon VII on the Windows HIP SDK, a GPU under an override the install
// lacks): the arch is not named. The same prefix with another reason
// ("Could not initialize Tensile host:" / "_Map_base::at" under multi-GPU
// sharding, jax-ml/jax#24458) is not this.
// The torch parser hands it lines with "rror" (torch.go).

var (
	reTensileArch = lazyre.New(`BLAS error: Cannot read (.*TensileLibrary\S*?):? .*for GPU arch ?: ?(gfx[0-9a-f]+)`)
	// the fallback name itself, no arch suffix: "…/library/TensileLibrary.dat: Illegal seek"
	reTensileFallback = lazyre.New(`BLAS error: Cannot read (.*[/\\]TensileLibrary\.dat):? `)
	// the lazy loader: "Could not load …/TensileLibrary_lazy_gfx1103.dat", or the fallback name
	reTensileLoad = lazyre.New(`BLAS error: Could not load (.*TensileLibrary(?:_lazy)?(?:_(gfx[0-9a-f]+))?\.dat)`)
)

// tensileArch is rocBLAS's missing Tensile library for the device's arch.
type tensileArch struct {
	library, arch string
	noDevice      bool // the Tensile host matched no device at all
}

func extractTensileArch(t string) (tensileArch, bool) {
	if m := findIf(t, "for GPU arch", reTensileArch); m != nil {
		return tensileArch{library: m[1], arch: m[2]}, true
	}
	if m := findIf(t, "TensileLibrary.dat", reTensileFallback); m != nil {
		return tensileArch{library: m[1]}, true
	}
	if m := findIf(t, "Could not load", reTensileLoad); m != nil {
		return tensileArch{library: m[1], arch: m[2]}, true
	}
	if strings.Contains(t, "Could not initialize Tensile host: No devices found") {
		return tensileArch{noDevice: true}, true
	}
	return tensileArch{}, false
}

// applyTensileArch: the installed rocBLAS has no kernels for this GPU's arch
// — the same failure as a fat binary without the gfx target.
func (s *Session) applyTensileArch(l *line, x tensileArch) {
	s.format("rocblas")
	if x.noDevice {
		// no library named either: the install covers none of the GPUs
		// the process sees, arch unnamed — as sure as the fallback name
		a := s.b.add(s, ClassArchMismatch, l, 0.65)
		a.detail("library", "rocBLAS Tensile")
		a.addReason("rocBLAS's Tensile host found no device its kernel libraries cover: this rocBLAS build or install does not support the GPU")
		return
	}
	if x.arch == "" {
		// the fallback name: no per-arch library matched the device, which
		// the message does not name (an unsupported GPU or an install
		// missing that GPU's files), so less sure than the named form
		a := s.b.add(s, ClassArchMismatch, l, 0.65)
		a.detail("library", "rocBLAS Tensile ("+x.library+")")
		a.addReason("rocBLAS found no Tensile library for this GPU's arch (it fell back to the generic TensileLibrary.dat): this rocBLAS build or install does not cover the GPU")
		return
	}
	a := s.b.add(s, ClassArchMismatch, l, 0.85)
	a.detail("missing_isa", x.arch)
	a.detail("library", "rocBLAS Tensile ("+x.library+")")
	a.addReason("rocBLAS has no Tensile library for " + x.arch + ": the installed ROCm / rocBLAS build does not support this GPU")
}
