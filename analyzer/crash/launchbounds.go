package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Launch refusals whose HIP code reads like something else.
//
// CLR refuses a block larger than the kernel's compiled work-group bound
// (__launch_bounds__ / --gpu-max-threads-per-block) and returns
// hipErrorLaunchFailure (719), the code that otherwise means a kernel
// exception at run time; at AMD_LOG_LEVEL ≥ 1 it says why: "Launch params
// (1024, 1, 1) are larger than launch bounds (64) for kernel _Z8MyKerneliPd"
// (clr hip_module.cpp; some builds append "please add __launch_bounds__ …",
// pastes wrap "for kernel …" onto the next line).
//
// XLA wraps a refused launch as "Failed to launch ROCm kernel: <fusion> with
// block dimensions: 256x1x1: hipError_t(9)" (older: "Failed to launch CUDA
// kernel: … and grid dimensions: …: CUDA_ERROR_…"); the status names the
// HIP/CUDA error, the fusion the kernel.

var (
	reLaunchBounds = lazyre.New(`Launch params \((\d+), ?(\d+), ?(\d+)\) are larger than launch bounds \((\d+)\)(?:\s+for\s+kernel\s+([^\s!]+))?`)
	reXLALaunch    = lazyre.New(`Failed to launch (?:ROCm|ROCM|CUDA) kernel: (\S+) with block dimensions: (\d+)x(\d+)x(\d+)(?: and grid dimensions: (\d+)x(\d+)x(\d+))?: (?:hipError_t\((\d+)\)|((?:ROCM|CUDA)_ERROR_\w+|hipError\w+))`)
)

// launchBoundsFact: "Launch params (x, y, z) are larger than launch bounds (n)".
type launchBoundsFact struct {
	block  [3]int64
	bound  int64
	kernel string // "" when the paste wrapped it away
}

func extractLaunchBounds(t string) (launchBoundsFact, bool) {
	m := findIf(t, "larger than launch bounds", reLaunchBounds)
	if m == nil {
		return launchBoundsFact{}, false
	}
	return launchBoundsFact{block: [3]int64{atoi64(m[1]), atoi64(m[2]), atoi64(m[3])}, bound: atoi64(m[4]), kernel: m[5]}, true
}

// xlaLaunchFact: XLA's "Failed to launch … kernel" line.
type xlaLaunchFact struct {
	kernel string
	block  [3]int64
	err    *hipErr // nil when the status is unknown
	rocm   bool    // XLA's ROCm build (the vendor of the advice)
}

func extractXLALaunch(t string) (xlaLaunchFact, bool) {
	m := findIf(t, "Failed to launch", reXLALaunch)
	if m == nil {
		return xlaLaunchFact{}, false
	}
	x := xlaLaunchFact{kernel: m[1], block: [3]int64{atoi64(m[2]), atoi64(m[3]), atoi64(m[4])}, rocm: !strings.Contains(m[0], "CUDA kernel")}
	switch {
	case m[8] != "":
		x.err = lookupHIPCode(atoiDef(m[8], -1))
	case strings.HasPrefix(m[9], "hipError"):
		x.err = lookupHIPName(m[9])
	case m[9] != "":
		// XLA's ROCm build spells the driver codes ROCM_ERROR_*
		x.err = lookupHIPName("CUDA_ERROR_" + strings.TrimPrefix(strings.TrimPrefix(m[9], "ROCM_ERROR_"), "CUDA_ERROR_"))
	}
	return x, true
}

// launchBoundsExceeded: the runtime refused the block for this kernel.
func (s *Session) launchBoundsExceeded(l *line, f launchBoundsFact) {
	s.format("clr_launch_bounds") // a CLR message: the stack is ROCm
	a := s.b.add(s, ClassInvalidLaunch, l, 0.85)
	a.strong = true
	a.setHIP(lookupHIPName("hipErrorLaunchFailure"))
	threads := f.block[0] * f.block[1] * f.block[2]
	a.detail("block", dims(f.block))
	a.detail("launch_bound", strconv.FormatInt(f.bound, 10))
	a.addReason("block " + dims(f.block) + " = " + strconv.FormatInt(threads, 10) + " threads is larger than the kernel's launch bound " + strconv.FormatInt(f.bound, 10) + " (__launch_bounds__ / --gpu-max-threads-per-block): HIP refuses the launch with hipErrorLaunchFailure")
	a.setKernel(f.kernel, "HIP runtime launch-bounds check", 80)
}

// xlaLaunchRefused: XLA's launch failed with a launch-configuration error;
// any other status (a sticky fault of an earlier kernel surfacing at this
// launch) is left to the rules of that error.
func (s *Session) xlaLaunchRefused(l *line, x xlaLaunchFact) {
	if x.err == nil || x.err.class != ClassInvalidLaunch {
		return
	}
	if x.rocm {
		s.format("rocm_xla_launch_failure")
	} else {
		s.format("xla_launch_failure")
	}
	a := s.b.add(s, ClassInvalidLaunch, l, 0.8)
	a.strong = true
	a.setHIP(x.err)
	a.detail("block", dims(x.block))
	a.addReason("XLA could not launch " + x.kernel + " (block " + dims(x.block) + "): " + x.err.name)
	a.setKernel(x.kernel, "XLA launch failure", 75)
}

// launchBoundsExplainsTrap: with the launch-bounds refusal in hand, a
// device_assert that rests only on the generic hipErrorLaunchFailure the
// refusal returned is its echo, not a kernel exception.
func launchBoundsExplainsTrap(work map[string]*agg) {
	il, da := work[ClassInvalidLaunch], work[ClassDeviceAssert]
	if il == nil || da == nil || il.details["launch_bound"] == "" || !isWeakTrap(da) || da.f.HIPError != "hipErrorLaunchFailure" {
		return
	}
	il.note("the hipErrorLaunchFailure (unspecified launch failure) reported afterwards is this refused launch, not a kernel exception")
	mergeInto(il, da)
	delete(work, ClassDeviceAssert)
}
