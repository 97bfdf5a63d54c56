package analyzer

import (
	"bytes"
	"compress/gzip"
	le "encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"testing"

	"github.com/gputriage/gputriage/analyzer/report"
)

type spansDoc struct {
	Files []struct {
		File  string
		Lanes []struct{ Device, Stream, First, Count int }
	}
	Names, Categories []string
	Steps             []struct {
		File, Stage, Name string
		StartUS           float64 `json:"start_us"`
		DurUS             float64 `json:"dur_us"`
	}
	start, dur []float64
	name       []uint32
}

func decodeSpans(t *testing.T, b []byte) spansDoc {
	t.Helper()
	if len(b) < 8 || string(b[:4]) != report.SpansMagic {
		t.Fatalf("no %s header: %d bytes", report.SpansMagic, len(b))
	}
	hl := int(le.LittleEndian.Uint32(b[4:]))
	var d spansDoc
	if err := json.Unmarshal(b[8:8+hl], &d); err != nil {
		t.Fatal(err)
	}
	pre := 8 + hl
	pre += (8 - pre%8) % 8
	n := (len(b) - pre) / 20
	if pre+20*n != len(b) {
		t.Fatalf("%d bytes after a %d-byte head is not 20 per op", len(b)-pre, pre)
	}
	for i := range n {
		d.start = append(d.start, math.Float64frombits(le.LittleEndian.Uint64(b[pre+8*i:])))
		d.dur = append(d.dur, math.Float64frombits(le.LittleEndian.Uint64(b[pre+8*(n+i):])))
		d.name = append(d.name, le.LittleEndian.Uint32(b[pre+16*n+4*i:]))
	}
	return d
}

// Two streams, kernels out of order in the file: each lane holds its own
// kernels sorted by start, in µs from the file's first GPU op.
func TestSpansSmall(t *testing.T) {
	doc := `{"traceEvents":[
{"ph":"X","cat":"kernel","name":"gemm_b","pid":0,"tid":7,"ts":130,"dur":5,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"nccl_AllReduce","pid":0,"tid":9,"ts":110.5,"dur":40,"args":{"device":0,"stream":9}},
{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":100,"dur":20,"args":{"device":0,"stream":7}}]}`
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("two.json")
	j.Write([]byte(doc))
	j.EndFile()
	if r := j.Finish(); r.ExitCode != ExitOK {
		t.Fatalf("exit %d: %s", r.ExitCode, r.Error)
	}
	d := decodeSpans(t, j.Spans())
	if len(d.Files) != 1 || len(d.Files[0].Lanes) != 2 {
		t.Fatalf("%+v", d.Files)
	}
	l0, l1 := d.Files[0].Lanes[0], d.Files[0].Lanes[1]
	if l0.Stream != 7 || l0.First != 0 || l0.Count != 2 || l1.Stream != 9 || l1.First != 2 || l1.Count != 1 {
		t.Fatalf("lanes %+v", d.Files[0].Lanes)
	}
	want := []struct {
		start, dur float64
		name, cat  string
	}{{0, 20, "gemm_a", "gemm"}, {30, 5, "gemm_b", "gemm"}, {10.5, 40, "nccl_AllReduce", "communication"}}
	for i, w := range want {
		if d.start[i] != w.start || d.dur[i] != w.dur || d.Names[d.name[i]] != w.name || d.Categories[d.name[i]] != w.cat {
			t.Errorf("op %d: %v %v %q %q, want %+v", i, d.start[i], d.dur[i], d.Names[d.name[i]], d.Categories[d.name[i]], w)
		}
	}
}

// On the default trace every lane of gpu_lanes.json has the same op count
// in the spans, and lanes' ops are sorted by start.
func TestSpansMatchLanes(t *testing.T) {
	raw, err := os.ReadFile("../testdata/default/sglang_Qwen3-8B_decode.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("decode.json")
	j.Write(b)
	j.EndFile()
	r := j.Finish()
	lanes, ok := r.Artifact("gpu_lanes.json")
	if !ok {
		t.Fatal("no gpu_lanes.json")
	}
	var gl struct {
		Files []struct {
			SpanUS float64 `json:"span_us"`
			Lanes  []struct{ Device, Stream, Ops int }
		}
	}
	if err := json.Unmarshal([]byte(lanes), &gl); err != nil {
		t.Fatal(err)
	}
	d := decodeSpans(t, j.Spans())
	if len(d.Files) != len(gl.Files) || len(d.Files[0].Lanes) != len(gl.Files[0].Lanes) {
		t.Fatalf("spans %+v, lanes %+v", d.Files, gl.Files)
	}
	end := 0.0
	for i, l := range d.Files[0].Lanes {
		g := gl.Files[0].Lanes[i]
		if l.Device != g.Device || l.Stream != g.Stream || l.Count != g.Ops || l.Count == 0 {
			t.Errorf("lane %d: spans %+v, gpu_lanes %+v", i, l, g)
		}
		for k := l.First; k < l.First+l.Count; k++ {
			if k > l.First && d.start[k] < d.start[k-1] {
				t.Fatalf("lane %d op %d starts %v before %v", i, k, d.start[k], d.start[k-1])
			}
			end = max(end, d.start[k]+d.dur[k])
		}
	}
	if math.Abs(end-gl.Files[0].SpanUS) > 1e-3 {
		t.Errorf("last op ends at %v µs, gpu_lanes span %v", end, gl.Files[0].SpanUS)
	}
	// Its one step (step[DECODE bs=32], 10.367 ms in steps.json) sits
	// on the file's timeline, inside the span.
	var st struct {
		Stages []struct {
			Wall struct{ Max float64 } `json:"wall_us"`
		}
	}
	sj, _ := r.Artifact("steps.json")
	if err := json.Unmarshal([]byte(sj), &st); err != nil {
		t.Fatal(err)
	}
	if len(d.Steps) != 1 || d.Steps[0].Stage != "decode" || d.Steps[0].File != "decode.json" ||
		math.Abs(d.Steps[0].DurUS-st.Stages[0].Wall.Max) > 1e-3 || d.Steps[0].StartUS < 0 || d.Steps[0].StartUS+d.Steps[0].DurUS > end+1e-3 {
		t.Errorf("steps %+v (steps.json wall %v, span %v)", d.Steps, st.Stages[0].Wall.Max, end)
	}
}

// The spans export (the page's zoomable timeline) keeps 64-bit ids: stream
// 2^40+7 is its own lane beside stream 7, its kernel in it.
func TestSpansIDs64(t *testing.T) {
	doc := `{"traceEvents":[
{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":100,"dur":20},
{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":1099511627783,"ts":110,"dur":20}]}`
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("ids.json")
	j.Write([]byte(doc))
	j.EndFile()
	if r := j.Finish(); r.ExitCode != ExitOK {
		t.Fatalf("exit %d: %s", r.ExitCode, r.Error)
	}
	d := decodeSpans(t, j.Spans())
	if len(d.Files) != 1 || len(d.Files[0].Lanes) != 2 {
		t.Fatalf("%+v", d.Files)
	}
	l := d.Files[0].Lanes
	if l[0].Stream != 7 || l[1].Stream != 1099511627783 || l[1].Count != 1 || d.Names[d.name[l[1].First]] != "b" {
		t.Errorf("lanes %+v names %v", l, d.Names)
	}
}
