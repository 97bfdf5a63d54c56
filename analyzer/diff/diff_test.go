package diff

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"

	"github.com/gputriage/gputriage/analyzer/arch"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

func load(t testing.TB, rels ...string) *trace.Store { return fixture.Load(t, rels...) }

func golden(t *testing.T, name string, got []byte) { fixture.Golden(t, name, got, *update) }

var update = flag.Bool("update", false, "rewrite golden files")

var shared = fixture.Shared

// side builds a Side the way the job does: arch verdict from
// deviceProperties, kernel ISA tokens and the runtime API's vendor.
func side(t testing.TB, rel string) Side {
	st := load(t, rel)
	ev := arch.Evidence{Devices: arch.ParseDevices(st.Files[0].Header["deviceProperties"])}
	isa := map[string]int{}
	devs := map[int]bool{}
	for i := range st.GPU {
		o := &st.GPU[i]
		if !o.Kind.IsGPUWork() {
			continue
		}
		devs[int(o.Device)] = true
		if v, _ := kernels.ISA(st.Name(o.Name)); v != "" {
			isa[v]++
		}
	}
	ev.ISA = arch.SortISA(isa)
	for i := range st.CPU {
		if k := st.CPU[i].Kind; k == trace.KindRuntime || k == trace.KindDriver {
			if strings.HasPrefix(st.Name(st.CPU[i].Name), "hip") {
				ev.Vendor = "amd"
			} else {
				ev.Vendor = "nvidia"
			}
			break
		}
	}
	rel2 := arch.Decide(ev, "gfx950")
	s := Side{Name: filepath.Base(rel), Store: st, ObservedArch: rel2.ObservedArch, ArchMatch: rel2.ArchMatch, DeviceName: rel2.DeviceName}
	for d := range devs {
		s.GPUDeviceIDs = append(s.GPUDeviceIDs, d)
	}
	slices.Sort(s.GPUDeviceIDs)
	return s
}

// TestGraphOffVsOn: the H100 graph-off and graph-on runs of the same
// workload hold the same kernel multiset (answer key: 11,966 kernels of 35
// names, identical per-name counts), so every kernel's launch delta is 0;
// decode's GPU window shrinks (≈19.6 ms → ≈1.7 ms per step in the key).
func TestGraphOffVsOn(t *testing.T) {
	a := side(t, "gpu/traces/eager_graph_off.trace.json.gz")
	b := side(t, "gpu/traces/graph_on.trace.json.gz")
	// Trace files carry none of base_image, resource_class, server_flags,
	// benchmark_config_hash: a comparison that cannot be verified is refused.
	if r := Compare(a, b, Options{}); !r.Refused || !strings.Contains(r.Reason, "unknown on at least one side") {
		t.Fatalf("unverifiable comparison not refused: %+v", r.Reason)
	}
	if r := Compare(a, b, Options{SameInput: true}); r.Refused {
		t.Errorf("same input refused: %s", r.Reason)
	}
	r := Compare(a, b, Options{Force: true})
	if r.Refused || !r.Forced || len(r.Mismatches) != 0 {
		t.Fatalf("refused: %s", r.Reason)
	}
	if r.A.ObservedArch != "sm90" || r.B.ObservedArch != "sm90" {
		t.Errorf("archs %s %s", r.A.ObservedArch, r.B.ObservedArch)
	}
	// Trace files carry none of base_image, resource_class, server_flags,
	// benchmark_config_hash: say so rather than pretend they matched.
	if want := []string{"base_image", "resource_class", "server_flags", "benchmark_config_hash"}; !slices.Equal(r.Unverified, want) {
		t.Errorf("unverified %v", r.Unverified)
	}
	kernelNames := 0
	for _, k := range r.Kernels {
		if k.Status != "both" || k.DLaun != 0 {
			t.Errorf("%s: %s, launch delta %d", short(k.Kernel, 60), k.Status, k.DLaun)
		}
		if k.Category != kernels.CategoryMemory {
			kernelNames++
		}
	}
	if kernelNames != 35 || r.NewKernels != 0 || r.Removed != 0 {
		t.Errorf("%d kernel names, %d new, %d removed", kernelNames, r.NewKernels, r.Removed)
	}
	var decode *StageDelta
	for i := range r.Stages {
		if r.Stages[i].Stage == "decode" {
			decode = &r.Stages[i]
		}
	}
	if decode == nil || decode.DWindow >= 0 || decode.WindowX > 0.2 || decode.KernelUS.DLaun != 0 {
		t.Errorf("decode %+v: graph replay must shrink the decode window", decode)
	}
	// Sorted by |Δ time|.
	for i := 1; i < len(r.Kernels); i++ {
		if abs(r.Kernels[i].DUS) > abs(r.Kernels[i-1].DUS) {
			t.Fatal("kernels not sorted by |Δ|")
		}
	}
	if !json.Valid(r.JSON()) {
		t.Error("invalid JSON")
	}
	t.Logf("\n%s", r.Markdown())
	golden(t, "graph_off_vs_on.json", r.JSON())
	golden(t, "graph_off_vs_on.md", r.Markdown())
}

// TestCrossArch: the same Qwen1.5-0.5B workload on MI300X (gfx942) and H100
// (sm90) is refused; forced, it is compared with the mismatch listed.
func TestCrossArch(t *testing.T) {
	a := side(t, "traces/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
	b := side(t, "traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
	r := Compare(a, b, Options{})
	if !r.Refused || !strings.Contains(r.Reason, "observed_arch (gfx942 vs sm90)") || len(r.Kernels) != 0 || len(r.Categories) != 0 {
		t.Fatalf("refused %v: %s (%d kernel rows)", r.Refused, r.Reason, len(r.Kernels))
	}
	if !bytes.Contains(r.Markdown(), []byte("**Refused:**")) {
		t.Error("markdown lacks the refusal")
	}
	f := Compare(a, b, Options{Force: true})
	if f.Refused || !f.Forced || len(f.Mismatches) == 0 || f.Mismatches[0].Field != "observed_arch" {
		t.Fatalf("forced: %+v", f.Mismatches)
	}
	// Different vendors share no kernel names (hipBLASLt Cijk_ vs cuBLAS),
	// but categories compare.
	if f.NewKernels == 0 || f.Removed == 0 || len(f.Categories) == 0 {
		t.Errorf("new %d removed %d categories %d", f.NewKernels, f.Removed, len(f.Categories))
	}
	var sumA, sumB us
	for _, c := range f.Categories {
		sumA += c.AUS
		sumB += c.BUS
	}
	if sumA != f.Total.AUS || sumB != f.Total.BUS {
		t.Errorf("category sums %s/%s vs totals %s/%s", sumA, sumB, f.Total.AUS, f.Total.BUS)
	}
	golden(t, "mi300_vs_h100_forced.md", f.Markdown())
}

// TestComparisonFields: a seed-004 field that differs refuses; equal fields
// compare (a run against itself: all deltas zero).
func TestComparisonFields(t *testing.T) {
	a := side(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	b := a
	a.BaseImage, b.BaseImage = "rocm/sgl-dev:v0.5.9-rocm700-mi30x", "rocm/sgl-dev:v0.5.9-rocm720-mi30x"
	r := Compare(a, b, Options{})
	if !r.Refused || !strings.Contains(r.Reason, "base_image") {
		t.Fatalf("base_image mismatch not refused: %s", r.Reason)
	}
	b.BaseImage = a.BaseImage
	a.ResourceClass, b.ResourceClass = "mi300x-1gpu", "mi300x-1gpu"
	a.ServerFlags, b.ServerFlags = "--tp 1", "--tp 1"
	a.BenchmarkConfigHash, b.BenchmarkConfigHash = "abc", "abc"
	r = Compare(a, b, Options{})
	if r.Refused || len(r.Unverified) != 0 {
		t.Fatalf("equal fields: refused %v, unverified %v", r.Refused, r.Unverified)
	}
	for _, k := range r.Kernels {
		if k.DUS != 0 || k.DLaun != 0 || k.Status != "both" {
			t.Errorf("self-diff %+v", k)
		}
	}
	b.GPUDeviceIDs = []int{3}
	if r = Compare(a, b, Options{}); !r.Refused || !strings.Contains(r.Reason, "gpu_device_ids (9 vs 3)") {
		t.Errorf("device ids: %s", r.Reason)
	}
}

// diff_junit.xml is XML 1.0 whatever the input holds, and shows control,
// bidi and non-XML characters as the other artifacts do (issue 24).
func TestJUnitHostileNames(t *testing.T) {
	hostile := "gemm\x1b]0;pwned\x07\u202etxt.exe\x00\x0b\u0085\uFFFE</failure><x>&amp;\xff\nnext"
	r := &Result{Refused: true, Reason: "base_image differs: " + hostile,
		Gate: []GateResult{{Threshold: Threshold{Text: "kernel:" + hostile + ":+5%"}, Subject: "kernel " + hostile, Failed: true}}}
	out := r.JUnit()
	var doc struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	if len(doc.Cases) != 2 || doc.Cases[0].Failure == nil || doc.Cases[1].Failure == nil {
		t.Fatalf("cases %+v", doc.Cases)
	}
	want := `gemm\x1b]0;pwned\x07\u{202e}txt.exe\x00\x0b\u{0085}\u{fffe}</failure><x>&amp;\xff` + "\nnext"
	for _, got := range []string{doc.Cases[0].Failure.Text, doc.Cases[1].Name, doc.Cases[1].Failure.Text} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not show %q", got, want)
		}
	}
	for i, r := range string(out) {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0xFFFD || r >= 0x202a && r <= 0x202e || r == 0xFFFE {
			t.Errorf("byte %d: %U in the XML", i, r)
		}
	}
}
