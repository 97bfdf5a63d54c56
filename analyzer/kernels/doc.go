// Package kernels names and classifies GPU activities of PyTorch/Kineto
// traces from AMD ROCm (MI300X, MI210, …) and NVIDIA GPUs.
//
// Classify maps a kernel name and its activity category to a Class: what
// the kernel computes (gemm, attention, norm, …) and which library or
// framework it comes from (hipBLASLt/Tensile, CK-tile, AITER, Triton, …).
// Canonical gives the name kernels are grouped by in tables, Demangle the
// readable C++ name, and ISA the GPU architecture a name is built for.
//
// Classification is one ordered, data-driven rule table (rules in
// kernels.go); the first matching rule wins. Rules look at the raw and the
// demangled name. Library rules (CK, AITER, vLLM, ATen, …) then refine the
// category by op keywords in the canonical name, because the op often sits
// in a template argument (elementwise_kernel<…silu_kernel…>,
// kentry<…Rmsnorm2dFwd…>). RULES.md lists the order and explains the
// choices; testdata/classes.golden.tsv shows the class of every kernel
// in the shared test traces.
//
// "memory" is copy-engine activities (gpu_memcpy, gpu_memset) and the HIP
// runtime's own blit kernels (__amd_rocclr_copyBuffer…), which implement
// hipMemcpy/hipMemset. Other kernels whose names say memset or copy, such as
// Triton's _combined_routing_memset or ATen's CatArrayBatchedCopy, are
// classified by what they do.
//
// Classification costs time linear in the name with a small constant: rules
// look at a bounded head of each spelling (RULES.md, "Bounded work").
package kernels
