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
				Device, Stream int32
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

// A stream id beyond 32 bits is skipped and counted, never truncated onto
// another stream (2^32+7 was stream 7).
func TestStreamIDRange(t *testing.T) {
	doc := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1,"dur":2},` +
		`{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":4294967303,"ts":5,"dur":2},` +
		`{"ph":"X","cat":"kernel","name":"c","pid":0,"tid":"stream -9223372036854775807","ts":8,"dur":2}]}`
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("ids.json")
	j.Write([]byte(doc))
	j.EndFile()
	res := j.Finish()
	f := res.Files[0]
	if !f.Partial || len(f.Problems) != 1 || f.Problems[0].Count != 2 || res.ExitCode != ExitPartial {
		t.Errorf("exit %d %+v", res.ExitCode, f)
	}
	if lanes, _ := res.Artifact("gpu_lanes.json"); strings.Count(lanes, `"busy"`) != 1 || !strings.Contains(lanes, `"ops": 1,`) {
		t.Errorf("lanes: %.400s", lanes)
	}
}
