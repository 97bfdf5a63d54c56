package analyzer

import (
	"encoding/json"

	"github.com/gputriage/gputriage/analyzer/arch"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// rankPart is one trace file of a multi-rank job.
type rankPart struct {
	st    *trace.Store
	fi    int
	joins *callsite.Joins // nil: built when needed
}

// rankOf is a trace file's rank and world size from its distributedInfo,
// rank -1 when it has none.
func rankOf(f *trace.File) (rank, world int) {
	var d struct {
		Rank  *int `json:"rank"`
		World int  `json:"world_size"`
	}
	if json.Unmarshal(f.Header["distributedInfo"], &d) != nil || d.Rank == nil {
		return -1, 0
	}
	return *d.Rank, d.World
}

// rankSummaries extracts each part's collective summary when the parts are
// two or more distinct ranks of one job (distributedInfo); nil otherwise
// (one rank, or the per-stage files of one rank).
func rankSummaries(parts []rankPart) []*collectives.Summary {
	if len(parts) < 2 {
		return nil
	}
	seen := map[int]bool{}
	for _, p := range parts {
		r, _ := rankOf(&p.st.Files[p.fi])
		if r < 0 || seen[r] {
			return nil
		}
		seen[r] = true
	}
	var sums []*collectives.Summary
	for _, p := range parts {
		s := summarize(p)
		if len(s.Ops) == 0 {
			continue
		}
		sums = append(sums, s)
	}
	if len(sums) < 2 {
		return nil
	}
	return sums
}

// summarize is the map step for one rank's trace.
func summarize(p rankPart) *collectives.Summary {
	f := &p.st.Files[p.fi]
	r, world := rankOf(f)
	if p.joins == nil {
		p.joins = callsite.NewJoins(p.st)
	}
	s := collectives.Extract(p.st, p.fi, r, world, p.joins)
	if ds := arch.ParseDevices(f.Header["deviceProperties"]); len(ds) > 0 {
		s.Device = ds[0].Name
	}
	return s
}

// crossRank runs the reduce and puts its answer into the analysis: the
// summary's Ranks section and its lead verdict. It returns the artifacts.
func crossRank(a *report.Analysis, sums []*collectives.Summary) []Artifact {
	if len(sums) < 2 {
		return nil
	}
	res := collectives.Match(sums)
	if a != nil {
		a.CrossRanks = res.Markdown()
		a.CrossVerdict = res.Verdict()
	}
	return rankArtifacts(res)
}

func rankArtifacts(res *collectives.Result) []Artifact {
	return []Artifact{
		{"collectives.json", string(res.JSON(report.Tool, report.Version))},
		{"ranks.json", string(res.RanksJSON(report.Tool, report.Version))},
	}
}
