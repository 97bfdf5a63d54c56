package roofline

import (
	"fmt"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Projection onto the target architecture: a modelled row's FLOPs and
// bytes need at least max(FLOPs ÷ the target's peak for the row's dtype,
// bytes ÷ its HBM bandwidth) there — a lower bound whatever kernel runs
// it. Kernels built for the trace's ISA (hipBLASLt/Tensile solutions named
// _ISA942_, software MXFP4 dequantization where the target has MX-FP4
// matrix instructions) are flagged: they will not carry over as they are.

// project fills a modelled row's bound on the target (ns, every instance)
// and its ISA note; flops and bytes are the row's totals.
func project(out *Row, flops, bytes float64, t *Device, observed string) {
	if t == nil || !out.Modelled {
		return
	}
	dtype := out.Dtype
	fp4w := strings.Contains(out.Source, "packed FP4") || dtype == "fp4"
	if fp4w && t.Peak["fp4"] > 0 {
		dtype = "fp4" // MX-FP4 weights run natively where the target has the instructions
	}
	var sec float64
	if p := t.Peak[dtype]; p > 0 && flops > 0 {
		sec = flops / (p * 1e12)
	} else if flops > 0 {
		out.TargetNote = fmt.Sprintf("no %s compute roof on %s: memory bound only", dtype, t.Key)
	}
	if t.GBPS > 0 {
		sec = max(sec, bytes/(t.GBPS*1e9))
	}
	out.TargetBound = sec * 1e9
	var notes []string
	if out.TargetNote != "" {
		notes = append(notes, out.TargetNote)
	}
	if isa := isaOf(out.Kernels); isa != "" && isa != archOf(t) {
		notes = append(notes, fmt.Sprintf("kernels built for %s (_ISA%s_ solutions): re-tune for %s", isa, strings.TrimPrefix(isa, "gfx"), t.Key))
	}
	if fp4w && observed != "" && observed != archOf(t) && t.Peak["fp4"] > 0 {
		notes = append(notes, fmt.Sprintf("MXFP4 weights dequantized to %s on %s; %s has native MX-FP4 matrix instructions (bound at its FP4 roof)", out.Dtype, observed, t.Key))
	}
	out.TargetNote = strings.Join(notes, "; ")
}

// isaOf returns the gfx ISA that dominates a row's kernel names' ISA tags
// (Tensile's _ISA942_, _ISA90a_), by time; "" when none is tagged.
func isaOf(ks []Kernel) string {
	by := map[string]int64{}
	best, bt := "", int64(0)
	for _, k := range ks {
		i := strings.Index(k.Name, "_ISA")
		if i < 0 {
			continue
		}
		rest := k.Name[i+4:]
		j := strings.IndexByte(rest, '_')
		if j <= 0 || j > 5 {
			continue
		}
		isa := "gfx" + strings.ToLower(rest[:j])
		by[isa] += k.Time
		if by[isa] > bt || by[isa] == bt && isa < best {
			best, bt = isa, by[isa]
		}
	}
	return best
}

// archOf is a table device's ISA.
func archOf(d *Device) string {
	switch d.Key {
	case "MI355X", "MI350X":
		return "gfx950"
	case "MI300X", "MI325X":
		return "gfx942"
	case "MI250", "MI250X", "MI210":
		return "gfx90a"
	}
	return ""
}

// TargetLine is the summary's sentence on the target for a stage: "on
// MI355X this decode step's modelled ops need ≥ X ms at its roofs (today
// Y ms of kernels on MI300X): today's kernels would be Z % efficient
// there", per step when steps > 0; "" without a target or modelled time.
func (r *Result) TargetLine(stage string, steps int) string {
	if r.Target == nil {
		return ""
	}
	var st StageTotals
	for _, s := range r.Stages {
		if s.Stage == stage {
			st = s
		}
	}
	if st.Modelled <= 0 || st.TargetBound <= 0 {
		return ""
	}
	what, div := "this stage's modelled ops", 1.0
	if steps > 0 {
		what, div = "a "+stage+" step's modelled ops", float64(steps)
		if stage == "all" {
			what = "a step's modelled ops"
		}
	}
	dev := "the trace's GPU"
	if r.Device != nil {
		dev = r.Device.Key
	}
	t := fmt.Sprintf("on %s %s need ≥ %.3f ms at its roofs (today %.3f ms of their kernels on %s): today's kernels would be %s efficient there",
		r.Target.Key, what, st.TargetBound/1e6/div, float64(st.Modelled)/1e6/div, dev, units.Pct(st.TargetBound/float64(st.Modelled)))
	var top *Row
	for i := range r.Rows {
		if x := &r.Rows[i]; x.Stage == stage && x.Modelled && x.Bound != "" && (top == nil || x.KernelTime > top.KernelTime) {
			top = x
		}
	}
	if top != nil && top.KernelTime > 0 {
		t += fmt.Sprintf("; the top op `%s` runs at %s of its %s roof on %s and needs ≥ %.3f ms of its %.3f ms on %s", code(top.Op),
			units.Pct(top.Efficiency), top.Bound, dev, top.TargetBound/1e6/div, float64(top.KernelTime)/1e6/div, r.Target.Key)
	}
	if st.ISASpecific > 0 {
		t += fmt.Sprintf("; %s of that time runs kernels that will not carry over as they are (%s)", units.Pct(float64(st.ISASpecific)/float64(st.Modelled)), st.ISAWhy)
	}
	return t
}
