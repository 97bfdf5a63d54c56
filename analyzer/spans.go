package analyzer

import "github.com/gputriage/gputriage/analyzer/report"

// Spans is the per-kernel interval encoding (report.Spans) of the traces the
// last Finish drew gpu_lanes.json from, nil when it drew none. The page's
// timeline asks for it once the report is out.
func (j *Job) Spans() []byte {
	if j.drawn == nil {
		return nil
	}
	return report.Spans(j.drawn)
}
