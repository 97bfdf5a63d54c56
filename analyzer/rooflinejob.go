package analyzer

import (
	"slices"
	"strings"

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
	world := 0
	if a.Distributed != nil {
		world = a.Distributed.WorldSize
	}
	r := roofline.Analyze(a.Store, roofline.Options{
		Model: cfg, TargetArch: j.opts.TargetArch, TargetProduct: j.opts.TargetProduct, WorldSize: world,
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
		steps := 0
		if a.Steps != nil {
			for _, x := range a.Steps.Stages {
				if x.Stage == s.Stage {
					steps = x.Wall.Count + x.SteadyFrom
				}
			}
		}
		if t := r.TargetLine(s.Stage, steps); t != "" {
			// After the stage's step line, which leads.
			at := len(a.First)
			for i, f := range a.First {
				if strings.HasPrefix(f, s.Stage+": ") {
					at = i + 1
				}
			}
			a.First = slices.Insert(a.First, at, s.Stage+": "+t)
		}
		for _, t := range r.Takeaways(s.Stage) {
			a.Lead = append(a.Lead, s.Stage+": "+t)
		}
	}
	return r
}
