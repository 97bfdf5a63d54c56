package crash

import "strings"

// libExecFailed is a CUDA library's status that its kernel failed while it
// ran on the GPU: cuBLAS / cuDNN "…_STATUS_EXECUTION_FAILED", whichever
// framework wraps it ("CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when
// calling `cublasGemmEx(…)`", "cuDNN error: …", CNTK's "CUBLAS failure 13:
// …", PaddlePaddle's "Error: CUDNN_STATUS_EXECUTION_FAILED at (…)").
type libExecFailed struct{ library, status string }

func extractLibExecFailed(t string) (libExecFailed, bool) {
	for _, l := range [...]struct{ status, library string }{
		{"CUBLAS_STATUS_EXECUTION_FAILED", "cuBLAS"},
		{"CUDNN_STATUS_EXECUTION_FAILED", "cuDNN"},
	} {
		if i := strings.Index(t, l.status); i >= 0 && (i == 0 || !isWord(t[i-1])) {
			return libExecFailed{library: l.library, status: l.status}, true
		}
	}
	return libExecFailed{}, false
}

// applyLibExecFailed: the library's kernel faulted on the device — a GPU
// fault reported through the library (an earlier async error surfaces here
// too), never a plain application error.
func (s *Session) applyLibExecFailed(l *line, x libExecFailed) {
	a := s.b.add(s, ClassGPUMemoryFault, l, 0.7)
	a.detail("library", x.library)
	a.detail("library_status", x.status)
	a.addReason(x.library + " " + x.status + ": the library's kernel failed while running on the GPU")
}
