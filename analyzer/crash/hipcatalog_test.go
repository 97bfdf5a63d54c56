package crash

import (
	"strings"
	"testing"
)

// hipHeaderCodes is hipError_t as hip_runtime_api.h declares it (ROCm/HIP
// include/hip/hip_runtime_api.h, ROCm 6.x–7.x; the 911–916 and 1054 codes
// of ROCm 6.2+ as hipfort's hip_enums.f mirrors them; the list of
// rocm.docs.amd.com/projects/HIP/en/latest/reference/error_codes.html).
// Aliases (hipErrorMemoryAllocation, hipErrorInitializationError,
// hipErrorInvalidResourceHandle, hipErrorMapBufferObjectFailed) are
// hipAliases, not rows.
const hipHeaderCodes = `hipErrorInvalidValue=1 hipErrorOutOfMemory=2 hipErrorNotInitialized=3
hipErrorDeinitialized=4 hipErrorProfilerDisabled=5 hipErrorProfilerNotInitialized=6
hipErrorProfilerAlreadyStarted=7 hipErrorProfilerAlreadyStopped=8 hipErrorInvalidConfiguration=9
hipErrorInvalidPitchValue=12 hipErrorInvalidSymbol=13 hipErrorInvalidDevicePointer=17
hipErrorInvalidMemcpyDirection=21 hipErrorInsufficientDriver=35 hipErrorMissingConfiguration=52
hipErrorPriorLaunchFailure=53 hipErrorInvalidDeviceFunction=98 hipErrorNoDevice=100
hipErrorInvalidDevice=101 hipErrorInvalidImage=200 hipErrorInvalidContext=201
hipErrorContextAlreadyCurrent=202 hipErrorMapFailed=205 hipErrorUnmapFailed=206
hipErrorArrayIsMapped=207 hipErrorAlreadyMapped=208 hipErrorNoBinaryForGpu=209
hipErrorAlreadyAcquired=210 hipErrorNotMapped=211 hipErrorNotMappedAsArray=212
hipErrorNotMappedAsPointer=213 hipErrorECCNotCorrectable=214 hipErrorUnsupportedLimit=215
hipErrorContextAlreadyInUse=216 hipErrorPeerAccessUnsupported=217 hipErrorInvalidKernelFile=218
hipErrorInvalidGraphicsContext=219 hipErrorInvalidSource=300 hipErrorFileNotFound=301
hipErrorSharedObjectSymbolNotFound=302 hipErrorSharedObjectInitFailed=303 hipErrorOperatingSystem=304
hipErrorInvalidHandle=400 hipErrorIllegalState=401 hipErrorNotFound=500 hipErrorNotReady=600
hipErrorIllegalAddress=700 hipErrorLaunchOutOfResources=701 hipErrorLaunchTimeOut=702
hipErrorPeerAccessAlreadyEnabled=704 hipErrorPeerAccessNotEnabled=705 hipErrorSetOnActiveProcess=708
hipErrorContextIsDestroyed=709 hipErrorAssert=710 hipErrorHostMemoryAlreadyRegistered=712
hipErrorHostMemoryNotRegistered=713 hipErrorLaunchFailure=719 hipErrorCooperativeLaunchTooLarge=720
hipErrorNotSupported=801 hipErrorStreamCaptureUnsupported=900 hipErrorStreamCaptureInvalidated=901
hipErrorStreamCaptureMerge=902 hipErrorStreamCaptureUnmatched=903 hipErrorStreamCaptureUnjoined=904
hipErrorStreamCaptureIsolation=905 hipErrorStreamCaptureImplicit=906 hipErrorCapturedEvent=907
hipErrorStreamCaptureWrongThread=908 hipErrorGraphExecUpdateFailure=910
hipErrorInvalidChannelDescriptor=911 hipErrorInvalidTexture=912 hipErrorInvalidResourceType=914
hipErrorInvalidResourceConfiguration=915 hipErrorStreamDetached=916 hipErrorUnknown=999
hipErrorRuntimeMemory=1052 hipErrorRuntimeOther=1053 hipErrorInvalidClusterSize=1054 hipErrorTbd=1055`

// The table holds every hipError_t of the header, each once, and nothing
// else; every text is the one ihipGetErrorString returns (ROCm/clr
// hipamd/src/hip_error.cpp), spot-checked here where a wrong text once hid
// an error (215 was "unsupported limit").
func TestHIPErrorCatalog(t *testing.T) {
	want := map[string]int{}
	for _, f := range strings.Fields(hipHeaderCodes) {
		name, code, _ := strings.Cut(f, "=")
		want[name] = atoiDef(code, -1)
	}
	seen := map[int]string{}
	for _, e := range hipErrors {
		c, ok := want[e.name]
		if !ok {
			t.Errorf("%s (%d) is not in hip_runtime_api.h", e.name, e.code)
		} else if c != e.code {
			t.Errorf("%s: code %d, header says %d", e.name, e.code, c)
		}
		if o, dup := seen[e.code]; dup {
			t.Errorf("code %d twice: %s and %s", e.code, o, e.name)
		}
		seen[e.code] = e.name
		delete(want, e.name)
	}
	for n := range want {
		t.Errorf("%s missing from hipErrors", n)
	}
	for name, text := range map[string]string{
		"hipErrorUnsupportedLimit":         "limit is not supported on this architecture",
		"hipErrorInvalidSource":            "device kernel image is invalid",
		"hipErrorStreamCaptureImplicit":    "operation would make the legacy stream depend on a capturing blocking stream",
		"hipErrorOperatingSystem":          "OS call failed or operation not supported on this OS",
		"hipErrorNoDevice":                 "no ROCm-capable device is detected",
		"hipErrorStreamCaptureWrongThread": "attempt to terminate a thread-local capture sequence from another thread",
	} {
		if e := lookupHIPName(name); e == nil || e.text != text {
			t.Errorf("%s: text %v, want %q", name, e, text)
		}
	}
	for a, n := range hipAliases {
		if lookupHIPName(a) == nil && n != "" {
			t.Errorf("alias %s → %s resolves to nothing", a, n)
		}
	}
}

// Every hipError_t, printed the three ways runtimes and frameworks print
// one (PyTorch's "HIP error: <text>", a HIP_CHECK macro's "'<name>'(<code>)",
// "HIP error <code>: <name>"), gives its table class first, and an error
// of no class gives no GPU class (a Python exception around it is at most
// not_gpu).
func TestHIPErrorCatalogForms(t *testing.T) {
	for _, e := range hipErrors {
		forms := []string{
			"hip call failed with error '" + e.name + "'(" + itoa(e.code) + ")",
			"HIP error " + itoa(e.code) + ": " + e.name,
		}
		if e.text != "" {
			forms = append(forms, "RuntimeError: HIP error: "+e.text)
		}
		for _, form := range forms {
			d := diagnoseWhole("x.log", []byte(form+"\n"))
			got := ""
			if len(d.Findings) > 0 {
				got = d.Findings[0].Class
			}
			if e.name == "hipErrorInvalidValue" && strings.HasPrefix(form, "RuntimeError: HIP error: ") {
				continue // PyTorch's check of it alone is a launch, less sure (TestTorchInvalidValue)
			}
			if e.class != "" && got != e.class || e.class == "" && got != "" && got != ClassNotGPU {
				t.Errorf("%s: %q: %v, want %q", e.name, form, classesOf(d), e.class)
			}
		}
	}
}

// hsaHeaderCodes is hsa_status_t: hsa.h's core statuses, hsa_ext_amd.h's
// AMD extensions (40–47), hsa_ext_finalize.h's and hsa_ext_image.h's
// (ROCm/ROCR-Runtime runtime/hsa-runtime/inc/). The three newest AMD
// statuses (XNACK_DISABLED, INVALID_DISPATCH_PARAMETERS,
// RESOURCE_NOT_READY) are in hsa_status_string with no code we could
// confirm: name only.
const hsaHeaderCodes = `ERROR=0x1000 ERROR_INVALID_ARGUMENT=0x1001 ERROR_INVALID_QUEUE_CREATION=0x1002
ERROR_INVALID_ALLOCATION=0x1003 ERROR_INVALID_AGENT=0x1004 ERROR_INVALID_REGION=0x1005
ERROR_INVALID_SIGNAL=0x1006 ERROR_INVALID_QUEUE=0x1007 ERROR_OUT_OF_RESOURCES=0x1008
ERROR_INVALID_PACKET_FORMAT=0x1009 ERROR_RESOURCE_FREE=0x100a ERROR_NOT_INITIALIZED=0x100b
ERROR_REFCOUNT_OVERFLOW=0x100c ERROR_INCOMPATIBLE_ARGUMENTS=0x100d ERROR_INVALID_INDEX=0x100e
ERROR_INVALID_ISA=0x100f ERROR_INVALID_CODE_OBJECT=0x1010 ERROR_INVALID_EXECUTABLE=0x1011
ERROR_FROZEN_EXECUTABLE=0x1012 ERROR_INVALID_SYMBOL_NAME=0x1013 ERROR_VARIABLE_ALREADY_DEFINED=0x1014
ERROR_VARIABLE_UNDEFINED=0x1015 ERROR_EXCEPTION=0x1016 ERROR_INVALID_ISA_NAME=0x1017
ERROR_INVALID_CODE_SYMBOL=0x1018 ERROR_INVALID_EXECUTABLE_SYMBOL=0x1019 ERROR_INVALID_FILE=0x1020
ERROR_INVALID_CODE_OBJECT_READER=0x1021 ERROR_INVALID_CACHE=0x1022 ERROR_INVALID_WAVEFRONT=0x1023
ERROR_INVALID_SIGNAL_GROUP=0x1024 ERROR_INVALID_RUNTIME_STATE=0x1025 ERROR_FATAL=0x1026
ERROR_INVALID_MEMORY_POOL=0x28 ERROR_MEMORY_APERTURE_VIOLATION=0x29 ERROR_ILLEGAL_INSTRUCTION=0x2a
ERROR_MEMORY_FAULT=0x2b CU_MASK_REDUCED=0x2c ERROR_OUT_OF_REGISTERS=0x2d ERROR_RESOURCE_BUSY=0x2e
ERROR_NOT_SUPPORTED=0x2f ERROR_XNACK_DISABLED= ERROR_INVALID_DISPATCH_PARAMETERS=
ERROR_RESOURCE_NOT_READY= HSA_EXT_STATUS_ERROR_INVALID_PROGRAM=0x2000
HSA_EXT_STATUS_ERROR_INVALID_MODULE=0x2001 HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE=0x2002
HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED=0x2003 HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH=0x2004
HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED=0x2005 HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH=0x2006
HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED=0x3000 HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED=0x3001
HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED=0x3002 HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED=0x3003`

func TestHSAStatusCatalog(t *testing.T) {
	want := map[string]string{}
	for _, f := range strings.Fields(hsaHeaderCodes) {
		name, code, _ := strings.Cut(f, "=")
		want[name] = code
	}
	for i := range hsaStatuses {
		st := &hsaStatuses[i]
		c, ok := want[st.name]
		if !ok {
			t.Errorf("%s is not in the HSA headers", st.fullName())
		} else if c != st.code {
			t.Errorf("%s: code %q, header says %q", st.fullName(), st.code, c)
		}
		delete(want, st.name)
		if lookupHSA(st.fullName()) != st {
			t.Errorf("lookupHSA(%s) does not find its row", st.fullName())
		}
		if st.code != "" && lookupHSACode(strings.ToUpper(st.code[:2])+st.code[2:]) != st {
			t.Errorf("lookupHSACode(%s) does not find %s", st.code, st.fullName())
		}
	}
	for n := range want {
		t.Errorf("%s missing from hsaStatuses", n)
	}
	if lookupHSACode("") != nil {
		t.Error(`lookupHSACode("") found a row`)
	}
}

// Every HSA status in CLR's queue abort (by name, and by code only as
// ROCm 3.x printed it) gives its table class first; a status of no class
// gives no finding.
func TestHSAStatusCatalogForms(t *testing.T) {
	for i := range hsaStatuses {
		st := &hsaStatuses[i]
		forms := []string{":0:rocdevice.cpp            :2660: 556940992572 us: 32834: [tid:0x7f9e41945700] Device::callbackQueue aborting with error : " + st.fullName() + ": message. code: " + st.code}
		if st.code != "" && !strings.HasPrefix(st.name, "HSA_EXT_") {
			forms = append(forms, ":0:rocdevice.cpp            :2303: 768423197593 us: Device::callbackQueue aborting with status: "+st.code)
		}
		for _, form := range forms {
			d := diagnoseWhole("x.log", []byte(form+"\n"))
			got := ""
			if len(d.Findings) > 0 {
				got = d.Findings[0].Class
			}
			if got != st.class {
				t.Errorf("%s: %q: %v, want %q", st.fullName(), form, classesOf(d), st.class)
			}
		}
	}
}

// A hipError_t text of a class reads wherever a tool prints it: ggml's
// "ROCm error: <text>" (its backend's name on a HIP build), the text alone
// after another prefix when it is long enough to be the runtime's words
// (hipPhrases).
func TestHIPErrorTextsElsewhere(t *testing.T) {
	cases := []struct{ src, line, want string }{
		{"https://github.com/ggml-org/llama.cpp/issues/14370", "ROCm error: invalid device function", ClassArchMismatch},
		{"https://github.com/ggml-org/llama.cpp/issues/3320", "ROCm error: ggml-cuda.cu:6246: invalid device function", ClassArchMismatch},
		{"https://github.com/ggml-org/llama.cpp/issues/20142", "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected", ClassNotGPU},
		{"https://github.com/lemonade-sdk/llamacpp-rocm/issues/74", "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected", ClassNotGPU},
		{"https://github.com/ROCm/hip/issues/3910", `checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from file <C:\home\runner\_work\rockrel\rockrel\rocm-systems\projects\hip-tests\samples\1_Utils\hipInfo\hipInfo.cpp>, line 181.`, ClassNotGPU},
		{"https://github.com/ROCm/hip/issues/3876", "[rank0]:[E1030 15:32:32.970893361 ProcessGroupNCCL.cpp:2055] [PG ID 5 PG GUID 51 Rank 0] Process group watchdog thread terminated with exception: HIP error: operation not permitted when stream is capturing", ClassNotGPU},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.line+"\n"))
		if hasClass(d, c.want) == nil {
			t.Errorf("%s: %q: %v, want %s", c.src, c.line, classesOf(d), c.want)
		}
	}
	for _, p := range hipPhrases(24) {
		if len(p) < 24 || lookupHIPText(p) == nil || lookupHIPText(p).class == "" {
			t.Errorf("phrase %q: not a classed hipError_t text of 24+ bytes", p)
		}
	}
}
