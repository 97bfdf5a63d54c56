package crash

import "strings"

// libExecFailed is a CUDA library's status that its kernel failed while it
// ran on the GPU: cuBLAS / cuDNN "…_STATUS_EXECUTION_FAILED", whichever
// framework wraps it ("CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when
// calling `cublasGemmEx(…)`", "cuDNN error: …", CNTK's "CUBLAS failure 13:
// …", PaddlePaddle's "Error: CUDNN_STATUS_EXECUTION_FAILED at (…)"), or that
// it could not allocate its device memory ("…_STATUS_ALLOC_FAILED", alloc):
// cublasCreate's handle and workspace live on the device.
type libExecFailed struct {
	library, status string
	alloc           bool
}

func extractLibExecFailed(t string) (libExecFailed, bool) {
	for _, l := range [...]struct {
		status, library string
		alloc           bool
	}{
		{"CUBLAS_STATUS_EXECUTION_FAILED", "cuBLAS", false},
		{"CUDNN_STATUS_EXECUTION_FAILED", "cuDNN", false},
		{"CUBLAS_STATUS_ALLOC_FAILED", "cuBLAS", true},
		{"CUDNN_STATUS_ALLOC_FAILED", "cuDNN", true},
	} {
		if i := strings.Index(t, l.status); i >= 0 && (i == 0 || !isWord(t[i-1])) {
			return libExecFailed{library: l.library, status: l.status, alloc: l.alloc}, true
		}
	}
	return libExecFailed{}, false
}

// applyLibExecFailed: the library's kernel faulted on the device — a GPU
// fault reported through the library (an earlier async error surfaces here
// too), never a plain application error. An allocation failure is the
// device's memory exhausted (VRAM OOM), not a fault.
func (s *Session) applyLibExecFailed(l *line, x libExecFailed) {
	if x.alloc {
		a := s.b.add(s, ClassVRAMOOM, l, 0.7)
		a.detail("library", x.library)
		a.detail("library_status", x.status)
		a.addReason(x.library + " " + x.status + ": the library could not allocate its device memory (handle / workspace)")
		return
	}
	a := s.b.add(s, ClassGPUMemoryFault, l, 0.7)
	a.detail("library", x.library)
	a.detail("library_status", x.status)
	a.addReason(x.library + " " + x.status + ": the library's kernel failed while running on the GPU")
}
