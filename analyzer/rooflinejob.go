package analyzer

import (
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/roofline"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// roofline runs the roofline analysis over an analysed store and hands the
// summary its section and its lead takeaway per stage.
// Graph-replayed kernels take their ops and shapes from mapping (the
// analysed store itself when it has no partner: its captured launches).
func (j *Job) roofline(a *report.Analysis, joins *callsite.Joins, mapping *trace.Store) *roofline.Result {
	var cfg *roofline.ModelConfig
	if len(j.opts.ModelConfig) > 0 {
		// The host checked it; a config that does not parse adds nothing.
		cfg, _ = roofline.ParseModelConfig(j.opts.ModelConfig)
	}
	r := roofline.Analyze(a.Store, roofline.Options{
		Model: cfg,
		Stage: j.opts.Stage, Joins: joins,
		OpStage: a.Breakdown.OpStage, StageNames: a.Breakdown.StageNames,
		DeviceName: a.Arch.DeviceName, Arch: a.Arch.ObservedArch,
		PeakTFLOPS: j.opts.PeakTFLOPS, PeakGBPS: j.opts.PeakGBPS,
		Mapping: mapping,
	})
	if len(r.Rows) > 0 {
		a.Sections = append(a.Sections, r.Markdown())
	}
	for _, s := range r.Stages {
		for _, t := range r.Takeaways(s.Stage) {
			a.Lead = append(a.Lead, s.Stage+": "+t)
		}
	}
	return r
}
