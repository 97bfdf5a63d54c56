package roofline

import (
	"encoding/json"
	"flag"
	sharedfix "github.com/gputriage/gputriage/internal/fixture"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

var update = flag.Bool("update", false, "rewrite golden files")

type keyOp struct {
	Op        string           `json:"op"`
	Dims      [][]int64        `json:"input_dims"`
	Types     []string         `json:"input_type"`
	Concrete  []string         `json:"concrete_inputs"`
	Instances int64            `json:"instances"`
	Kernels   map[string]int64 `json:"kernels"`
	DurTotal  float64          `json:"kernel_dur_us_total"`
	Flops     float64          `json:"flops_per_instance"`
	Bytes     float64          `json:"bytes_per_instance"`
	TFLOPS    float64          `json:"achieved_tflops"`
	GBPS      float64          `json:"achieved_gbps"`
	AI        float64          `json:"arith_intensity_flop_per_byte"`
}

// H100 SXM5 roofs of the answer key's README, for its bound.
const keyBF16, keyFP32, keyGBPS = 989.4, 66.9, 3350.0

// TestAnswerKey checks every op signature of the perfmodel answer key:
// achieved TFLOP/s and GB/s within 2 %, instances, kernel time, and the
// bound by the key's own definition.
func TestAnswerKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixture.Shared, "gpu/perfmodel/roofline.facts.json"))
	if err != nil {
		sharedfix.Missing(t, "%v", err)
	}
	var key struct {
		Device   []string `json:"device"`
		Roofline struct {
			Ops []keyOp `json:"ops"`
		} `json:"roofline"`
	}
	if err := json.Unmarshal(b, &key); err != nil {
		t.Fatal(err)
	}
	st := fixture.Load(t, "gpu/perfmodel/roofline.trace.json.gz")
	res := Analyze(st, Options{DeviceName: key.Device[0], Arch: "sm90"})
	if res.Device == nil || res.Device.Key != "H100-SXM" || res.Peaks["bf16"] != keyBF16 || res.Peaks["fp32"] != keyFP32 || res.PeakGBPS != keyGBPS {
		t.Fatalf("device %+v peaks %v %v, want the H100 SXM5 roofs of the key", res.Device, res.Peaks, res.PeakGBPS)
	}
	var worstT, worstG float64
	for _, k := range key.Roofline.Ops {
		dims, _ := json.Marshal(k.Dims)
		var row *Row
		for i := range res.Rows {
			r := &res.Rows[i]
			if r.Op == k.Op && string(r.InputDims) == string(dims) && slices.Equal(r.InputTypes, k.Types) && slices.Equal(r.ConcreteInputs, k.Concrete) {
				row = r
			}
		}
		name := k.Op + string(dims)
		if row == nil {
			t.Errorf("%s: no row", name)
			continue
		}
		if row.Instances != k.Instances || len(row.Kernels) != len(k.Kernels) {
			t.Errorf("%s: %d instances, %d kernels; key %d, %d", name, row.Instances, len(row.Kernels), k.Instances, len(k.Kernels))
		}
		for _, kn := range row.Kernels {
			if k.Kernels[kn.Name] != kn.Launches {
				t.Errorf("%s: kernel %q ×%d, key ×%d", name, kn.Name, kn.Launches, k.Kernels[kn.Name])
			}
		}
		if got := float64(row.KernelTime) / 1e3; math.Abs(got-k.DurTotal) > 0.002 {
			t.Errorf("%s: kernel time %.3f µs, key %.3f", name, got, k.DurTotal)
		}
		if !row.Modelled || row.Flops != k.Flops || row.Bytes != k.Bytes {
			t.Errorf("%s: flops %v bytes %v (modelled %v, %s); key %v %v", name, row.Flops, row.Bytes, row.Modelled, row.Note, k.Flops, k.Bytes)
		}
		errT := rel(row.AchievedTFLOPS, k.TFLOPS)
		errG := rel(row.AchievedGBPS, k.GBPS)
		worstT, worstG = max(worstT, errT), max(worstG, errG)
		if errT > 0.02 || errG > 0.02 {
			t.Errorf("%s: %.2f TFLOP/s %.1f GB/s; key %.2f %.1f", name, row.AchievedTFLOPS, row.AchievedGBPS, k.TFLOPS, k.GBPS)
		}
		// The key's bound: memory when intensity < peak ÷ bandwidth.
		peak := keyBF16
		if k.Types[0] == "float" {
			peak = keyFP32
		}
		want := "compute"
		if k.Flops == 0 || k.Flops/k.Bytes < peak*1e3/keyGBPS {
			want = "memory"
		}
		if row.Bound != want {
			t.Errorf("%s: bound %q, key %q (intensity %.1f)", name, row.Bound, want, k.Flops/max(k.Bytes, 1))
		}
		if row.Efficiency <= 0 || row.Efficiency > 1 {
			t.Errorf("%s: efficiency %v outside (0,1]", name, row.Efficiency)
		}
		t.Logf("%-40s %8.2f TF/s (key %8.2f, err %.4f%%) %8.1f GB/s (key %8.1f, err %.4f%%) %s eff %.3f",
			name, row.AchievedTFLOPS, k.TFLOPS, errT*100, row.AchievedGBPS, k.GBPS, errG*100, row.Bound, row.Efficiency)
	}
	t.Logf("worst relative error: TFLOP/s %.4f%%, GB/s %.4f%%", worstT*100, worstG*100)
	fixture.Golden(t, "roofline_h100.json", res.JSON(false), *update)
}

func rel(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}
