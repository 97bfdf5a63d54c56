package collectives

import (
	"runtime"
	"testing"
)

// collectives.json and ranks.json are built once, row by row: what writing
// them allocates is little more than their text (through json.Encoder,
// ranks.json's compact text, its indented copy and the buffer it was
// written to were held at once, and each artifact was copied again into a
// string: mr-colls-many's 52 MB of them set the module's high-water mark).
func TestRenderAllocates(t *testing.T) {
	res := Match(synth(4, 2000, 4, 3, 1, 2_000_000))
	if len(res.Steps) < 1000 || len(res.Instances) < 1000 {
		t.Fatalf("%d steps, %d instances", len(res.Steps), len(res.Instances))
	}
	for _, c := range []struct {
		name  string
		write func() string
	}{{"collectives.json", func() string { return res.JSON("t", "v") }}, {"ranks.json", func() string { return res.RanksJSON("t", "v") }}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := len(c.write())
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes, %d allocated", c.name, n, got)
		if got > uint64(n)*4 {
			t.Errorf("%s: allocated %d bytes for %d (%.1f×)", c.name, got, n, float64(got)/float64(n))
		}
	}
}
