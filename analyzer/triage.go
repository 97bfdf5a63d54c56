package analyzer

import (
	"path"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/fuse"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/overlap"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// triage is seed 004's default answer: the breakdown of the formal (graph-on)
// trace plus its overlap and fuse opportunity tables, with kernels mapped to
// code through the mapping (graph-off or capture) trace when one is given.
func (j *Job) triage(stores []*trace.Store) ([]Artifact, error) {
	formal, mapping := j.pair(stores)
	if err := j.sameDevice(formal, mapping); err != nil {
		return nil, err
	}
	j.noteOtherRanks(stores, formal, mapping)
	// One set of join indexes for the formal trace, shared by every analysis.
	joins := callsite.NewJoins(formal)
	// Ranks of one job: collectives matched across them first, so that
	// the overlap tables leave out the formal rank's collective wait.
	var parts []rankPart
	for _, st := range stores {
		p := rankPart{st: st}
		if st == formal {
			p.joins = joins
		}
		parts = append(parts, p)
	}
	sums := rankSummaries(parts)
	var wait map[int32]int64
	var cross *collectives.Result
	if len(sums) >= 2 {
		cross = j.match(sums)
		r, _ := rankOf(&formal.Files[0])
		wait = cross.Wait(r)
	}
	ov := overlap.Analyze(formal, mapping, overlap.Options{Stage: j.opts.Stage, Joins: joins, Wait: wait})
	stages := overlap.Stages(joins)
	fu := fuse.Analyze(formal, fuse.Options{
		StageOf: func(i int) string { return stages[i] },
		Stage:   j.opts.Stage,
		Locate:  ov.Locate,
	})
	a := j.analyzeTraces(formal, allFiles(formal), joins)
	fillFromMapping(a.Breakdown, ov.KernelMap())
	if mapping != nil && mapping != formal {
		a.MappingTrace = mapping.Files[0].Name
		a.MappingFile = &mapping.Files[0]
	}
	rl := j.roofline(a, joins, mapping)
	var rankArts []Artifact
	if cross != nil {
		rankArts = crossArtifacts(a, cross)
		if j.opts.MergeRanks {
			rankArts = append(rankArts, j.mergedTrace(parts, sums, cross))
		}
	}
	if rr := j.perRank(parts, false); rr != nil {
		a.PerRank = rr.lines
		rankArts = append(rankArts, rr.arts...)
	}
	j.drawn = a
	summary := string(report.Summary(a))
	summary += "\n" + string(ov.Markdown()) + "\n" + string(fu.Markdown())
	return append([]Artifact{
		{"profile_summary.md", summary},
		{"profile_metadata.json", string(report.Metadata(a))},
		{"kernel_table.json", string(report.KernelTable(a))},
		{"overlap_opportunities.json", string(ov.JSON())},
		{"fuse_opportunities.json", string(fu.JSON())},
		{"roofline.json", string(rl.JSON(a.Partial()))},
		{"breakdown.json", string(report.Breakdown(a))},
		{"gpu_timeline.json", string(report.Timeline(a))},
		{"gpu_lanes.json", string(report.Lanes(a))},
	}, append(whyArtifacts(a), rankArts...)...), nil
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
		kernels, graph := graphKernels(st)
		c := cand{st: st, python: len(st.Python) > 0, kernels: kernels, capture: overlap.HasCaptures(st)}
		if kernels > 0 {
			c.graphShare = float64(graph) / float64(kernels)
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
		// one with Python stacks. Another rank of the formal trace's run is
		// not a mapping trace: it is the same run.
		var cur *cand
		for i := range cs {
			c := &cs[i]
			if c.st == formal || c.graphShare > 0.5 && !c.capture || !c.capture && sameRun(formal, c.st) {
				continue
			}
			if cur == nil || c.capture != cur.capture && c.capture || c.capture == cur.capture && c.python && !cur.python {
				cur = c
			}
		}
		if cur != nil {
			mapping = cur.st
		}
	}
	if mapping == nil {
		mapping = formal
	}
	return formal, mapping
}

// sameRun reports two traces that are ranks (or stage files) of one SGLang
// profile: <id>-TP-<rank>… with the same id.
func sameRun(a, b *trace.Store) bool {
	ma := sglangProfile.FindStringSubmatch(path.Base(strings.ReplaceAll(a.Files[0].Name, "\\", "/")))
	mb := sglangProfile.FindStringSubmatch(path.Base(strings.ReplaceAll(b.Files[0].Name, "\\", "/")))
	return ma != nil && mb != nil && ma[1] == mb[1]
}

// noteOtherRanks says, on each trace left out of a triage because it is
// another rank of the formal trace's run, why it was not used.
func (j *Job) noteOtherRanks(stores []*trace.Store, formal, mapping *trace.Store) {
	var parts []rankPart
	for _, st := range stores {
		parts = append(parts, rankPart{st: st})
	}
	ranks := distinctRanks(parts)
	for _, st := range stores {
		if st == formal || st == mapping || !sameRun(formal, st) {
			continue
		}
		msg := "another rank (or stage) of " + formal.Files[0].Name + "'s run: triage analyses that one; breakdown compares the ranks"
		if r, _ := rankOf(&st.Files[0]); ranks {
			msg = "another rank of " + formal.Files[0].Name + "'s run: analysed on its own in " + RankDir(r) + "/ and across ranks in collectives.json; the overlap and fuse tables are " + formal.Files[0].Name + "'s"
		}
		for i := range j.files {
			if j.files[i].Name == st.Files[0].Name && j.files[i].Problem == "" {
				j.files[i].Problem = msg
			}
		}
	}
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
		// A kernel name two libraries ship: the mapping trace's launch
		// context (its ops and frames, innermost first) may say whose.
		if r.Provider == kernels.ProviderAITERorVLLM {
			ctx := func(yield func(string) bool) {
				for _, chain := range [][2]string{{m.OpChain, " › "}, {m.CallChain, " -> "}} {
					parts := strings.Split(chain[0], chain[1]) // outer → inner
					for k := len(parts) - 1; k >= 0; k-- {
						if !yield(parts[k]) {
							return
						}
					}
				}
			}
			if p := kernels.ByContext(r.Provider, ctx); p != "" {
				bd.SetProvider(i, p)
			}
		}
	}
	bd.ResolveShared()
}

// graphKernels counts the kernels of a store and those replayed by a
// HIP/CUDA graph launch (sharing its correlation id).
func graphKernels(st *trace.Store) (kernels, graph int64) {
	launches := map[int64]bool{}
	for i := range st.CPU {
		c := &st.CPU[i]
		if (c.Kind == trace.KindRuntime || c.Kind == trace.KindDriver) && c.Corr != trace.None {
			if n := st.Name(c.Name); strings.HasPrefix(n, "hipGraphLaunch") || strings.HasPrefix(n, "cudaGraphLaunch") {
				launches[c.Corr] = true
			}
		}
	}
	for i := range st.GPU {
		if o := &st.GPU[i]; o.Kind == trace.KindKernel {
			kernels++
			if launches[o.Corr] {
				graph++
			}
		}
	}
	return kernels, graph
}
