package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// reNCCLHead: the start of an NCCL / RCCL debug record, "host:pid:tid [dev]
// [file:line] NCCL INFO|WARN …", after whitespace or at the start.
var reNCCLHead = lazyre.New(`(?:^|\s)\S+?:\d+:\d+ \[\d+\] (?:\S+ )?[NR]CCL (?:INFO|WARN|TRACE|ERROR) `)

// splitGluedRecords cuts a line that holds several NCCL debug records — a
// paste that lost its newlines and kept the terminal's padding between them
// (deepseek-ai/DeepEP#106: sixteen "… - Init COMPLETE" records and the
// NET/IB WARN on two lines) — into one string per record, so that each
// record is read as the line it was (the init records' pid → rank map, the
// WARN's host:pid). It returns nil for a line with one record at its start, or none.
func splitGluedRecords(raw string) []string {
	if !strings.Contains(raw, "CCL ") {
		return nil
	}
	// a record starts the line or follows the padding of the one before
	// (two blanks or more); after one blank it is a launcher's prefix
	// ("worker-0: host:pid:tid [4] NCCL INFO …") and stays with it
	var starts []int
	for _, x := range reNCCLHead.Regexp().FindAllStringIndex(raw, maxRanks) {
		st := x[0]
		for st < len(raw) && (raw[st] == ' ' || raw[st] == '\t') {
			st++
		}
		if st == 0 || st >= 2 && isBlank(raw[st-1]) && isBlank(raw[st-2]) {
			starts = append(starts, st)
		}
	}
	if len(starts) == 0 || len(starts) == 1 && starts[0] == 0 {
		return nil
	}
	parts := make([]string, 0, len(starts)+1)
	if head := strings.TrimSpace(raw[:starts[0]]); head != "" {
		parts = append(parts, head) // the tail of a record cut by the line before
	}
	for i, st := range starts {
		end := len(raw)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		parts = append(parts, strings.TrimSpace(raw[st:end]))
	}
	return parts
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }
