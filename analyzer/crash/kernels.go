package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
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
	re      *lazyre.Regexp
	meaning string // may use $1
}

var kernelPatterns = []kernelPattern{
	{lazyre.New(`index_copy_kernel_impl<(?:at::native::)?OpaqueType<(\d+)>`), "Tensor.index_copy_ on a $1-byte dtype (device assert = index out of range for the destination dim)"},
	{lazyre.New(`index_put_kernel_impl<(?:at::native::)?OpaqueType<(\d+)>`), "Tensor.index_put_ / tensor[idx] = v on a $1-byte dtype (assert = index out of bounds)"},
	{lazyre.New(`index_put_kernel_impl`), "Tensor.index_put_ / tensor[idx] = v (assert = index out of bounds)"},
	{lazyre.New(`index_copy_kernel_impl`), "Tensor.index_copy_ (assert = index out of range)"},
	{lazyre.New(`index_kernel_impl<(?:at::native::)?OpaqueType<(\d+)>`), "advanced indexing read tensor[idx] on a $1-byte dtype"},
	{lazyre.New(`index_kernel_impl|index_elementwise_kernel`), "advanced indexing (tensor[idx])"},
	{lazyre.New(`indexSelect(?:Small|Large)Index`), "torch.index_select / embedding lookup (assert = index >= size of the indexed dim)"},
	{lazyre.New(`scatter_gather_elementwise_kernel|scatter_kernel|_scatter_`), "Tensor.scatter_ / gather (index out of bounds)"},
	{lazyre.New(`gather_kernel`), "torch.gather"},
	{lazyre.New(`_assert_async`), "torch._assert_async: bad indices or NaN/inf probabilities in sampling (torch.multinomial)"},
	{lazyre.New(`^Cijk_.*_ISA(\d{3,4})`), "Tensile GEMM kernel (rocBLAS / hipBLASLt) built for gfx$1"},
	{lazyre.New(`^Cijk_`), "Tensile GEMM kernel (rocBLAS / hipBLASLt)"},
	{lazyre.New(`ncclDevKernel|ncclKernel|rccl`), "NCCL/RCCL collective kernel (spinning here = a peer never arrived)"},
	{lazyre.New(`allgather|all_gather|reduce_scatter|allreduce|all_reduce|cross_device_reduce`), "custom collective kernel (cross-rank barrier)"},
	{lazyre.New(`_swa_write_kernel|_update_compressor_states_kernel`), "ATOM Triton kernel (source: state_writes.py)"},
	{lazyre.New(`(?i)^(?:_ZN5aiter\w*)?fmoe_|aiter::fmoe|^ck_moe|fused_moe`), "AITER fused-MoE kernel (precompiled assembly .co shipped with aiter)"},
	{lazyre.New(`__omp_offloading_[0-9a-f]+_[0-9a-f]+_+(\w+?)_l(\d+)\b`), "OpenMP target region in $1 at line $2"},
	{lazyre.New(`rocprim::`), "rocPRIM device primitive (scan / sort / reduce)"},
	{lazyre.New(`(?i)paged_attention|pa_fwd`), "paged attention kernel"},
	{lazyre.New(`(?i)\bmla\b|mla_|_mla`), "MLA attention kernel (AITER/FlashInfer)"},
	{lazyre.New(`(?i)fmha|mha_fwd|mha_bwd|flash_fwd|flash_attn`), "flash-attention kernel (CK / AITER / FA)"},
	{lazyre.New(`(?i)_clean\b|splitk|split_k`), "split-K GEMM (shared workspace counter; concurrent streams can deadlock)"},
	{lazyre.New(`__amd_rocclr_|hip::stream::empty_kernel`), "HIP runtime internal kernel (copy / fill / marker)"},
	{lazyre.New(`cunn_SoftMax|softmax`), "softmax kernel"},
	{lazyre.New(`vectorized_elementwise_kernel|unrolled_elementwise_kernel|elementwise_kernel`), "PyTorch elementwise kernel"},
	{lazyre.New(`reduce_kernel`), "PyTorch reduction kernel"},
	{lazyre.New(`^triton_(?:poi|red|per|tem)_`), "Inductor-generated Triton kernel"},
	{lazyre.New(`aiter::|_ZN5aiter`), "AITER kernel"},
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

var reISAInName = lazyre.New(`_ISA(\d{3,4})(?:_|$)`)

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
