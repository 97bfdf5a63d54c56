package crash

import "strings"

// c10d's dumpDebuggingInfo logs "ProcessGroupNCCL preparing to dump debug
// info." (later "… Include stack trace: 1, only active collectives: 0";
// ProcessGroupXCCL / GLOO print the same with their backend) when the
// watchdog or its heartbeat monitor saw a collective time out or fail and
// TORCH_NCCL_DUMP_ON_TIMEOUT asks for the flight recorder. It says a
// collective failed or timed out, not which: a timeout unless the file shows
// the NCCL error that failed it (ncclParser.endFile decides, as for "Some
// NCCL operations have failed or timed out"). The rank in its tag is the
// rank whose watchdog fired — a waiter, never the culprit. The flight
// recorder's own "Dumping Flight Recorder trace to …" is none: a dump asked
// for by hand (torch's _dump_nccl_trace, a debug server) writes it too.
func extractFRDumpStart(t string) bool {
	i := strings.Index(t, " preparing to dump debug info")
	if i < 0 || !strings.Contains(t[:i], "ProcessGroup") {
		return false
	}
	// without c10d's rank tag the sentence is quoted source or prose
	return submatch(reRankTag, t) != ""
}
