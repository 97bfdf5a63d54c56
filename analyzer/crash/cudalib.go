package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// libStatus is one status of a CUDA math library's catalog and the class it
// implies ("" = none of its own: an argument the library refuses, a
// capability, or an internal error that usually follows an earlier fault —
// a consequence, the root cause is the error before it).
type libStatus struct {
	library, status string
	class           string
	conf            float64
	why             string
}

// libStatuses are the status enums of NVIDIA's math libraries, as their
// headers and docs name them: cublasStatus_t (cuBLAS and cuBLASLt,
// docs.nvidia.com/cuda/cublas/#cublasstatus-t), cudnnStatus_t (cuDNN 8 and
// cuDNN 9's sub-codes, docs.nvidia.com/deeplearning/cudnn/latest/api/
// cudnn-graph-library.html#cudnnstatus-t), cufftResult (docs.nvidia.com/
// cuda/cufft/#cufftresult), cusparseStatus_t, cusolverStatus_t and
// curandStatus_t. The readings:
//   - an allocation the library could not make on the device (its handle,
//     workspace or plan): vram_oom;
//   - the library's kernel failed while it ran on the GPU (EXECUTION_FAILED,
//     cuFFT's EXEC_FAILED, cuRAND's LAUNCH_FAILURE): gpu_memory_fault — an
//     earlier asynchronous fault surfaces here too;
//   - cuDNN's MAPPING_ERROR ("an access to GPU memory space failed"):
//     gpu_memory_fault, less sure;
//   - no code for this GPU (ARCH_MISMATCH): arch_mismatch;
//   - the library or the driver of another version (cuDNN 9's sub-library
//     and driver / runtime incompatibilities): not_gpu, an install problem;
//   - NOT_INITIALIZED (a handle not created, most often because the device
//     was already out of memory or in an error state), INTERNAL_ERROR,
//     cuRAND's PREEXISTING_FAILURE: none — consequences.
var libStatuses = []libStatus{
	{"cuBLAS", "CUBLAS_STATUS_NOT_INITIALIZED", "", 0, "the handle was not created: memory already exhausted or an earlier CUDA error"},
	{"cuBLAS", "CUBLAS_STATUS_ALLOC_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate its device memory (handle / workspace)"},
	{"cuBLAS", "CUBLAS_STATUS_INVALID_VALUE", "", 0, "an argument the library refuses"},
	{"cuBLAS", "CUBLAS_STATUS_ARCH_MISMATCH", ClassArchMismatch, 0.75, "the routine needs a feature this GPU's architecture lacks"},
	{"cuBLAS", "CUBLAS_STATUS_MAPPING_ERROR", "", 0, "a texture binding failed"},
	{"cuBLAS", "CUBLAS_STATUS_EXECUTION_FAILED", ClassGPUMemoryFault, 0.7, "the library's kernel failed while running on the GPU"},
	{"cuBLAS", "CUBLAS_STATUS_INTERNAL_ERROR", "", 0, "an internal operation failed: usually after an earlier fault"},
	{"cuBLAS", "CUBLAS_STATUS_NOT_SUPPORTED", "", 0, "a configuration the library does not support"},
	{"cuBLAS", "CUBLAS_STATUS_LICENSE_ERROR", "", 0, "licence"},

	{"cuDNN", "CUDNN_STATUS_NOT_INITIALIZED", "", 0, "the handle was not created: memory already exhausted, an earlier CUDA error, or a library mismatch"},
	{"cuDNN", "CUDNN_STATUS_ALLOC_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate its memory (handle / workspace)"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR", "", 0, "an internal operation failed: usually after an earlier fault or out of memory"},
	{"cuDNN", "CUDNN_STATUS_INVALID_VALUE", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_ARCH_MISMATCH", ClassArchMismatch, 0.75, "the function needs a feature this GPU's architecture lacks"},
	// cuDNN's doc: "an access to GPU memory space failed"; frameworks hit it
	// after a kernel's bad access, never as a refused argument
	{"cuDNN", "CUDNN_STATUS_MAPPING_ERROR", ClassGPUMemoryFault, 0.6, "an access to GPU memory failed inside the library (the doc's texture binding, or a bad access before it)"},
	{"cuDNN", "CUDNN_STATUS_EXECUTION_FAILED", ClassGPUMemoryFault, 0.7, "the library's kernel failed while running on the GPU"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED", "", 0, "a configuration the library does not support"},
	{"cuDNN", "CUDNN_STATUS_LICENSE_ERROR", "", 0, "licence"},
	{"cuDNN", "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING", ClassNotGPU, 0.6, "a library cuDNN needs (cuBLAS, NVRTC) is missing"},
	{"cuDNN", "CUDNN_STATUS_RUNTIME_IN_PROGRESS", "", 0, "a query result"},
	{"cuDNN", "CUDNN_STATUS_RUNTIME_FP_OVERFLOW", "", 0, "a numerical overflow the library reports"},
	{"cuDNN", "CUDNN_STATUS_VERSION_MISMATCH", ClassNotGPU, 0.6, "cuDNN's libraries are of different versions"},
	// cuDNN 9 sub-codes
	{"cuDNN", "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", ClassNotGPU, 0.6, "cuDNN's sub-libraries are of different versions"},
	{"cuDNN", "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", ClassNotGPU, 0.6, "a cuDNN sub-library could not be loaded"},
	{"cuDNN", "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH", "", 0, "a serialized plan of another version"},
	{"cuDNN", "CUDNN_STATUS_DEPRECATED", "", 0, "deprecated API"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_NULL_POINTER", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE", "", 0, "an argument the library refuses"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN", "", 0, "a graph the library has no engine for"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_SHAPE", "", 0, "a shape the library has no engine for"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE", "", 0, "a data type the library has no engine for"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT", "", 0, "a layout the library has no engine for"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER", ClassNotGPU, 0.6, "the driver is too old for this cuDNN"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART", ClassNotGPU, 0.6, "the CUDA runtime does not match this cuDNN"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", ClassArchMismatch, 0.75, "no engine for this GPU's architecture"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING", ClassNotGPU, 0.6, "a library cuDNN needs is missing"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE", ClassNotGPU, 0.6, "a cuDNN sub-library is not installed"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT", "", 0, "no engine fits this GPU's shared memory"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_PADDING", "", 0, "a padding the library has no engine for"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM", "", 0, "a launch the library has no engine for"},
	{"cuDNN", "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API", "", 0, "capability"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED", "", 0, "the runtime compilation of a fused kernel failed"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE", "", 0, "an internal operation failed: usually after an earlier fault"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED", "", 0, "host memory, not the GPU's"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate device memory"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM", "", 0, "an internal launch the GPU refused"},
	{"cuDNN", "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED", "", 0, "an internal operation failed"},
	{"cuDNN", "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER", ClassGPUMemoryFault, 0.7, "the library's kernel failed on the GPU (a driver call)"},
	{"cuDNN", "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS", ClassGPUMemoryFault, 0.7, "the library's cuBLAS kernel failed on the GPU"},
	{"cuDNN", "CUDNN_STATUS_EXECUTION_FAILED_CUDART", ClassGPUMemoryFault, 0.7, "the library's kernel failed on the GPU (a runtime call)"},
	{"cuDNN", "CUDNN_STATUS_EXECUTION_FAILED_CURAND", ClassGPUMemoryFault, 0.7, "the library's cuRAND kernel failed on the GPU"},

	{"cuFFT", "CUFFT_INVALID_PLAN", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_ALLOC_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate the plan's memory"},
	{"cuFFT", "CUFFT_INVALID_TYPE", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_INVALID_VALUE", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_INTERNAL_ERROR", "", 0, "an internal operation failed: usually after an earlier fault, or a cuFFT too old for the GPU"},
	{"cuFFT", "CUFFT_EXEC_FAILED", ClassGPUMemoryFault, 0.7, "the library's kernel failed while running on the GPU"},
	{"cuFFT", "CUFFT_SETUP_FAILED", "", 0, "the library could not initialise"},
	{"cuFFT", "CUFFT_INVALID_SIZE", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_UNALIGNED_DATA", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_INCOMPLETE_PARAMETER_LIST", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_INVALID_DEVICE", "", 0, "a plan used on another device"},
	{"cuFFT", "CUFFT_PARSE_ERROR", "", 0, "an argument the library refuses"},
	{"cuFFT", "CUFFT_NO_WORKSPACE", "", 0, "no workspace set"},
	{"cuFFT", "CUFFT_NOT_IMPLEMENTED", "", 0, "capability"},
	{"cuFFT", "CUFFT_LICENSE_ERROR", "", 0, "licence"},
	{"cuFFT", "CUFFT_NOT_SUPPORTED", "", 0, "capability"},

	{"cuSPARSE", "CUSPARSE_STATUS_NOT_INITIALIZED", "", 0, "the handle was not created"},
	{"cuSPARSE", "CUSPARSE_STATUS_ALLOC_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate its device memory"},
	{"cuSPARSE", "CUSPARSE_STATUS_INVALID_VALUE", "", 0, "an argument the library refuses"},
	{"cuSPARSE", "CUSPARSE_STATUS_ARCH_MISMATCH", ClassArchMismatch, 0.75, "the routine needs a feature this GPU's architecture lacks"},
	{"cuSPARSE", "CUSPARSE_STATUS_MAPPING_ERROR", "", 0, "a texture binding failed"},
	{"cuSPARSE", "CUSPARSE_STATUS_EXECUTION_FAILED", ClassGPUMemoryFault, 0.7, "the library's kernel failed while running on the GPU"},
	{"cuSPARSE", "CUSPARSE_STATUS_INTERNAL_ERROR", "", 0, "an internal operation failed: usually after an earlier fault"},
	{"cuSPARSE", "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "", 0, "an argument the library refuses"},
	{"cuSPARSE", "CUSPARSE_STATUS_ZERO_PIVOT", "", 0, "a numerical result"},
	{"cuSPARSE", "CUSPARSE_STATUS_NOT_SUPPORTED", "", 0, "capability"},
	{"cuSPARSE", "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES", "", 0, "not enough resources for the operation"},

	{"cuSOLVER", "CUSOLVER_STATUS_NOT_INITIALIZED", "", 0, "the handle was not created: memory already exhausted or an earlier CUDA error"},
	{"cuSOLVER", "CUSOLVER_STATUS_ALLOC_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate its device memory"},
	{"cuSOLVER", "CUSOLVER_STATUS_INVALID_VALUE", "", 0, "an argument the library refuses"},
	{"cuSOLVER", "CUSOLVER_STATUS_ARCH_MISMATCH", ClassArchMismatch, 0.75, "the routine needs a feature this GPU's architecture lacks"},
	{"cuSOLVER", "CUSOLVER_STATUS_MAPPING_ERROR", "", 0, "a texture binding failed"},
	{"cuSOLVER", "CUSOLVER_STATUS_EXECUTION_FAILED", ClassGPUMemoryFault, 0.7, "the library's kernel failed while running on the GPU"},
	{"cuSOLVER", "CUSOLVER_STATUS_INTERNAL_ERROR", "", 0, "an internal operation failed: usually after an earlier fault"},
	{"cuSOLVER", "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "", 0, "an argument the library refuses"},
	{"cuSOLVER", "CUSOLVER_STATUS_NOT_SUPPORTED", "", 0, "capability"},
	{"cuSOLVER", "CUSOLVER_STATUS_ZERO_PIVOT", "", 0, "a numerical result"},
	{"cuSOLVER", "CUSOLVER_STATUS_INVALID_LICENSE", "", 0, "licence"},

	{"cuRAND", "CURAND_STATUS_VERSION_MISMATCH", ClassNotGPU, 0.5, "header and library of different versions"},
	{"cuRAND", "CURAND_STATUS_NOT_INITIALIZED", "", 0, "the generator was not created"},
	{"cuRAND", "CURAND_STATUS_ALLOCATION_FAILED", ClassVRAMOOM, 0.7, "the library could not allocate its memory"},
	{"cuRAND", "CURAND_STATUS_TYPE_ERROR", "", 0, "an argument the library refuses"},
	{"cuRAND", "CURAND_STATUS_OUT_OF_RANGE", "", 0, "an argument the library refuses"},
	{"cuRAND", "CURAND_STATUS_LENGTH_NOT_MULTIPLE", "", 0, "an argument the library refuses"},
	{"cuRAND", "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED", "", 0, "capability"},
	{"cuRAND", "CURAND_STATUS_LAUNCH_FAILURE", ClassGPUMemoryFault, 0.7, "the library's kernel failed on the GPU"},
	{"cuRAND", "CURAND_STATUS_PREEXISTING_FAILURE", "", 0, "an earlier failure left the context unusable: a consequence"},
	{"cuRAND", "CURAND_STATUS_INITIALIZATION_FAILED", "", 0, "the library could not initialise"},
	{"cuRAND", "CURAND_STATUS_ARCH_MISMATCH", ClassArchMismatch, 0.75, "the GPU's architecture lacks a feature the library needs"},
	{"cuRAND", "CURAND_STATUS_INTERNAL_ERROR", "", 0, "an internal operation failed"},
}

// libStatusPrefixes start every status name of libStatuses.
var libStatusPrefixes = [...]string{"CUBLAS_STATUS_", "CUDNN_STATUS_", "CUFFT_", "CUSPARSE_STATUS_", "CUSOLVER_STATUS_", "CURAND_STATUS_"}

// extractLibStatus reads the first status of the catalog a line names
// (whole word, never SUCCESS: glog's "Check failed: status ==
// CURAND_STATUS_SUCCESS (102 vs. 0)  CURAND_STATUS_ALLOCATION_FAILED"),
// whichever framework wraps it: "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED
// when calling `cublasGemmEx(…)`", "cuDNN error: …", CNTK's "CUBLAS failure
// 13: …", PaddlePaddle's "Error: CUDNN_STATUS_EXECUTION_FAILED at (…)",
// TensorFlow's "failed to create cublas handle: …", cupy's "CuFftError:
// CUFFT_ALLOC_FAILED", Lua torch's "Error in CuDNN: …".
func extractLibStatus(t string) (*libStatus, bool) {
	if !strings.Contains(t, "CU") {
		return nil, false
	}
	best, at := (*libStatus)(nil), len(t)
	for _, pre := range libStatusPrefixes {
		// the earliest status of any library, wherever its prefix falls
		if name, p := statusWord(t[:at], pre, func(n string) bool { return lookupLibStatus(n) != nil }); p >= 0 {
			best, at = lookupLibStatus(name), p
		}
	}
	return best, best != nil
}

// statusWord is the first whole word of t that starts with prefix and that
// known accepts, and where it starts; -1 when none. A prefix inside a longer
// word ("my_rocblas_status_count") is no status.
func statusWord(t, prefix string, known func(string) bool) (string, int) {
	for off := 0; off < len(t); {
		i := strings.Index(t[off:], prefix)
		if i < 0 {
			break
		}
		i += off
		j := i + len(prefix)
		for j < len(t) && isWord(t[j]) {
			j++
		}
		off = j
		if i > 0 && isWord(t[i-1]) {
			continue
		}
		if known(t[i:j]) {
			return t[i:j], i
		}
	}
	return "", -1
}

func lookupLibStatus(name string) *libStatus {
	for i := range libStatuses {
		if libStatuses[i].status == name {
			return &libStatuses[i]
		}
	}
	return nil
}

// applyLibStatus: the class the library's status implies; a status without
// one decides nothing (an internal error is read from the error before it).
func (s *Session) applyLibStatus(l *line, x *libStatus) {
	if x.class == "" {
		return
	}
	a := s.b.add(s, x.class, l, x.conf)
	a.detail("library", x.library)
	a.detail("library_status", x.status)
	// NVIDIA's libraries: ROCm builds print hipBLAS / MIOpen statuses
	// (roclib.go), so the advice asks CUDA's tools (evidence.go)
	a.detail("runtime", "CUDA")
	a.addReason(x.library + " " + x.status + ": " + x.why)
}

// extractTFHandleFailure: TensorFlow's stream executor could not create a
// library handle — "E …/cuda_dnn.cc:328] Could not create cudnn handle:
// CUDNN_STATUS_INTERNAL_ERROR", "E …/cuda_blas.cc:238] failed to create
// cublas handle: CUBLAS_STATUS_NOT_INITIALIZED". The status alone decides
// nothing (libStatuses); the wording is TensorFlow's.
func extractTFHandleFailure(t string) bool {
	return containsAny(t, "Could not create cudnn handle: ", "failed to create cublas handle: ")
}

// dnnMemUsage is the stream executor's report after a failed cuDNN handle:
// "E …/cuda_dnn.cc:443] Memory usage: 707198976 bytes free, 4231397376
// bytes total." (TensorFlow, XLA under JAX).
type dnnMemUsage struct{ free, total int64 }

var reDNNMemUsage = lazyre.New(`Memory usage: (\d+) bytes free, (\d+) bytes total`)

func extractDNNMemUsage(t string) (dnnMemUsage, bool) {
	m := findIf(t, "bytes free, ", reDNNMemUsage)
	if m == nil {
		return dnnMemUsage{}, false
	}
	free, err1 := strconv.ParseInt(m[1], 10, 64)
	total, err2 := strconv.ParseInt(m[2], 10, 64)
	if err1 != nil || err2 != nil || total <= 0 || free > total {
		return dnnMemUsage{}, false
	}
	return dnnMemUsage{free: free, total: total}, true
}

// applyTFHandleFailure: TensorFlow reserves nearly all of the card when it
// creates the device unless memory growth is on, so a library whose handle
// cannot be created (an internal error, not initialised) found no device
// memory for its workspace — the fix in the threads is allow_growth (a
// less sure reading than an allocator's own out-of-memory). Defeated by the
// stream executor's own report of most of the device free (mem, when ok):
// then the handle failed for another reason — a cuDNN the driver or the
// framework does not match — an environment problem, not memory.
func (s *Session) applyTFHandleFailure(l *line, x *libStatus, mem dnnMemUsage, ok bool) {
	if ok && mem.free*2 >= mem.total {
		a := s.b.add(s, ClassNotGPU, l, 0.5)
		a.detail("library", x.library)
		a.detail("library_status", x.status)
		a.addReason(x.library + " handle not created (" + x.status + ") with " + strconv.FormatInt(mem.free>>20, 10) + " of " + strconv.FormatInt(mem.total>>20, 10) + " MiB free: not out of memory — a cuDNN that the driver or the framework does not match")
		return
	}
	a := s.b.add(s, ClassVRAMOOM, l, 0.5)
	a.detail("library", x.library)
	a.detail("library_status", x.status)
	if ok {
		a.detail("device_free_mib", strconv.FormatInt(mem.free>>20, 10))
	}
	a.addReason(x.library + " handle not created (" + x.status + "): TensorFlow had reserved the GPU's memory at start; set memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true) or lower its fraction")
}
