package roofline

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"encoding/json"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// SchemaVersion is the version of roofline.json's layout.
const SchemaVersion = "0.1.0"

// num is a rate or size written with at most 3 decimals (NaN/Inf as 0).
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(units.Round(float64(x), 3), 'f', -1, 64)), nil
}

// count is a per-instance FLOP or byte count, written as an integer.
type count float64

func (x count) MarshalJSON() ([]byte, error) {
	v := math.Round(float64(x))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return []byte(strconv.FormatFloat(v, 'f', 0, 64)), nil
}

type kernelJSON struct {
	Name     string   `json:"name"`
	Launches int64    `json:"launches"`
	Time     units.US `json:"time_us"`
}

type rowJSON struct {
	Stage          string          `json:"stage"`
	Op             string          `json:"op"`
	InputDims      json.RawMessage `json:"input_dims"`
	InputTypes     []string        `json:"input_types"`
	ConcreteInputs []string        `json:"concrete_inputs"`
	Kernels        []kernelJSON    `json:"kernels"`
	Instances      int64           `json:"instances"`
	KernelTime     units.US        `json:"kernel_time_us"`
	Model          *string         `json:"model"`
	Dtype          *string         `json:"dtype"`
	Flops          *count          `json:"flops"`
	Bytes          *count          `json:"bytes"`
	AchievedTFLOPS *num            `json:"achieved_tflops"`
	AchievedGBPS   *num            `json:"achieved_gbps"`
	Intensity      *num            `json:"arithmetic_intensity"`
	PeakTFLOPS     *num            `json:"peak_tflops"`
	PeakGBPS       *num            `json:"peak_gbps"`
	Bound          *string         `json:"bound"`
	RooflineTFLOPS *num            `json:"roofline_tflops"`
	Efficiency     *units.Ratio    `json:"efficiency"`
	Coverage       units.Ratio     `json:"modelled_share"`
	MappedShare    units.Ratio     `json:"mapped_share"`
	Note           string          `json:"note,omitempty"`
	Source         string          `json:"source,omitempty"`
	TargetBound    *units.US       `json:"target_bound_us"`
	TargetNote     string          `json:"target_note,omitempty"`
	PythonLocation *string         `json:"python_location"`
	CPUOp          *string         `json:"cpu_op"`
	MergedRows     int             `json:"merged_rows,omitempty"` // an "(other ops)" row: how many rows it sums
}

type stageJSON struct {
	Stage      string    `json:"stage"`
	KernelTime units.US  `json:"kernel_time_us"`
	Modelled   units.US  `json:"modelled_us"`
	NoOp       units.US  `json:"no_cpu_op_us"`
	Graph      units.US  `json:"graph_replayed_us"`
	Mapped     units.US  `json:"graph_mapped_us"`
	Target     *units.US `json:"target_bound_us"`
	ISA        units.US  `json:"isa_specific_us"`
}

// targetJSON is the device results are projected onto (--target-arch).
type targetJSON struct {
	Key        string `json:"key"`
	Name       string `json:"name"`
	PeakTFLOPS peaks  `json:"peak_tflops"`
	PeakGBPS   num    `json:"peak_gbps"`
	Source     string `json:"source"`
}

type deviceJSON struct {
	Key        string `json:"key"`
	Name       string `json:"name"`
	Basis      string `json:"basis"`
	PeakTFLOPS peaks  `json:"peak_tflops"`
	PeakGBPS   num    `json:"peak_gbps"`
	Source     string `json:"source"`
	Overridden bool   `json:"overridden"`
}

// peaks writes the per-dtype roofs as an object in the table's dtype
// order (a map's order must not reach the artifact).
type peaks map[string]float64

func (p peaks) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, k := range dtypes {
		v, ok := p[k]
		if !ok {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		b = strconv.AppendFloat(b, units.Round(v, 3), 'f', -1, 64)
	}
	return append(b, '}'), nil
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// JSON writes roofline.json.
func (r *Result) JSON(partial bool) []byte {
	out := struct {
		Tool          string      `json:"tool"`
		SchemaVersion string      `json:"schema_version"`
		Partial       bool        `json:"partial"`
		FiguresRank   *int        `json:"figures_rank,omitempty"`
		Device        *deviceJSON `json:"device"`
		Target        *targetJSON `json:"target"`
		Stages        []stageJSON `json:"stages"`
		Truncated     bool        `json:"truncated"`
		MergedRows    int         `json:"merged_rows"`
		Rows          []rowJSON   `json:"rows"`
	}{Tool: "gputriage", SchemaVersion: SchemaVersion, Partial: partial, FiguresRank: r.FiguresRank, Stages: []stageJSON{}, Rows: []rowJSON{},
		Truncated: r.MergedRows > 0, MergedRows: r.MergedRows}
	if r.Target != nil {
		out.Target = &targetJSON{Key: r.Target.Key, Name: r.Target.Name, PeakTFLOPS: peaks(r.Target.Peak), PeakGBPS: num(r.Target.GBPS), Source: r.Target.Source}
	}
	if r.Device != nil || r.Overridden {
		d := &deviceJSON{Basis: r.DeviceBasis, PeakTFLOPS: peaks(r.Peaks), PeakGBPS: num(r.PeakGBPS), Overridden: r.Overridden}
		if r.Device != nil {
			d.Key, d.Name, d.Source = r.Device.Key, r.Device.Name, r.Device.Source
		}
		if r.Overridden {
			d.Basis = "--peak-tflops/--peak-gbps override"
		}
		out.Device = d
	}
	for _, s := range r.Stages {
		sj := stageJSON{s.Stage, units.US(s.KernelTime), units.US(s.Modelled), units.US(s.NoOp), units.US(s.Graph), units.US(s.Mapped), nil, units.US(s.ISASpecific)}
		if r.Target != nil {
			tb := units.US(units.Trunc(s.TargetBound + 0.5))
			sj.Target = &tb
		}
		out.Stages = append(out.Stages, sj)
	}
	for _, x := range r.Rows {
		j := rowJSON{Stage: x.Stage, Op: x.Op, InputDims: x.InputDims, InputTypes: x.InputTypes, ConcreteInputs: x.ConcreteInputs,
			Instances: x.Instances, KernelTime: units.US(x.KernelTime), Coverage: units.Ratio(x.Coverage), Note: x.Note, Source: x.Source,
			PythonLocation: strp(x.PythonLoc), CPUOp: strp(x.CPUOp), Kernels: []kernelJSON{}, MappedShare: units.Ratio(x.MappedShare), MergedRows: x.Merged}
		if j.InputDims == nil {
			j.InputDims = json.RawMessage("null")
		}
		for _, k := range x.Kernels {
			j.Kernels = append(j.Kernels, kernelJSON{k.Name, k.Launches, units.US(k.Time)})
		}
		if x.Modelled && r.Target != nil {
			tb := units.US(units.Trunc(x.TargetBound + 0.5))
			j.TargetBound, j.TargetNote = &tb, x.TargetNote
		}
		if x.Modelled {
			f, b := count(x.Flops), count(x.Bytes)
			at, ag, ai := num(x.AchievedTFLOPS), num(x.AchievedGBPS), num(x.Intensity)
			j.Model, j.Dtype, j.Flops, j.Bytes = strp(x.Model), strp(x.Dtype), &f, &b
			j.AchievedTFLOPS, j.AchievedGBPS, j.Intensity = &at, &ag, &ai
			if x.PeakTFLOPS > 0 {
				p := num(x.PeakTFLOPS)
				j.PeakTFLOPS = &p
			}
			if x.PeakGBPS > 0 {
				p := num(x.PeakGBPS)
				j.PeakGBPS = &p
			}
			if x.Bound != "" {
				e := units.Ratio(x.Efficiency)
				j.Bound, j.Efficiency = strp(x.Bound), &e
				if x.RooflineTFLOPS > 0 {
					rt := num(x.RooflineTFLOPS)
					j.RooflineTFLOPS = &rt
				}
			}
		}
		out.Rows = append(out.Rows, j)
	}
	return units.JSON(out)
}

// MarkdownRows is how many rows per stage the summary lists.
const MarkdownRows = 12

// Markdown writes the summary's Roofline section.
func (r *Result) Markdown() string {
	var b strings.Builder
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("## Roofline\n\n")
	switch {
	case r.Overridden:
		w("Roofs: %s TFLOP/s, %s GB/s (overridden on the command line).\n", fmtPeak(r.Peaks["bf16"]), fmtPeak(r.PeakGBPS))
	case r.Device != nil:
		w("Roofs: %s (from the %s), dense bf16 %s TFLOP/s, HBM %s GB/s; source: %s.\n",
			units.Text(r.Device.Name), units.Text(r.DeviceBasis), fmtPeak(r.Peaks["bf16"]), fmtPeak(r.PeakGBPS), units.Text(r.Device.Source))
	default:
		w("The device is not in the peak table: achieved rates only, no bound (pass `--peak-tflops` and `--peak-gbps`).\n")
	}
	for _, s := range r.Stages {
		if s.KernelTime == 0 {
			continue
		}
		w("\n### %s (%s of GPU time modelled from shapes", units.Text(s.Stage), units.Pct(float64(s.Modelled)/float64(s.KernelTime)))
		if s.Mapped > 0 {
			w("; %s graph-replayed with ops and shapes from the mapping trace", units.Pct(float64(s.Mapped)/float64(s.KernelTime)))
		}
		if g := s.Graph - s.Mapped; g > 0 {
			w("; %s graph-replayed without a mapped op", units.Pct(float64(g)/float64(s.KernelTime)))
		}
		w(")\n\n| Op | Input dims | Type | Inst. | Time (ms) | TFLOP/s | GB/s | FLOP/B | Bound | Efficiency |\n|---|---|---|---:|---:|---:|---:|---:|---|---:|\n")
		n := 0
		for _, x := range r.Rows {
			if x.Stage != s.Stage {
				continue
			}
			if n == MarkdownRows {
				break
			}
			n++
			dims := "–"
			if len(x.InputDims) > 0 {
				dims = "`" + units.Cell(units.Short(string(x.InputDims), 60)) + "`"
			}
			tf, gb, ai, bound, eff := "–", "–", "–", "–", "–"
			if x.Modelled {
				tf, gb = strconv.FormatFloat(units.Round(x.AchievedTFLOPS, 1), 'f', 1, 64), strconv.FormatFloat(units.Round(x.AchievedGBPS, 0), 'f', 0, 64)
				ai = strconv.FormatFloat(units.Round(x.Intensity, 1), 'f', 1, 64)
				if x.Bound != "" {
					bound, eff = x.Bound, units.Pct(x.Efficiency)
				}
			} else if x.Note != "" {
				bound = units.Text(x.Note)
			}
			w("| `%s` | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", units.Cell(units.Short(x.Op, 50)), dims, units.Text(x.Dtype),
				x.Instances, msOf(x.KernelTime), tf, gb, ai, bound, eff)
		}
	}
	return b.String()
}

// Takeaways says what the roofline means for a stage, for the top of the
// summary: how much of the GPU time it could not see (graph replays without
// a mapped op), the heaviest unmodelled op when it dominates, and the
// heaviest GEMM (≥ 1 % of the stage; else the heaviest modelled op ≥ 5 %)
// against its roof, e.g. "the top GEMM (`aten::mm [[4,28672],[28672,8192]]`,
// 1.2 ms, 9.8 % of GPU time) runs at 1.2 % of MI300X's bf16 peak
// (11.9 TFLOP/s), memory-bound (56.5 % of the memory roof)".
func (r *Result) Takeaways(stage string) []string {
	var st StageTotals
	for _, s := range r.Stages {
		if s.Stage == stage {
			st = s
		}
	}
	if st.KernelTime <= 0 {
		return nil
	}
	var out []string
	share := func(ns int64) string { return units.Pct(float64(ns) / float64(st.KernelTime)) }
	if g := st.Graph - st.Mapped; g*2 >= st.KernelTime {
		out = append(out, fmt.Sprintf("the roofline covers %s of GPU time: %s is graph-replayed without a mapped op; pair the trace with a capture or graph-off trace recorded with record_shapes=True.",
			share(st.Modelled), share(g)))
	}
	var best, top *Row
	for i := range r.Rows {
		x := &r.Rows[i]
		if x.Stage != stage {
			continue
		}
		if top == nil || x.KernelTime > top.KernelTime {
			top = x
		}
		if !x.Modelled || x.Bound == "" || x.KernelTime*100 < st.KernelTime || x.Model != "gemm" && x.KernelTime*20 < st.KernelTime {
			continue
		}
		if best == nil || x.Model == "gemm" && best.Model != "gemm" || (x.Model == "gemm") == (best.Model == "gemm") && x.KernelTime > best.KernelTime {
			best = x
		}
	}
	if top != nil && !top.Modelled && top.KernelTime*4 >= st.KernelTime {
		out = append(out, fmt.Sprintf("the heaviest op, `%s` (%s of GPU time), has no roofline: %s.", code(top.Op), share(top.KernelTime), units.Text(top.Note)))
	}
	if best == nil {
		return out
	}
	what := "top GEMM"
	if best.Model != "gemm" {
		what = "top modelled op"
	}
	dev := "the device"
	if r.Device != nil && !r.Overridden {
		dev = r.Device.Key
	}
	sig := best.Op
	if len(best.InputDims) > 0 {
		sig += " " + units.Short(string(best.InputDims), 48)
	}
	t := fmt.Sprintf("the %s (`%s`, %s ms, %s of GPU time) ", what, code(sig), msOf(best.KernelTime), share(best.KernelTime))
	if best.Flops > 0 && best.PeakTFLOPS > 0 {
		t += fmt.Sprintf("runs at %s of %s's %s peak (%.1f TFLOP/s)", units.Pct(best.AchievedTFLOPS/best.PeakTFLOPS), dev, units.Text(best.Dtype), units.Round(best.AchievedTFLOPS, 1))
	} else {
		t += fmt.Sprintf("moves %.0f GB/s, %s of %s's HBM bandwidth", units.Round(best.AchievedGBPS, 0), units.Pct(best.AchievedGBPS/best.PeakGBPS), dev)
	}
	if best.Bound == "memory" {
		t += fmt.Sprintf(", memory-bound (%s of the memory roof)", units.Pct(best.Efficiency))
	} else {
		t += ", compute-bound"
	}
	return append(out, t+".")
}

// code makes s safe inside backticks in a Markdown table or list
// (backticks in s shown as they are: units.Cell lengthens the delimiters).
func code(s string) string { return units.Cell(s) }

func fmtPeak(v float64) string { return strconv.FormatFloat(units.Round(v, 1), 'f', -1, 64) }

func msOf(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }
