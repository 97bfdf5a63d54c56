package launch

import (
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

// BenchmarkAnalyze reports the launch statistics' allocation on the largest
// shared trace (xDiT FLUX, 7.9k GPU ops); divide B/op by 7866 for B per op.
func BenchmarkAnalyze(b *testing.B) {
	st := fixture.Load(b, "traces/tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz")
	j := callsite.NewJoins(st)
	bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
	ids, names := bd.OpStage, bd.StageNames
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Analyze(st, Options{Joins: j, StageOf: ids, StageNames: names, Classes: bd.Classes})
	}
}
