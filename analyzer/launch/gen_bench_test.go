package launch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// BenchmarkGenerated measures the idle and launch analyses' allocation per
// kernel on a generated eager trace shaped like the page test's 1 GB one
// (cpu_op → runtime → kernel triples, two streams), next to the store's.
func BenchmarkGenerated(b *testing.B) {
	const n = 100_000
	var sb strings.Builder
	sb.WriteString(`{"traceEvents": [`)
	ts := 1_000_000.0
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		stream := 7 + 2*(i%5/4)
		fmt.Fprintf(&sb, `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%.3f,"dur":12.5,"args":{"External id":%d}},`, ts, 100000+i)
		fmt.Fprintf(&sb, `{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":%.3f,"dur":6.25,"args":{"External id":%d,"correlation":%d}},`, ts+2, 100000+i, 5000+i)
		fmt.Fprintf(&sb, `{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":%d,"ts":%.3f,"dur":%.3f,"args":{"External id":%d,"device":0,"stream":%d,"correlation":%d}}`, i%5, stream, ts+10, 8+float64(i%7), 100000+i, stream, 5000+i)
		ts += 20
	}
	sb.WriteString("]}")
	st := trace.NewStore()
	r := st.NewReader("gen.json")
	r.Write([]byte(sb.String()))
	r.Close()
	j := callsite.NewJoins(st)
	bd := breakdown.Analyze(st, breakdown.Options{Joins: j})
	b.Run("idle", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			idle.Analyze(st, idle.Options{Joins: j, StageOf: bd.OpStage, StageNames: bd.StageNames})
		}
		b.ReportMetric(float64(st.BytesKept())/n, "store-B/kernel")
	})
	id := idle.Analyze(st, idle.Options{Joins: j, StageOf: bd.OpStage, StageNames: bd.StageNames})
	b.Run("launch", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			Analyze(st, Options{Joins: j, StageOf: bd.OpStage, StageNames: bd.StageNames, Idle: id, Classes: bd.Classes})
		}
	})
}
