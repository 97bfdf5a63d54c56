package analyzer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/arch"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/limits"
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
	// Each rank's share of limits.CollectiveOps is all Match keeps of it;
	// the share is the job's ranks with collectives, so a rank without any
	// takes the cut back (extracted again in full, for Match to cut).
	keep := opsShare(len(parts))
	var sums []*collectives.Summary
	for _, p := range parts {
		sums = append(sums, summarize(p, keep))
	}
	if with := withCollectives(sums); with == nil || len(with) == len(parts) {
		return with
	}
	sums = sums[:0]
	for _, p := range parts {
		sums = append(sums, summarize(p, -1))
	}
	return withCollectives(sums)
}

// opsShare is a rank's share of limits.CollectiveOps in a job of n ranks,
// as Match's bound keeps it.
func opsShare(n int) int { return max(1, limits.CollectiveOps/max(1, n)) }

// withCollectives keeps the summaries with collectives: nil unless two
// ranks have some.
func withCollectives(all []*collectives.Summary) []*collectives.Summary {
	var sums []*collectives.Summary
	for _, s := range all {
		if len(s.Ops) > 0 {
			sums = append(sums, s)
		}
	}
	if len(sums) < 2 {
		return nil
	}
	return sums
}

// summarize is the map step for one rank's trace, keeping its first keep
// collectives (all when keep < 0: collectives.ExtractFirst).
func summarize(p rankPart, keep int) *collectives.Summary {
	f := &p.st.Files[p.fi]
	r, world := rankOf(f)
	if p.joins == nil {
		p.joins = callsite.NewJoins(p.st)
	}
	s := collectives.ExtractFirst(p.st, p.fi, r, world, p.joins, keep)
	if ds := arch.ParseDevices(f.Header["deviceProperties"]); len(ds) > 0 {
		s.Device = ds[0].Name
	}
	// a clock base outside the reader's time range is no clock base: ranks
	// shifted by it could leave int64
	if b, err := strconv.ParseInt(strings.Trim(string(f.Header["baseTimeNanoseconds"]), `" `), 10, 64); err == nil && b >= 0 && b <= limits.MaxArtifactNS {
		s.ClockBase = b
	}
	return s
}

// match is collectives.Match, remembering a partial answer (a rank cut
// short, or collectives past limits.CollectiveOps left out): the job then
// exits partial, never silently.
func (j *Job) match(sums []*collectives.Summary) *collectives.Result {
	res := collectives.Match(sums)
	j.crossPartial = j.crossPartial || res.Partial
	return res
}

// crossArtifacts puts a reduce's answer into the analysis and returns its
// artifacts.
func crossArtifacts(a *report.Analysis, res *collectives.Result) []Artifact {
	if a != nil {
		a.CrossRanks = res.Markdown()
		a.CrossVerdict = res.Verdict()
	}
	return rankArtifacts(res)
}

func rankArtifacts(res *collectives.Result) []Artifact {
	return []Artifact{
		{"collectives.json", res.JSON(report.Tool, report.Version)},
		{"ranks.json", res.RanksJSON(report.Tool, report.Version)},
	}
}

// extractSummary is gputriage extract's map output, rank_summary.json: the
// one rank's collectives, steps and totals, and its file's digest.
func (j *Job) extractSummary(parts []rankPart) (Artifact, error) {
	if len(parts) != 1 {
		return Artifact{}, fmt.Errorf("extract reads one rank's trace at a time (got %d traces): run it once per rank file", len(parts))
	}
	p := parts[0]
	f := &p.st.Files[p.fi]
	if r, _ := rankOf(f); r < 0 {
		return Artifact{}, fmt.Errorf("%s: no distributedInfo rank in the trace: extract needs one rank of a distributed job", f.Name)
	}
	s := summarize(p, -1)
	left := collectives.CapOps(s)
	for i := range j.files {
		if j.files[i].Name != f.Name || j.files[i].Kind != "trace" {
			continue
		}
		if i < len(j.digests) {
			s.Digest = j.digests[i]
		}
		if left > 0 {
			// never silently: the trace's row says what its summary left out
			fr := &j.files[i]
			fr.Partial = true
			fr.Problem = strings.TrimPrefix(fr.Problem+"; "+fmt.Sprintf("rank_summary.json keeps the rank's first %d collectives (limits.CollectiveOps): %d left out", limits.CollectiveOps, left), "; ")
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return Artifact{}, err
	}
	return Artifact{"rank_summary.json", string(b) + "\n"}, nil
}

// reduceRanks is gputriage ranks: the cross-rank artifacts from the rank
// summaries alone, the same bytes as a breakdown over the traces.
func (j *Job) reduceRanks() ([]Artifact, error) {
	for _, f := range j.files {
		if f.Kind == "trace" {
			return nil, fmt.Errorf("%s is a trace: ranks reads rank summaries; run gputriage extract on each rank's trace first", f.Name)
		}
	}
	if len(j.sums) < 2 {
		return nil, fmt.Errorf("ranks needs the rank summaries (rank_summary.json from gputriage extract) of two or more ranks; got %d", len(j.sums))
	}
	seen := map[int]string{}
	for _, s := range j.sums {
		if f, ok := seen[s.Rank]; ok {
			return nil, fmt.Errorf("rank %d twice (%s and %s)", s.Rank, f, s.File)
		}
		seen[s.Rank] = s.File
	}
	res := j.match(j.sums)
	return append(rankArtifacts(res), Artifact{"ranks_summary.md", "# gputriage ranks\n\n" + res.Markdown()}), nil
}
