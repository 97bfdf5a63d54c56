package analyzer

import (
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/report"
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
func (j *Job) perRank(parts []rankPart) ([]Artifact, []report.RankLine, []*collectives.Summary) {
	if !distinctRanks(parts) {
		return nil, nil, nil
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
	}
	outs := make([]out, len(parts))
	sums := make([]*collectives.Summary, len(parts))
	one := func(i int, jj *Job) {
		p := parts[order[i]]
		r, _ := rankOf(&p.st.Files[p.fi])
		st, joins := p.st, p.joins
		if len(st.Files) > 1 {
			st, joins = st.Sub(p.fi), nil
		}
		if joins == nil {
			joins = callsite.NewJoins(st)
		}
		a := jj.analyzeTraces(st, allFiles(st), joins)
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
		outs[i] = out{arts, report.LineOf(a, r, RankDir(r))}
		sums[order[i]] = summarize(rankPart{st, 0, joins})
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
	var arts []Artifact
	var lines []report.RankLine
	for _, o := range outs {
		arts = append(arts, o.arts...)
		lines = append(lines, o.line)
	}
	return arts, lines, withCollectives(sums)
}
