package crash

import (
	"sort"
	"strings"
)

// Character-interleaved output (docs section 1.2): eight processes writing
// unbuffered to one stream splice their kernel names mid-token, so a wave
// header may carry "void aitvoid aiter::fmer::fmha_…". Two rules read the
// name back:
//
//   - degarble: a spliced name is a supersequence of a clean name seen
//     elsewhere (another wave header, a "Disassembly for function" line, a
//     CLR Kernel Name): the clean name is what the garbled one means.
//   - assembleNames: when no copy is clean (every writer was cut by
//     another, pieces of a name moved to other lines), the name is
//     assembled from all copies at once. Each writer prints the same name,
//     so a K-byte context inside it is followed by the same byte in most
//     copies, while a splice is followed by a byte seen once. Walking the
//     majority continuation from the header's "<" to its ">, kernargs="
//     reads the name as most writers printed it.

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
// name the session saw and the names assembled from interleaved dumps.
func (b *builder) degarbleKernels(a *agg) {
	known := append([]string(nil), a.kernels...)
	for _, h := range b.facts.kernelHints {
		known = append(known, h.name)
	}
	mix := b.facts.mixed.names()
	if len(known) < 2 && len(mix) == 0 {
		return
	}
	fix := func(k string) string {
		if d := degarble(k, known); d != k {
			return d
		}
		return b.facts.mixed.resolve(k, mix)
	}
	if k := fix(a.f.Kernel); k != a.f.Kernel {
		a.note("the kernel name was spliced by interleaved output from several processes; read as " + shortKernel(k))
		a.f.Kernel, a.f.KernelMangled = demangleName(k)
	}
	out := a.kernels[:0:0]
	for _, k := range a.kernels {
		if d := fix(k); !containsStr(out, d) {
			out = append(out, d)
		}
	}
	a.kernels = out
}

// Interleaved text kept for assembly: the lines after each wave header
// that names a kernel (where the other writers' pieces land), bounded.
const (
	mixWindowLines = 512
	mixMaxBytes    = 128 << 10
	mixTerm        = ">, kernargs="
	mixAnchor      = "kernel_code_entry="
)

// mixedText is the session's interleaved dump text (facts.mixed).
type mixedText struct {
	text  []byte
	cache []string
	done  bool
}

// names assembles the kernel names of the kept text once.
func (m *mixedText) names() []string {
	if !m.done {
		m.done = true
		if len(m.text) > 0 {
			m.cache = assembleNames(string(m.text))
		}
	}
	return m.cache
}

// resolve returns the assembled name a spliced name k stands for, or k. k
// is spliced when some K-byte context inside it is followed by its next
// byte at most once in the text (no second writer printed that) while the
// assembled name shares most of k's 8-byte pieces.
func (m *mixedText) resolve(k string, mix []string) string {
	if len(mix) == 0 || len(k) < 16 || containsStr(mix, k) {
		return k
	}
	t := string(m.text)
	if !splicedIn(k, t) {
		return k
	}
	best, score := k, 0.5
	for _, c := range mix {
		if f := sharedGrams(k, c, 8); f > score {
			best, score = c, f
		}
	}
	return best
}

// interleaveParser keeps the text that follows debug-agent wave headers
// for assembleNames, only of files the debug-agent parser found
// interleaved; it decides nothing.
type interleaveParser struct {
	s     *Session
	left  int
	start int // len(mixed.text) when the file began
}

func (p *interleaveParser) beginFile(s *Session) { p.left, p.start = 0, len(s.b.facts.mixed.text) }

func (p *interleaveParser) endFile() {
	p.left = 0
	if m := &p.s.b.facts.mixed; p.s.cur != nil && !p.s.cur.quality["interleaved"] {
		m.text = m.text[:p.start]
	}
}
func (p *interleaveParser) gate() uint64    { return kwAgent }
func (p *interleaveParser) active(int) bool { return p.left > 0 }

func (p *interleaveParser) line(l *line) {
	if strings.Contains(l.raw, mixAnchor) {
		p.left = mixWindowLines
	}
	if p.left == 0 {
		return
	}
	p.left--
	m := &p.s.b.facts.mixed
	if len(m.text)+len(l.raw)+1 > mixMaxBytes {
		p.left = 0
		return
	}
	m.text = append(m.text, l.raw...)
	m.text = append(m.text, '\n')
}

// assembleNames reads the kernel names of character-interleaved debug-agent
// headers from all their copies at once (see the top of this file). It
// tries long contexts first (a repeat inside a name, such as a template
// argument list printed twice, must be shorter than the context) and
// returns the names found with the longest context that yields any.
func assembleNames(text string) []string {
	// a name starts after "0x<hex> <" (the tail of the header's
	// kernel_code_entry, short enough to survive most splices)
	var starts []int
	for i := 0; ; {
		j := strings.Index(text[i:], " <")
		if j < 0 {
			break
		}
		i += j + 2
		h := i - 2
		for h > 0 && isHexDigitOrX(text[h-1]) {
			h--
		}
		if i-2-h >= 6 && strings.HasPrefix(text[h:], "0x") && i < len(text) && text[i] != '+' {
			starts = append(starts, i)
		}
	}
	if len(starts) < 2 {
		return nil
	}
	for _, k := range []int{32, 24, 16} {
		if names := assembleK(text, starts, k); len(names) > 0 {
			return names
		}
	}
	return nil
}

func isHexDigitOrX(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == 'x'
}

// assembleK walks majority continuations of k-byte contexts from each
// distinct name start seen at least twice.
func assembleK(text string, starts []int, k int) []string {
	next := map[string]map[byte]int{}
	for i := 0; i+k < len(text); i++ {
		c := text[i : i+k]
		if strings.IndexByte(c, '\n') >= 0 {
			continue
		}
		m := next[c]
		if m == nil {
			m = map[byte]int{}
			next[c] = m
		}
		m[text[i+k]]++
	}
	n := len(starts)
	minSup := max(2, n/4)
	seeds := map[string]int{}
	for _, st := range starts {
		if st+k <= len(text) && strings.IndexByte(text[st:st+k], '\n') < 0 {
			seeds[text[st:st+k]]++
		}
	}
	var out []string
	for seed, c := range seeds {
		if c < 2 {
			continue
		}
		w := walker{next: next, k: k, n: n, minSup: minSup, budget: 64}
		w.walk(seed, map[string]int{})
		if w.best != "" && !containsStr(out, w.best) {
			out = append(out, w.best)
		}
	}
	sort.Strings(out)
	return out
}

type walker struct {
	next      map[string]map[byte]int
	k, n      int
	minSup    int
	budget    int // walks left (each ambiguous branch costs one)
	best      string
	bestFound bool
}

// walk extends s by the best-supported byte whose uses stay within its
// expected count in the name (support / copies, at least 1), branching
// where a second byte has at least half the best support; the longest name
// that reaches the header's end wins.
func (w *walker) walk(s string, used map[string]int) {
	w.budget--
	type opt struct {
		b   byte
		sup int
	}
	for len(s) <= 4096 {
		if strings.HasSuffix(s, mixTerm) {
			name := s[:len(s)-len(mixTerm)]
			if len(name) > len(w.best) || len(name) == len(w.best) && name < w.best {
				w.best = name
			}
			return
		}
		c := s[len(s)-w.k:]
		var opts []opt
		for b, sup := range w.next[c] {
			if b == '\n' || sup < w.minSup {
				continue
			}
			if used[c+string(b)] < max(1, (sup+w.n/2)/w.n) {
				opts = append(opts, opt{b, sup})
			}
		}
		if len(opts) == 0 {
			return
		}
		sort.Slice(opts, func(i, j int) bool {
			if opts[i].sup != opts[j].sup {
				return opts[i].sup > opts[j].sup
			}
			return opts[i].b < opts[j].b
		})
		for _, o := range opts[1:] {
			if o.sup*2 < opts[0].sup || w.budget <= 0 {
				break
			}
			u := make(map[string]int, len(used)+1)
			for x, v := range used {
				u[x] = v
			}
			u[c+string(o.b)]++
			w.walk(s+string(o.b), u)
		}
		used[c+string(opts[0].b)]++
		s += string(opts[0].b)
	}
}

// splicedIn reports whether name holds a 16-byte context followed by a
// byte that text shows at most once after that context.
func splicedIn(name, text string) bool {
	const k = 16
	for i := 0; i+k < len(name); i++ {
		if strings.Count(text, name[i:i+k+1]) < 2 {
			return true
		}
	}
	return false
}

// sharedGrams is the share of a's n-byte pieces that occur in b.
func sharedGrams(a, b string, n int) float64 {
	if len(a) < n {
		return 0
	}
	hit := 0
	for i := 0; i+n <= len(a); i++ {
		if strings.Contains(b, a[i:i+n]) {
			hit++
		}
	}
	return float64(hit) / float64(len(a)-n+1)
}
