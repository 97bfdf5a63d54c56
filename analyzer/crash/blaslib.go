package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// hipBLASLt loads its kernels per GPU arch at run time, and says so when a
// wheel or install ships none for the device:
//
//	rocblaslt error: Cannot read "TensileLibrary_lazy_gfx906.dat" (or .zlib variant): No such file or directory
//	rocblaslt error: Could not load "C:\\…\\hipblaslt\\library\\TensileLibrary_lazy_gfx1102.dat"
//	hipModuleLoad failed: C:\…\hipblaslt\library/Kernels.so-000-gfx1102.hsaco
//	 error: file not found
//
// Alone it is a warning (rocBLAS may fall back to Tensile and the run goes
// on); a BLAS call that then fails, or the runtime's "file not found"
// (hipErrorFileNotFound, 301) raised to the framework, is the missing code
// object — arch_mismatch, less sure than the runtime's own "no kernel image".

var reBlasLibArch = lazyre.New(`(?:TensileLibrary_lazy_|Kernels\.so-\d+-)(gfx[0-9a-f]+)`)

// blasLibMissing is hipBLASLt's report of a per-arch library it cannot load.
type blasLibMissing struct {
	arch string // "gfx1102"
	ev   Evidence
}

func extractBlasLibMissing(t string) (string, bool) {
	if !strings.Contains(t, "rocblaslt error: C") && !strings.Contains(t, "hipModuleLoad failed: ") {
		return "", false
	}
	arch := submatch(reBlasLibArch, t)
	return arch, arch != ""
}

// noteBlasLibMissing keeps the first report; no finding on its own.
func (s *Session) noteBlasLibMissing(l *line, arch string) {
	f := &s.b.facts
	if f.blasMissing == nil {
		f.blasMissing = &blasLibMissing{arch: arch, ev: l.ev(s)}
	}
}

// blasFailed is the rule: a BLAS call failed (a library status, or
// hipErrorFileNotFound raised) after hipBLASLt could not load its kernels —
// or the file-not-found error follows a failed hipBLASLt call — →
// arch_mismatch. fileNotFound marks the runtime's 301.
func (s *Session) blasFailed(l *line, fileNotFound bool) {
	f := &s.b.facts
	if !fileNotFound {
		f.blasStatusFailed = true
		if f.blasMissing == nil {
			return
		}
	} else if f.blasMissing == nil && !f.blasStatusFailed {
		return
	}
	a := s.b.add(s, ClassArchMismatch, l, 0.6)
	a.detail("library", "hipBLASLt")
	if m := f.blasMissing; m != nil {
		a.evidence(m.ev)
		a.detail("missing_arch_library", m.arch)
		a.addReason("hipBLASLt has no kernel library for " + m.arch + " (its per-arch TensileLibrary / .hsaco is missing) and the BLAS call then failed: a build or wheel without this GPU's kernels")
		return
	}
	a.setHIP(lookupHIPName("hipErrorFileNotFound"))
	a.addReason("a hipBLASLt call failed and the runtime then reported 'file not found' (hipErrorFileNotFound): a kernel code-object file the library loads for this GPU is missing from the install")
}
