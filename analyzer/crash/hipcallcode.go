package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// An application's own HIP check prints the API it called and the
// hipError_t it got as a bare number:
//
//	Err: hipHostRegister failed with code: 2.            (ROCm/legacy-rocm-build#1483)
//	fatal: HIP call hipLaunchKernelGGL(k) failed with code 209 at k.cpp:88
//	error: hipMalloc(&work, 68719476736) returned 2 (out of memory)
//
// The number is read through the hipError_t catalog (codes.go): 2 is
// hipErrorOutOfMemory, 209 hipErrorNoBinaryForGpu, 700 an illegal address.
// Only a hip* API name before the wording counts (a CUDA program's
// cudaX … returned 2 means cudaErrorMemoryAllocation and is cudaerr.go's),
// a code whose row names no class (API misuse, bookkeeping) decides
// nothing, and the line must speak of a failure ("failed", "error",
// "Err:", "fatal") — "hipGetDeviceCount returned 2" is a count.
var reHIPCallCode = lazyre.New(`\b(hip[A-Z]\w*)\b.{0,160}?\b(?:failed with (?:error )?code|returned(?: error)?(?: code)?)[:=]?\s*(\d{1,4})\b`)

type hipCallCode struct {
	api string
	err *hipErr
}

func extractHIPCallCode(t string) (hipCallCode, bool) {
	if strings.Contains(t, "hipError") || strings.Contains(t, "hipSuccess") {
		return hipCallCode{}, false // the name says it; the error-text rule reads it
	}
	low := strings.ToLower(t)
	if !containsAny(low, "fail", "error", "err:", "fatal", "abort") {
		return hipCallCode{}, false
	}
	m := findIf(t, "hip", reHIPCallCode)
	if m == nil {
		return hipCallCode{}, false
	}
	code := atoiDef(m[2], 0)
	if code == 0 {
		return hipCallCode{}, false
	}
	e := lookupHIPCode(code)
	if e == nil || e.class == "" {
		return hipCallCode{}, false
	}
	return hipCallCode{api: m[1], err: e}, true
}

// applyHIPCallCode: the code's class, with the API that returned it.
func (s *Session) applyHIPCallCode(l *line, x hipCallCode) {
	a := s.b.add(s, x.err.class, l, 0.8)
	a.setHIP(x.err)
	a.detail("failing_api", x.api)
}
