package crash

import "strings"

// Character-interleaved output (docs section 1.2): eight processes writing
// unbuffered to one stream splice their kernel names mid-token, so a wave
// header may carry "void aitvoid aiter::fmer::fmha_…". Such a name is a
// supersequence of a clean name seen elsewhere (another wave header, a
// "Disassembly for function" line, a CLR Kernel Name): the clean name is
// what the garbled one means.

// subsequence reports whether every byte of m occurs in n in order.
func subsequence(m, n string) bool {
	j := 0
	for i := 0; i < len(n) && j < len(m); i++ {
		if n[i] == m[j] {
			j++
		}
	}
	return j == len(m)
}

// degarble returns the clean name that name is an interleaving of, or name.
// A candidate must be shorter, at least 8 bytes and at least half as long
// (two or more writers spliced into one token).
func degarble(name string, known []string) string {
	best := ""
	for _, k := range known {
		// a name that holds k in one piece is another, longer name
		// (transpose_kernel vs transpose), not a splice
		if len(k) >= len(name) || len(k) < 8 || len(k)*4 < len(name) || strings.Contains(name, k) || !subsequence(k, name) {
			continue
		}
		if len(k) > len(best) || len(k) == len(best) && k < best {
			best = k
		}
	}
	if best == "" {
		return name
	}
	return best
}

// degarbleKernels rewrites a finding's kernel names against every kernel
// name the session saw.
func (b *builder) degarbleKernels(a *agg) {
	known := append([]string(nil), a.kernels...)
	for _, h := range b.facts.kernelHints {
		known = append(known, h.name)
	}
	if len(known) < 2 {
		return
	}
	if k := degarble(a.f.Kernel, known); k != a.f.Kernel {
		a.note("the kernel name was spliced by interleaved output from several processes; read as " + shortKernel(k))
		a.f.Kernel, a.f.KernelMangled = demangleName(k)
	}
	out := a.kernels[:0:0]
	for _, k := range a.kernels {
		if d := degarble(k, known); !containsStr(out, d) {
			out = append(out, d)
		}
	}
	a.kernels = out
}
