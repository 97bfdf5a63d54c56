package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Device memory pools of frameworks other than PyTorch and XLA report an
// allocation they could not satisfy in their own words; each is vram_oom
// (CuPy's pool is frameworks.go's):
//
//	… onnxruntime::BFCArena::AllocateRawInternal(size_t, bool) Failed to allocate memory for requested buffer of size 8388608000   ONNX Runtime's arena
//	W tensorflow/core/common_runtime/bfc_allocator.cc:271] Ran out of memory trying to allocate 24.50MiB.  See logs for memory state.   TensorFlow 1.x
//	W …bfc_allocator.cc:…] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.16GiB.  Current allocation summary follows.
//	Kokkos ERROR: HIP memory space failed to allocate 33.47 GiB (label="ArborX::BVH::internal_nodes").   Kokkos 4's BadAlloc
//
// Kokkos's host spaces ("Host", "CudaHostPinned", "HIPHostPinned") are not
// VRAM and do not match.
//
// TensorFlow 2's "Allocator (GPU_0_bfc) ran out of memory … The caller
// indicates that this is not a failure" is a warning a run survives, and an
// allocator of host memory ("cpu", "cuda_host_bfc", "mklcpu") is not VRAM:
// neither matches.

var (
	reORTArena       = lazyre.New(`BFCArena::AllocateRawInternal\b.*?Failed to allocate memory for requested buffer of size (\d+)`)
	reKokkosBadAlloc = lazyre.New(`Kokkos ERROR: (\w+) memory space failed to allocate ([\d.]+ ?[KMGT]?i?B)`)
	reTFBFCRan       = lazyre.New(`(?:Allocator \((\w+)\) r|\bR)an out of memory trying to allocate ([\d.]+[KMGT]?i?B)`)
)

// fwAlloc is one framework pool's refused device allocation.
type fwAlloc struct {
	allocator string // "ONNX Runtime BFCArena", "TensorFlow BFC allocator (GPU_0_bfc)"
	bytes     string // the request as printed: "8388608000 bytes", "24.50MiB"
}

func extractFrameworkAlloc(t string) (fwAlloc, bool) {
	if !strings.Contains(t, "emory") {
		return fwAlloc{}, false
	}
	if strings.Contains(t, "BFCArena::") {
		if m := reORTArena.FindStringSubmatch(t); m != nil {
			// the CPU execution provider's arena prints the same words:
			// device memory only as far as a GPU log makes it likely
			return fwAlloc{allocator: "ONNX Runtime BFCArena", bytes: m[1] + " bytes"}, true
		}
	}
	if strings.Contains(t, " memory space failed to allocate ") {
		if m := reKokkosBadAlloc.FindStringSubmatch(t); m != nil && m[1] != "Host" && !strings.HasSuffix(m[1], "HostPinned") {
			return fwAlloc{allocator: "Kokkos " + m[1] + " memory space", bytes: m[2]}, true
		}
	}
	if strings.Contains(t, "an out of memory trying to allocate") && !strings.Contains(t, "not a failure") {
		if m := reTFBFCRan.FindStringSubmatch(t); m != nil {
			name := m[1]
			if name != "" && !(strings.HasPrefix(name, "GPU_") && strings.HasSuffix(name, "_bfc")) {
				return fwAlloc{}, false // a host allocator (cpu, cuda_host_bfc, mklcpu)
			}
			if name == "" && !strings.Contains(t, "bfc_allocator") && !strings.Contains(t, "See logs for memory state") {
				return fwAlloc{}, false
			}
			a := "TensorFlow BFC allocator"
			if name != "" {
				a += " (" + name + ")"
			}
			return fwAlloc{allocator: a, bytes: m[2]}, true
		}
	}
	return fwAlloc{}, false
}

// applyFrameworkAlloc: a framework's device memory pool could not grow →
// vram_oom, less sure (ONNX Runtime's CPU arena prints the same words,
// TensorFlow's line is the prelude to the exception).
func (s *Session) applyFrameworkAlloc(l *line, x fwAlloc) {
	a := s.b.add(s, ClassVRAMOOM, l, 0.65)
	a.setStr(&a.f.RequestedBytesText, x.bytes)
	a.detail("allocator", x.allocator)
	a.addReason(x.allocator + " could not allocate " + x.bytes + " of device memory")
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
