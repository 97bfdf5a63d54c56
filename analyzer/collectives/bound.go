package collectives

import (
	"fmt"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// bound keeps at most limits.CollectiveOps collectives over the job: each
// rank its first ⌊CollectiveOps / ranks⌋ in issue order (ranks issue the same
// sequence, so the kept ops are the same instances on every rank). Matching
// costs about 2.7 KB and 90 µs per op natively (two ranks of 100 k
// all-reduces: 540 MB and 18 s beyond reading the traces), so the bound
// keeps the cross-rank view within the job's memory bound. The summaries
// are copied, never trimmed in place; the note says what was left out.
func bound(sums []*Summary) ([]*Summary, string) {
	keep := max(1, limits.CollectiveOps/max(1, len(sums)))
	left, cut := 0, 0
	out := sums
	for i, s := range sums {
		over := max(0, len(s.Ops)-keep) + s.left // s.left: never extracted
		if over == 0 {
			continue
		}
		if cut == 0 {
			out = append([]*Summary(nil), sums...)
		}
		c := *s
		n := min(keep, len(s.Ops))
		c.Ops = s.Ops[:n:n]
		c.Partial = true // the result and the rank's row say partial
		out[i] = &c
		left += over
		cut++
	}
	if cut == 0 {
		return sums, ""
	}
	return out, fmt.Sprintf("only the first %d collectives of each rank are matched (limits.CollectiveOps, %d over the job's %d ranks): %d collectives of %d ranks left out", keep, limits.CollectiveOps, len(sums), left, cut)
}

// CapOps keeps a rank's first limits.CollectiveOps collectives in issue
// order (extract's rank_summary.json: a reduce matches no more than that
// over the whole job, so more would only be read to be left out) and says
// how many it left out; a cut summary is partial.
func CapOps(s *Summary) (left int) {
	if len(s.Ops) <= limits.CollectiveOps {
		return 0
	}
	left = len(s.Ops) - limits.CollectiveOps
	s.Ops = s.Ops[:limits.CollectiveOps:limits.CollectiveOps]
	s.Partial = true
	return left
}
