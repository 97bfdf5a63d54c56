package report

import (
	"fmt"
	"strings"
)

// transferNotes says what of this trace does not carry over to the target
// architecture (same vendor, another ISA), from the trace's own kernels and
// identity rather than one sentence for every trace:
//
//   - kernels compiled for the observed ISA: Tensile/hipBLASLt solution
//     names carry it as _ISA<nnn>_ (the library picks another solution,
//     tile and timing on another ISA);
//   - MX-format (microscaling FP4/FP6) operands, "mxfp4"/"mxfp6" in the
//     kernel name (vLLM's Triton `_matmul_ogs_…_bf16xbf16xmxfp4` MoE/matmul
//     kernels): CDNA3 (gfx942) and older, Hopper and older have no MX
//     matrix instructions and dequantise in software; CDNA4 (gfx950,
//     V_MFMA_SCALE_F32_*_F8F6F4 in the AMD CDNA4 ISA guide) and Blackwell
//     (sm100, block-scaled MMA) take MX operands natively, so that path and
//     its time change on such a target;
//   - identity fields that link a run to a comparison and are empty.
func transferNotes(a *Analysis) []string {
	if a.Arch.ArchMatch != "compatible" || a.Arch.ObservedArch == a.Target || a.Breakdown == nil {
		return nil
	}
	var total, isa, mx int64
	tag := ""
	if g, ok := strings.CutPrefix(a.Arch.ObservedArch, "gfx"); ok {
		tag = "_ISA" + strings.ToUpper(g) + "_"
	}
	for _, r := range a.Breakdown.Rows {
		total += r.GPUTime
		if tag != "" && strings.Contains(strings.ToUpper(r.Kernel), tag) {
			isa += r.GPUTime
		}
		if l := strings.ToLower(r.Kernel); strings.Contains(l, "mxfp4") || strings.Contains(l, "mxfp6") {
			mx += r.GPUTime
		}
	}
	var out []string
	if total > 0 && isa > 0 {
		out = append(out, fmt.Sprintf("%s of GPU time runs kernels compiled for %s (`%s` library solutions): on %s the library picks other solutions, tiles and timings.",
			pct(float64(isa)/float64(total)), a.Arch.ObservedArch, tag, a.Target))
	}
	if total > 0 && mx > 0 && !nativeMX(a.Arch.ObservedArch) && nativeMX(a.Target) {
		out = append(out, fmt.Sprintf("%s of GPU time runs kernels with MX-FP4/FP6 operands (`mxfp4` in the name, e.g. Triton's `_matmul_ogs_…`): %s has no MX matrix instructions and dequantises them in software, %s takes them natively, so this path and its time do not carry over.",
			pct(float64(mx)/float64(total)), a.Arch.ObservedArch, a.Target))
	}
	id := a.Identity
	var null []string
	for _, f := range []struct{ name, v string }{{"experiment_id", id.ExperimentID}, {"trial_id", id.TrialID}, {"base_image", id.BaseImage},
		{"resource_class", id.ResourceClass}, {"server_flags", id.ServerFlags}, {"model_name", id.ModelName}} {
		if f.v == "" {
			null = append(null, "`"+f.name+"`")
		}
	}
	if len(null) > 0 {
		out = append(out, "Null linkage fields: "+strings.Join(null, ", ")+": a run on "+a.Target+" cannot be matched to this one by them (give them with --run or the flags).")
	}
	return out
}

// nativeMX reports ISAs with matrix instructions on MX (microscaling)
// FP4/FP6 operands: CDNA4 gfx950, Blackwell sm100 and later.
func nativeMX(isa string) bool {
	if isa == "gfx950" {
		return true
	}
	if n, ok := strings.CutPrefix(isa, "sm"); ok && len(n) >= 3 && n >= "100" {
		return true
	}
	return false
}
