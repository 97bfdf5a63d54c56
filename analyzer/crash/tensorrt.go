package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// TensorRT's logger reports a failed device allocation in its own words:
//
//	[TRT] [E] [virtualMemoryBuffer.cpp::resizePhysical::151] Error Code 2: OutOfMemory (Requested size was 16654532608 bytes.)
//	[E] Error[2]: [virtualMemoryBuffer.cpp::resizePhysical::145] Error Code 2: OutOfMemory (no further information)
//	[E] Error[1]: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)
//	ERROR: ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)
//	[E] [TRT] C:\source\rtSafe\safeRuntime.cpp (25) - Cuda Error in nvinfer1::internal::DefaultAllocator::allocate: 2 (out of memory)
//
// The torch parser hands it lines with "rror" (torch.go). While the
// builder times tactics such an error may only skip a tactic; the build
// failing after it ("Engine building failed", "Engine could not be
// created") is what makes it fatal.

var (
	reTRTOOM       = lazyre.New(`Error Code \d+: (?:OutOfMemory \(([^)]*)\)|Cuda Runtime \(out of memory\))|Cuda Error in ([\w:]+): 2 \(out of memory\)`)
	reTRTRequested = lazyre.New(`Requested size was (\d+) bytes`)
)

// trtOOM is one TensorRT allocation failure: the requested size when the
// logger printed it, and the allocating call ("" when not printed).
type trtOOM struct {
	bytes, call string
}

func extractTRTOOM(t string) (trtOOM, bool) {
	if !strings.Contains(t, "OutOfMemory") && !strings.Contains(t, "out of memory") {
		return trtOOM{}, false
	}
	m := reTRTOOM.FindStringSubmatch(t)
	if m == nil {
		return trtOOM{}, false
	}
	x := trtOOM{call: m[2]}
	if b := submatch(reTRTRequested, m[1]); b != "" {
		x.bytes = b + " bytes"
	}
	return x, true
}

// applyTRTOOM: TensorRT could not allocate device memory → vram_oom, less
// sure than a runtime's OOM (the builder may only skip a tactic).
func (s *Session) applyTRTOOM(l *line, x trtOOM) {
	s.format("tensorrt")
	a := s.b.add(s, ClassVRAMOOM, l, 0.7)
	if x.bytes != "" {
		a.setStr(&a.f.RequestedBytesText, x.bytes)
	}
	a.detail("allocator", "TensorRT")
	r := "TensorRT could not allocate device memory"
	if x.bytes != "" {
		r += " (" + x.bytes + " requested)"
	}
	a.addReason(r)
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
