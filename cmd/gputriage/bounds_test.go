package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/perfetto"
)

// Issue 24's bounded-work and one-answer cases, through both engines.

// One JSON string of a million backslash escapes (2 MB) is read once, not
// once per escape (jsontext's TestTrackerLinearInEscapes bounds the work).
func TestBoundsEscapedString(t *testing.T) {
	name := strings.Repeat(`\\`, 1<<20)
	doc := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"` + name + `","pid":1,"tid":7,"ts":1,"dur":1},` +
		`{"ph":"X","cat":"kernel","name":"k2","pid":1,"tid":7,"ts":5,"dur":1}]}`
	res := both(t, analyzer.Options{Command: "breakdown"}, "escapes.json", func() io.Reader { return strings.NewReader(doc) })
	if res.ExitCode != analyzer.ExitPartial || !strings.Contains(string(res.Files[0].Problems[0].What), "string limit") {
		t.Errorf("exit %d, files %+v", res.ExitCode, res.Files)
	}
}

// A kernel-API dump's 1 MB exception message is read as a file's long line.
func TestBoundsDumpMessage(t *testing.T) {
	doc := `{"function_name":"sglang.custom_op.x","execution_status":"exception","exception":{"type":"RuntimeError","message":"CUDA error: an illegal memory access was encountered ` +
		strings.Repeat("x", 1000000) + `"}}`
	res := both(t, analyzer.Options{Command: "diagnose"}, "dump/metadata.json", func() io.Reader { return strings.NewReader(doc) })
	if d, _ := res.Artifact("crash_diagnosis.json"); !strings.Contains(d, "illegal memory access") || !strings.Contains(d, "long_lines_cut") {
		t.Errorf("exit %d: %.600s", res.ExitCode, d)
	}
}

// An out-of-range sequence number (1e30) is no number on either engine
// (int64(1e30) differs between amd64 and wasm: no crash natively, a
// collective timeout in the module).
func TestBoundsFlightRecorderRange(t *testing.T) {
	doc := `{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":1e30,"last_started_collective":5,"last_completed_collective":5}},"entries":[]}`
	res := both(t, analyzer.Options{Command: "diagnose"}, "fr_rank0.json", func() io.Reader { return strings.NewReader(doc) })
	if d, _ := res.Artifact("crash_diagnosis.json"); strings.Contains(d, "collective_timeout") || !strings.Contains(d, "flight_recorder") {
		t.Errorf("exit %d: %.800s", res.ExitCode, d)
	}
}

// diff on artifact folders whose times are out of range refuses them with
// the file and the bound; times in range whose sums would overflow too.
func TestBoundsDiffHugeTimes(t *testing.T) {
	dir := t.TempDir()
	folder := func(name string, rows ...string) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "kernel_table.json"), []byte(`{"tool":"gputriage","rows":[`+strings.Join(rows, ",")+`]}`), 0o644)
		return d
	}
	row := func(k, us string) string {
		return `{"stage":"decode","kernel":"` + k + `","category":"gemm","launches":1,"gpu_time_us":` + us + `}`
	}
	a := folder("a", row("k", "1"))
	for _, c := range []struct{ name, b string }{
		{"1e20", folder("b1", row("k", "1e20"))},
		{"sum", folder("b2", row("k", "3e15"), row("k2", "3e15"), row("k3", "3e15"))},
		{"negative", folder("b3", row("k", "-3e15"), row("k2", "-3e15"))},
	} {
		var outs [2]string
		for i, eng := range []string{"native", "wasm"} {
			var so, se bytes.Buffer
			code := run([]string{"diff", "--engine", eng, "-q", "--force", a, c.b}, nil, &so, &se)
			if code != 2 || !strings.Contains(se.String(), "kernel_table.json: time") || !strings.Contains(se.String(), "out of range") {
				t.Errorf("%s (%s): exit %d\n%s%s", c.name, eng, code, firstLines(so.String(), 20), se.String())
			}
			outs[i] = so.String() + se.String()
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: engines differ:\n%s\n---\n%s", c.name, outs[0], outs[1])
		}
	}
}

// frDump is a flight-recorder JSON dump of real size: 2,000 entries with
// their stacks (2.7 MB), the last one never completed.
func frDump() string {
	var b strings.Builder
	b.WriteString(`{"version":"2.4","rank":0,"pg_config":{"0":{"name":"0","desc":"default_pg","ranks":"[0, 1]"}},` +
		`"pg_status":{"0":{"last_enqueued_collective":2000,"last_started_collective":2000,"last_completed_collective":1999}},"entries":[`)
	for i := 1; i <= 2000; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		state := "completed"
		if i == 2000 {
			state = "started"
		}
		fmt.Fprintf(&b, `{"record_id":%d,"pg_id":0,"collective_seq_id":%d,"profiling_name":"nccl:all_reduce","state":"%s","frames":[`, i, i, state)
		for f := 0; f < 12; f++ {
			if f > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"forward_layer_%d","filename":"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py","line":%d}`, f, 1700+f)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return b.String()
}

// A real-size flight-recorder dump is read; one over --max-side-doc-bytes is
// a partial naming the limit and its flag, never "no crash evidence".
func TestBoundsSideDocLimit(t *testing.T) {
	doc := frDump()
	if len(doc) < 2<<20 {
		t.Fatalf("dump of %d bytes: not real size", len(doc))
	}
	res := both(t, analyzer.Options{Command: "diagnose"}, "fr_rank0.json", func() io.Reader { return strings.NewReader(doc) })
	if d, _ := res.Artifact("crash_diagnosis.json"); !strings.Contains(d, "collective_timeout") || res.Files[0].Partial {
		t.Errorf("%d-byte dump: exit %d %+v: %.600s", len(doc), res.ExitCode, res.Files[0], d)
	}
	small := analyzer.Options{Command: "diagnose", Limits: limits.Limits{SideDocBytes: 1 << 20}}
	res = both(t, small, "fr_rank0.json", func() io.Reader { return strings.NewReader(doc) })
	if f := res.Files[0]; res.ExitCode != analyzer.ExitPartial || !f.Partial || !strings.Contains(f.Problem, "1048576 bytes (--max-side-doc-bytes)") {
		t.Errorf("over the limit: exit %d %+v", res.ExitCode, f)
	}
}

// A pickle past a fixed budget is a flagged partial naming the bound, on
// both engines — not "no crash evidence" with the refusal only in a note.
func TestBoundsPickleBudgets(t *testing.T) {
	deep := append([]byte{0x80, 2}, bytes.Repeat([]byte{'('}, limits.PickleDepth+8)...)
	deep = append(deep, '.')
	res := both(t, analyzer.Options{Command: "diagnose"}, "fr_rank0.pkl", func() io.Reader { return bytes.NewReader(deep) })
	if f := res.Files[0]; res.ExitCode != analyzer.ExitPartial || !f.Partial || !strings.Contains(f.Problem, "limits.PickleDepth") {
		t.Errorf("deep pickle: exit %d %+v", res.ExitCode, f)
	}
}

// profile never follows a redirect: a 307 to another host would re-send the
// requests there.
func TestBoundsProfileRedirect(t *testing.T) {
	hits := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	var so, se bytes.Buffer
	code := runProfile([]string{"--url", srv.URL, "--timeout", "2s", "-q"}, &so, &se, &se)
	if code != 2 || hits != 0 || !strings.Contains(se.String(), "does not follow redirects") {
		t.Errorf("exit %d, %d requests reached the other host: %s", code, hits, se.String())
	}
}

// One stream per kernel: the same capped lanes from both engines.
func TestBoundsLanes(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	for i := range 5000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":%d,"ts":%d,"dur":3}`, i, 10+i)
	}
	b.WriteString("]}")
	doc := b.String()
	res := both(t, analyzer.Options{Command: "breakdown"}, "streams.json", func() io.Reader { return strings.NewReader(doc) })
	lanes, _ := res.Artifact("gpu_lanes.json")
	if n := strings.Count(lanes, `"busy"`); n != limits.Lanes || !strings.Contains(lanes, `"merged_streams": 4873`) {
		t.Errorf("%d lanes: %.300s", n, lanes)
	}
	// breakdown.json's per-stream rows are capped the same way
	// (limits.StreamRows): two ranks of 100 k streams wrote 24 MB each
	var bd struct {
		Files []struct {
			Streams []struct {
				Device, Stream, Kernels int64
				KernelTime              float64 `json:"kernel_time_us"`
			} `json:"streams"`
			Merged     int     `json:"merged_streams"`
			KernelTime float64 `json:"kernel_time_us"`
		} `json:"files"`
	}
	text, _ := res.Artifact("breakdown.json")
	if err := json.Unmarshal([]byte(text), &bd); err != nil || len(bd.Files) != 1 {
		t.Fatalf("%v: %.300s", err, text)
	}
	f := bd.Files[0]
	if len(f.Streams) != limits.StreamRows || f.Merged != 4873 {
		t.Fatalf("%d stream rows, merged_streams %d", len(f.Streams), f.Merged)
	}
	last, kernels, sum := f.Streams[len(f.Streams)-1], int64(0), 0.0
	for _, s := range f.Streams {
		kernels += s.Kernels
		sum += s.KernelTime
	}
	if last.Device != -1 || last.Stream != -1 || last.Kernels != 4873 || kernels != 5000 || sum != f.KernelTime {
		t.Errorf("merged row %+v; %d kernels, %v µs of %v", last, kernels, sum, f.KernelTime)
	}
}

// crossingTrace writes n kernels that all cross one another (kernel i runs
// from 1000+i to 1000+n+i µs), alternating over streams.
func crossingTrace(t *testing.T, n, streams int) string {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		s := 7 + i%streams
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"gemm_kernel_%d","pid":0,"tid":%d,"ts":%d,"dur":%d,"args":{"device":0,"stream":%d}}`, i%97, s, 1000+i, n, s)
	}
	b.WriteString("]}")
	path := filepath.Join(t.TempDir(), "crossing.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// 100 k mutually crossing kernels (issue 24: triage's overlap sweep took
// 72 s native and 142 s wasm, perfetto-fix 12 s): the same answers on both
// engines, figures that follow from the layout, no crossing left.
func TestBoundsCrossingKernels(t *testing.T) {
	const n = 100000
	two := crossingTrace(t, n, 2)
	var outs [2][]byte
	for i, engine := range []string{"native", "wasm"} {
		dir := t.TempDir()
		var so, se bytes.Buffer
		if code := run([]string{"triage", "-q", "--engine", engine, "-o", dir, two}, nil, &so, &se); code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, se.String())
		}
		outs[i], _ = os.ReadFile(filepath.Join(dir, "overlap_opportunities.json"))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("engines differ on overlap_opportunities.json")
	}
	var ov struct {
		Summary struct {
			Ops       int     `json:"ops"`
			BusyUS    float64 `json:"busy_us"`
			OverlapUS float64 `json:"overlap_us"`
			Peak      int     `json:"peak_streams"`
		} `json:"summary"`
		Rows []struct {
			Hidden      float64 `json:"hidden_ratio"`
			OverlapWith string  `json:"overlap_with"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(outs[0], &ov); err != nil {
		t.Fatal(err)
	}
	s := ov.Summary
	if s.Ops != n || s.BusyUS != 2*n-1 || s.OverlapUS != 2*n-3 || s.Peak != 2 || len(ov.Rows) == 0 || ov.Rows[0].Hidden != 1 || ov.Rows[0].OverlapWith == "" {
		t.Errorf("summary %+v, rows %+v", s, ov.Rows)
	}

	one := crossingTrace(t, n, 1)
	raw, _ := os.ReadFile(one)
	if c := perfetto.Check(raw).Crossings; c != n-1 {
		t.Fatalf("input has %d crossings", c)
	}
	for i, engine := range []string{"native", "wasm"} {
		dir := t.TempDir()
		var so, se bytes.Buffer
		if code := run([]string{"perfetto-fix", "-q", "--engine", engine, "-o", dir, one}, nil, &so, &se); code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, se.String())
		}
		outs[i], _ = os.ReadFile(filepath.Join(dir, "perfetto_fixed_trace.json"))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("engines differ on perfetto_fixed_trace.json")
	}
	if after := perfetto.Check(outs[0]); after.Crossings != 0 || !after.Complete || after.GPUSlices != n {
		t.Errorf("after the fix: %d crossings, %d slices, complete=%v", after.Crossings, after.GPUSlices, after.Complete)
	}
}

// Stream and device ids are kept at 64 bits on both engines: stream 2^40+7
// overlaps stream 7 (they were one truncated stream), device 2^40+3 is its
// own device, and an id beyond int64 is skipped and counted.
func TestBoundsStreamIDs64(t *testing.T) {
	const big = "1099511627783" // 2^40+7
	doc := `{"traceEvents":[` +
		`{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":100,"dur":50},` +
		`{"ph":"X","cat":"kernel","name":"gemm_b","pid":0,"tid":` + big + `,"ts":120,"dur":50},` +
		`{"ph":"X","cat":"kernel","name":"gemm_c","pid":"GPU 1099511627779","tid":7,"ts":300,"dur":5},` +
		`{"ph":"X","cat":"kernel","name":"gemm_d","pid":0,"tid":18446744073709551623,"ts":400,"dur":5}]}`
	for _, cmd := range []string{"breakdown", "triage"} {
		res := both(t, analyzer.Options{Command: cmd}, "ids.json", func() io.Reader { return strings.NewReader(doc) })
		if f := res.Files[0]; !f.Partial || len(f.Problems) != 1 || f.Problems[0].Count != 1 {
			t.Errorf("%s: %+v", cmd, f)
		}
		lanes, _ := res.Artifact("gpu_lanes.json")
		for _, w := range []string{`"stream": ` + big + `,`, `"stream": 7,`, `"device": 1099511627779,`} {
			if !strings.Contains(lanes, w) {
				t.Errorf("%s: gpu_lanes.json lacks %s: %.600s", cmd, w, lanes)
			}
		}
		if cmd != "triage" {
			continue
		}
		ov, _ := res.Artifact("overlap_opportunities.json")
		var o struct {
			Summary struct {
				Device    int64   `json:"device"`
				Streams   []int64 `json:"streams"`
				OverlapUS float64 `json:"overlap_us"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(ov), &o); err != nil {
			t.Fatalf("overlap_opportunities.json: %v", err)
		}
		if s := o.Summary; s.Device != 0 || fmt.Sprint(s.Streams) != "[7 1099511627783]" || s.OverlapUS != 30 {
			t.Errorf("overlap summary %+v", s)
		}
	}
}

// A rocprofv3 JSON document whose times are not integers within int64
// (1e400, 1.5) is read, those records skipped and counted, the same on both
// engines (it was refused whole, exit 2: the hostile sweep's
// rocprof-json-names).
func TestBoundsRocprofJSONTimes(t *testing.T) {
	rec := func(start, end string) string {
		return `{"correlation_id":{"internal":1},"start_timestamp":` + start + `,"end_timestamp":` + end +
			`,"dispatch_info":{"agent_id":{"handle":2},"queue_id":{"handle":1},"kernel_id":8}}`
	}
	doc := `{"rocprofiler-sdk-tool":[{"metadata":{"pid":908,"init_time":1,"fini_time":2},"kernel_symbols":[{"kernel_id":8,"formatted_kernel_name":"k"}],` +
		`"buffer_records":{"kernel_dispatch":[` + rec("100", "200") + `,` + rec("1e400", "1e400") + `,` + rec("1.5", "300") + `]}}]}`
	res := both(t, analyzer.Options{Command: "breakdown"}, "908_results.json", func() io.Reader { return strings.NewReader(doc) })
	if res.ExitCode != analyzer.ExitPartial || len(res.Files) != 1 || len(res.Files[0].Problems) == 0 {
		t.Errorf("exit %d, files %+v", res.ExitCode, res.Files)
	}
}

// A trace of more distinct kernels than kernel_table.json lists per stage
// (limits.KernelRows): the largest keep their rows, the rest are one
// "(other kernels)" row per category that counts them, the file says it was
// truncated, the CSV twin has the same rows, and both engines agree. 500 k
// distinct names (tools/hostile names-500k) once made a 160 MB table.
func TestBoundsDistinctNames(t *testing.T) {
	const n = limits.KernelRows + 300
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		// kernel i lasts 1+i µs: the 300 shortest are merged; every 3rd a gemm
		name := fmt.Sprintf("kernel_%d", i)
		if i%3 == 0 {
			name = fmt.Sprintf("Cijk_Alik_Bljk_HHS_BH_MT%d", i)
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":%q,"pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7}}`, name, 10+i*(n+2), 1+i)
	}
	b.WriteString("]}")
	in := filepath.Join(t.TempDir(), "names.json")
	os.WriteFile(in, b.Bytes(), 0o644)
	var outs [2][]byte
	var csvs [2][]byte
	for i, engine := range []string{"native", "wasm"} {
		dir := t.TempDir()
		var so, se bytes.Buffer
		if code := run([]string{"breakdown", "-q", "--engine", engine, "-o", dir, in}, nil, &so, &se); code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, se.String())
		}
		outs[i], _ = os.ReadFile(filepath.Join(dir, "kernel_table.json"))
		csvs[i], _ = os.ReadFile(filepath.Join(dir, "kernel_table.csv"))
	}
	if !bytes.Equal(outs[0], outs[1]) || !bytes.Equal(csvs[0], csvs[1]) {
		t.Fatal("engines differ on kernel_table.json or .csv")
	}
	var kt struct {
		Truncated bool `json:"truncated"`
		Merged    int  `json:"merged_kernels"`
		Rows      []struct {
			Kernel   string  `json:"kernel"`
			Category string  `json:"category"`
			Launches int     `json:"launches"`
			GPUTime  float64 `json:"gpu_time_us"`
			Merged   int     `json:"merged_kernels"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(outs[0], &kt); err != nil {
		t.Fatal(err)
	}
	launches, merged := 0, map[string]int{}
	for _, r := range kt.Rows {
		launches += r.Launches
		if r.Merged > 0 {
			merged[r.Category] = r.Merged
			if r.Kernel != "(other kernels)" || r.Launches != r.Merged {
				t.Errorf("merged row %+v", r)
			}
		}
	}
	if !kt.Truncated || kt.Merged != 300 || len(kt.Rows) != limits.KernelRows+2 || launches != n || merged["gemm"] != 100 || merged["other"] != 200 {
		t.Errorf("truncated %v, merged %d, %d rows, %d launches, merged rows %v", kt.Truncated, kt.Merged, len(kt.Rows), launches, merged)
	}
	if lines := bytes.Count(csvs[0], []byte("\n")); lines != len(kt.Rows)+1 {
		t.Errorf("kernel_table.csv has %d lines for %d rows", lines, len(kt.Rows))
	}
}

// Issue 24 (many-ops-200k): roofline.json had a row per distinct launching
// op: 200 k op names wrote 170 MB, 797 MB native and 5 GB under wasm to
// indent it. Each stage keeps its limits.OpRows-1 largest rows and sums
// the rest into one "(other ops)" row that says how many it holds; the
// file says truncated. Same bytes on both engines.
func TestBoundsDistinctOps(t *testing.T) {
	const n = limits.OpRows + 300
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		// op i launches one kernel of 1+i µs: the 301 shortest are merged
		ts := 10 + i*(n+10)
		fmt.Fprintf(&b, `{"ph":"X","cat":"cpu_op","name":"aten::op_%d","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":%d}},`, i, ts, i+1)
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7,"External id":%d}}`, ts+2, 1+i, i+1)
	}
	b.WriteString("]}")
	in := filepath.Join(t.TempDir(), "ops.json")
	os.WriteFile(in, b.Bytes(), 0o644)
	var outs [2][]byte
	for i, engine := range []string{"native", "wasm"} {
		dir := t.TempDir()
		var so, se bytes.Buffer
		if code := run([]string{"breakdown", "-q", "--engine", engine, "-o", dir, in}, nil, &so, &se); code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, se.String())
		}
		outs[i], _ = os.ReadFile(filepath.Join(dir, "roofline.json"))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("engines differ on roofline.json")
	}
	var rf struct {
		Truncated bool `json:"truncated"`
		Merged    int  `json:"merged_rows"`
		Stages    []struct {
			KernelTime float64 `json:"kernel_time_us"`
		} `json:"stages"`
		Rows []struct {
			Op         string  `json:"op"`
			Instances  int     `json:"instances"`
			KernelTime float64 `json:"kernel_time_us"`
			Merged     int     `json:"merged_rows"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(outs[0], &rf); err != nil {
		t.Fatal(err)
	}
	if !rf.Truncated || rf.Merged != 301 || len(rf.Rows) != limits.OpRows {
		t.Fatalf("truncated %v, merged %d, %d rows", rf.Truncated, rf.Merged, len(rf.Rows))
	}
	var sum float64
	instances := 0
	for _, r := range rf.Rows {
		sum += r.KernelTime
		instances += r.Instances
	}
	last := rf.Rows[len(rf.Rows)-1]
	// the merged ops are the 301 shortest: 1+2+…+301 µs
	if last.Op != "(other ops)" || last.Merged != 301 || last.Instances != 301 || last.KernelTime != 301*302/2 {
		t.Errorf("last row %+v", last)
	}
	if instances != n || len(rf.Stages) != 1 || sum != rf.Stages[0].KernelTime || rf.Rows[0].Op != fmt.Sprintf("aten::op_%d", n-1) {
		t.Errorf("%d instances, stage time %v vs rows %v, first %s", instances, rf.Stages, sum, rf.Rows[0].Op)
	}
}

// diff.json's kernels are bounded like kernel_table.json's rows
// (analyzer/diff TestKernelsBounded): two traces of limits.KernelRows+300
// distinct kernels, B twice as slow, compared by the CLI on both engines:
// the KernelRows-1 largest changes keep their rows, the rest are one
// "(other kernels)" row per category, and every microsecond is counted.
func TestBoundsDiffKernels(t *testing.T) {
	const n = limits.KernelRows + 300
	dir := t.TempDir()
	for _, side := range []struct {
		name  string
		scale int
	}{{"a.json", 1}, {"b.json", 2}} {
		var b bytes.Buffer
		b.WriteString(`{"traceEvents":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("kernel_%d", i)
			if i%3 == 0 {
				name = fmt.Sprintf("Cijk_Alik_Bljk_HHS_BH_MT%d", i)
			}
			fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":%q,"pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7}}`, name, 10+i*(2*n+2), (1+i)*side.scale)
		}
		b.WriteString("]}")
		os.WriteFile(filepath.Join(dir, side.name), b.Bytes(), 0o644)
	}
	t.Chdir(dir)
	var outs [2][]byte
	for i, engine := range []string{"native", "wasm"} {
		out := t.TempDir()
		var so, se bytes.Buffer
		if code := run([]string{"diff", "-q", "--force", "--engine", engine, "-o", out, "a.json", "b.json"}, nil, &so, &se); code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, se.String())
		}
		outs[i], _ = os.ReadFile(filepath.Join(out, "diff.json"))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("engines differ on diff.json")
	}
	var d struct {
		Truncated bool `json:"kernels_truncated"`
		Merged    int  `json:"merged_kernels"`
		A, B      struct {
			KernelTime float64 `json:"kernel_time_us"`
		}
		Kernels []struct {
			Kernel   string  `json:"kernel"`
			Category string  `json:"category"`
			Status   string  `json:"status"`
			A        float64 `json:"a_us"`
			B        float64 `json:"b_us"`
			Merged   int     `json:"merged_kernels"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal(outs[0], &d); err != nil {
		t.Fatal(err)
	}
	if !d.Truncated || d.Merged != n-(limits.KernelRows-1) || len(d.Kernels) != limits.KernelRows+1 {
		t.Fatalf("truncated %v, merged %d, %d rows", d.Truncated, d.Merged, len(d.Kernels))
	}
	var a, b float64
	merged := 0
	for _, k := range d.Kernels {
		a, b = a+k.A, b+k.B
		if k.Kernel == "(other kernels)" {
			if k.Status != "merged" || k.Merged == 0 {
				t.Errorf("merged row %+v", k)
			}
			merged += k.Merged
		}
	}
	if a != d.A.KernelTime || b != d.B.KernelTime || merged != d.Merged || a != n*(n+1)/2 {
		t.Errorf("a %v/%v, b %v/%v, merged %d/%d", a, d.A.KernelTime, b, d.B.KernelTime, merged, d.Merged)
	}
}
