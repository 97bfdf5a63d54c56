package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// ggml (llama.cpp, ollama) reports a failed device allocation in its own
// words, on CUDA and on HIP builds alike (the HIP build keeps the CUDA
// names): "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 17536.01
// MiB on device 0: cudaMalloc failed: out of memory". The torch parser
// hands it lines with "out of memory" (torch.go).

var reGGMLAlloc = lazyre.New(`allocating ([\d.]+ ?[KMGT]i?B) on device (\d+): (\w+) failed: out of memory`)

// ggmlAlloc is one failed ggml device allocation: size, device index and
// the allocator call.
type ggmlAlloc struct {
	size, device, api string
}

func extractGGMLAlloc(t string) (ggmlAlloc, bool) {
	m := findIf(t, "allocating ", reGGMLAlloc)
	if m == nil {
		return ggmlAlloc{}, false
	}
	return ggmlAlloc{size: m[1], device: m[2], api: m[3]}, true
}

// applyGGMLAlloc: a device allocation that failed for lack of memory is
// vram_oom on that device.
func (s *Session) applyGGMLAlloc(l *line, x ggmlAlloc) {
	s.format("ggml")
	a := s.b.add(s, ClassVRAMOOM, l, 0.9)
	a.setStr(&a.f.RequestedBytesText, x.size)
	a.detail("gpu", x.device)
	a.detail("allocator", "ggml "+x.api)
	a.addReason(x.api + " of " + x.size + " on device " + x.device + " failed: out of memory")
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
