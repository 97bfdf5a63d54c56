package idle

import (
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// BenchmarkAnalyze reports the idle analysis' allocation per GPU op on the
// largest shared trace (xDiT FLUX, 7.9k ops, 201k Python frames), next to
// what the store keeps per op.
func BenchmarkAnalyze(b *testing.B) {
	st := fixture.Load(b, "traces/tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz")
	j := callsite.NewJoins(st)
	bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
	ids, names := bd.OpStage, bd.StageNames
	ops := 0
	for i := range st.GPU {
		if st.GPU[i].Kind.IsGPUWork() {
			ops++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Analyze(st, Options{Joins: j, StageOf: ids, StageNames: names})
	}
	b.StopTimer()
	b.ReportMetric(float64(st.BytesKept())/float64(ops), "store-B/op")
	_ = trace.KindKernel
}
