package kernels

import (
	"strings"
	"unicode/utf8"
)

// Class is what a kernel is.
type Class struct {
	Category string // one of the Category* constants
	Provider string // one of the Provider* constants
}

// Categories: what a kernel computes.
const (
	CategoryCommunication = "communication"
	CategoryGEMM          = "gemm"
	CategoryAttention     = "attention"
	CategoryMoE           = "moe"
	CategoryNorm          = "norm"
	CategoryRoPE          = "rope"
	CategoryActivation    = "activation"
	CategoryQuantization  = "quantization"
	CategoryElementwise   = "elementwise"
	CategoryReduction     = "reduction" // reductions, softmax, top-k, sampling, scans, sorts, pooling, losses
	CategoryConv          = "conv"
	CategoryMemory        = "memory" // copy-engine activities (by cat) and the HIP runtime's own blit kernels
	CategoryIndex         = "index"  // KV-cache writes, page tables, positions, embedding-table lookups
	CategoryOther         = "other"
)

// Providers: the library or framework a kernel comes from.
const (
	ProviderNCCL            = "RCCL/NCCL"
	ProviderCustomAllReduce = "custom-allreduce"
	ProviderSymmMem         = "symm-mem"
	ProviderHipBLASLt       = "hipBLASLt/Tensile"
	ProviderRocBLAS         = "rocBLAS"
	ProviderTensile         = "Tensile" // a Tensile GEMM whose name says neither rocBLAS nor hipBLASLt
	ProviderMSCCLPP         = "MSCCL++"
	ProviderQuickReduce     = "QuickReduce" // MK1 quick all-reduce, shipped in vLLM and AITER
	ProviderROCclr          = "ROCclr"      // the HIP runtime's blit kernels
	ProviderCK              = "CK"
	ProviderCKTile          = "CK-tile"
	ProviderAITER           = "AITER"
	ProviderTriton          = "Triton"
	ProviderGluon           = "Triton Gluon"
	ProviderMIOpen          = "MIOpen"
	ProviderATen            = "ATen"
	ProviderCuBLAS          = "cuBLAS"
	ProviderCUTLASS         = "CUTLASS"
	ProviderCuDNN           = "cuDNN"
	ProviderFlashAttention  = "FlashAttention"
	ProviderFlashInfer      = "FlashInfer"
	ProviderSGLKernel       = "sgl-kernel"
	ProviderVLLM            = "vLLM"
	// ProviderAITERorVLLM is a kernel whose name both ship (vLLM's ROCm
	// paged_attention_ll4mi_* and AITER's copies) when nothing in the trace
	// said which launched it (see ByContext).
	ProviderAITERorVLLM = "AITER or vLLM (name shared)"
	ProviderTRTLLM      = "TRT-LLM"
	ProviderFBGEMM      = "FBGEMM"
	ProviderApex        = "Apex"
	ProviderCUB         = "rocPRIM/CUB"
	ProviderCopyEngine  = "copy-engine" // memcpy/memset activities
	ProviderUnknown     = "unknown"
)

// Activity categories of GPU events, as Classify expects them.
const (
	CatKernel = "kernel"
	CatMemcpy = "gpu_memcpy"
	CatMemset = "gpu_memset"
)

// NormalizeCat maps the legacy (2021) Kineto categories "Kernel", "Memcpy"
// and "Memset" to their current names and returns any other cat unchanged.
func NormalizeCat(cat string) string {
	switch cat {
	case "Kernel":
		return CatKernel
	case "Memcpy":
		return CatMemcpy
	case "Memset":
		return CatMemset
	}
	return cat
}

// Classify classifies one GPU activity. cat is the event's normalized
// category: "kernel", "gpu_memcpy" or "gpu_memset" (see NormalizeCat).
// The first rule of the table that matches wins; RULES.md gives the order
// and the reasons. Classify is deterministic and takes time linear in the
// name with a small constant: rules see a bounded head of the name (see
// ruleWindow), and results for ordinary-length names are cached.
func Classify(name, cat string) Class {
	if c, ok := cache.get(name, cat); ok {
		return c
	}
	c := classify(name, cat)
	cache.put(name, cat, c)
	return c
}

func classify(name, cat string) Class {
	k := newKernelName(name)
	for _, r := range rules {
		if c, ok := r.apply(k, cat); ok {
			return c
		}
	}
	return Class{CategoryOther, ProviderUnknown}
}

// Rules look at a bounded head of each spelling of a name, so a hostile
// 100 MB name costs no more regexp time than a real one. Real kernel names
// carry what identifies them (namespace, identifier, the op in the first
// template arguments, Tensile's solution tokens) well inside these bounds:
// the longest name in the shared traces is 5 KB raw, and every class in
// testdata/classes.golden.tsv is the same with windows of 300 and 600 bytes.
const (
	ruleWindow = 1 << 10 // bytes of the raw and demangled name the rule regexps see
	opWindow   = 4 << 10 // bytes of the lower-cased canonical name the op keywords see
)

// kernelName holds the spellings of one name that rules look at, each
// bounded by head.
type kernelName struct {
	raw       string
	demangled string // == raw unless raw is mangled
	lower     string // lower-cased canonical form, for op keywords
}

func newKernelName(name string) kernelName {
	d := Demangle(name)
	k := kernelName{raw: head(name, ruleWindow), demangled: head(d, ruleWindow)}
	if d == name {
		k.demangled = k.raw
	}
	// canonical is linear; lower-casing only the window keeps the copy small.
	k.lower = strings.ToLower(head(canonical(d), opWindow))
	return k
}

// head returns the first n bytes of s (cut at a rune start). A cut name
// ends in NUL, which no rule matches, so an end-anchored rule cannot match
// a name that goes on past the window.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "\x00"
}

// rule maps a name pattern (or an activity category) to a class.
type rule struct {
	cat      string   // if set, the rule matches this activity category and ignores the name
	re       *pattern // otherwise, matched against the raw and the demangled name
	category string   // the category; with refine set, the fallback ("" = fall through to the next rule)
	provider string
	refine   []opKeyword // optional: refine the category by op keywords in the name
	seen     string      // a test trace that has such a name (see trace-format.md §0 labels)
}

// apply returns the class r gives an activity and whether r matches it.
func (r rule) apply(k kernelName, cat string) (Class, bool) {
	if r.cat != "" {
		return Class{r.category, r.provider}, cat == r.cat
	}
	if !r.re.MatchString(k.raw) && (k.demangled == k.raw || !r.re.MatchString(k.demangled)) {
		return Class{}, false
	}
	category := r.category
	if c := opCategory(r.refine, k.lower); c != "" {
		category = c
	}
	return Class{category, r.provider}, category != ""
}

// opKeyword maps op words found in a kernel name to a category.
type opKeyword struct {
	category string
	re       *pattern
}

// opCategory returns the category of the first keyword found in name, or "".
func opCategory(table []opKeyword, name string) string {
	for _, w := range table {
		if w.re.MatchString(name) {
			return w.category
		}
	}
	return ""
}
