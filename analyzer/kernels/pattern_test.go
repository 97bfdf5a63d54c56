package kernels

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// allPatterns lists every pattern of the package.
func allPatterns() []*pattern {
	ps := []*pattern{amdISA, nvidiaSM, nvidiaFamily}
	for _, r := range rules {
		if r.re != nil {
			ps = append(ps, r.re)
		}
	}
	for _, t := range [][]opKeyword{ops, inductorOps, templateOps, fbgemmOps} {
		for _, w := range t {
			ps = append(ps, w.re)
		}
	}
	return ps
}

// TestPatternsCompile compiles every pattern (they compile on first use,
// so a bad one would otherwise panic only when a name reaches it) and
// checks that the prefilter is there: only the catch-all rule has none.
func TestPatternsCompile(t *testing.T) {
	for _, p := range allPatterns() {
		regexp.MustCompile(p.src)
		p.init()
		if p.lits == nil && p.src != "." {
			t.Errorf("pattern %q has no literal prefilter", p.src)
		}
	}
	p := newPattern(`(?i)nccl|rccl|msccl`)
	p.init()
	if want := []literal{{"nccl", true}, {"rccl", true}, {"msccl", true}}; !slices.Equal(p.lits, want) {
		t.Errorf("literals of %q = %v, want %v", p.src, p.lits, want)
	}
}

// prefilterSeeds are names that sit on the prefilter's edges: every
// literal alone, cut short, in other cases, and with the non-ASCII runes
// that Unicode case folding maps onto ASCII letters (K KELVIN SIGN, ſ LONG S).
func prefilterSeeds() []string {
	seeds := slices.Clone(realNames)
	seeds = append(seeds, "", "\x00", "\xff", "\ufffd", "mſcclpp", "MSCCLPP", "NCCL_kernel", "ncc\u212al", "\u212a",
		"hipBLASLt", "HIPBLASLT", "deepEP_x", "a_allreduce", "Sm100a", "sm_90a", "_ISA942_", "gfx90a)", "cutlass_80_x")
	for _, p := range allPatterns() {
		p.init()
		for _, l := range p.lits {
			s := l.s
			seeds = append(seeds, s, "_"+s+"_", strings.ToUpper(s), s[:len(s)-1], "x "+s+"\ufffd",
				strings.NewReplacer("s", "ſ", "k", "\u212a", "S", "ſ", "K", "\u212a").Replace(s))
		}
	}
	return seeds
}

// FuzzPatternPrefilter checks that a pattern behind its prefilter answers
// exactly as the plain regexp, for match and for submatches. The seeds run
// in every `go test`.
func FuzzPatternPrefilter(f *testing.F) {
	for _, s := range prefilterSeeds() {
		f.Add(s)
	}
	ps := allPatterns()
	plain := make([]*regexp.Regexp, len(ps))
	for i, p := range ps {
		plain[i] = regexp.MustCompile(p.src)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, p := range ps {
			if got, want := p.MatchString(s), plain[i].MatchString(s); got != want {
				t.Fatalf("pattern %q on %q: prefiltered %v, plain %v", p.src, s, got, want)
			}
			if got, want := p.FindStringSubmatch(s), plain[i].FindStringSubmatch(s); !slices.Equal(got, want) {
				t.Fatalf("pattern %q on %q: prefiltered %q, plain %q", p.src, s, got, want)
			}
		}
	})
}

// TestPrefilterRefuses checks that the prefilter does refuse names: a
// prefilter that let everything through would pass the fuzz target.
func TestPrefilterRefuses(t *testing.T) {
	p := newPattern(`(?i)nccl|rccl|msccl`)
	for s, want := range map[string]bool{
		"Cijk_Alik": false, "ncclDevKernel": true, "RCCL": true, "mſccl": true /* non-ASCII: the regexp decides */, "msccl\u212a": true,
		"ncc": false, "": false,
	} {
		if got := p.possible(s); got != want {
			t.Errorf("possible(%q) = %v, want %v", s, got, want)
		}
	}
}
