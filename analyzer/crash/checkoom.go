package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// An error-check macro's report of a runtime call that ran out of device
// memory: the classic gpuErrchk's "GPUassert: out of memory mean.cu 377"
// (cudaGetErrorString of cudaErrorMemoryAllocation / hipErrorOutOfMemory)
// and a wrapper that prints the call it checked before the runtime's text,
// "campHipErrchk(hipStreamCreate(&s)) out of memory …/hip.hpp:154".

// checkOOM is one such report: the runtime call when the line names it.
type checkOOM struct{ call string }

var (
	reGPUAssertOOM = lazyre.New(`(?i)\bGPU ?assert: ?out of memory\b`)
	// a runtime call, its closing parenthesis, then the error text
	reCallOOM = lazyre.New(`\b((?:hip|cuda)[A-Z]\w*)\s*\([^()]*\)\)?'?\s*(?:failed|returned(?: error)?)?\s*:?\s*'?out of memory\b`)
)

func extractCheckOOM(t string) (checkOOM, bool) {
	if !strings.Contains(t, "out of memory") {
		return checkOOM{}, false
	}
	if m := reCallOOM.FindStringSubmatch(t); m != nil {
		return checkOOM{call: m[1]}, true
	}
	if reGPUAssertOOM.MatchString(t) {
		return checkOOM{}, true
	}
	return checkOOM{}, false
}

// applyCheckOOM: a runtime call refused for want of device memory is
// vram_oom; the checked call is named when the line names it (stream and
// event creation fail this way too when the device's memory is full).
func (s *Session) applyCheckOOM(l *line, x checkOOM) {
	s.format("runtime_error_check")
	a := s.b.add(s, ClassVRAMOOM, l, 0.75)
	a.setHIP(lookupHIPName("hipErrorOutOfMemory"))
	if x.call != "" {
		a.detail("runtime_call", x.call)
		a.addReason(x.call + " failed: out of memory (an error-check macro's report)")
		return
	}
	a.addReason("a runtime call failed: out of memory (an error-check macro's report)")
}
