package crash

import (
	"regexp"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangleName returns the display name and, when name was an Itanium
// mangled symbol, the mangled original.
func demangleName(name string) (display, mangled string) {
	name = clip(strings.TrimSpace(name), 2048)
	if !strings.HasPrefix(name, "_Z") {
		return name, ""
	}
	d := safeDemangle(name)
	if d == "" || d == name {
		return name, ""
	}
	return clip(d, 2048), name
}

func safeDemangle(name string) (out string) {
	defer func() {
		if recover() != nil {
			out = ""
		}
	}()
	sym := name
	// the debug agent and HIP append ".kd" to kernel descriptors
	sym = strings.TrimSuffix(sym, ".kd")
	d, err := demangle.ToString(sym, demangle.NoClones)
	if err != nil {
		return ""
	}
	return d
}

type kernelPattern struct {
	re      *regexp.Regexp
	meaning string // may use $1
}

var kernelPatterns = []kernelPattern{
	{regexp.MustCompile(`index_copy_kernel_impl<(?:at::native::)?OpaqueType<(\d+)>`), "Tensor.index_copy_ on a $1-byte dtype (device assert = index out of range for the destination dim)"},
	{regexp.MustCompile(`index_put_kernel_impl<(?:at::native::)?OpaqueType<(\d+)>`), "Tensor.index_put_ / tensor[idx] = v on a $1-byte dtype (assert = index out of bounds)"},
	{regexp.MustCompile(`index_put_kernel_impl`), "Tensor.index_put_ / tensor[idx] = v (assert = index out of bounds)"},
	{regexp.MustCompile(`index_copy_kernel_impl`), "Tensor.index_copy_ (assert = index out of range)"},
	{regexp.MustCompile(`index_kernel_impl<(?:at::native::)?OpaqueType<(\d+)>`), "advanced indexing read tensor[idx] on a $1-byte dtype"},
	{regexp.MustCompile(`index_kernel_impl|index_elementwise_kernel`), "advanced indexing (tensor[idx])"},
	{regexp.MustCompile(`indexSelect(?:Small|Large)Index`), "torch.index_select / embedding lookup (assert = index >= size of the indexed dim)"},
	{regexp.MustCompile(`scatter_gather_elementwise_kernel|scatter_kernel|_scatter_`), "Tensor.scatter_ / gather (index out of bounds)"},
	{regexp.MustCompile(`gather_kernel`), "torch.gather"},
	{regexp.MustCompile(`_assert_async`), "torch._assert_async: bad indices or NaN/inf probabilities in sampling (torch.multinomial)"},
	{regexp.MustCompile(`^Cijk_.*_ISA(\d{3,4})`), "Tensile GEMM kernel (rocBLAS / hipBLASLt) built for gfx$1"},
	{regexp.MustCompile(`^Cijk_`), "Tensile GEMM kernel (rocBLAS / hipBLASLt)"},
	{regexp.MustCompile(`ncclDevKernel|ncclKernel|rccl`), "NCCL/RCCL collective kernel (spinning here = a peer never arrived)"},
	{regexp.MustCompile(`allgather|all_gather|reduce_scatter|allreduce|all_reduce|cross_device_reduce`), "custom collective kernel (cross-rank barrier)"},
	{regexp.MustCompile(`__omp_offloading_[0-9a-f]+_[0-9a-f]+_+(\w+?)_l(\d+)\b`), "OpenMP target region in $1 at line $2"},
	{regexp.MustCompile(`rocprim::`), "rocPRIM device primitive (scan / sort / reduce)"},
	{regexp.MustCompile(`(?i)paged_attention|pa_fwd`), "paged attention kernel"},
	{regexp.MustCompile(`(?i)\bmla\b|mla_|_mla`), "MLA attention kernel (AITER/FlashInfer)"},
	{regexp.MustCompile(`(?i)fmha|mha_fwd|mha_bwd|flash_fwd|flash_attn`), "flash-attention kernel (CK / AITER / FA)"},
	{regexp.MustCompile(`(?i)_clean\b|splitk|split_k`), "split-K GEMM (shared workspace counter; concurrent streams can deadlock)"},
	{regexp.MustCompile(`__amd_rocclr_|hip::stream::empty_kernel`), "HIP runtime internal kernel (copy / fill / marker)"},
	{regexp.MustCompile(`cunn_SoftMax|softmax`), "softmax kernel"},
	{regexp.MustCompile(`vectorized_elementwise_kernel|unrolled_elementwise_kernel|elementwise_kernel`), "PyTorch elementwise kernel"},
	{regexp.MustCompile(`reduce_kernel`), "PyTorch reduction kernel"},
	{regexp.MustCompile(`^triton_(?:poi|red|per|tem)_`), "Inductor-generated Triton kernel"},
}

// kernelMeaning explains what a kernel is, when the name is recognised.
func kernelMeaning(name string) string {
	if name == "" {
		return ""
	}
	for _, p := range kernelPatterns {
		if m := p.re.FindStringSubmatchIndex(name); m != nil {
			return string(p.re.ExpandString(nil, p.meaning, name, m))
		}
	}
	return ""
}

var reISAInName = regexp.MustCompile(`_ISA(\d{3,4})(?:_|$)`)

// kernelISA returns the gfx target a Tensile kernel name was built for.
func kernelISA(name string) string {
	if m := reISAInName.FindStringSubmatch(name); m != nil {
		return "gfx" + m[1]
	}
	return ""
}

// savedCodeObjectName is the file name rocm-debug-agent --save-code-objects
// writes for a code-object URI (newer agents prefix "<n>_").
func savedCodeObjectName(uri string) string {
	r := strings.NewReplacer(":", "_", "/", "_", "#", "_", "?", "_", "&", "_", "=", "_")
	return r.Replace(uri)
}

// codeObjectLibrary returns the file name of a file:// code object.
func codeObjectLibrary(uri string) string {
	if !strings.HasPrefix(uri, "file://") {
		return ""
	}
	p := strings.TrimPrefix(uri, "file://")
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return p
}
