package analyzer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// One stream per kernel: gpu_lanes.json keeps limits.Lanes lanes, the
// busiest streams' own and one merged lane for the rest, and says how many
// it merged (80 k streams took 2.7 GB at 400 bins each).
func TestLanesCapped(t *testing.T) {
	const n = 1000
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		// stream i runs one kernel; stream 999 the longest
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":%d,"ts":%d,"dur":%d}`, i, 10+i, 1+i)
	}
	b.WriteString("]}")
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("streams.json")
	j.Write(b.Bytes())
	j.EndFile()
	lanes, ok := j.Finish().Artifact("gpu_lanes.json")
	if !ok {
		t.Fatal("no gpu_lanes.json")
	}
	var doc struct {
		Files []struct {
			MergedStreams int `json:"merged_streams"`
			Lanes         []struct {
				Device, Stream int64
				Ops            int64
				Busy           []float64
				Merged         int `json:"merged_streams"`
			}
		}
	}
	if err := json.Unmarshal([]byte(lanes), &doc); err != nil {
		t.Fatal(err)
	}
	f := doc.Files[0]
	if len(f.Lanes) != limits.Lanes || f.MergedStreams != n-(limits.Lanes-1) {
		t.Fatalf("%d lanes, %d merged", len(f.Lanes), f.MergedStreams)
	}
	last := f.Lanes[len(f.Lanes)-1]
	if last.Stream != -1 || last.Merged != f.MergedStreams || last.Ops != int64(f.MergedStreams) {
		t.Errorf("merged lane %+v", last)
	}
	// the busiest streams keep their lanes
	if first := f.Lanes[0]; first.Stream != n-(limits.Lanes-1) {
		t.Errorf("first own lane is stream %d, want %d", first.Stream, n-(limits.Lanes-1))
	}
}

// Device and stream ids are kept at 64 bits: stream 2^40+7 is its own
// lane, never stream 7 (the records held 32 bits and truncated it), and so
// is device 2^40+3. An id beyond int64 (2^64+7, from the tid or args) is
// skipped and counted, never wrapped onto 7.
func TestStreamIDs64(t *testing.T) {
	doc := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1,"dur":2},` +
		`{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":1099511627783,"ts":5,"dur":3},` +
		`{"ph":"X","cat":"kernel","name":"c","pid":0,"tid":"stream -9223372036854775807","ts":8,"dur":4},` +
		`{"ph":"X","cat":"kernel","name":"d","pid":"GPU 1099511627779","tid":7,"ts":9,"dur":5},` +
		`{"ph":"X","cat":"kernel","name":"e","pid":0,"tid":18446744073709551623,"ts":10,"dur":6},` +
		`{"ph":"X","cat":"kernel","name":"f","pid":0,"tid":7,"ts":11,"dur":7,"args":{"stream":"18446744073709551623"}},` +
		`{"ph":"X","cat":"kernel","name":"g","pid":0,"tid":7,"ts":12,"dur":8,"args":{"device":99999999999999999999}}]}`
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("ids.json")
	j.Write([]byte(doc))
	j.EndFile()
	res := j.Finish()
	f := res.Files[0]
	if !f.Partial || len(f.Problems) != 1 || f.Problems[0].Count != 3 || res.ExitCode != ExitPartial ||
		!strings.Contains(f.Problems[0].What, "-2^63") {
		t.Errorf("exit %d %+v", res.ExitCode, f)
	}
	lanes, _ := res.Artifact("gpu_lanes.json")
	var ld struct {
		Files []struct {
			Lanes []struct {
				Device, Stream int64
				Ops            int64
			}
		}
	}
	if err := json.Unmarshal([]byte(lanes), &ld); err != nil {
		t.Fatal(err)
	}
	type lane struct{ dev, stream, ops int64 }
	var got []lane
	for _, l := range ld.Files[0].Lanes {
		got = append(got, lane{l.Device, l.Stream, l.Ops})
	}
	want := []lane{{0, -9223372036854775807, 1}, {0, 7, 1}, {0, 1099511627783, 1}, {1099511627779, 7, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lanes %v, want %v", got, want)
	}
	// the same ids, exact, in breakdown.json's per-stream table
	bd, _ := res.Artifact("breakdown.json")
	for _, w := range []string{`"stream": 1099511627783`, `"device": 1099511627779`, `"stream": -9223372036854775807`} {
		if !strings.Contains(bd, w) {
			t.Errorf("breakdown.json lacks %s", w)
		}
	}
}
