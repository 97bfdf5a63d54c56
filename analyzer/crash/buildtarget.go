package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// The gfx targets a build or an image was compiled for, as facts
// (extractor → facts → rule). A device whose arch is not among them has
// no native code in the build: ROCm reports hipErrorNoBinaryForGpu when
// nothing loads, but when a library carries its own kernels for the
// targets it was built for (a Tensile / hipBLASLt / asm kernel set, a
// kpack), the run can finish and be wrong — seed 000 pattern 1 ("container
// built for gfx942 (MI300X) but running on gfx950 (MI355X): silent wrong
// results"), ROCm/TheRock#8151 (gfx950 jobs on gfx942 hardware: "missing
// gfx942 kernels producing garbage/no-op results"), pytorch#184785 (gfx950
// runners getting gfx942 hipBLASLt libs). Wordings: PYTORCH_ROCM_ARCH /
// GPU_TARGETS / AMDGPU_TARGETS / GPU_ARCHS assignments (env dumps,
// Dockerfile ARGs, CMake -D flags), "--offload-arch=gfx942", and a
// launcher's or reporter's "built for gfx942" / "compiled for gfx942".

var (
	reBuildTargetVar = lazyre.New(`(?:-D|\b)(?:PYTORCH_ROCM_ARCH|AMDGPU_TARGETS|GPU_TARGETS|GPU_ARCHS|HCC_AMDGPU_TARGET)["']?\s*[=:]\s*\\?["']?((?:gfx[0-9a-f]{3,4}[-:+a-zA-Z0-9]*[;, ]*)+)`)
	reOffloadArch    = lazyre.New(`--offload-arch[= ](gfx[0-9a-f]{3,4})`)
	reGfxTarget      = lazyre.New(`\bgfx[0-9a-f]{3,4}\b`)
	reBuiltFor       = lazyre.New(`\b(?:built|compiled|built only) for ((?:gfx[0-9a-f]{3,4}\b(?:\s*(?:,|;|and|/)\s*)?)+)`)
)

// buildTargets: the targets one line names, and how it named them.
type buildTargets struct {
	gfx    []string
	source string // "variable" | "offload-arch" | "built for"
}

func extractBuildTargets(t string) (buildTargets, bool) {
	if !strings.Contains(t, "gfx") {
		return buildTargets{}, false
	}
	var list, src string
	if m := reBuildTargetVar.FindStringSubmatch(t); m != nil {
		list, src = m[1], "variable"
	} else if ms := reOffloadArch.FindAllStringSubmatch(t, 16); ms != nil {
		for _, m := range ms {
			list += m[1] + " "
		}
		src = "offload-arch"
	} else if m := reBuiltFor.FindStringSubmatch(t); m != nil {
		list, src = m[1], "built for"
	} else {
		return buildTargets{}, false
	}
	var b buildTargets
	for _, g := range reGfxTarget.Regexp().FindAllString(list, 16) {
		if !containsStr(b.gfx, g) {
			b.gfx = append(b.gfx, g)
		}
	}
	if len(b.gfx) == 0 {
		return buildTargets{}, false
	}
	b.source = src
	return b, true
}

// buildFacts: the targets the build names (all lines together) and where.
type buildFacts struct {
	gfx  []string
	ev   *Evidence
	done bool
}

func (s *Session) noteBuildTargets(l *line, b buildTargets) {
	f := &s.b.facts.build
	for _, g := range b.gfx {
		if !containsStr(f.gfx, g) && len(f.gfx) < 32 {
			f.gfx = append(f.gfx, g)
		}
	}
	if f.ev == nil {
		ev := l.ev(s)
		f.ev = &ev
	}
}

// applyBuildTargetMismatch is the rule: a device arch the log names that
// is none of the build's targets → arch_mismatch (sub_kind build_target),
// even with no error in the log. It needs both facts; an
// HSA_OVERRIDE_GFX_VERSION defeats it (the runtime then reports the
// override's target, and applyOverrideMismatch owns the case), and so
// does a device whose arch is among the targets. An arch_mismatch an
// error already found only gains the targets as a detail.
func (s *Session) applyBuildTargetMismatch() {
	f := &s.b.facts.build
	g := &s.b.facts.gfx
	if f.done || f.ev == nil || g.ovEv != nil {
		return
	}
	for i, d := range g.archs {
		if containsStr(f.gfx, d.gfx) {
			continue
		}
		f.done = true
		if a := s.b.get(ClassArchMismatch); a != nil {
			// an error already says the code does not fit the GPU: the
			// targets are its detail, not a second reading
			a.detail("build_targets", strings.Join(f.gfx, ";"))
			return
		}
		a := s.b.add(s, ClassArchMismatch, nil, 0.6)
		a.evidence(*f.ev)
		a.evidence(g.archEvs[i])
		a.setStr(&a.f.SubKind, "build_target")
		a.addReason("built for " + strings.Join(f.gfx, ", ") + " but the device is " + d.gfx + ": no native code for this GPU in the build")
		a.detail("build_targets", strings.Join(f.gfx, ";"))
		a.detail("device_arch", d.gfx)
		a.detail("device_arch_source", d.source)
		a.note("kernels built for another gfx target either fail to load (hipErrorNoBinaryForGpu) or — through a library's own per-arch kernels — run and return wrong values with no error: check every result against a baseline")
		return
	}
}
