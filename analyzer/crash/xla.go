package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// XLA (JAX, TensorFlow's XLA path, PyTorch/XLA on GPU) reports a failed
// device allocation as a RESOURCE_EXHAUSTED status, in the BFC allocator's
// or the buffer assigner's words:
//
//	XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4770354232 bytes.
//	XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 20029400304 bytes.
//	XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) on device ordinal 0
//	RuntimeError: Resource exhausted: Out of memory while trying to allocate 24 bytes.   (jaxlib ≤ 0.1.x)
//
// A paste that wrapped the line after "Out" is joined with its next line by
// the torch parser (torchParser.xlaHead).
//
// The torch parser hands it lines with "rror" or "memory" (torch.go).

var reXLAOOM = lazyre.New(`(?:RESOURCE_EXHAUSTED|Resource exhausted): (?:Out of memory (?:while trying to allocate|allocating) (\d+) bytes|Failed to allocate request for ([\d.]+ ?[KMGT]i?B)(?: \((\d+)B\))? on device ordinal (\d+))`)

// xlaOOM is one failed XLA device allocation.
type xlaOOM struct {
	bytes  string // requested size as printed ("4770354232 bytes", "2.99GiB")
	device string // device ordinal, "" when not printed
}

// extractXLAOOM reads an XLA RESOURCE_EXHAUSTED allocation failure. A TPU's
// compile-time "Ran out of memory in memory space vmem" is no GPU memory
// and does not match.
func extractXLAOOM(t string) (xlaOOM, bool) {
	if !xlaExhausted(t) {
		return xlaOOM{}, false
	}
	m := reXLAOOM.FindStringSubmatch(t)
	if m == nil || strings.Contains(t, "TPU") {
		return xlaOOM{}, false
	}
	if m[1] != "" {
		return xlaOOM{bytes: m[1] + " bytes"}, true
	}
	return xlaOOM{bytes: m[2], device: m[4]}, true
}

// xlaExhausted: the line holds XLA's resource-exhausted status in either
// spelling.
func xlaExhausted(t string) bool {
	return strings.Contains(t, "RESOURCE_EXHAUSTED") || strings.Contains(t, "Resource exhausted: ")
}

// applyXLAOOM: an allocation XLA could not satisfy on the device is
// vram_oom on that device.
func (s *Session) applyXLAOOM(l *line, x xlaOOM) {
	s.format("xla")
	a := s.b.add(s, ClassVRAMOOM, l, 0.9)
	a.setStr(&a.f.RequestedBytesText, x.bytes)
	if x.device != "" {
		a.detail("gpu", x.device)
	}
	a.detail("allocator", "XLA")
	a.addReason("XLA could not allocate " + x.bytes + " of device memory (RESOURCE_EXHAUSTED)")
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
