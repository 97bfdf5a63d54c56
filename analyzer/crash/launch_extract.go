package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Pure extractors of launch failures (seed 002 / fx08 wordings, MIOpen,
// HIP runtime): one line in, one typed fact out — the launch geometry
// (grid, block, dynamic LDS) and the error it met. They decide nothing:
// the rules in launch.go compare the geometry with the device-limit facts
// (extractThreadLimits, extractWGMax, extractLDSLimit) and pick classes.

// launchFailKind is which launch-failure line a fact comes from.
type launchFailKind uint8

const (
	lfNone          launchFailKind = iota
	lfLaunchFailed                 // "Kernel 'k' launch failed: hipErrorX (grid=(…), block=(…))"
	lfLaunchLog                    // "kernel=k, grid=(…), block=(…), shared=N"
	lfSharedExceeds                // "shared memory N bytes exceeds limit M"
	lfGridInvalid                  // "grid.x N invalid (limit: lo..hi)"
	lfLoadFailed                   // "Kernel loading failed: hipErrorX"
	lfSyncFailed                   // "Device synchronization failed after kernel 'k': hipErrorX …"
	lfAsyncHIP                     // "Async HIP error detected after kernel launch: code=N, msg=…"
	lfResources                    // invalid configuration / too many resources / scratch overflow / out of registers
	lfRefusedValue                 // "Failed to launch kernel: invalid argument" (the runtime refused the launch's values)
)

// launchFact is one launch-failure line read.
type launchFact struct {
	kind   launchFailKind
	kernel string
	err    string       // the HIP error name the line gives
	code   int          // lfAsyncHIP: the numeric code (-1 unreadable)
	cfg    launchConfig // geometry when cfg.set (ev left for the caller)
	// lfSharedExceeds: the bytes asked and the limit, as printed
	sharedBytes, sharedLimit string
	// lfGridInvalid: axis, value and the allowed range, as printed
	axis, value, lo, hi string
	resource            string // lfResources: the phrase met (see resourcePhrases)
	miopen              bool   // lfResources: MIOpen's "Failed to launch kernel"
}

type launchConfig struct {
	fn     string
	kernel string
	grid   [3]int64
	block  [3]int64
	shared int64
	set    bool
	ev     Evidence
}

var (
	reAppLaunchFail = lazyre.New(`Kernel '([^']+)' launch failed: (\w+)(?: \(grid=\((\d+), ?(\d+), ?(\d+)\), block=\((\d+), ?(\d+), ?(\d+)\)\))?`)
	reAppLaunch     = lazyre.New(`kernel=([\w.:<>]+), grid=\((\d+), ?(\d+), ?(\d+)\), block=\((\d+), ?(\d+), ?(\d+)\)(?:, shared=(\d+))?`)
	reSharedExceed  = lazyre.New(`(?i)shared memory (\d+) bytes exceeds limit (\d+)`)
	reGridInvalid   = lazyre.New(`grid\.([xyz]) (\d+) invalid \(limit: (\d+)\.\.(\d+)\)`)
	reMaxThreads    = lazyre.New(`maxThreadsPerBlock[=:]\s*(\d+)`)
	reMaxDim        = lazyre.New(`maxThreadsDim[=:]\s*[\[(]\s*(\d+),\s*(\d+),\s*(\d+)\s*[\])]`)
	reWGMax         = lazyre.New(`Workgroup Max Size:\s*(\d+)`)
	reLDSLimit      = lazyre.New(`(?:sharedMemPerBlock|maxSharedMemoryPerBlock)[=:]\s*(\d+)|(?i:sharedMemPerBlockOptin|MaxSharedMemoryPerBlockOptin)\s*[=:]\s*(\d+)`)
	reKernelLoad    = lazyre.New(`Kernel loading failed: (hip\w+)`)
	// A launch the runtime refused with invalid-value: MIOpen's "Failed to
	// launch kernel: invalid argument" (onnxruntime#20203), Bend/HVM's "Failed
	// to launch kernels. Error code: invalid argument." (a shared-memory
	// request over the GPU's: HigherOrderCO/HVM1#383), XLA's "Failed to launch
	// HIP graph: HIP_ERROR_InvalidValue" (xla#8692). The HIP runtime returns
	// it for launch values past the device's (cupy#9751: grid × block over
	// the AQL packet's 2^32 work-items).
	reRefusedValue = lazyre.New(`Failed to launch (?:kernels?|(?i:hip|cuda) graph)\b.{0,80}?(?:: |Error code: )(invalid argument|(?:HIP|CUDA)_ERROR_(?:InvalidValue|INVALID_VALUE)|hipErrorInvalidValue|cudaErrorInvalidValue)\b`)
	// … or a launch API named with the invalid-value it returned: the
	// AMD_LOG_LEVEL trace "hipLaunchKernel: Returned hipErrorInvalidValue"
	// after an 80 KB dynamic shared-memory request on a 64 KB RDNA4 device,
	// an application's check "hipModuleLaunchKernel(k) failed:
	// hipErrorInvalidValue" (cupy#9751: HIP's opaque invalid-value for
	// launch values past the device's; NVIDIA/numba-cuda-mlir#143: the same
	// refusal for a shared-memory request over the opt-in limit).
	reAPIRefusedValue = lazyre.New(`\b(hip(?:Ext)?(?:Module)?Launch(?:Cooperative)?Kernel\w*)\b.{0,120}?\b(hipErrorInvalidValue|HIP_ERROR_InvalidValue)\b`)
	reModulePath      = lazyre.New(`(?i)load\w*\b.*?((?:/|\./)?[\w./+-]*?([\w+-]+)\.(?:hsaco|co))\b`)
	reSyncFailed      = lazyre.New(`Device synchronization failed after kernel '([^']+)': (.*)`)
	reAsyncHIP        = lazyre.New(`Async HIP error detected after kernel launch: code=(\d+), msg=(.*)`)
)

// launchGate: a line holding none of these is no launch or limit line.
var launchGate = []string{"aunch", "grid", "hared memory", "maxThreads", "Workgroup Max", "haredMem", "Kernel loading", "nvalid configuration", "too many resources", "scratch_size", "synchronization failed", "Async HIP", "Out of VGPRs"}

// resourcePhrases: the runtime's launch-resource errors, in the order a
// line holding several is read.
var resourcePhrases = []string{"invalid configuration argument", "too many resources requested", "scratch_size overflow", "OUT_OF_REGISTERS", vgprOutOf, vgprOverHW}

// The work-group's VGPR need over what a CU holds, in the older stacks'
// words: the ROCr debug agent's queue-error state "Queue ID: N (Out of
// VGPRs;)" (ROCm/hip#1185) and HCC's "The number of VGPRs (153) needed by
// this launch (k(…)) exceeds HW limit due to big work group size (672)
// workitems!" (ROCm/legacy-rocm-build#261).
const (
	vgprOutOf  = "(Out of VGPRs;"
	vgprOverHW = "exceeds HW limit due to big work group size"
)

// reVGPRLaunch: the kernel HCC names in its VGPR message.
var reVGPRLaunch = lazyre.New(`needed by this launch \(([A-Za-z_][\w:~<>]*)\(`)

// launchKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var launchKeywords = []string{"larger than launch bounds", "Failed to launch", "kernel_name = ", vgprOutOf, vgprOverHW, "Preparing kernel: ", "maxThreadsPerBlock", "Workgroup Max Size", "haredMem", "launch failed:", "kernel=", "exceeds limit", "invalid (limit", "Kernel loading failed", ".hsaco", ".co", "synchronization failed", "Async HIP error", "invalid configuration argument", "too many resources requested", "scratch_size overflow", "OUT_OF_REGISTERS", "LaunchKernel", "LaunchCooperativeKernel"}

// extractLaunchFailure reads a launch-failure line (past launchGate); the
// first wording that matches wins.
func extractLaunchFailure(t string) launchFact {
	if m := findIf(t, "launch failed:", reAppLaunchFail); m != nil {
		f := launchFact{kind: lfLaunchFailed, kernel: m[1], err: m[2]}
		if m[3] != "" {
			f.cfg = launchConfig{kernel: m[1], grid: [3]int64{atoi64(m[3]), atoi64(m[4]), atoi64(m[5])}, block: [3]int64{atoi64(m[6]), atoi64(m[7]), atoi64(m[8])}, set: true}
		}
		return f
	}
	if m := findIf(t, "kernel=", reAppLaunch); m != nil {
		cfg := launchConfig{kernel: m[1], grid: [3]int64{atoi64(m[2]), atoi64(m[3]), atoi64(m[4])}, block: [3]int64{atoi64(m[5]), atoi64(m[6]), atoi64(m[7])}, shared: atoi64(m[8]), set: true}
		return launchFact{kind: lfLaunchLog, kernel: m[1], cfg: cfg}
	}
	if m := findIf(t, "exceeds limit", reSharedExceed); m != nil {
		return launchFact{kind: lfSharedExceeds, sharedBytes: m[1], sharedLimit: m[2]}
	}
	if m := findIf(t, "invalid (limit", reGridInvalid); m != nil {
		return launchFact{kind: lfGridInvalid, axis: m[1], value: m[2], lo: m[3], hi: m[4]}
	}
	if m := findIf(t, "Kernel loading failed", reKernelLoad); m != nil {
		return launchFact{kind: lfLoadFailed, err: m[1]}
	}
	if m := findIf(t, "synchronization failed", reSyncFailed); m != nil {
		// "failed after kernel 'X': hipErrorY …": the error's name is its first word
		return launchFact{kind: lfSyncFailed, kernel: m[1], err: strings.TrimRight(strings.Fields(m[2] + " ")[0], ":,.")}
	}
	if m := findIf(t, "Async HIP error", reAsyncHIP); m != nil {
		return launchFact{kind: lfAsyncHIP, code: atoiDef(m[1], -1)}
	}
	for _, p := range resourcePhrases {
		if strings.Contains(t, p) {
			x := launchFact{kind: lfResources, resource: p, miopen: strings.Contains(t, "Failed to launch kernel")}
			if p == vgprOverHW {
				x.kernel = submatch(reVGPRLaunch, t)
			}
			return x
		}
	}
	if m := findIf(t, "Failed to launch", reRefusedValue); m != nil && !strings.Contains(t, "with block dimensions") {
		// XLA's kernel wording carries its geometry: launchbounds.go reads it
		return launchFact{kind: lfRefusedValue, err: m[1]}
	}
	if m := findIf(t, "aunch", reAPIRefusedValue); m != nil {
		return launchFact{kind: lfRefusedValue, err: m[2]}
	}
	return launchFact{}
}

// extractModulePath: "Loading HSACO /path/k.hsaco" — the code object a
// later load error is about ("" when the line names none).
func extractModulePath(t string) string {
	if !strings.Contains(t, ".hsaco") && !strings.Contains(t, ".co ") && !strings.HasSuffix(t, ".co") {
		return ""
	}
	return submatch(reModulePath, t)
}

// threadLimits: a device-properties line's maxThreadsPerBlock and
// maxThreadsDim ("maxThreadsDim=[1024, 0, 0]" as a HIP driver printed it,
// seed 002). The rule, not the extractor, calls a zero dimension a bug.
type threadLimits struct {
	maxThreads int64 // 0 when absent
	hasDim     bool
	dim        [3]int64
	dimText    [3]string // as printed
}

func extractThreadLimits(t string) threadLimits {
	var tl threadLimits
	tl.maxThreads = atoi64(submatch(reMaxThreads, t))
	if m := findIf(t, "maxThreadsDim", reMaxDim); m != nil {
		tl.hasDim = true
		tl.dim = [3]int64{atoi64(m[1]), atoi64(m[2]), atoi64(m[3])}
		tl.dimText = [3]string{m[1], m[2], m[3]}
	}
	return tl
}

// extractWGMax: rocminfo's "Workgroup Max Size: N" (0 when absent).
func extractWGMax(t string) int64 { return atoi64(submatch(reWGMax, t)) }

// extractLDSLimit: "sharedMemPerBlock=N" / "maxSharedMemoryPerBlock: N", or
// NVIDIA's opt-in per-block figure "sharedMemPerBlockOptin=N" /
// "cudaDevAttrMaxSharedMemoryPerBlockOptin = N" (triton-lang/triton#384)
// (0 when absent).
func extractLDSLimit(t string) int64 {
	if !strings.Contains(t, "haredMem") {
		return 0
	}
	m := reLDSLimit.FindStringSubmatch(t)
	if m == nil {
		return 0
	}
	if m[1] != "" {
		return atoi64(m[1])
	}
	return atoi64(m[2]) // the opt-in per-block limit (NVIDIA)
}
