package crash

// rocLibStatus is one status of a ROCm math library's catalog with the
// crash class it implies on its own ("" deliberately none: a caller's
// argument, a missing implementation or an informational status; the
// error around it decides).
type rocLibStatus struct {
	library string
	code    int
	class   string
	meaning string
}

// rocLibStatuses: rocblas_status (rocBLAS library/include/internal/
// rocblas-types.h, also rocSOLVER's status), hipblasStatus_t (hipBLAS
// hipblas.h; hipBLASLt returns the same enum) and miopenStatus_t (MIOpen
// include/miopen/miopen.h). The twins of CUDA's read the same way:
// EXECUTION_FAILED is the library's kernel failing on the device, an
// allocation failure the device's memory.
var rocLibStatuses = map[string]rocLibStatus{
	"rocblas_status_invalid_handle":      {"rocBLAS", 1, "", "handle not initialised, invalid or null"},
	"rocblas_status_not_implemented":     {"rocBLAS", 2, "", "function is not implemented"},
	"rocblas_status_invalid_pointer":     {"rocBLAS", 3, "", "invalid pointer argument"},
	"rocblas_status_invalid_size":        {"rocBLAS", 4, "", "invalid size argument"},
	"rocblas_status_memory_error":        {"rocBLAS", 5, ClassVRAMOOM, "failed internal memory allocation, copy or dealloc (its device workspace)"},
	"rocblas_status_internal_error":      {"rocBLAS", 6, "", "other internal library failure"},
	"rocblas_status_perf_degraded":       {"rocBLAS", 7, "", "performance degraded due to low device memory (informational)"},
	"rocblas_status_size_query_mismatch": {"rocBLAS", 8, "", "unmatched start/stop size query"},
	"rocblas_status_size_increased":      {"rocBLAS", 9, "", "queried device memory size increased"},
	"rocblas_status_size_unchanged":      {"rocBLAS", 10, "", "queried device memory size unchanged"},
	"rocblas_status_invalid_value":       {"rocBLAS", 11, "", "passed argument not valid"},
	"rocblas_status_continue":            {"rocBLAS", 12, "", "nothing preventing the function to proceed"},
	"rocblas_status_check_numerics_fail": {"rocBLAS", 13, ClassNumericalNaN, "ROCBLAS_CHECK_NUMERICS found a NaN / Inf / denormal in a vector or matrix"},
	"rocblas_status_excluded_from_build": {"rocBLAS", 14, "", "function not in this build (Tensile left out)"},
	"rocblas_status_arch_mismatch":       {"rocBLAS", 15, ClassArchMismatch, "the device's architecture is not supported by this rocBLAS build"},
	"HIPBLAS_STATUS_NOT_INITIALIZED":     {"hipBLAS", 1, "", "library not initialised"},
	"HIPBLAS_STATUS_ALLOC_FAILED":        {"hipBLAS", 2, ClassVRAMOOM, "resource allocation failed: the handle or workspace could not be allocated on the device"},
	"HIPBLAS_STATUS_INVALID_VALUE":       {"hipBLAS", 3, "", "unsupported numerical value was passed"},
	"HIPBLAS_STATUS_MAPPING_ERROR":       {"hipBLAS", 4, "", "access to GPU memory space failed"},
	"HIPBLAS_STATUS_EXECUTION_FAILED":    {"hipBLAS", 5, ClassGPUMemoryFault, "the library's kernel failed while running on the GPU"},
	"HIPBLAS_STATUS_INTERNAL_ERROR":      {"hipBLAS", 6, "", "an internal operation failed"},
	"HIPBLAS_STATUS_NOT_SUPPORTED":       {"hipBLAS", 7, "", "function not implemented (hipBLASLt on a GPU or type it has no kernels for; TORCH_BLAS_PREFER_HIPBLASLT=0 falls back)"},
	"HIPBLAS_STATUS_ARCH_MISMATCH":       {"hipBLAS", 8, ClassArchMismatch, "the device's architecture is not supported"},
	"HIPBLAS_STATUS_HANDLE_IS_NULLPTR":   {"hipBLAS", 9, "", "hipBLAS handle is null"},
	"HIPBLAS_STATUS_INVALID_ENUM":        {"hipBLAS", 10, "", "unsupported enum value was passed"},
	"HIPBLAS_STATUS_UNKNOWN":             {"hipBLAS", 11, "", "back-end returned an unsupported status code"},
	"miopenStatusNotInitialized":         {"MIOpen", 1, "", "data not initialised"},
	"miopenStatusInvalidValue":           {"MIOpen", 2, "", "incorrect variable value"},
	"miopenStatusBadParm":                {"MIOpen", 3, "", "incorrect parameter detected"},
	"miopenStatusAllocFailed":            {"MIOpen", 4, ClassVRAMOOM, "memory allocation error"},
	"miopenStatusInternalError":          {"MIOpen", 5, "", "MIOpen failure"},
	"miopenStatusNotImplemented":         {"MIOpen", 6, "", "use of unimplemented feature"},
	"miopenStatusUnknownError":           {"MIOpen", 7, "", "unknown error (often a kernel that did not build or an earlier GPU error)"},
	"miopenStatusUnsupportedOp":          {"MIOpen", 8, "", "unsupported operator for fusion"},
	"miopenStatusGpuOperationsSkipped":   {"MIOpen", 9, "", "GPU operations skipped (informational)"},
	"miopenStatusVersionMismatch":        {"MIOpen", 10, "", "version mismatch of the supplied binary data argument"},
}

// rocLibPrefixes start every name of rocLibStatuses.
var rocLibPrefixes = []string{"rocblas_status_", "HIPBLAS_STATUS_", "miopenStatus"}

type rocLibFact struct {
	name string
	st   rocLibStatus
}

// extractRocLibStatus reads the first status of the catalog a line names
// as a whole word ("RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED
// when calling `hipblasCreate(handle)`", "RuntimeError:
// miopenStatusUnknownError"); it decides no class.
func extractRocLibStatus(t string) (rocLibFact, bool) {
	for _, p := range rocLibPrefixes {
		if name, i := statusWord(t, p, func(n string) bool { _, ok := rocLibStatuses[n]; return ok }); i >= 0 {
			return rocLibFact{name: name, st: rocLibStatuses[name]}, true
		}
	}
	return rocLibFact{}, false
}

// applyRocLibStatus is the rule: the status's class, less sure than the
// runtime's own error (a library status can follow an earlier failure);
// false for a status of no class, so the line's other readings go on.
func (s *Session) applyRocLibStatus(l *line, x rocLibFact) bool {
	if x.st.class == "" {
		return false
	}
	conf := 0.7
	if x.st.class == ClassNumericalNaN {
		conf = 0.6
	}
	a := s.b.add(s, x.st.class, l, conf)
	a.detail("library", x.st.library)
	a.detail("library_status", x.name)
	a.addReason(x.st.library + " " + x.name + ": " + x.st.meaning)
	return true
}
