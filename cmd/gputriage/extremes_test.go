package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
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
