package trace

import "testing"

func BenchmarkScanOnly(b *testing.B) {
	data := realTrace(b, "gpu/traces/tp_rank0.trace.json.gz")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var s scanner
		s.event = func([]byte) {}
		s.header = func(string, []byte) {}
		s.fast = func([]byte) (int, bool) { return 0, false }
		for i := 0; i < len(data); i += 1 << 20 {
			s.write(data[i:min(len(data), i+1<<20)])
		}
	}
}

func BenchmarkParseOnly(b *testing.B) {
	data := realTrace(b, "gpu/traces/tp_rank0.trace.json.gz")
	b.SetBytes(int64(len(data)))
	var e rawEvent
	for b.Loop() {
		var s scanner
		s.event = func([]byte) {}
		s.header = func(string, []byte) {}
		s.fast = func(p []byte) (int, bool) { end, st := parseEventAt(p, &e); return end, st == parsed }
		for i := 0; i < len(data); i += 1 << 20 {
			s.write(data[i:min(len(data), i+1<<20)])
		}
	}
}
