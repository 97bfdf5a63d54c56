package crash

import (
	"strconv"
	"strings"
)

// hsaStatus describes one HSA status code (docs section 5).
type hsaStatus struct {
	name    string // without the HSA_STATUS_ prefix; an extension's full name (HSA_EXT_STATUS_…)
	code    string
	class   string // "" = no class of its own
	meaning string
}

// fullName is the status as the runtime prints it.
func (st *hsaStatus) fullName() string {
	if strings.HasPrefix(st.name, "HSA_") {
		return st.name
	}
	return "HSA_STATUS_" + st.name
}

// hsaStatuses is the whole hsa_status_t catalog: the core statuses of
// hsa.h, AMD's extensions of hsa_ext_amd.h (decimal 40–47, printed as
// 0x28–0x2f; the newest three without a code we could confirm) and the
// image / finalizer extensions (hsa_ext_image.h, hsa_ext_finalize.h).
// Meanings follow ROCR's hsa_status_string (runtime/hsa-runtime/core/
// runtime/hsa.cpp, ROCm/ROCR-Runtime). A class is what the status says
// about a compute job on its own; "" deliberately for statuses that name
// a caller's mistake, a setup problem or a subsystem no compute job uses
// (images, the HSAIL finalizer) — the error the application reports next
// decides those.
var hsaStatuses = []hsaStatus{
	{"ERROR", "0x1000", "", "generic HSA error"},
	{"ERROR_INVALID_ARGUMENT", "0x1001", "", "invalid argument (scratch overflow surfaces here: [UpdateScratch] scratch_size overflow)"},
	{"ERROR_INVALID_QUEUE_CREATION", "0x1002", "", "the requested queue creation is not valid (a setup problem: queue size, type)"},
	{"ERROR_INVALID_ALLOCATION", "0x1003", "", "the requested allocation is not valid (size or flags the caller passed)"},
	{"ERROR_INVALID_AGENT", "0x1004", "", "the agent is invalid"},
	{"ERROR_INVALID_REGION", "0x1005", "", "the memory region is invalid"},
	{"ERROR_INVALID_SIGNAL", "0x1006", "", "the signal is invalid"},
	{"ERROR_INVALID_QUEUE", "0x1007", "", "the queue is invalid"},
	{"ERROR_OUT_OF_RESOURCES", "0x1008", ClassVRAMOOM, "the runtime failed to allocate resources (queue, scratch, memory or host threads exhausted)"},
	{"ERROR_INVALID_PACKET_FORMAT", "0x1009", "", "the AQL packet is malformed: a runtime bug or a queue the application overwrote; the fault it leads to decides"},
	{"ERROR_RESOURCE_FREE", "0x100a", "", "an error while releasing a resource (teardown)"},
	{"ERROR_NOT_INITIALIZED", "0x100b", "", "an API called before hsa_init or after shutdown"},
	{"ERROR_REFCOUNT_OVERFLOW", "0x100c", "", "the runtime's reference count overflowed"},
	{"ERROR_INCOMPATIBLE_ARGUMENTS", "0x100d", "", "the arguments are not compatible"},
	{"ERROR_INVALID_INDEX", "0x100e", "", "the index is invalid"},
	{"ERROR_INVALID_ISA", "0x100f", ClassArchMismatch, "the instruction set architecture is invalid: code object for the wrong gfx target"},
	{"ERROR_INVALID_CODE_OBJECT", "0x1010", ClassArchMismatch, "the code object is invalid (corrupt or wrong-arch code object)"},
	{"ERROR_INVALID_EXECUTABLE", "0x1011", "", "the executable is invalid"},
	{"ERROR_FROZEN_EXECUTABLE", "0x1012", "", "the executable is frozen (loading after freeze)"},
	{"ERROR_INVALID_SYMBOL_NAME", "0x1013", "", "there is no symbol with the given name (a symbol lookup; what the caller does with it decides)"},
	{"ERROR_VARIABLE_ALREADY_DEFINED", "0x1014", "", "the variable is already defined"},
	{"ERROR_VARIABLE_UNDEFINED", "0x1015", "", "the variable is undefined"},
	{"ERROR_EXCEPTION", "0x1016", ClassDeviceAssert, "a wave trapped: device-side assert (s_trap 2), memory violation with XNACK off, or illegal instruction — the debug agent tells which"},
	{"ERROR_INVALID_ISA_NAME", "0x1017", ClassArchMismatch, "invalid ISA name: code object for the wrong gfx target"},
	{"ERROR_INVALID_CODE_SYMBOL", "0x1018", "", "the code object symbol is invalid"},
	{"ERROR_INVALID_EXECUTABLE_SYMBOL", "0x1019", "", "the executable symbol is invalid"},
	{"ERROR_INVALID_FILE", "0x1020", "", "the file descriptor is invalid"},
	{"ERROR_INVALID_CODE_OBJECT_READER", "0x1021", "", "the code object reader is invalid"},
	{"ERROR_INVALID_CACHE", "0x1022", "", "the cache is invalid"},
	{"ERROR_INVALID_WAVEFRONT", "0x1023", "", "the wavefront is invalid"},
	{"ERROR_INVALID_SIGNAL_GROUP", "0x1024", "", "the signal group is invalid"},
	{"ERROR_INVALID_RUNTIME_STATE", "0x1025", "", "the HSA runtime is not in the configuration state"},
	{"ERROR_FATAL", "0x1026", "", "the queue received an error that may require process termination"},
	{"ERROR_INVALID_MEMORY_POOL", "0x28", "", "the memory pool is invalid"},
	{"ERROR_MEMORY_APERTURE_VIOLATION", "0x29", ClassGPUMemoryFault, "the agent accessed memory beyond the largest legal address (wild or host pointer, bad kernel_obj)"},
	{"ERROR_ILLEGAL_INSTRUCTION", "0x2a", ClassIllegalInstruction, "the agent attempted to execute an illegal shader instruction (ISA mismatch or corrupt code)"},
	{"ERROR_MEMORY_FAULT", "0x2b", ClassGPUMemoryFault, "the agent attempted to access an inaccessible address (GPU page fault)"},
	{"CU_MASK_REDUCED", "0x2c", "", "informational: CU mask reduced"},
	{"ERROR_OUT_OF_REGISTERS", "0x2d", ClassInvalidLaunch, "the kernel requested more VGPRs than the agent has"},
	{"ERROR_RESOURCE_BUSY", "0x2e", "", "resource busy"},
	{"ERROR_NOT_SUPPORTED", "0x2f", "", "not supported"},
	{"ERROR_XNACK_DISABLED", "", "", "XNACK is disabled but the operation needs it (a setup problem: HSA_XNACK=1, a kernel built for xnack+)"},
	{"ERROR_INVALID_DISPATCH_PARAMETERS", "", ClassInvalidLaunch, "the dispatch packet's parameters exceed the agent's limits (registers, work-group dimensions)"},
	{"ERROR_RESOURCE_NOT_READY", "", "", "the resource is valid but not ready"},
	{"HSA_EXT_STATUS_ERROR_INVALID_PROGRAM", "0x2000", "", "HSAIL finalizer: invalid program"},
	{"HSA_EXT_STATUS_ERROR_INVALID_MODULE", "0x2001", "", "HSAIL finalizer: invalid module"},
	{"HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE", "0x2002", "", "HSAIL finalizer: incompatible module"},
	{"HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED", "0x2003", "", "HSAIL finalizer: module already included"},
	{"HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH", "0x2004", "", "HSAIL finalizer: symbol mismatch"},
	{"HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED", "0x2005", "", "HSAIL finalizer: finalization failed"},
	{"HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH", "0x2006", "", "HSAIL finalizer: directive mismatch"},
	{"HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED", "0x3000", "", "image format not supported"},
	{"HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED", "0x3001", "", "image size not supported"},
	{"HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED", "0x3002", "", "image pitch not supported or invalid"},
	{"HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED", "0x3003", "", "sampler descriptor not supported or invalid"},
}

func lookupHSA(name string) *hsaStatus {
	if !strings.HasPrefix(name, "HSA_EXT_") {
		name = strings.TrimPrefix(name, "HSA_STATUS_")
	}
	for i := range hsaStatuses {
		if hsaStatuses[i].name == name {
			return &hsaStatuses[i]
		}
	}
	return nil
}

// lookupHSACode resolves a printed status code ("0x100f", "0x29").
func lookupHSACode(code string) *hsaStatus {
	if code == "" {
		return nil
	}
	for i := range hsaStatuses {
		if strings.EqualFold(hsaStatuses[i].code, code) {
			return &hsaStatuses[i]
		}
	}
	return nil
}

// hipErr describes one HIP error (docs section 6) with its CUDA twin.
type hipErr struct {
	name    string
	code    int
	text    string // hipGetErrorString / cudaGetErrorString
	cuda    string
	class   string
	meaning string
}

// hipErrors is the whole hipError_t catalog: every name and number of
// hip_runtime_api.h (ROCm/HIP include/hip/hip_runtime_api.h, ROCm 6–7; the
// error-codes page rocm.docs.amd.com/projects/HIP/en/latest/reference/
// error_codes.html) with the text hipGetErrorString prints (ROCm/clr
// hipamd/src/hip_error.cpp ihipGetErrorString). A class is what the error
// says about a GPU job on its own; "" deliberately for the API misuse and
// bookkeeping errors (profiler, interop mapping, texture, graph update,
// a query's "not ready"): they name the caller's mistake, not a crash class,
// and the error around them decides. Order matters for lookupHIPText: a
// text that begins another's comes after it ("unspecified launch failure in
// prior launch" before "unspecified launch failure"). The codes ROCm 6.2+
// added (911–916, 1054) have no text here: CLR's strings for them were not
// in the sources we could read, and a guessed text would be a guessed
// match — they are read by name and code only.
var hipErrors = []hipErr{
	{"hipErrorInvalidValue", 1, "invalid argument", "cudaErrorInvalidValue", "", "bad API arguments; at a launch: grid/block 0 or over the device limits, null pointer arguments"},
	{"hipErrorOutOfMemory", 2, "out of memory", "cudaErrorMemoryAllocation", ClassVRAMOOM, "device memory exhausted (fragmentation, capacity, other tenants)"},
	{"hipErrorNotInitialized", 3, "initialization error", "cudaErrorInitializationError", ClassNotGPU, "the runtime could not initialise: /dev/kfd permissions, container flags"},
	{"hipErrorDeinitialized", 4, "driver shutting down", "cudaErrorCudartUnloading", "", "GPU use after atexit teardown"},
	{"hipErrorProfilerDisabled", 5, "profiler disabled while using external profiling tool", "cudaErrorProfilerDisabled", "", "profiler API misuse"},
	{"hipErrorProfilerNotInitialized", 6, "profiler is not initialized", "cudaErrorProfilerNotInitialized", "", "profiler API misuse"},
	{"hipErrorProfilerAlreadyStarted", 7, "profiler already started", "cudaErrorProfilerAlreadyStarted", "", "profiler API misuse"},
	{"hipErrorProfilerAlreadyStopped", 8, "profiler already stopped", "cudaErrorProfilerAlreadyStopped", "", "profiler API misuse"},
	{"hipErrorInvalidConfiguration", 9, "invalid configuration argument", "cudaErrorInvalidConfiguration", ClassInvalidLaunch, "launch configuration over the limits: threads/block > 1024, dims > maxThreadsDim, too much dynamic LDS"},
	{"hipErrorInvalidPitchValue", 12, "invalid pitch argument", "cudaErrorInvalidPitchValue", "", ""},
	{"hipErrorInvalidSymbol", 13, "invalid device symbol", "cudaErrorInvalidSymbol", "", ""},
	{"hipErrorInvalidDevicePointer", 17, "invalid device pointer", "cudaErrorInvalidDevicePointer", "", "a host or freed pointer was passed as a device pointer"},
	{"hipErrorInvalidMemcpyDirection", 21, "invalid copy direction for memcpy", "cudaErrorInvalidMemcpyDirection", "", ""},
	{"hipErrorInsufficientDriver", 35, "driver version is insufficient for runtime version", "cudaErrorInsufficientDriver", ClassNotGPU, "ROCm user space newer than the amdgpu-dkms / KFD driver"},
	{"hipErrorMissingConfiguration", 52, "__global__ function call is not configured", "cudaErrorMissingConfiguration", "", ""},
	{"hipErrorPriorLaunchFailure", 53, "unspecified launch failure in prior launch", "cudaErrorPriorLaunchFailure", "", ""},
	{"hipErrorInvalidDeviceFunction", 98, "invalid device function", "cudaErrorInvalidDeviceFunction", ClassArchMismatch, "no code object for this GPU architecture: the gfx target is missing from the fat binary, an xnack/sramecc variant mismatch, or HSA_OVERRIDE_GFX_VERSION"},
	{"hipErrorNoDevice", 100, "no ROCm-capable device is detected", "cudaErrorNoDevice", ClassNotGPU, "no visible GPU: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, container --device flags"},
	{"hipErrorInvalidDevice", 101, "invalid device ordinal", "cudaErrorInvalidDevice", "", "device index out of range: visibility env vars or the rank→GPU map"},
	{"hipErrorInvalidImage", 200, "device kernel image is invalid", "cudaErrorInvalidKernelImage", ClassArchMismatch, "corrupt or wrong-arch code object"},
	{"hipErrorInvalidContext", 201, "invalid device context", "cudaErrorDeviceUninitialized", "", ""},
	{"hipErrorContextAlreadyCurrent", 202, "context is already current context", "", "", ""},
	{"hipErrorMapFailed", 205, "mapping of buffer object failed", "cudaErrorMapBufferObjectFailed", "", "IPC attach failed"},
	{"hipErrorUnmapFailed", 206, "unmapping of buffer object failed", "cudaErrorUnmapBufferObjectFailed", "", ""},
	{"hipErrorArrayIsMapped", 207, "array is mapped", "cudaErrorArrayIsMapped", "", "graphics interop misuse"},
	{"hipErrorAlreadyMapped", 208, "resource already mapped", "cudaErrorAlreadyMapped", "", "graphics interop misuse"},
	{"hipErrorNoBinaryForGpu", 209, "no kernel image is available for execution on the device", "cudaErrorNoKernelImageForDevice", ClassArchMismatch, "the binary has no code object for this GPU: rebuild for the target or install the right wheel"},
	{"hipErrorAlreadyAcquired", 210, "resource already acquired", "cudaErrorAlreadyAcquired", "", "graphics interop misuse"},
	{"hipErrorNotMapped", 211, "resource not mapped", "cudaErrorNotMapped", "", "graphics interop misuse"},
	{"hipErrorNotMappedAsArray", 212, "resource not mapped as array", "cudaErrorNotMappedAsArray", "", "graphics interop misuse"},
	{"hipErrorNotMappedAsPointer", 213, "resource not mapped as pointer", "cudaErrorNotMappedAsPointer", "", "graphics interop misuse"},
	{"hipErrorECCNotCorrectable", 214, "uncorrectable ECC error encountered", "cudaErrorECCUncorrectable", ClassECCRAS, "uncorrectable ECC error: retire / ticket the GPU"},
	{"hipErrorUnsupportedLimit", 215, "limit is not supported on this architecture", "cudaErrorUnsupportedLimit", "", ""},
	{"hipErrorContextAlreadyInUse", 216, "exclusive-thread device already in use by a different thread", "cudaErrorDeviceAlreadyInUse", "", ""},
	{"hipErrorPeerAccessUnsupported", 217, "peer access is not supported between these two devices", "cudaErrorPeerAccessUnsupported", ClassRCCLTransport, "no P2P between the GPUs: RCCL transport errors follow"},
	{"hipErrorInvalidKernelFile", 218, "invalid kernel file", "cudaErrorInvalidPtx", ClassArchMismatch, ""},
	{"hipErrorInvalidGraphicsContext", 219, "invalid OpenGL or DirectX context", "cudaErrorInvalidGraphicsContext", "", "graphics interop misuse"},
	{"hipErrorInvalidSource", 300, "device kernel image is invalid", "cudaErrorInvalidSource", ClassArchMismatch, "the runtime refused the code object source (CLR prints hipErrorInvalidImage's text): corrupt or wrong-arch code object"},
	{"hipErrorFileNotFound", 301, "file not found", "cudaErrorFileNotFound", "", "a code object file hipModuleLoad was given does not exist"},
	{"hipErrorSharedObjectSymbolNotFound", 302, "shared object symbol not found", "cudaErrorSharedObjectSymbolNotFound", "", ""},
	{"hipErrorSharedObjectInitFailed", 303, "shared object initialization failed", "cudaErrorSharedObjectInitFailed", "", ""},
	{"hipErrorOperatingSystem", 304, "OS call failed or operation not supported on this OS", "cudaErrorOperatingSystem", "", ""},
	{"hipErrorInvalidHandle", 400, "invalid resource handle", "cudaErrorInvalidResourceHandle", "", "a stream/event of another device or already destroyed"},
	{"hipErrorIllegalState", 401, "the operation cannot be performed in the present state", "cudaErrorIllegalState", "", ""},
	{"hipErrorNotFound", 500, "named symbol not found", "cudaErrorSymbolNotFound", ClassKernelNotFound, "kernel name not found in the module (hipModuleGetFunction)"},
	{"hipErrorNotReady", 600, "device not ready", "cudaErrorNotReady", "", "a query result, not an error"},
	{"hipErrorIllegalAddress", 700, "an illegal memory access was encountered", "cudaErrorIllegalAddress", ClassGPUMemoryFault, "a kernel accessed an invalid address (GPU page fault); sticky — the context is unusable"},
	{"hipErrorLaunchOutOfResources", 701, "too many resources requested for launch", "cudaErrorLaunchOutOfResources", ClassInvalidLaunch, "VGPR/SGPR/LDS per block too high for the block size"},
	{"hipErrorLaunchTimeOut", 702, "the launch timed out and was terminated", "cudaErrorLaunchTimeout", ClassGPUHangReset, "a kernel ran into the watchdog: hang"},
	{"hipErrorPeerAccessAlreadyEnabled", 704, "peer access is already enabled", "cudaErrorPeerAccessAlreadyEnabled", "", ""},
	{"hipErrorPeerAccessNotEnabled", 705, "peer access has not been enabled", "cudaErrorPeerAccessNotEnabled", "", ""},
	{"hipErrorSetOnActiveProcess", 708, "cannot set while device is active in this process", "cudaErrorSetOnActiveProcess", "", ""},
	{"hipErrorContextIsDestroyed", 709, "context is destroyed", "cudaErrorContextIsDestroyed", "", ""},
	{"hipErrorAssert", 710, "device-side assert triggered", "cudaErrorAssert", ClassDeviceAssert, "a kernel assert / __builtin_trap fired (PyTorch index bound checks, NaN probabilities in sampling)"},
	{"hipErrorHostMemoryAlreadyRegistered", 712, "part or all of the requested memory range is already mapped", "cudaErrorHostMemoryAlreadyRegistered", "", ""},
	{"hipErrorHostMemoryNotRegistered", 713, "pointer does not correspond to a registered memory region", "cudaErrorHostMemoryNotRegistered", "", ""},
	{"hipErrorLaunchFailure", 719, "unspecified launch failure", "cudaErrorLaunchFailure", ClassDeviceAssert, "a kernel exception at run time (trap or illegal instruction without assert text) — not a launch-configuration error"},
	{"hipErrorCooperativeLaunchTooLarge", 720, "too many blocks in cooperative launch", "cudaErrorCooperativeLaunchTooLarge", ClassInvalidLaunch, ""},
	{"hipErrorNotSupported", 801, "operation not supported", "cudaErrorNotSupported", "", "feature missing on this GPU/OS (WSL, APU)"},
	{"hipErrorStreamCaptureUnsupported", 900, "operation not permitted when stream is capturing", "cudaErrorStreamCaptureUnsupported", ClassNotGPU, "graph-capture misuse: sync, .item() or allocation during capture"},
	{"hipErrorStreamCaptureInvalidated", 901, "operation failed due to a previous error during capture", "cudaErrorStreamCaptureInvalidated", ClassNotGPU, "graph-capture misuse"},
	{"hipErrorStreamCaptureMerge", 902, "operation would result in a merge of separate capture sequences", "cudaErrorStreamCaptureMerge", ClassNotGPU, "graph-capture misuse: two captures joined by an event"},
	{"hipErrorStreamCaptureUnmatched", 903, "capture was not ended in the same stream as it began", "cudaErrorStreamCaptureUnmatched", ClassNotGPU, "graph-capture misuse"},
	{"hipErrorStreamCaptureUnjoined", 904, "capturing stream has unjoined work", "cudaErrorStreamCaptureUnjoined", ClassNotGPU, "graph-capture misuse: a forked stream not joined back before the capture ended"},
	{"hipErrorStreamCaptureIsolation", 905, "dependency created on uncaptured work in another stream", "cudaErrorStreamCaptureIsolation", ClassNotGPU, "graph-capture misuse"},
	{"hipErrorStreamCaptureImplicit", 906, "operation would make the legacy stream depend on a capturing blocking stream", "cudaErrorStreamCaptureImplicit", ClassNotGPU, "graph-capture misuse: work on the null stream during a capture"},
	{"hipErrorCapturedEvent", 907, "operation not permitted on an event last recorded in a capturing stream", "cudaErrorCapturedEvent", ClassNotGPU, "graph-capture misuse"},
	{"hipErrorStreamCaptureWrongThread", 908, "attempt to terminate a thread-local capture sequence from another thread", "cudaErrorStreamCaptureWrongThread", ClassNotGPU, "graph-capture misuse"},
	{"hipErrorGraphExecUpdateFailure", 910, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update", "cudaErrorGraphExecUpdateFailure", "", "the caller re-instantiates the graph"},
	{"hipErrorInvalidChannelDescriptor", 911, "", "cudaErrorInvalidChannelDescriptor", "", "texture API misuse"},
	{"hipErrorInvalidTexture", 912, "", "cudaErrorInvalidTexture", "", "texture API misuse"},
	{"hipErrorInvalidResourceType", 914, "", "", "", ""},
	{"hipErrorInvalidResourceConfiguration", 915, "", "", "", ""},
	{"hipErrorStreamDetached", 916, "", "cudaErrorStreamDetached", "", ""},
	{"hipErrorUnknown", 999, "unknown error", "cudaErrorUnknown", "", ""},
	{"hipErrorRuntimeMemory", 1052, "runtime memory call returned error", "", "", "HSA runtime failure: check ROCr/KFD logs"},
	{"hipErrorRuntimeOther", 1053, "runtime call other than memory returned error", "", "", "HSA runtime failure: check ROCr/KFD logs"},
	{"hipErrorInvalidClusterSize", 1054, "", "cudaErrorInvalidClusterSize", ClassInvalidLaunch, "a launch or occupancy query with a cluster size the device refuses"},
	{"hipErrorTbd", 1055, "", "", "", "a marker, never returned"},
}

// cudaErrors are CUDA runtime errors read on CUDA evidence where HIP has no
// counterpart or HIP's reading does not carry over: CUDA documents
// cudaErrorLaunchFailure as "an exception occurred on the device while
// executing a kernel" (an invalid device pointer, out-of-bounds shared
// memory), a fault — not ROCm's trap without assert text.
var cudaErrors = []hipErr{
	{"", 719, "unspecified launch failure", "cudaErrorLaunchFailure", ClassGPUMemoryFault, "an exception on the device while a kernel ran (CUDA: an invalid device pointer, out-of-bounds shared memory), reported at a later API call"},
	{"", 716, "misaligned address", "cudaErrorMisalignedAddress", ClassGPUMemoryFault, "a kernel accessed memory at an address not aligned for the access size (a vectorised load or store on an odd offset) — a memory fault; the context is unusable"},
	{"", 715, "an illegal instruction was encountered", "cudaErrorIllegalInstruction", ClassIllegalInstruction, "a kernel executed an instruction the GPU cannot run (code built for another arch, a compiler or driver bug, corrupt code); sticky — the context is unusable"},
}

// lookupCUDA is the CUDA reading of an error: by its cudaError name (given or
// from the HIP entry e), else by its text; nil when CUDA reads it as HIP does.
func lookupCUDA(e *hipErr, text string) *hipErr {
	t := strings.TrimRight(strings.TrimSpace(text), ". ")
	for i := range cudaErrors {
		c := &cudaErrors[i]
		if e != nil && e.cuda == c.cuda || e == nil && t != "" && hasPrefixFold(t, c.text) {
			return c
		}
	}
	return nil
}

var hipAliases = map[string]string{
	"hipErrorMemoryAllocation":      "hipErrorOutOfMemory",
	"hipErrorInitializationError":   "hipErrorNotInitialized",
	"hipErrorInvalidResourceHandle": "hipErrorInvalidHandle",
	"hipErrorInvalidLaunchConfig":   "hipErrorInvalidConfiguration", // does not exist; seed 002 / fx08 wording
	"hipErrorMapBufferObjectFailed": "hipErrorMapFailed",
}

// cudaDriverNames maps CUDA driver-API names to HIP names.
var cudaDriverNames = map[string]string{
	"CUDA_ERROR_INVALID_VALUE":           "hipErrorInvalidValue",
	"CUDA_ERROR_OUT_OF_MEMORY":           "hipErrorOutOfMemory",
	"CUDA_ERROR_ILLEGAL_ADDRESS":         "hipErrorIllegalAddress",
	"CUDA_ERROR_ASSERT":                  "hipErrorAssert",
	"CUDA_ERROR_LAUNCH_FAILED":           "hipErrorLaunchFailure",
	"CUDA_ERROR_LAUNCH_TIMEOUT":          "hipErrorLaunchTimeOut",
	"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": "hipErrorLaunchOutOfResources",
	"CUDA_ERROR_NO_BINARY_FOR_GPU":       "hipErrorNoBinaryForGpu",
	"CUDA_ERROR_ECC_UNCORRECTABLE":       "hipErrorECCNotCorrectable",
	"CUDA_ERROR_ILLEGAL_INSTRUCTION":     "hipErrorLaunchFailure",
	"CUDA_ERROR_INVALID_IMAGE":           "hipErrorInvalidImage",
	"CUDA_ERROR_NOT_FOUND":               "hipErrorNotFound",
}

// lookupHIPName resolves hipErrorX, cudaErrorX or CUDA_ERROR_X.
func lookupHIPName(name string) *hipErr {
	if a, ok := hipAliases[name]; ok {
		name = a
	}
	if h, ok := cudaDriverNames[name]; ok {
		name = h
	}
	for i := range hipErrors {
		e := &hipErrors[i]
		if e.name == name || (e.cuda != "" && e.cuda == name) {
			return e
		}
	}
	return nil
}

func lookupHIPCode(code int) *hipErr {
	for i := range hipErrors {
		if hipErrors[i].code == code {
			return &hipErrors[i]
		}
	}
	return nil
}

// hipPhrases: the texts of the hipErrors rows with a class, at least min
// bytes long ("no ROCm-capable device is detected", "operation not
// permitted when stream is capturing"); shorter texts ("out of memory",
// "initialization error") are anyone's words and count only after a
// runtime's "HIP error: " prefix.
func hipPhrases(min int) []string {
	var out []string
	for _, e := range hipErrors {
		if e.class != "" && len(e.text) >= min {
			out = append(out, e.text)
		}
	}
	return out
}

// lookupHIPText resolves an error string as printed after "HIP error:" /
// "CUDA error:".
func lookupHIPText(text string) *hipErr {
	t := strings.TrimRight(strings.TrimSpace(text), ". ")
	if t == "" {
		return nil
	}
	for i := range hipErrors {
		if hipErrors[i].text != "" && hasPrefixFold(t, hipErrors[i].text) { // the table keeps the runtime's case ("ECC")
			return &hipErrors[i]
		}
	}
	return nil
}

// signals maps signal numbers to names.
var signalNames = map[int]string{1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}

// exitSignal interprets an exit status: -N (Python / torchrun) or 128+N (shells).
func exitSignal(code int) string {
	switch {
	case code < 0:
		return signalNames[-code]
	case code > 128 && code < 160:
		return signalNames[code-128]
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// hasPrefixFold is strings.HasPrefix ignoring ASCII/Unicode case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
