package crash

import (
	"strconv"
	"strings"
)

// hsaStatus describes one HSA status code (docs section 5).
type hsaStatus struct {
	name    string // without the HSA_STATUS_ prefix
	code    string
	class   string // "" = no class of its own
	meaning string
}

var hsaStatuses = []hsaStatus{
	{"ERROR", "0x1000", "", "generic HSA error"},
	{"ERROR_INVALID_ARGUMENT", "0x1001", "", "invalid argument (scratch overflow surfaces here: [UpdateScratch] scratch_size overflow)"},
	{"ERROR_OUT_OF_RESOURCES", "0x1008", ClassVRAMOOM, "the runtime failed to allocate resources (queue, scratch, memory or host threads exhausted)"},
	{"ERROR_INVALID_ISA", "0x100f", ClassArchMismatch, "the instruction set architecture is invalid: code object for the wrong gfx target"},
	{"ERROR_INVALID_CODE_OBJECT", "0x1010", ClassArchMismatch, "the code object is invalid (corrupt or wrong-arch code object)"},
	{"ERROR_EXCEPTION", "0x1016", ClassDeviceAssert, "a wave trapped: device-side assert (s_trap 2), memory violation with XNACK off, or illegal instruction — the debug agent tells which"},
	{"ERROR_INVALID_ISA_NAME", "0x1017", ClassArchMismatch, "invalid ISA name: code object for the wrong gfx target"},
	{"ERROR_FATAL", "0x1026", "", "the queue received an error that may require process termination"},
	{"ERROR_INVALID_MEMORY_POOL", "0x28", "", "the memory pool is invalid"},
	{"ERROR_MEMORY_APERTURE_VIOLATION", "0x29", ClassGPUMemoryFault, "the agent accessed memory beyond the largest legal address (wild or host pointer, bad kernel_obj)"},
	{"ERROR_ILLEGAL_INSTRUCTION", "0x2a", ClassIllegalInstruction, "the agent attempted to execute an illegal shader instruction (ISA mismatch or corrupt code)"},
	{"ERROR_MEMORY_FAULT", "0x2b", ClassGPUMemoryFault, "the agent attempted to access an inaccessible address (GPU page fault)"},
	{"CU_MASK_REDUCED", "0x2c", "", "informational: CU mask reduced"},
	{"ERROR_OUT_OF_REGISTERS", "0x2d", ClassInvalidLaunch, "the kernel requested more VGPRs than the agent has"},
	{"ERROR_RESOURCE_BUSY", "0x2e", "", "resource busy"},
	{"ERROR_NOT_SUPPORTED", "0x2f", "", "not supported"},
}

func lookupHSA(name string) *hsaStatus {
	name = strings.TrimPrefix(name, "HSA_STATUS_")
	for i := range hsaStatuses {
		if hsaStatuses[i].name == name {
			return &hsaStatuses[i]
		}
	}
	return nil
}

// lookupHSACode resolves a printed status code ("0x100f", "0x29").
func lookupHSACode(code string) *hsaStatus {
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

var hipErrors = []hipErr{
	{"hipErrorInvalidValue", 1, "invalid argument", "cudaErrorInvalidValue", "", "bad API arguments; at a launch: grid/block 0 or over the device limits, null pointer arguments"},
	{"hipErrorOutOfMemory", 2, "out of memory", "cudaErrorMemoryAllocation", ClassVRAMOOM, "device memory exhausted (fragmentation, capacity, other tenants)"},
	{"hipErrorNotInitialized", 3, "initialization error", "cudaErrorInitializationError", ClassNotGPU, "the runtime could not initialise: /dev/kfd permissions, container flags"},
	{"hipErrorDeinitialized", 4, "driver shutting down", "cudaErrorCudartUnloading", "", "GPU use after atexit teardown"},
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
	{"hipErrorMapFailed", 205, "mapping of buffer object failed", "cudaErrorMapBufferObjectFailed", "", "IPC attach failed"},
	{"hipErrorUnmapFailed", 206, "unmapping of buffer object failed", "cudaErrorUnmapBufferObjectFailed", "", ""},
	{"hipErrorNoBinaryForGpu", 209, "no kernel image is available for execution on the device", "cudaErrorNoKernelImageForDevice", ClassArchMismatch, "the binary has no code object for this GPU: rebuild for the target or install the right wheel"},
	{"hipErrorECCNotCorrectable", 214, "uncorrectable ECC error encountered", "cudaErrorECCUncorrectable", ClassECCRAS, "uncorrectable ECC error: retire / ticket the GPU"},
	{"hipErrorUnsupportedLimit", 215, "unsupported limit", "cudaErrorUnsupportedLimit", "", ""},
	{"hipErrorContextAlreadyInUse", 216, "exclusive-thread device already in use by a different thread", "cudaErrorDeviceAlreadyInUse", "", ""},
	{"hipErrorPeerAccessUnsupported", 217, "peer access is not supported between these two devices", "cudaErrorPeerAccessUnsupported", ClassRCCLTransport, "no P2P between the GPUs: RCCL transport errors follow"},
	{"hipErrorInvalidKernelFile", 218, "invalid kernel file", "cudaErrorInvalidPtx", ClassArchMismatch, ""},
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
	{"hipErrorUnknown", 999, "unknown error", "cudaErrorUnknown", "", ""},
	{"hipErrorRuntimeMemory", 1052, "runtime memory call returned error", "", "", "HSA runtime failure: check ROCr/KFD logs"},
	{"hipErrorRuntimeOther", 1053, "runtime call other than memory returned error", "", "", "HSA runtime failure: check ROCr/KFD logs"},
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

// lookupHIPText resolves an error string as printed after "HIP error:" /
// "CUDA error:".
func lookupHIPText(text string) *hipErr {
	t := strings.TrimRight(strings.TrimSpace(text), ". ")
	if t == "" {
		return nil
	}
	for i := range hipErrors {
		if hasPrefixFold(t, hipErrors[i].text) { // the table keeps the runtime's case ("ECC")
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
