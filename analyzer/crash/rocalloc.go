package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// MIOpen's handle, MIGraphX's GPU target and RPP refuse an allocation
// larger than the device's free memory before calling hipMalloc, in one
// wording (MIOPEN_THROW / MIGRAPHX_THROW with the file:line of the check,
// MIGraphX also naming allocate_gpu):
//
//	MIOpen Error: /data/repo/MIOpen/src/hip/handlehip.cpp:70: Memory not available to allocate buffer: 655360000
//	RuntimeError: …/AMDMIGraphX/src/targets/gpu/hip.cpp:109: allocate_gpu: Memory not available to allocate buffer: 41943040
//
// The bytes are the request; the free size the check compared with is not
// printed. The torch parser hands it lines with "memory" (torch.go).

var reRocAllocBuffer = lazyre.New(`Memory not available to allocate buffer: (\d+)`)

// rocAllocBuffer is one refused library buffer allocation.
type rocAllocBuffer struct {
	library string // "MIOpen", "MIGraphX", "RPP" or "" when the line names none
	bytes   string // "655360000 bytes"
}

func extractRocAllocBuffer(t string) (rocAllocBuffer, bool) {
	m := findIf(t, "Memory not available to allocate buffer: ", reRocAllocBuffer)
	if m == nil {
		return rocAllocBuffer{}, false
	}
	x := rocAllocBuffer{bytes: m[1] + " bytes"}
	switch {
	case strings.Contains(t, "MIOpen"):
		x.library = "MIOpen"
	case strings.Contains(t, "MIGraphX") || strings.Contains(t, "allocate_gpu"):
		x.library = "MIGraphX"
	case strings.Contains(t, "RPP"):
		x.library = "RPP"
	}
	return x, true
}

// applyRocAllocBuffer: the library found less free device memory than the
// buffer it needs → vram_oom (a framework may retry with a smaller
// workspace, so less sure than the caching allocator's own OOM).
func (s *Session) applyRocAllocBuffer(l *line, x rocAllocBuffer) {
	a := s.b.add(s, ClassVRAMOOM, l, 0.75)
	a.setStr(&a.f.RequestedBytesText, x.bytes)
	lib := x.library
	if lib == "" {
		lib = "a ROCm library"
	} else {
		a.detail("allocator", lib)
	}
	a.addReason(lib + " could not allocate a device buffer of " + x.bytes + ": the request exceeds the GPU's free memory")
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
