package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/collectives"
)

// Extreme values (issue 24, "one answer on every engine"): every float →
// integer conversion and every sum of times that could leave int64 gives
// the same bytes natively and under wasm, and no artifact prints a
// wrapped-around (negative) time.
func TestBoundsExtremeValues(t *testing.T) {
	kernel := func(name, ts, dur string) string {
		return `{"ph":"X","cat":"kernel","name":"` + name + `","pid":0,"tid":7,"ts":` + ts + `,"dur":` + dur + `}`
	}
	// A GEMM whose shapes are finite but whose bound on the target is
	// 10^26 FLOPs / 2.3 PFLOP/s ≈ 10^20 ns: int64(1e20) was -2^63 natively
	// and 2^63-1 under wasm.
	gemm := func(dim string) string {
		return `{"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","computeMajor":9,"computeMinor":4,"numSms":304,"totalGlobalMem":206141652992}],"traceEvents":[` +
			`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":1000,"dur":50,"args":{"External id":1,"Input Dims":[[` + dim + `,` + dim + `],[` + dim + `,` + dim + `]],"Input type":["c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["",""]}},` +
			`{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":100,"tid":100,"ts":1010,"dur":5,"args":{"External id":1,"correlation":7}},` +
			`{"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x1","pid":0,"tid":0,"ts":1020,"dur":100,"args":{"External id":1,"device":0,"stream":0,"correlation":7}}]}`
	}
	for _, c := range []struct {
		name, doc, artifact string
		want                []string // in the artifact
	}{
		{"roofline bound 1e20 ns", gemm("400000000"), "roofline.json", []string{`"target_bound_us": 9223372036854775.807`}},
		{"roofline bound in range", gemm("4096"), "roofline.json", []string{`"target_bound_us": 54.613`}},
		{"ts at the range's end", `{"traceEvents":[` + kernel("a", "10", "5") + `,` + kernel("a", "3999999999999999", "1000") + `]}`,
			"breakdown.json", []string{`"window_us": 4000000000000`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := both(t, analyzer.Options{Command: "breakdown", TargetArch: "MI355X"}, "x.json", func() io.Reader { return strings.NewReader(c.doc) })
			a, _ := res.Artifact(c.artifact)
			for _, w := range c.want {
				if !strings.Contains(a, w) {
					t.Errorf("%s lacks %s: %.1500s", c.artifact, w, a)
				}
			}
			for _, x := range res.Artifacts {
				if strings.Contains(x.Text, "-92233720368547") || strings.Contains(x.Text, "-6746744") {
					t.Errorf("%s holds a wrapped-around number", x.Name)
				}
			}
		})
	}
}

// diff of trace folders whose per-file windows sum beyond int64 (three
// files spanning 3.9·10¹⁸ ns each): the window saturates instead of
// wrapping to -6746744073709566.616 µs, the same on both engines.
func TestBoundsDiffWindowSum(t *testing.T) {
	dir := t.TempDir()
	k := func(ts string) string {
		return `{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":` + ts + `,"dur":5}`
	}
	write := func(side string, n int, last string) string {
		d := filepath.Join(dir, side)
		os.MkdirAll(d, 0o755)
		for i := range n {
			os.WriteFile(filepath.Join(d, fmt.Sprintf("r%d.pt.trace.json", i)), []byte(`{"traceEvents":[`+k("10")+`,`+k(last)+`]}`), 0o644)
		}
		return d
	}
	a, b := write("a", 1, "20"), write("b", 3, "3900000000000000")
	var outs [2]string
	for i, eng := range []string{"native", "wasm"} {
		var so, se bytes.Buffer
		out := filepath.Join(dir, "out_"+eng)
		code := run([]string{"diff", "--engine", eng, "-q", "--force", "-o", out, a, b}, nil, &so, &se)
		md, _ := os.ReadFile(filepath.Join(out, "diff.md"))
		js, _ := os.ReadFile(filepath.Join(out, "diff.json"))
		if code != 0 || strings.Contains(string(md)+string(js), "-6746744") || !strings.Contains(string(js), `"span_us": 9223372036854775.807`) {
			t.Errorf("%s: exit %d\n%s%s\n%s", eng, code, firstLines(string(md), 30), se.String(), firstLines(string(js), 40))
		}
		outs[i] = string(md) + string(js)
	}
	if outs[0] != outs[1] {
		t.Errorf("engines differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// Two ranks whose clock bases are 4·10¹⁸ ns apart wait about 8·10¹⁸ ns at
// each of two collectives (too few to estimate a clock offset from: see
// analyzer/collectives/clock.go): the per-rank totals of ranks.json
// saturate at int64's end on both engines (they wrapped negative), and a
// rank summary whose times leave the trace range is refused naming the
// field.
func TestBoundsRanksSums(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	os.MkdirAll(traces, 0o755)
	for r, c := range []struct {
		base string
		ts   int64 // µs
	}{{"1", 100}, {"4000000000000000000", 3900000000000000}} {
		var ev []string
		for i := range 2 {
			ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":%d,"dur":50,"args":{"device":0,"stream":7}}`, c.ts+int64(i)*1000))
		}
		doc := fmt.Sprintf(`{"distributedInfo":{"rank":%d,"world_size":2},"baseTimeNanoseconds":%s,"traceEvents":[%s]}`, r, c.base, strings.Join(ev, ","))
		os.WriteFile(filepath.Join(traces, fmt.Sprintf("rank%d.json", r)), []byte(doc), 0o644)
	}
	var outs [2]string
	for i, eng := range []string{"native", "wasm"} {
		var so, se bytes.Buffer
		out := filepath.Join(dir, "out_"+eng)
		code := run([]string{"breakdown", "--engine", eng, "-q", "-o", out, traces}, nil, &so, &se)
		rj, _ := os.ReadFile(filepath.Join(out, "ranks.json"))
		if code != 0 || !strings.Contains(string(rj), `"wait_us": 9223372036854775.807`) || strings.Contains(string(rj), `"wait_us": -`) || strings.Contains(string(rj), `"lateness_us": -`) {
			t.Errorf("%s: exit %d %s\n%s", eng, code, se.String(), firstLines(string(rj), 60))
		}
		outs[i] = string(rj)
	}
	if outs[0] != outs[1] {
		t.Errorf("engines differ:\n%s\n---\n%s", outs[0], outs[1])
	}

	sums := filepath.Join(dir, "sums")
	for r := range 2 {
		var so, se bytes.Buffer
		if code := run([]string{"extract", "-q", "--engine", "native", "-o", filepath.Join(sums, fmt.Sprint(r)), filepath.Join(traces, fmt.Sprintf("rank%d.json", r))}, nil, &so, &se); code != 0 {
			t.Fatalf("extract: exit %d %s", code, se.String())
		}
	}
	p := filepath.Join(sums, "1", "rank_summary.json")
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`"clock_base_ns": 4000000000000000000`), []byte(`"clock_base_ns": 9000000000000000000`), 1)
	os.WriteFile(p, b, 0o644)
	var errs [2]string
	for i, eng := range []string{"native", "wasm"} {
		var so, se bytes.Buffer
		code := run([]string{"ranks", "--engine", eng, "-q", "-o", filepath.Join(dir, "reduce_"+eng), sums}, nil, &so, &se)
		if code == 0 || !strings.Contains(se.String(), "clock_base_ns 9000000000000000000 is outside") {
			t.Errorf("%s: exit %d %q", eng, code, se.String())
		}
		errs[i] = se.String()
	}
	if errs[0] != errs[1] {
		t.Errorf("engines differ: %q vs %q", errs[0], errs[1])
	}
}

// Stage files of one rank whose clocks span 3.9·10¹⁸ ns each: the overlap
// sweep lays them one after another, saturating at int64's end instead of
// wrapping the third file before the first; same bytes on both engines.
func TestBoundsStageFileShifts(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"EXTEND", "DECODE", "PREFILL"} {
		doc := `{"traceEvents":[` +
			`{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":3900000000000000,"dur":5,"args":{"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"nccl_allreduce","pid":0,"tid":8,"ts":12,"dur":5,"args":{"stream":8}}]}`
		os.WriteFile(filepath.Join(dir, "1700000000-TP-0-"+s+".trace.json"), []byte(doc), 0o644)
	}
	var outs [2]string
	for i, eng := range []string{"native", "wasm"} {
		var so, se bytes.Buffer
		out := filepath.Join(t.TempDir(), eng)
		code := run([]string{"triage", "--engine", eng, "-q", "-o", out, dir}, nil, &so, &se)
		ov, _ := os.ReadFile(filepath.Join(out, "overlap_opportunities.json"))
		md, _ := os.ReadFile(filepath.Join(out, "profile_summary.md"))
		// the third file's late gemm sits at int64's end, 0 long: 8 ops of 5 µs, 3 × 3 µs crossing
		if code != 0 || !strings.Contains(string(ov), `"busy_us": 31.000`) || strings.Contains(string(ov)+string(md), "-67467") || strings.Contains(string(ov)+string(md), "-92233") {
			t.Errorf("%s: exit %d %s\n%s", eng, code, se.String(), firstLines(string(ov), 30))
		}
		outs[i] = string(ov) + string(md)
	}
	if outs[0] != outs[1] {
		t.Error("engines differ")
	}
}

// The artifacts list files in the order they are fed, and the page feeds
// a drop sorted by name (issue 24: stage-shift-4e18's breakdown.json listed
// EXTEND first from the CLI, DECODE first from the page). The CLI sorts its
// files by name too, in Go's byte order (not a locale's: "Zeta" < "_mid" <
// "alpha"), so any order on the command line gives the page's bytes.
func TestInputOrderIsByName(t *testing.T) {
	dir := t.TempDir()
	names := []string{"1700000000-TP-0-EXTEND.trace.json", "1700000000-TP-0-DECODE.trace.json", "1700000000-TP-0-PREFILL.trace.json", "alpha.json", "Zeta.json", "_mid.json"}
	for i, n := range names {
		doc := fmt.Sprintf(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm_%d","pid":0,"tid":7,"ts":10,"dur":%d,"args":{"stream":7}}]}`, i, 5+i)
		os.WriteFile(filepath.Join(dir, n), []byte(doc), 0o644)
	}
	want := []string{"1700000000-TP-0-DECODE.trace.json", "1700000000-TP-0-EXTEND.trace.json", "1700000000-TP-0-PREFILL.trace.json", "Zeta.json", "_mid.json", "alpha.json"}
	t.Chdir(dir)
	var first map[string][]byte
	for _, c := range []struct {
		eng   string
		order []string
	}{{"native", names}, {"native", reversed(names)}, {"wasm", names}} {
		out := t.TempDir()
		var so, se bytes.Buffer
		if code := run(append([]string{"breakdown", "--engine", c.eng, "-q", "-o", out}, c.order...), nil, &so, &se); code != 0 {
			t.Fatalf("%s %v: exit %d %s", c.eng, c.order, code, se.String())
		}
		arts := map[string][]byte{}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			arts[e.Name()], _ = os.ReadFile(filepath.Join(out, e.Name()))
		}
		var bd struct {
			Files []struct{ File string }
		}
		if err := json.Unmarshal(arts["breakdown.json"], &bd); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range bd.Files {
			got = append(got, f.File)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %v: breakdown.json files in order %v, want %v", c.eng, c.order, got, want)
		}
		if first == nil {
			first = arts
			continue
		}
		for n, b := range first {
			if !bytes.Equal(arts[n], b) {
				t.Errorf("%s %v: %s differs from the first order's", c.eng, c.order, n)
			}
		}
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// Two ranks whose arrival order swings by 4·10¹⁸ ns at every collective
// (rank summaries in range): the stall threshold, ten robust sigmas of
// that, is past int64; converted and summed saturating, both engines
// write the same collectives.json (int64(5.9e19) differs between them).
func TestBoundsUsualOffsets(t *testing.T) {
	dir := t.TempDir()
	for r := range 2 {
		s := collectives.Summary{Version: collectives.SummaryVersion, File: fmt.Sprintf("rank%d.json", r), Rank: r, World: 2,
			Steps: []collectives.Step{{Name: "ProfilerStep#0", Start: 0, End: 4e18 + 1e9}}}
		for i := range 60 {
			start := int64((i+r)%2)*4e18 + int64(i)*1000
			s.Ops = append(s.Ops, collectives.Op{Kind: "allreduce", PG: "0", Seq: int64(i), Bytes: 1 << 20, Group: 2, Start: start, End: start + 100_000, Launch: -1})
			s.KernelNS += 100_000
			s.CommNS += 100_000
		}
		b, _ := json.Marshal(s)
		d := filepath.Join(dir, "sums", fmt.Sprint(r))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "rank_summary.json"), b, 0o644)
	}
	var outs [2]string
	for i, eng := range []string{"native", "wasm"} {
		var so, se bytes.Buffer
		out := filepath.Join(dir, "out_"+eng)
		code := run([]string{"ranks", "--engine", eng, "-q", "-o", out, filepath.Join(dir, "sums")}, nil, &so, &se)
		cj, _ := os.ReadFile(filepath.Join(out, "collectives.json"))
		rj, _ := os.ReadFile(filepath.Join(out, "ranks.json"))
		if code != 0 || len(cj) == 0 || strings.Contains(string(cj)+string(rj), "-92233720368547") {
			t.Errorf("%s: exit %d %s", eng, code, se.String())
		}
		outs[i] = string(cj) + string(rj)
	}
	if outs[0] != outs[1] {
		t.Error("engines differ")
	}
}
