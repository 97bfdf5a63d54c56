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

// TensorFlow's BFC allocator out of device memory (TF 1.x and 2.x, Keras):
//
//	ResourceExhaustedError: OOM when allocating tensor with shape[25088,4096] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
//	OP_REQUIRES failed at tile_ops.cc:123 : Resource exhausted: OOM when allocating tensor with shape[…] … by allocator GPU_0_bfc
//
// The same message on /device:CPU:0 ("by allocator cpu") is host memory and
// does not match.
var reTFOOM = lazyre.New(`(?i)OOM when allocating tensor(?: with shape\s*(\[[^\]]*\]))?.*?device:GPU:(\d+) by allocator (GPU_\d+_bfc)`)

// tfOOM is one failed TensorFlow device allocation.
type tfOOM struct{ shape, device, allocator string }

func extractTFOOM(t string) (tfOOM, bool) {
	m := findFoldIf(t, "oom when allocating tensor", reTFOOM)
	if m == nil {
		return tfOOM{}, false
	}
	return tfOOM{shape: m[1], device: m[2], allocator: m[3]}, true
}

// applyTFOOM: a tensor TensorFlow could not allocate on a GPU is vram_oom
// on that GPU.
func (s *Session) applyTFOOM(l *line, x tfOOM) {
	s.format("tensorflow_oom")
	a := s.b.add(s, ClassVRAMOOM, l, 0.9)
	a.detail("gpu", x.device)
	a.detail("allocator", x.allocator)
	if x.shape != "" {
		a.detail("tensor_shape", x.shape)
	}
	a.addReason("TensorFlow's " + x.allocator + " could not allocate a tensor on GPU " + x.device + " (OOM when allocating tensor)")
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
