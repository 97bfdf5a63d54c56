package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// gloo (torch.distributed's CPU backend, also its store and barrier under
// NCCL jobs) reports a collective whose peer never came in its own words:
// tcp/unbound_buffer.cc's "Timed out waiting 1800000ms for recv operation to
// complete" (send, or recv/send in a summary). It is the gloo analogue of
// ProcessGroupNCCL's watchdog timeout.
var reGlooTimeout = lazyre.New(`Timed out waiting (\d+)ms for (send|recv|recv/send) operation to complete`)

// glooTimeout is one gloo send/recv that waited past its timeout.
type glooTimeout struct {
	timeoutMS, op string
}

func extractGlooTimeout(t string) (glooTimeout, bool) {
	m := findIf(t, "operation to complete", reGlooTimeout)
	if m == nil {
		return glooTimeout{}, false
	}
	return glooTimeout{timeoutMS: m[1], op: m[2]}, true
}

// applyGlooTimeout: a peer never sent or received its part of the
// collective within the process group's timeout — the same verdict as an
// NCCL watchdog timeout (a straggler, a hang or a dead peer), on gloo.
func (s *Session) applyGlooTimeout(l *line, g glooTimeout) {
	s.format("gloo")
	a := s.b.add(s, ClassCollectiveTimeout, l, 0.75)
	a.detail("backend", "gloo")
	a.detail("timeout_ms", g.timeoutMS)
	a.addReason("gloo timed out after " + g.timeoutMS + " ms waiting for a " + strings.ReplaceAll(g.op, "/", " / ") + ": a peer rank never reached the collective")
}
