package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// A kernel's dynamic shared memory (LDS) raised past the per-block limit
// through the function-attribute call every CUDA / HIP kernel needs above
// the default: cudaFuncSetAttribute / hipFuncSetAttribute / cuFuncSetAttribute
// with MaxDynamicSharedMemorySize. The runtime refuses a value over the
// device's limit with invalid-value ("If the specified attribute cannot be
// written, or if the value is incorrect, then cudaErrorInvalidValue is
// returned", CUDA runtime docs; ROCm/hip#3122: hipFuncSetAttribute "may
// return an error when the memory size exceeds maximum dynamic shared memory
// size"; GridTools/gridtools#1390: "results in a CUDA error … really too
// much shared memory requested"; Vahe1994/AQLM#25: "CUDA error: invalid
// argument" traced to this call on a 2080 Ti) — a launch-configuration
// error, not an application bug elsewhere.

var reSmemAttr = lazyre.New(`\b(?:hip|cuda|cu)FuncSetAttribute\s*\(\s*(.+?)\s*,\s*(?:(?:hip|cuda)FuncAttribute|CU_FUNC_ATTRIBUTE_)?(?:MaxDynamicSharedMemorySize|MAX_DYNAMIC_SHARED_SIZE_BYTES)\s*,\s*(\d+)\s*\)`)

// smemAttr is one attribute request read from a line.
type smemAttr struct {
	kernel  string // the function argument, casts and & removed
	bytes   int64
	refused bool // the line reports invalid-value after the call
	hip     bool // hipFuncSetAttribute (an AMD device: LDS limits apply)
}

// extractSmemAttr reads "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, N)"
// as an application log prints it, and whether the rest of the line
// carries the runtime's invalid-value answer.
func extractSmemAttr(t string) (smemAttr, bool) {
	if !strings.Contains(t, "FuncSetAttribute") {
		return smemAttr{}, false
	}
	m := reSmemAttr.FindStringSubmatchIndex(t)
	if m == nil {
		return smemAttr{}, false
	}
	a := smemAttr{kernel: attrKernel(t[m[2]:m[3]]), bytes: atoi64(t[m[4]:m[5]]), hip: strings.Contains(t[m[0]:m[3]], "hipFuncSetAttribute")}
	rest := strings.ToLower(t[m[1]:])
	a.refused = strings.Contains(rest, "invalid argument") || strings.Contains(rest, "invalidvalue") || strings.Contains(rest, "invalid_value") || strings.Contains(rest, "invalid value")
	return a, a.bytes > 0
}

// attrKernel: the kernel of a function argument as printed —
// "reinterpret_cast<const void*>(&vectorAdd)", "(void*)k", "&k", "k<256,176,3>".
func attrKernel(arg string) string {
	arg = strings.TrimSpace(arg)
	if strings.HasPrefix(arg, "reinterpret_cast<") || strings.HasPrefix(arg, "static_cast<") {
		if i := strings.Index(arg, ">("); i >= 0 {
			arg = strings.TrimSuffix(arg[i+2:], ")")
		}
	}
	for _, p := range []string{"(const void*)", "(const void *)", "(void*)", "(void *)", "&"} {
		arg = strings.TrimSpace(strings.TrimPrefix(arg, p))
	}
	return arg
}

// smemAttrRequest rules on a request: refused on its line, or above the
// LDS per workgroup of the AMD device the log shows, it is an invalid
// launch of that kernel. A request within the limits, or an NVIDIA request
// without the runtime's answer, decides nothing (the opt-in limit is the
// device's, which the log may not print).
func (s *Session) smemAttrRequest(l *line, r smemAttr) {
	limit := int64(0)
	if s.b.facts.ldsLog > 0 {
		limit = s.b.facts.ldsLog
	} else if r.hip {
		limit = s.ldsLimit()
	}
	over := limit > 0 && r.bytes > limit
	if !r.refused && !over {
		return
	}
	conf := 0.6
	if r.refused {
		conf = 0.75
	}
	a := s.b.add(s, ClassInvalidLaunch, l, conf)
	a.setKernel(r.kernel, "dynamic shared memory attribute request", 70)
	a.detail("dynamic_lds_bytes", strconv.FormatInt(r.bytes, 10))
	msg := "the kernel asks for " + strconv.FormatInt(r.bytes, 10) + " bytes of dynamic shared memory (LDS)"
	if limit > 0 {
		msg += "; the per-block limit is " + strconv.FormatInt(limit, 10)
	}
	if r.refused {
		msg += "; the runtime refused the attribute with invalid-value"
	}
	a.addReason(msg)
}
