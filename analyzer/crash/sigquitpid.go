package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// The ROCr debug agent prints every wave of a process sent SIGQUIT — "by
// sending a SIGQUIT signal to the process using kill -s SIGQUIT <pid>
// command or by pressing Ctrl-\" (ROCdebug-agent user guide; seeds 001/003).
// A pasted session keeps that command: its pid is the process the
// (running) waves belong to, the hung one.

var reSigquitKill = lazyre.New(`\bkill\s+(?:-s\s+(?:SIG)?QUIT|-(?:SIG)?QUIT|-3)\s+(\d+)\b`)

// extractSigquitTarget: the pid of a "kill -s SIGQUIT N" (also "kill -QUIT
// N", "kill -SIGQUIT N", "kill -3 N") command line.
func extractSigquitTarget(t string) int {
	if !strings.Contains(t, "kill") || !(strings.Contains(t, "QUIT") || strings.Contains(t, "-3")) {
		return 0
	}
	return atoiDef(submatch(reSigquitKill, t), 0)
}
