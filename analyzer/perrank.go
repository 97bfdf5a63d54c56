package analyzer

import (
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/roofline"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// RankDir is where a rank folder's output keeps one rank's own artifacts.
func RankDir(rank int) string { return "ranks/" + strconv.Itoa(rank) }

// distinctRanks reports whether parts are two or more distinct ranks of
// one job (distributedInfo), not the per-stage files of one rank.
func distinctRanks(parts []rankPart) bool {
	if len(parts) < 2 {
		return false
	}
	seen := map[int]bool{}
	for _, p := range parts {
		r, _ := rankOf(&p.st.Files[p.fi])
		if r < 0 || seen[r] {
			return false
		}
		seen[r] = true
	}
	return true
}

// perRank analyses every rank of a rank folder on its own, as if its trace
// had been given alone: its artifacts under ranks/<rank>/, its line for
// the summary and its collectives (rankSummaries' answer, in the parts'
// order, from the rank's own store and joins: a folder's union needs no
// joins for them). As many ranks at a time as there are cores, so that
// few copies of a rank's records are held beyond the store.
//
// Only the first limits.RankDirs ranks (by rank) get a folder: the rest
// are summarised, their line and rows kept (2,000 ranks wrote 2,000
// artifact sets, 175 MB). With collect false (triage, which matched the
// ranks already) no summary is extracted.
func (j *Job) perRank(parts []rankPart, collect bool) *rankResults {
	if !distinctRanks(parts) {
		return nil
	}
	order := make([]int, len(parts)) // by rank
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		rx, _ := rankOf(&parts[x].st.Files[parts[x].fi])
		ry, _ := rankOf(&parts[y].st.Files[parts[y].fi])
		return rx - ry
	})
	type out struct {
		arts []Artifact
		line report.RankLine
		a    *report.Analysis // the reference rank's whole; others keep only their rows
		rl   *roofline.Result
		seen map[string]bool
	}
	outs := make([]out, len(parts))
	sums := make([]*collectives.Summary, len(parts))
	one := func(i int, jj *Job) {
		p := parts[order[i]]
		r, _ := rankOf(&p.st.Files[p.fi])
		st, joins := rankView(p)
		a := jj.analyzeTraces(st, []int{p.fi}, joins)
		if i >= limits.RankDirs {
			// summarised: its line and rows, no folder (nor roofline)
			outs[i] = out{line: report.LineOf(a, r, ""), seen: jj.stagesSeen,
				a: &report.Analysis{Facts: a.Facts, Timelines: a.Timelines, Ranks: a.Ranks}}
			if collect {
				sums[order[i]] = summarize(rankPart{st, p.fi, joins}, opsShare(len(parts)))
			}
			return
		}
		rl := jj.roofline(a, joins, st)
		dir := RankDir(r) + "/"
		arts := []Artifact{
			{dir + "profile_summary.md", string(report.Summary(a))},
			{dir + "roofline.json", string(rl.JSON(a.Partial()))},
			{dir + "kernel_table.json", string(report.KernelTable(a))},
			{dir + "breakdown.json", string(report.Breakdown(a))},
			{dir + "gpu_timeline.json", string(report.Timeline(a))},
			{dir + "gpu_lanes.json", string(report.Lanes(a))},
		}
		for _, w := range whyArtifacts(a) {
			arts = append(arts, Artifact{dir + w.Name, w.Text})
		}
		outs[i] = out{arts: arts, line: report.LineOf(a, r, RankDir(r)), seen: jj.stagesSeen}
		if i == 0 {
			outs[i].a, outs[i].rl = a, rl
		} else {
			// only the per-file rows outlive the rank's analysis
			outs[i].a = &report.Analysis{Facts: a.Facts, Timelines: a.Timelines, Ranks: a.Ranks}
		}
		if collect {
			sums[order[i]] = summarize(rankPart{st, p.fi, joins}, opsShare(len(parts)))
		}
	}
	// The ranks of one folder store (breakdown) are analysed side by side,
	// each on its own copy of its records, as many at a time as there are
	// cores (one under wasm): their stages are already the folder's, so
	// each works on a copy of the job that keeps its stage names apart.
	if n := runtime.GOMAXPROCS(0); n > 1 && len(parts[0].st.Files) > 1 {
		sem := make(chan struct{}, n)
		var wg sync.WaitGroup
		for i := range parts {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				jj := *j
				jj.stagesSeen = nil
				one(i, &jj)
			}()
		}
		wg.Wait()
	} else {
		for i := range parts {
			one(i, j)
		}
	}
	res := &rankResults{ref: outs[0].a}
	if collect {
		res.sums = withCollectives(sums)
		if res.sums != nil && len(res.sums) < len(parts) {
			// ranks without collectives: Match's share is larger
			for i, p := range parts {
				st, joins := rankView(p)
				sums[i] = summarize(rankPart{st, p.fi, joins}, -1)
			}
			res.sums = withCollectives(sums)
		}
	}
	if rl := outs[0].rl; rl != nil {
		x := *rl
		rank, _ := rankOf(&parts[order[0]].st.Files[parts[order[0]].fi])
		x.FiguresRank = &rank
		res.roofline = &x
	}
	for _, o := range outs {
		res.arts = append(res.arts, o.arts...)
		res.lines = append(res.lines, o.line)
		for s := range o.seen {
			if j.stagesSeen == nil {
				j.stagesSeen = map[string]bool{}
			}
			j.stagesSeen[s] = true
		}
	}
	for _, o := range outs {
		res.rows = append(res.rows, o.a)
	}
	return res
}

// rankView is a part's own records (a view when its store holds other
// files) and their joins.
func rankView(p rankPart) (*trace.Store, *callsite.Joins) {
	st, joins := p.st, p.joins
	if len(st.Files) > 1 {
		st, joins = st.Sub(p.fi), nil // a view of the rank's records
	}
	if joins == nil {
		joins = callsite.NewJoins(st)
	}
	return st, joins
}

// rankResults are a rank folder's per-rank analyses.
type rankResults struct {
	arts  []Artifact // ranks/<rank>/…
	lines []report.RankLine
	sums  []*collectives.Summary
	// ref is the lowest rank's analysis, whole: the folder's top-level
	// figures. rows hold every rank's per-file rows (facts, timeline,
	// rank), by rank: the first is ref's, as gpu_timeline.json's top
	// level is its first file's.
	ref      *report.Analysis
	roofline *roofline.Result
	rows     []*report.Analysis
}

// topLevel is a rank folder's top-level analysis, derived from the ranks'
// own instead of analysing the union of their records again: the figures
// of one rank (the lowest; a sum over ranks would count every step, launch
// and kernel once per rank), stated as such, with every rank's per-file
// rows beside them. st and files are the folder's store and trace files.
func (r *rankResults) topLevel(st *trace.Store, files []int) *report.Analysis {
	a := *r.ref
	a.Store, a.TraceFiles = st, files
	a.Facts, a.Timelines, a.Ranks = nil, nil, nil
	for _, x := range r.rows {
		a.Facts = append(a.Facts, x.Facts...)
		a.Timelines = append(a.Timelines, x.Timelines...)
		a.Ranks = append(a.Ranks, x.Ranks...)
	}
	rank, _ := rankOf(&r.ref.Store.Files[r.ref.TraceFiles[0]])
	a.FiguresRank = &rank
	// copies: the rank's own results stay as they were written
	if a.Steps != nil {
		s := *a.Steps
		s.FiguresRank = &rank
		a.Steps = &s
	}
	if a.Idle != nil {
		x := *a.Idle
		x.FiguresRank = &rank
		a.Idle = &x
	}
	if a.Launch != nil {
		x := *a.Launch
		x.FiguresRank = &rank
		a.Launch = &x
	}
	a.PerRank = r.lines
	return &a
}
