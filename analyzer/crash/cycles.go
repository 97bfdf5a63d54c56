package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Blender's Cycles (and hosts embedding it: GafferCycles, CCSycles) reports
// a CUDA driver error by CUEW's short name for it, before the call it
// failed in:
//
//	CUDA error: Illegal address in cuMemcpyDtoH( (char *)mem.host_pointer + offset, …), line 970
//	CUDA error at cuCtxCreate: Illegal address
//	Illegal address in CUDA queue copy_from_device (integrator_shade_surface integrator_sorted_paths_array prefix_sum)
//	Out of memory in cuStreamCreate(&cuda_stream_, CU_STREAM_NON_BLOCKING) (C:\…\intern\cycles\device\cuda\queue.cpp:21)
//	CUDA error: ILLEGAL_ADDRESS in cuCtxSynchronize()                       2015's CUEW
//
// The short name is the driver's CUresult; the catalog (cudaerr.go) decides
// the class.

var reCyclesCUDA = lazyre.New(`(?:^|CUDA error: |CUDA error at cu\w+: )(Illegal address|Out of memory|Launch failed|Launch exceeded timeout|Launch out of resources|Misaligned address|Illegal instruction|ILLEGAL_ADDRESS|OUT_OF_MEMORY|LAUNCH_FAILED|LAUNCH_TIMEOUT|LAUNCH_OUT_OF_RESOURCES|MISALIGNED_ADDRESS|ILLEGAL_INSTRUCTION)(?: in (CUDA queue \w+|cu\w+)\b|\s*$)`)

// cyclesDriver maps CUEW's name to the driver's CUresult name.
var cyclesDriver = map[string]string{
	"Illegal address": "CUDA_ERROR_ILLEGAL_ADDRESS", "Out of memory": "CUDA_ERROR_OUT_OF_MEMORY",
	"Launch failed": "CUDA_ERROR_LAUNCH_FAILED", "Launch exceeded timeout": "CUDA_ERROR_LAUNCH_TIMEOUT",
	"Launch out of resources": "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "Misaligned address": "CUDA_ERROR_MISALIGNED_ADDRESS",
	"Illegal instruction": "CUDA_ERROR_ILLEGAL_INSTRUCTION",
}

// cyclesCUDA is one Cycles report: the driver error and the call or queue
// step it failed in.
type cyclesCUDA struct {
	err  cudaErrFact
	call string
}

func extractCyclesCUDA(t string) (cyclesCUDA, bool) {
	t = strings.TrimSpace(t)
	if !containsAny(t, "Illegal", "ILLEGAL_", "Out of memory", "OUT_OF_MEMORY", "Launch", "LAUNCH_", "isaligned", "MISALIGNED_") {
		return cyclesCUDA{}, false
	}
	m := reCyclesCUDA.FindStringSubmatch(t)
	if m == nil {
		return cyclesCUDA{}, false
	}
	name := cyclesDriver[m[1]]
	if name == "" {
		name = "CUDA_ERROR_" + m[1]
	}
	e := lookupCUDAName(name)
	if e == nil {
		return cyclesCUDA{}, false
	}
	if m[2] == "" && !strings.HasPrefix(t, "CUDA error at ") {
		return cyclesCUDA{}, false // a bare "Out of memory" line is anyone's
	}
	return cyclesCUDA{err: cudaErrFact{e: e, name: m[1], via: "name"}, call: m[2]}, true
}

// applyCyclesCUDA: the catalog's rule, with the call that failed.
func (s *Session) applyCyclesCUDA(l *line, x cyclesCUDA) {
	s.applyCUDAError(l, x.err) // cudaerr.go
	if a := s.b.get(x.err.e.class); a != nil && x.call != "" {
		a.detail("failing_api", x.call)
	}
}
