package analyzer

import (
	"github.com/gputriage/gputriage/internal/fixture"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// BenchmarkMergeBlocks: merging the encoded blocks of tp_rank0 (79 MB raw)
// into a job, the part of a parallel read that stays on one core.
func BenchmarkMergeBlocks(b *testing.B) {
	data := shared(b, "gpu/traces/tp_rank0.trace.json.gz")
	if len(data) == 0 {
		fixture.Missing(b, "gpu/traces/tp_rank0.trace.json.gz is empty")
	}
	o := Options{Command: "breakdown"}
	var encs [][]byte
	start := trace.NextCut(data, BlockMinStart)
	pos := start
	p, _ := NewBlockParser(o, int64(pos), false)
	for pos < len(data) {
		end := trace.NextCut(data, pos+16<<20)
		if end < 0 {
			end = len(data)
		}
		p.Reset(int64(pos), false)
		p.Write(data[pos:end])
		encs = append(encs, p.AppendEncoded(nil))
		pos = end
	}
	b.SetBytes(int64(len(data) - start))
	b.ResetTimer()
	for range b.N {
		j, _ := New(o)
		j.BeginFile("t.json")
		j.FileSize(int64(len(data)))
		j.Write(data[:start])
		for _, e := range encs {
			if err := j.MergeBlock(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
