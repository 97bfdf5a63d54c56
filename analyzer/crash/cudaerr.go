package crash

import "strings"

// cudaErr is one row of CUDA's error catalog: the runtime's cudaError_t and
// the driver API's CUresult share their numbers since CUDA 10.1 (the
// runtime was renumbered to the driver's codes), so one row holds both
// names, the number and the text cudaGetErrorString / cuGetErrorString
// print. class is the crash class the error implies ("" = none of its own:
// an API misuse, a query result, a capability, or a consequence — "invalid
// argument", "invalid resource handle", "unknown error" say nothing about
// what failed), with why.
type cudaErr struct {
	code   int
	name   string // cudaErrorX ("" when the runtime has none)
	driver string // CUDA_ERROR_X ("" when the driver has none)
	text   string // "" where the row is read by its names only
	class  string
	conf   float64
	why    string
}

// cudaCatalog is the CUDA 12.x catalog: enum cudaError in driver_types.h
// (docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html) and
// enum cudaError_enum in cuda.h (docs.nvidia.com/cuda/cuda-driver-api/
// group__CUDA__TYPES.html). Classes follow the documentation's own reading:
//   - the sticky device exceptions 700, 714–719 ("the process is left in an
//     inconsistent state … must be terminated and relaunched"): a kernel
//     faulted — gpu_memory_fault, 715 illegal_instruction, 710 the kernel's
//     own assert;
//   - no code for the GPU (98, 200, 209), a PTX the driver cannot JIT (218,
//     221–223: the toolkit newer than the driver or no JIT): arch_mismatch;
//   - hardware (214 ECC, 220 NVLink, 226 contained error): ecc_ras;
//   - device memory exhausted (2): vram_oom;
//   - launch geometry and resources (9, 701, 720, 912): invalid_launch;
//   - 702 the watchdog: gpu_hang_reset;
//   - the platform (no device, driver too old or a stub, fabric manager not
//     running on NVSwitch systems — 802, MPS daemon, graph-capture misuse):
//     not_gpu, a setup problem and not a GPU fault.
var cudaCatalog = []cudaErr{
	{0, "cudaSuccess", "CUDA_SUCCESS", "no error", "", 0, ""},
	{1, "cudaErrorInvalidValue", "CUDA_ERROR_INVALID_VALUE", "invalid argument", "", 0, "an API argument out of range"},
	{2, "cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", ClassVRAMOOM, 0.85, "device memory exhausted"},
	{3, "cudaErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED", "initialization error", ClassNotGPU, 0.6, "the driver could not initialise: driver / library mismatch, missing /dev/nvidia*, a container without the GPU"},
	{4, "cudaErrorCudartUnloading", "CUDA_ERROR_DEINITIALIZED", "driver shutting down", "", 0, "a CUDA call during process teardown"},
	{5, "cudaErrorProfilerDisabled", "CUDA_ERROR_PROFILER_DISABLED", "", "", 0, "profiler state"},
	{6, "cudaErrorProfilerNotInitialized", "CUDA_ERROR_PROFILER_NOT_INITIALIZED", "", "", 0, "profiler state (deprecated)"},
	{7, "cudaErrorProfilerAlreadyStarted", "CUDA_ERROR_PROFILER_ALREADY_STARTED", "", "", 0, "profiler state (deprecated)"},
	{8, "cudaErrorProfilerAlreadyStopped", "CUDA_ERROR_PROFILER_ALREADY_STOPPED", "", "", 0, "profiler state (deprecated)"},
	{9, "cudaErrorInvalidConfiguration", "", "invalid configuration argument", ClassInvalidLaunch, 0.85, "launch configuration over the device limits (threads per block, dims, dynamic shared memory)"},
	{12, "cudaErrorInvalidPitchValue", "", "invalid pitch argument", "", 0, "API misuse"},
	{13, "cudaErrorInvalidSymbol", "", "invalid device symbol", "", 0, "API misuse"},
	{16, "cudaErrorInvalidHostPointer", "", "invalid host pointer", "", 0, "API misuse (deprecated)"},
	{17, "cudaErrorInvalidDevicePointer", "", "invalid device pointer", "", 0, "a host or freed pointer passed to the API (deprecated)"},
	{18, "cudaErrorInvalidTexture", "", "invalid texture reference", "", 0, "API misuse"},
	{19, "cudaErrorInvalidTextureBinding", "", "", "", 0, "API misuse"},
	{20, "cudaErrorInvalidChannelDescriptor", "", "invalid channel descriptor", "", 0, "API misuse"},
	{21, "cudaErrorInvalidMemcpyDirection", "", "invalid copy direction for memcpy", "", 0, "API misuse"},
	{22, "cudaErrorAddressOfConstant", "", "", "", 0, "deprecated"},
	{23, "cudaErrorTextureFetchFailed", "", "", "", 0, "deprecated"},
	{24, "cudaErrorTextureNotBound", "", "", "", 0, "deprecated"},
	{25, "cudaErrorSynchronizationError", "", "incorrect use of __syncthreads()", "", 0, "deprecated"},
	{26, "cudaErrorInvalidFilterSetting", "", "", "", 0, "API misuse"},
	{27, "cudaErrorInvalidNormSetting", "", "", "", 0, "API misuse"},
	{28, "cudaErrorMixedDeviceExecution", "", "", "", 0, "deprecated"},
	{31, "cudaErrorNotYetImplemented", "", "", "", 0, "deprecated"},
	{32, "cudaErrorMemoryValueTooLarge", "", "", "", 0, "deprecated"},
	{34, "cudaErrorStubLibrary", "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library", ClassNotGPU, 0.7, "the stub libcuda.so was loaded instead of the driver's: LD_LIBRARY_PATH or a container without the driver"},
	{35, "cudaErrorInsufficientDriver", "", "CUDA driver version is insufficient for CUDA runtime version", ClassNotGPU, 0.7, "the installed driver is older than the CUDA runtime the program was built with"},
	{36, "cudaErrorCallRequiresNewerDriver", "", "API call requires a newer CUDA driver", ClassNotGPU, 0.6, "the installed driver is older than the API the program calls"},
	{37, "cudaErrorInvalidSurface", "", "invalid surface reference", "", 0, "API misuse"},
	{43, "cudaErrorDuplicateVariableName", "", "", "", 0, "build problem"},
	{44, "cudaErrorDuplicateTextureName", "", "", "", 0, "build problem"},
	{45, "cudaErrorDuplicateSurfaceName", "", "", "", 0, "build problem"},
	{46, "cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable", ClassNotGPU, 0.6, "the GPU is in exclusive-process mode and held by another process, or prohibited: a scheduling / setup problem"},
	{49, "cudaErrorIncompatibleDriverContext", "", "", "", 0, "API misuse"},
	{52, "cudaErrorMissingConfiguration", "", "__global__ function call is not configured", "", 0, "API misuse"},
	{53, "cudaErrorPriorLaunchFailure", "", "unspecified launch failure in prior launch", "", 0, "deprecated"},
	{65, "cudaErrorLaunchMaxDepthExceeded", "", "", "", 0, "dynamic parallelism depth"},
	{66, "cudaErrorLaunchFileScopedTex", "", "", "", 0, "dynamic parallelism"},
	{67, "cudaErrorLaunchFileScopedSurf", "", "", "", 0, "dynamic parallelism"},
	{68, "cudaErrorSyncDepthExceeded", "", "", "", 0, "dynamic parallelism"},
	{69, "cudaErrorLaunchPendingCountExceeded", "", "", "", 0, "dynamic parallelism"},
	{98, "cudaErrorInvalidDeviceFunction", "", "invalid device function", ClassArchMismatch, 0.85, "no code for this GPU's architecture in the binary"},
	{100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected", ClassNotGPU, 0.6, "no visible GPU: CUDA_VISIBLE_DEVICES, container --gpus flags, driver not loaded"},
	{101, "cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal", "", 0, "device index out of range: CUDA_VISIBLE_DEVICES or the rank→GPU map"},
	{102, "cudaErrorDeviceNotLicensed", "CUDA_ERROR_DEVICE_NOT_LICENSED", "", "", 0, "vGPU licence"},
	{103, "cudaErrorSoftwareValidityNotEstablished", "", "", "", 0, "integrity checks"},
	{127, "cudaErrorStartupFailure", "", "", "", 0, "runtime start-up"},
	{200, "cudaErrorInvalidKernelImage", "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid", ClassArchMismatch, 0.85, "a corrupt or wrong-architecture code object"},
	{201, "cudaErrorDeviceUninitialized", "CUDA_ERROR_INVALID_CONTEXT", "invalid device context", "", 0, "no current context: API misuse or a context destroyed by an earlier error"},
	{202, "", "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "", "", 0, "deprecated"},
	{205, "cudaErrorMapBufferObjectFailed", "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed", "", 0, "IPC / interop mapping"},
	{206, "cudaErrorUnmapBufferObjectFailed", "CUDA_ERROR_UNMAP_FAILED", "unmapping of buffer object failed", "", 0, "IPC / interop mapping"},
	{207, "cudaErrorArrayIsMapped", "CUDA_ERROR_ARRAY_IS_MAPPED", "", "", 0, "interop"},
	{208, "cudaErrorAlreadyMapped", "CUDA_ERROR_ALREADY_MAPPED", "", "", 0, "interop"},
	{209, "cudaErrorNoKernelImageForDevice", "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device", ClassArchMismatch, 0.85, "the binary has no code for this GPU's compute capability: rebuild for it or install the matching wheel"},
	{210, "cudaErrorAlreadyAcquired", "CUDA_ERROR_ALREADY_ACQUIRED", "", "", 0, "interop"},
	{211, "cudaErrorNotMapped", "CUDA_ERROR_NOT_MAPPED", "", "", 0, "interop"},
	{212, "cudaErrorNotMappedAsArray", "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "", "", 0, "interop"},
	{213, "cudaErrorNotMappedAsPointer", "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "", "", 0, "interop"},
	{214, "cudaErrorECCUncorrectable", "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered", ClassECCRAS, 0.85, "an uncorrectable ECC error in device memory: a hardware ticket"},
	{215, "cudaErrorUnsupportedLimit", "CUDA_ERROR_UNSUPPORTED_LIMIT", "", "", 0, "capability"},
	{216, "cudaErrorDeviceAlreadyInUse", "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "exclusive-thread device already in use by a different thread", "", 0, "compute mode"},
	{217, "cudaErrorPeerAccessUnsupported", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices", ClassRCCLTransport, 0.6, "no P2P between the GPUs: collective transports fail over it"},
	{218, "cudaErrorInvalidPtx", "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed", ClassArchMismatch, 0.7, "the driver could not JIT the PTX for this GPU (no SASS for its architecture)"},
	{219, "cudaErrorInvalidGraphicsContext", "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "invalid OpenGL or DirectX context", "", 0, "interop"},
	{220, "cudaErrorNvlinkUncorrectable", "CUDA_ERROR_NVLINK_UNCORRECTABLE", "uncorrectable NVLink error detected during the execution", ClassECCRAS, 0.8, "an uncorrectable NVLink error: link hardware (Xid 74), a hardware ticket"},
	{221, "cudaErrorJitCompilerNotFound", "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found", ClassArchMismatch, 0.6, "no SASS for this GPU and the driver's PTX JIT library is missing"},
	{222, "cudaErrorUnsupportedPtxVersion", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain", ClassArchMismatch, 0.75, "the PTX comes from a CUDA toolkit newer than the driver: update the driver or build with the driver's toolkit"},
	{223, "cudaErrorJitCompilationDisabled", "CUDA_ERROR_JIT_COMPILATION_DISABLED", "PTX JIT compilation was disabled", ClassArchMismatch, 0.6, "no SASS for this GPU and JIT is disabled (CUDA_DISABLE_PTX_JIT)"},
	{224, "cudaErrorUnsupportedExecAffinity", "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", "", "", 0, "capability"},
	{225, "cudaErrorUnsupportedDevSideSync", "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", "", "", 0, "capability"},
	{226, "cudaErrorContained", "CUDA_ERROR_CONTAINED", "Invalid access of peer GPU memory over nvlink or a hardware error", ClassECCRAS, 0.6, "an error the GPU's containment caught: an invalid peer access over NVLink or a hardware error (Xid 94 family)"},
	{300, "cudaErrorInvalidSource", "CUDA_ERROR_INVALID_SOURCE", "", "", 0, "build problem"},
	{301, "cudaErrorFileNotFound", "CUDA_ERROR_FILE_NOT_FOUND", "file not found", "", 0, "a module file missing"},
	{302, "cudaErrorSharedObjectSymbolNotFound", "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "shared object symbol not found", "", 0, "linking"},
	{303, "cudaErrorSharedObjectInitFailed", "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed", "", 0, "linking"},
	{304, "cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS", "", 0, "an OS call failed"},
	{400, "cudaErrorInvalidResourceHandle", "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle", "", 0, "a stream / event of another device or already destroyed"},
	{401, "cudaErrorIllegalState", "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state", "", 0, "API misuse"},
	{402, "cudaErrorLossyQuery", "CUDA_ERROR_LOSSY_QUERY", "", "", 0, "API misuse"},
	{500, "cudaErrorSymbolNotFound", "CUDA_ERROR_NOT_FOUND", "named symbol not found", ClassKernelNotFound, 0.7, "a kernel or symbol name not found in the module"},
	{600, "cudaErrorNotReady", "CUDA_ERROR_NOT_READY", "device not ready", "", 0, "a query result, not an error"},
	{700, "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered", ClassGPUMemoryFault, 0.85, "a kernel accessed an invalid address; sticky"},
	{701, "cudaErrorLaunchOutOfResources", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch", ClassInvalidLaunch, 0.85, "registers / shared memory per block too high for the block size"},
	{702, "cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated", ClassGPUHangReset, 0.85, "a kernel ran into the display watchdog"},
	{703, "cudaErrorLaunchIncompatibleTexturing", "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "", "", 0, "API misuse"},
	{704, "cudaErrorPeerAccessAlreadyEnabled", "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled", "", 0, "informational"},
	{705, "cudaErrorPeerAccessNotEnabled", "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled", "", 0, "API misuse"},
	{708, "cudaErrorSetOnActiveProcess", "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "cannot set while device is active in this process", "", 0, "API misuse"},
	{709, "cudaErrorContextIsDestroyed", "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed", "", 0, "API misuse or teardown"},
	{710, "cudaErrorAssert", "CUDA_ERROR_ASSERT", "device-side assert triggered", ClassDeviceAssert, 0.85, "a kernel's assert fired (index bound checks, NaN probabilities)"},
	{711, "cudaErrorTooManyPeers", "CUDA_ERROR_TOO_MANY_PEERS", "peer mapping resources exhausted", "", 0, "capability"},
	{712, "cudaErrorHostMemoryAlreadyRegistered", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped", "", 0, "API misuse"},
	{713, "cudaErrorHostMemoryNotRegistered", "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region", "", 0, "API misuse"},
	{714, "cudaErrorHardwareStackError", "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error", ClassGPUMemoryFault, 0.75, "a kernel corrupted or overflowed its call stack (deep recursion, a stack-size limit too small); sticky"},
	{715, "cudaErrorIllegalInstruction", "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered", ClassIllegalInstruction, 0.85, "a kernel executed an instruction the GPU cannot run; sticky"},
	{716, "cudaErrorMisalignedAddress", "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address", ClassGPUMemoryFault, 0.85, "a load or store at an address not aligned for its size; sticky"},
	{717, "cudaErrorInvalidAddressSpace", "CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space", ClassGPUMemoryFault, 0.75, "an instruction on a pointer of the wrong address space (a generic pointer that is not global / shared); sticky"},
	{718, "cudaErrorInvalidPc", "CUDA_ERROR_INVALID_PC", "invalid program counter", ClassGPUMemoryFault, 0.7, "a kernel jumped to an invalid address (a corrupt function pointer or return address); sticky"},
	{719, "cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure", ClassGPUMemoryFault, 0.85, "an exception on the device while a kernel ran (an invalid device pointer, out-of-bounds shared memory); sticky"},
	{720, "cudaErrorCooperativeLaunchTooLarge", "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch", ClassInvalidLaunch, 0.8, "a cooperative grid larger than the GPU can hold resident"},
	{721, "cudaErrorTensorMemoryLeak", "CUDA_ERROR_TENSOR_MEMORY_LEAK", "tensor memory not completely freed", "", 0, "a kernel exited without freeing its tensor memory"},
	{800, "cudaErrorNotPermitted", "CUDA_ERROR_NOT_PERMITTED", "operation not permitted", "", 0, "API misuse"},
	{801, "cudaErrorNotSupported", "CUDA_ERROR_NOT_SUPPORTED", "operation not supported", "", 0, "capability (WSL, a consumer GPU)"},
	{802, "cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized", ClassNotGPU, 0.7, "the system is not ready for CUDA work: on NVSwitch systems (HGX A100 / H100 / B200) the fabric manager is not running or its version differs from the driver's"},
	{803, "cudaErrorSystemDriverMismatch", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination", ClassNotGPU, 0.7, "the kernel module and the user-space driver are of different versions (an upgrade without a reboot)"},
	{804, "cudaErrorCompatNotSupportedOnDevice", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW", ClassNotGPU, 0.6, "the forward-compatibility package on a GPU that does not support it"},
	{805, "cudaErrorMpsConnectionFailed", "CUDA_ERROR_MPS_CONNECTION_FAILED", "MPS client failed to connect to the MPS control daemon or the MPS server", ClassNotGPU, 0.5, "the MPS daemon is not reachable"},
	{806, "cudaErrorMpsRpcFailure", "CUDA_ERROR_MPS_RPC_FAILURE", "", "", 0, "MPS"},
	{807, "cudaErrorMpsServerNotReady", "CUDA_ERROR_MPS_SERVER_NOT_READY", "", "", 0, "MPS"},
	{808, "cudaErrorMpsMaxClientsReached", "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", "", "", 0, "MPS"},
	{809, "cudaErrorMpsMaxConnectionsReached", "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", "", "", 0, "MPS"},
	{810, "cudaErrorMpsClientTerminated", "CUDA_ERROR_MPS_CLIENT_TERMINATED", "", "", 0, "the MPS server ended this client: a consequence of another client's fault"},
	{811, "cudaErrorCdpNotSupported", "CUDA_ERROR_CDP_NOT_SUPPORTED", "", "", 0, "capability"},
	{812, "cudaErrorCdpVersionMismatch", "CUDA_ERROR_CDP_VERSION_MISMATCH", "", "", 0, "build problem"},
	{900, "cudaErrorStreamCaptureUnsupported", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing", ClassNotGPU, 0.6, "graph-capture misuse: a sync, .item() or allocation during capture"},
	{901, "cudaErrorStreamCaptureInvalidated", "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture", ClassNotGPU, 0.6, "graph-capture misuse"},
	{902, "cudaErrorStreamCaptureMerge", "CUDA_ERROR_STREAM_CAPTURE_MERGE", "operation would result in a merge of separate capture sequences", ClassNotGPU, 0.5, "graph-capture misuse"},
	{903, "cudaErrorStreamCaptureUnmatched", "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "", ClassNotGPU, 0.5, "graph-capture misuse"},
	{904, "cudaErrorStreamCaptureUnjoined", "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "", ClassNotGPU, 0.5, "graph-capture misuse"},
	{905, "cudaErrorStreamCaptureIsolation", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "", ClassNotGPU, 0.5, "graph-capture misuse"},
	{906, "cudaErrorStreamCaptureImplicit", "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "", ClassNotGPU, 0.5, "graph-capture misuse"},
	{907, "cudaErrorCapturedEvent", "CUDA_ERROR_CAPTURED_EVENT", "", ClassNotGPU, 0.5, "graph-capture misuse"},
	{908, "cudaErrorStreamCaptureWrongThread", "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "", ClassNotGPU, 0.5, "graph-capture misuse"},
	{909, "cudaErrorTimeout", "CUDA_ERROR_TIMEOUT", "wait operation timed out", "", 0, "an API wait with a timeout"},
	{910, "cudaErrorGraphExecUpdateFailure", "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "", "", 0, "API misuse"},
	{911, "cudaErrorExternalDevice", "CUDA_ERROR_EXTERNAL_DEVICE", "", "", 0, "an error outside CUDA"},
	{912, "cudaErrorInvalidClusterSize", "CUDA_ERROR_INVALID_CLUSTER_SIZE", "", ClassInvalidLaunch, 0.6, "a thread-block cluster the kernel or GPU cannot launch"},
	{913, "cudaErrorFunctionNotLoaded", "CUDA_ERROR_FUNCTION_NOT_LOADED", "", "", 0, "lazy loading"},
	{914, "cudaErrorInvalidResourceType", "CUDA_ERROR_INVALID_RESOURCE_TYPE", "", "", 0, "API misuse"},
	{915, "cudaErrorInvalidResourceConfiguration", "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION", "", "", 0, "API misuse"},
	{916, "", "CUDA_ERROR_KEY_ROTATION", "", "", 0, "confidential computing"},
	{999, "cudaErrorUnknown", "CUDA_ERROR_UNKNOWN", "unknown error", "", 0, "nothing said: often after a GPU fell off the bus, read the kernel log"},
}

// cudaOldTexts are texts earlier runtimes printed for a row (CUDA ≤ 10).
var cudaOldTexts = []struct {
	text string
	code int
}{
	{"all CUDA-capable devices are busy or unavailable", 46},
}

// cudaName is the name a finding reports: the runtime's, else the driver's.
func (e *cudaErr) cudaName() string {
	if e.name != "" {
		return e.name
	}
	return e.driver
}

// lookupCUDAName resolves cudaErrorX or CUDA_ERROR_X.
func lookupCUDAName(name string) *cudaErr {
	for i := range cudaCatalog {
		e := &cudaCatalog[i]
		if name == e.name || name == e.driver {
			return e
		}
	}
	return nil
}

// lookupCUDACode resolves a CUresult / cudaError_t number.
func lookupCUDACode(code int) *cudaErr {
	for i := range cudaCatalog {
		if cudaCatalog[i].code == code {
			return &cudaCatalog[i]
		}
	}
	return nil
}

// cudaErrFact is a CUDA error a line names: by its runtime or driver name,
// by the text the runtime prints, or by a CUresult number.
type cudaErrFact struct {
	e    *cudaErr
	name string // the name as printed ("" when read from the text)
	via  string // "name", "text" or "code"
	// nccl: NCCL's CUDACHECK report, "Cuda failure N 'text'" (checks.h
	// quotes the text) — the library's failure, read by the NCCL rules
	nccl bool
}

// extractCUDAError reads CUDA's error catalog off one line, whichever
// wrapper prints it: PyTorch's "CUDA error: <text>", THC's "cuda runtime
// error (N) : <text>", cupy's "cudaErrorX: <text>", the driver API's
// "CUDA_ERROR_X" (cudarc's DriverError(CUDA_ERROR_X, "…"), numba, JAX),
// helper_cuda's "code=N(cudaErrorX)", "CUDA Runtime Error: <text>",
// "Cuda failure: N <text>", "ggml_cuda_init: failed to initialize CUDA:
// <text>", a bare "CUresult N". A name beats a text; among texts the
// longest match wins ("unspecified launch failure in prior launch" is not
// "unspecified launch failure"). A text counts only on a line that speaks
// of CUDA: "out of memory" or "misaligned address" alone are anyone's.
func extractCUDAError(t string) (cudaErrFact, bool) {
	for _, pre := range [...]string{"cudaError", "CUDA_ERROR_"} {
		for i, off := 0, 0; off < len(t); off += i + len(pre) {
			i = strings.Index(t[off:], pre)
			if i < 0 {
				break
			}
			at := off + i
			if at > 0 && isWord(t[at-1]) {
				continue
			}
			end := at + len(pre)
			for end < len(t) && isWord(t[end]) {
				end++
			}
			if e := lookupCUDAName(t[at:end]); e != nil && e.code != 0 {
				return cudaErrFact{e: e, name: t[at:end], via: "name"}, true
			}
		}
	}
	if !containsFoldASCII(t, "cuda") && !strings.Contains(t, "CUresult") {
		return cudaErrFact{}, false
	}
	var best *cudaErr
	for i := range cudaCatalog {
		e := &cudaCatalog[i]
		if e.code == 0 || e.text == "" || best != nil && len(e.text) <= len(best.text) {
			continue
		}
		if cudaTextAt(t, e.text) {
			best = e
		}
	}
	if best == nil {
		for _, o := range cudaOldTexts {
			if cudaTextAt(t, o.text) {
				best = lookupCUDACode(o.code)
				break
			}
		}
	}
	if best != nil {
		return cudaErrFact{e: best, via: "text", nccl: ncclCudaCheck(t)}, true
	}
	if i := strings.Index(t, "CUresult"); i >= 0 {
		j := i + len("CUresult")
		for j < len(t) && (t[j] == ' ' || t[j] == ':' || t[j] == '=') {
			j++
		}
		if k := digitsFrom(t, j); k > j && k-j <= 4 {
			if e := lookupCUDACode(atoiDef(t[j:k], -1)); e != nil && e.code != 0 {
				return cudaErrFact{e: e, via: "code"}, true
			}
		}
	}
	return cudaErrFact{}, false
}

// cudaTextAt: the text stands where a wrapper prints the message — after
// a separator (":", a quote, "(N)", a number: "Error 802: …", "Cuda
// failure: 222 …", "(46 vs. 0)  all …") — not inside prose ("a catchable
// RuntimeError: CUDA out of memory" reads "out of memory" after "CUDA ").
func cudaTextAt(t, text string) bool {
	for off := 0; off < len(t); {
		i := strings.Index(t[off:], text)
		if i < 0 {
			return false
		}
		at := off + i
		pre := strings.TrimRight(t[:at], " ")
		if pre == "" {
			return true
		}
		switch c := pre[len(pre)-1]; {
		case c == ':' || c == '\'' || c == '"' || c == '(' || c == ')' || c == '`' || c == '[' || c >= '0' && c <= '9':
			return true
		}
		off = at + len(text)
	}
	return false
}

// ncclCudaCheck: NCCL's own report of a failed CUDA call, "Cuda failure
// 802 'system not yet initialized'" / "Cuda failure 'out of memory'".
func ncclCudaCheck(t string) bool {
	i := strings.Index(t, "Cuda failure ")
	if i < 0 {
		return false
	}
	r := t[i+len("Cuda failure "):]
	r = r[digitsFrom(r, 0):]
	return strings.HasPrefix(strings.TrimLeft(r, " "), "'")
}

// applyCUDAError is the catalog's rule: the class the error implies, with
// the catalog's why; an error without a class of its own decides nothing.
func (s *Session) applyCUDAError(l *line, x cudaErrFact) {
	e := x.e
	if e.class == "" || x.nccl { // NCCL's CUDACHECK: the NCCL rules read it
		return
	}
	s.format("cuda_error")
	a := s.b.add(s, e.class, l, e.conf)
	if a.f.CUDAError == "" {
		a.f.CUDAError = e.cudaName()
	}
	a.detail("cuda_error", e.cudaName())
	if e.driver != "" {
		a.detail("cuda_driver_error", e.driver)
	}
	a.detail("cuda_error_code", itoa(e.code))
	text := e.text
	if text == "" {
		text = e.cudaName()
	}
	a.addReason(text + ": " + e.why)
}
