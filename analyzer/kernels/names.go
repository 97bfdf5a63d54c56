package kernels

import (
	"errors"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// maxMangledLen bounds the input handed to the demangler. Real kernel symbols
// stay under ~6 KB (CK templates); anything far larger is not worth the
// demangler's time (~1 ms per KB on hostile template lists) and memory.
const maxMangledLen = 16 << 10

// demangleOpts asks for names as the GPU runtimes print them (GNU c++filt
// style, as in roctracer/CUPTI output) without clone suffixes, with the
// output capped at 2^18 bytes.
var demangleOpts = []demangle.Option{demangle.NoClones, demangle.MaxLength(18)}

var errDemanglePanic = errors.New("demangler panicked")

// Demangle returns the demangled C++ name, or name unchanged if it is not
// mangled or cannot be demangled.
func Demangle(name string) string {
	if !strings.HasPrefix(name, "_Z") || len(name) > maxMangledLen {
		return name
	}
	// ROCm tools sometimes report the kernel-descriptor symbol "<mangled>.kd".
	s, err := safeDemangle(strings.TrimSuffix(name, ".kd"))
	if err != nil || s == "" {
		return name
	}
	return s
}

// safeDemangle shields callers from demangler panics on hostile input.
func safeDemangle(name string) (s string, err error) {
	defer func() {
		if recover() != nil {
			s, err = "", errDemanglePanic
		}
	}()
	return demangle.ToString(name, demangleOpts...)
}

// Canonical returns the name used to group kernels in tables: demangled if
// mangled, hex literals replaced by 0xADDR, the trailing parameter list of a
// C++ signature and its return type ("void ", "std::enable_if<…>::type ")
// dropped. Template arguments are kept because they distinguish kernels.
// It takes time linear in the name.
func Canonical(name string) string {
	return canonical(Demangle(name))
}

// canonical is Canonical for a name that is already demangled.
func canonical(demangled string) string {
	s := replaceHex(strings.TrimSpace(demangled))
	return stripReturnType(stripParams(s))
}

// replaceHex replaces standalone hex literals (pointers, template
// addresses), as the regexp \b0x[0-9a-fA-F]+\b would, by 0xADDR, in one
// pass. The word boundaries keep tile shapes such as Tensile's
// "MT160x256x64" intact.
func replaceHex(s string) string {
	i := strings.Index(s, "0x")
	if i < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for ; i >= 0 && i < len(s); i = nextHex(s, i) {
		j := i + 2
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
		if j == i+2 || (i > 0 && isWordByte(s[i-1])) || (j < len(s) && isWordByte(s[j])) {
			i = j - 1 // not a standalone literal; resume after it
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString("0xADDR")
		last = j
		i = j - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// nextHex returns the index of the next "0x" after position i, or -1.
func nextHex(s string, i int) int {
	k := strings.Index(s[i+1:], "0x")
	if k < 0 {
		return -1
	}
	return i + 1 + k
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isWordByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// stripParams removes the trailing "(...)" of a C++ function signature. A
// list preceded by a space, as in "Memcpy DtoD (Device -> Device)", is prose,
// not a signature, and stays.
func stripParams(s string) string {
	if !strings.HasSuffix(s, ")") {
		return s
	}
	open := matchingOpen(s)
	if open <= 0 || s[open-1] == ' ' {
		return s
	}
	return s[:open]
}

// matchingOpen returns the index of the '(' matching the final ')' of s, or -1.
func matchingOpen(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// stripReturnType drops the return type of a demangled kernel signature.
// Kernels return void, spelled either "void" or, with SFINAE,
// "std::enable_if<…, void>::type" (vLLM's fused_add_rms_norm_kernel).
func stripReturnType(s string) string {
	if rest, ok := strings.CutPrefix(s, "void "); ok {
		return rest
	}
	if strings.HasPrefix(s, "std::enable_if<") {
		if _, rest, ok := strings.Cut(s, ">::type "); ok {
			return rest
		}
	}
	return s
}

var (
	// amdISA matches Tensile's "_ISA942_" and plain "gfx90a" tokens.
	amdISA = newPattern(`(?:^|_)ISA([0-9]{2,3}[0-9a-f])(?:_|$)|(?:^|[^A-Za-z0-9])gfx([0-9]{2,3}[0-9a-f])(?:[^0-9a-f]|$)`)
	// nvidiaSM matches sm90, sm_90, sm100f, camel-case "fmhaSm100a", and
	// CUTLASS's "cutlass_80_" arch prefix.
	nvidiaSM = newPattern(`(?:^|[^A-Za-z0-9])sm_?([0-9]{2,3})(?:[a-z_]|[^0-9A-Za-z]|$)|Sm([0-9]{2,3})[a-z]?(?:[A-Z_]|$)|(?:^|[^A-Za-z0-9])cutlass_([0-9]{2,3})_`)
	// nvidiaFamily maps the architecture-family prefixes of cuBLAS/cuDNN
	// kernels ("volta_sgemm_…", "cudnn_infer_ampere_scudnn_…").
	nvidiaFamily = newPattern(`(?:^|_)(maxwell|pascal|volta|turing|ampere|hopper|blackwell)_`)
	familySM     = map[string]string{
		"maxwell": "sm50", "pascal": "sm60", "volta": "sm70", "turing": "sm75",
		"ampere": "sm80", "hopper": "sm90", "blackwell": "sm100",
	}
)

// ISA returns the GPU ISA named by a token in a kernel name: "gfx942" for
// Tensile's _ISA942_, "gfx90a" for _ISA90a_, and for NVIDIA the target named
// by sm90 / sm_90 / Sm100a / cutlass_80_ / sdpa_sm80_ / volta_… tokens, as
// "sm90", "sm80", … The vendor is "amd" or "nvidia"; both are "" when the
// name carries no such token.
//
// AMD code objects are arch-exact, so an AMD ISA is the device's ISA. An
// NVIDIA token is only a lower bound: sm80 kernels run on H100.
func ISA(name string) (isa, vendor string) {
	name = head(name, ruleWindow) // the tokens sit in the first few hundred bytes
	if m := amdISA.FindStringSubmatch(name); m != nil {
		return "gfx" + m[1] + m[2], "amd"
	}
	if m := nvidiaSM.FindStringSubmatch(name); m != nil {
		return "sm" + m[1] + m[2] + m[3], "nvidia"
	}
	if m := nvidiaFamily.FindStringSubmatch(name); m != nil {
		return familySM[m[1]], "nvidia"
	}
	return "", ""
}
