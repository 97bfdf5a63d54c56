package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// The collective test beds (nccl-tests, rccl-tests) check their own CUDA /
// HIP calls and print the failure with the test's source location, before
// any NCCL call runs:
//
//	g0010: Test CUDA failure common.cu:941 'invalid device ordinal'
//	Test HIP failure common.cu:1129 'hipErrorInvalidDevice'
//
// The error is read by the relay catalog (ncclcatalog.go); an invalid
// device is the test bed asking for more GPUs than the process sees (-g
// or ranks per node against the visible devices, a container without the
// GPU devices) → rccl_transport, the collective's init failing; an error
// that is a GPU failure of its own (out of memory …) is that class.
var reCollTestFailure = lazyre.New(`Test (CUDA|HIP) failure (\S+?:\d+) '([^']*)'`)

type collTestFailure struct {
	where string          // the test's source location
	err   ncclCudaFailure // the CUDA / HIP error as the relay catalog reads it
}

func extractCollTestFailure(t string) (collTestFailure, bool) {
	m := findIf(t, "Test ", reCollTestFailure)
	if m == nil {
		return collTestFailure{}, false
	}
	f, ok := extractNCCLCudaFailure(m[1] + " failure '" + m[3] + "'")
	if !ok {
		return collTestFailure{}, false
	}
	return collTestFailure{where: m[2], err: f}, true
}

// deviceVisibilityErrors: the runtime refused the device index itself.
var deviceVisibilityErrors = []string{"cudaErrorInvalidDevice", "hipErrorInvalidDevice"}

func (s *Session) applyCollTestFailure(l *line, x collTestFailure) {
	if c := ncclRelayClass(x.err); c != "" {
		a := s.b.add(s, c, l, 0.8)
		a.addReason(x.err.text + " (the collective test's own check, " + x.where + ")")
		a.detail("cuda_error", x.err.name)
		return
	}
	for _, n := range deviceVisibilityErrors {
		if strings.EqualFold(x.err.name, n) {
			a := s.b.add(s, ClassRCCLTransport, l, 0.6)
			a.addReason("the collective test could not open its device (" + x.err.name + " at " + x.where + "): more GPUs requested per process or node than are visible — -g / ranks per node, HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES, a container without the GPU devices")
			a.detail("test_failure", x.where)
			a.detail("relayed_error", x.err.text)
			return
		}
	}
}
