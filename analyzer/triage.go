package analyzer

import (
	"slices"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/fuse"
	"github.com/gputriage/gputriage/analyzer/overlap"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/timeline"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// triage is seed 004's default answer: the breakdown of the formal (graph-on)
// trace plus its overlap and fuse opportunity tables, with kernels mapped to
// code through the mapping (graph-off or capture) trace when one is given.
func (j *Job) triage(stores []*trace.Store) []Artifact {
	formal, mapping := j.pair(stores)
	ov := overlap.Analyze(formal, mapping, overlap.Options{Stage: j.opts.Stage})
	stages := overlap.Stages(formal)
	fu := fuse.Analyze(formal, fuse.Options{
		StageOf: func(i int) string { return stages[i] },
		Stage:   j.opts.Stage,
		Locate:  ov.Locate,
	})
	a := j.analyzeTraces(formal, allFiles(formal))
	fillFromMapping(a.Breakdown, ov.KernelMap())
	if mapping != nil && mapping != formal {
		a.MappingTrace = mapping.Files[0].Name
		a.MappingFile = &mapping.Files[0]
	}
	summary := string(report.Summary(a))
	summary += "\n" + string(ov.Markdown()) + "\n" + string(fu.Markdown())
	return []Artifact{
		{"profile_summary.md", summary},
		{"profile_metadata.json", string(report.Metadata(a))},
		{"kernel_table.json", string(report.KernelTable(a))},
		{"overlap_opportunities.json", string(ov.JSON())},
		{"fuse_opportunities.json", string(fu.JSON())},
		{"breakdown.json", string(report.Breakdown(a))},
		{"gpu_timeline.json", string(report.Timeline(a))},
		{"gpu_lanes.json", string(report.Lanes(a))},
	}
}

// pair picks the formal and mapping traces: as named in the options, else
// the trace with the most graph-replayed GPU work is formal and an eager
// (or capture) trace, preferring one with Python stacks, is its mapping.
// With one trace, it maps itself.
func (j *Job) pair(stores []*trace.Store) (formal, mapping *trace.Store) {
	named := func(names []string) *trace.Store {
		for _, st := range stores {
			if slices.Contains(names, st.Files[0].Name) {
				return st
			}
		}
		return nil
	}
	formal, mapping = named(j.opts.Formal), named(j.opts.Mapping)
	type cand struct {
		st         *trace.Store
		graphShare float64
		python     bool
		capture    bool
		kernels    int64
	}
	var cs []cand
	for _, st := range stores {
		f := timeline.ComputeFacts(st, 0)
		c := cand{st: st, python: len(st.Python) > 0, kernels: f.Kernels, capture: overlap.HasCaptures(st)}
		if f.Kernels > 0 {
			c.graphShare = float64(f.GraphKernels) / float64(f.Kernels)
		}
		cs = append(cs, c)
	}
	if formal == nil {
		best := -1.0
		for _, c := range cs {
			// A capture trace (launches, almost no executed kernels) is a
			// mapping, never the formal timing.
			if c.st == mapping || len(cs) > 1 && (c.kernels < 50 || c.capture) {
				continue
			}
			if c.graphShare > best {
				formal, best = c.st, c.graphShare
			}
		}
		if formal == nil {
			formal = cs[0].st
		}
	}
	if mapping == nil {
		// Prefer a capture trace (it records what each replay runs), then
		// one with Python stacks.
		better := func(c cand, cur *trace.Store) bool {
			if cur == nil {
				return true
			}
			if cc := overlap.HasCaptures(cur); c.capture != cc {
				return c.capture
			}
			return c.python && len(cur.Python) == 0
		}
		for _, c := range cs {
			if c.st == formal || c.graphShare > 0.5 && !c.capture {
				continue
			}
			if better(c, mapping) {
				mapping = c.st
			}
		}
	}
	if mapping == nil {
		mapping = formal
	}
	return formal, mapping
}

func allFiles(st *trace.Store) []int {
	files := make([]int, len(st.Files))
	for i := range files {
		files[i] = i
	}
	return files
}

// fillFromMapping completes the kernel table of a graph-on trace with the
// code locations the overlap analysis carried over from the mapping trace:
// graph-replayed kernels have no CPU op or Python frame of their own.
func fillFromMapping(bd *breakdown.Result, kmap []overlap.MapRow) {
	byKernel := make(map[string]*overlap.MapRow, len(kmap))
	for i := range kmap {
		byKernel[kmap[i].Kernel] = &kmap[i]
	}
	for i := range bd.Rows {
		r := &bd.Rows[i]
		m := byKernel[r.Kernel]
		if m == nil || m.MappedBy == "direct" || m.MappedBy == "none" || m.MappedBy == "" {
			continue
		}
		if m.PythonScope != "" && (r.PythonLocation == "" || r.Graph) {
			r.PythonLocation, r.SiteShare = m.PythonScope, float64(m.SourceShare)
		}
		if m.LaunchOp != "" && r.Graph {
			r.CPUOp, r.CPUOpShare = m.LaunchOp, float64(m.SourceShare)
		}
		r.MappedBy = m.MappedBy
	}
}
