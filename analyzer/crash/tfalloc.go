package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// TensorFlow's StreamExecutor logs a device allocation the driver refused,
// on CUDA and on ROCm, in one wording (with or without the driver's own
// ": out of memory" text):
//
//	E tensorflow/stream_executor/cuda/cuda_driver.cc:924] failed to allocate 90.48M (94873600 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY
//	E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory
//	E tensorflow/stream_executor/rocm/rocm_driver.cc:600] failed to allocate 890.06M (933298432 bytes) from device: HIP_ERROR_OutOfMemory
//
// The 2018-19 ROCm ports printed the HIP status by number, in HIP's first
// numbering where 1002 is hipErrorMemoryAllocation (today's 2); an issue
// title may drop the byte count:
//
//	E tensorflow/stream_executor/rocm/rocm_driver.cc:601] failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1002)
//	failed to allocate 8.00G from device: hipError_t(1002)
//
// A host (pinned) allocation ("failed to alloc N bytes on host") is not
// device memory and does not match. The torch parser hands it lines with
// "from device: " (torch.go).

var reTFDeviceAlloc = lazyre.New(`failed to allocate ([\d.]+[KMGT]?) (?:\((\d+) bytes\) )?from device: (CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|hipError_t\(1002\))`)

// tfDeviceAlloc is one refused StreamExecutor device allocation.
type tfDeviceAlloc struct {
	bytes string // "94873600 bytes", else the size as printed ("8.00G")
	code  string // the driver's error name
}

func extractTFDeviceAlloc(t string) (tfDeviceAlloc, bool) {
	m := findIf(t, "from device: ", reTFDeviceAlloc)
	if m == nil {
		return tfDeviceAlloc{}, false
	}
	x := tfDeviceAlloc{bytes: m[1], code: m[3]}
	if m[2] != "" {
		x.bytes = m[2] + " bytes"
	}
	return x, true
}

// applyTFDeviceAlloc: the driver refused device memory → vram_oom, less sure
// than a framework's OOM (TensorFlow retries smaller sizes at start-up and a
// run may go on after it).
func (s *Session) applyTFDeviceAlloc(l *line, x tfDeviceAlloc) {
	s.format("tensorflow")
	a := s.b.add(s, ClassVRAMOOM, l, 0.7)
	a.setStr(&a.f.RequestedBytesText, x.bytes)
	a.detail("allocator", "TensorFlow StreamExecutor")
	a.addReason("the driver refused a device allocation of " + x.bytes + " (" + x.code + ")")
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
}
