package fuse

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// us is a duration in ns written as µs with exactly three decimals.
type us int64

func (u us) MarshalJSON() ([]byte, error) { return []byte(u.String()), nil }

func (u us) String() string {
	n := int64(u)
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	f := strconv.FormatInt(n%1000, 10)
	return sign + strconv.FormatInt(n/1000, 10) + "." + strings.Repeat("0", 3-len(f)) + f
}

// ratio is a share in [0,1] written with 6 decimals.
type ratio float64

func (r ratio) MarshalJSON() ([]byte, error) {
	x := float64(r)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = 0
	}
	return []byte(strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)), nil
}

func pct(r ratio) string {
	return strconv.FormatFloat(math.Round(float64(r)*1000)/10, 'f', 1, 64) + " %"
}

// Result is the fuse opportunity table of one trace.
type Result struct {
	Rows   []Row        `json:"rows"`
	Vendor string       `json:"vendor"` // ROCm | CUDA
	Stages []StageTotal `json:"stages"`
}

// StageTotal is the GPU time a stage's shares are relative to.
type StageTotal struct {
	Stage     string `json:"stage"`
	GPUTimeUS us     `json:"gpu_time_us"`
}

// Evidence is one kernel a pattern was seen with.
type Evidence struct {
	Kernel   string `json:"kernel"`
	Category string `json:"category"`
	TimeUS   us     `json:"time_us"`
	Location string `json:"python_location"`
}

// Row is one line of the Fuse Opportunity Table.
type Row struct {
	Stage       string     `json:"stage"`
	Pattern     string     `json:"pattern"`
	Confidence  string     `json:"confidence"` // Likely | Conditional | Already fused
	RelatedUS   us         `json:"related_us"`
	Share       ratio      `json:"share"` // of the stage's GPU time
	Occurrences int        `json:"occurrences"`
	Evidence    []Evidence `json:"evidence_kernels"`
	Locations   []string   `json:"python_locations"`
	Candidate   string     `json:"candidate_path"`
	Rationale   string     `json:"rationale"`
}

func (d *detector) evidence(p *patternAcc, limit int) ([]Evidence, []string) {
	ids := make([]int32, 0, len(p.byCanon))
	for c := range p.byCanon {
		ids = append(ids, c)
	}
	slices.SortFunc(ids, func(x, y int32) int {
		if c := cmp.Compare(p.byCanon[y], p.byCanon[x]); c != 0 {
			return c
		}
		return strings.Compare(d.canons[x], d.canons[y])
	})
	var ev []Evidence
	var locs []string
	for _, c := range ids[:min(limit, len(ids))] {
		loc := ""
		if d.opt.Locate != nil {
			loc = d.opt.Locate(d.canons[c])
		}
		ev = append(ev, Evidence{Kernel: d.canons[c], Category: d.cats[c], TimeUS: us(p.byCanon[c]), Location: loc})
		if loc != "" && !slices.Contains(locs, loc) && len(locs) < 3 {
			locs = append(locs, loc)
		}
	}
	return ev, locs
}

func (d *detector) has(p *patternAcc, pred func(*kernel) bool) bool {
	for c := range p.byCanon {
		k := kernel{canon: c, cat: d.cats[c], lower: strings.ToLower(d.canons[c])}
		if pred(&k) {
			return true
		}
	}
	return false
}

func (d *detector) rows(stage string, total int64, a *stageAcc) []Row {
	var out []Row
	share := func(t int64) ratio {
		if total <= 0 {
			return 0
		}
		return ratio(float64(t) / float64(total))
	}
	mk := func(p *patternAcc, pattern, conf, cand, why string) Row {
		ev, locs := d.evidence(p, 4)
		return Row{Stage: stage, Pattern: pattern, Confidence: conf, RelatedUS: us(p.time), Share: share(p.time),
			Occurrences: p.n, Evidence: ev, Locations: locs, Candidate: cand, Rationale: why}
	}
	if p := a.pat[patAR]; p != nil {
		arShare := share(a.arTime)
		conf := Conditional
		if arShare >= 0.04 {
			conf = Likely
		}
		cand := "sglang/srt/layers/layernorm.py forward_with_allreduce_fusion → FlashInfer allreduce_fusion (kARResidualRMSNorm); sglang/srt/distributed/communication_op.py tensor_model_parallel_fused_allreduce_rmsnorm"
		if d.rocm {
			cand = "sglang/srt/layers/communicator.py apply_aiter_all_reduce_fusion → sglang/srt/distributed/communication_op.py tensor_model_parallel_fused_allreduce_rmsnorm (AITER all-reduce + RMSNorm)"
		}
		why := "All-reduce is " + pct(arShare) + " of the stage's GPU time (Likely from 4 %); " + strconv.Itoa(p.n) +
			" times an all-reduce is followed on the same stream by the residual add and RMSNorm."
		if p.flags["custom"] {
			why += " The all-reduce is the custom (cross_device_reduce) kernel."
		}
		switch {
		case p.flags["fusednorm"] && d.has(p, fusedAddNorm):
			why += " Residual add + RMSNorm already run as one kernel; what remains is folding the all-reduce into it."
		case p.flags["ladder"]:
			why += " The RMSNorm runs unfused (pow/mean/rsqrt/mul ladder), so a fused norm alone also helps."
		}
		out = append(out, mk(p, patAR, conf, cand, why))
	}
	if p := a.pat[patQKRope]; p != nil && share(p.time) >= 0.01 {
		cand := "sglang/srt/models/utils.py apply_qk_norm → sglang/jit_kernel/fused_qknorm_rope.py fused_qk_norm_rope_out (as in sglang/srt/models/qwen3_moe.py apply_qk_norm_rope)"
		if d.rocm {
			cand = "ROCm/AITER: the fused QK-norm + (m)RoPE + KV-cache-write decode path of sglang/srt/models/qwen3.py; CUDA: sglang/jit_kernel/fused_qknorm_rope.py"
		}
		why := strconv.Itoa(p.n) + " times two RMSNorms (Q and K) are followed by a RoPE kernel on the same stream; one fused kernel would read Q/K once."
		out = append(out, mk(p, patQKRope, Conditional, cand, why))
	}
	if p := a.pat[patQKDone]; p != nil && share(p.time) >= 0.001 {
		out = append(out, mk(p, patQKDone, AlreadyFused, "—", "Q/K norm and RoPE already run in one kernel."))
	}
	if p := a.pat[patNormQuant]; p != nil && share(p.time) >= 0.01 {
		cand := "a fused RMSNorm + quant kernel, e.g. vLLM rms_norm_dynamic_per_token_quant"
		if d.rocm {
			cand = "AITER fused RMSNorm + quant (add_rmsnorm_quant / rmsnorm2d_fwd_with_add_dynamicquant family)"
		}
		out = append(out, mk(p, patNormQuant, Conditional, cand,
			strconv.Itoa(p.n)+" times a norm kernel is directly followed by a quantization kernel on the same stream."))
	}
	if p := a.pat[patAddNorm]; p != nil && share(p.time) >= 0.001 {
		why := "Residual add and RMSNorm already run as one kernel"
		if d.has(p, normWithQuant) {
			why += " (AITER add_rmsnorm_quant family: add + RMSNorm + optional quant)"
		}
		out = append(out, mk(p, patAddNorm, AlreadyFused, "—", why+"; nothing to fuse here."))
	}
	// Elementwise chains, by signature.
	keys := make([]string, 0, len(a.chains))
	for k := range a.chains {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		if c := cmp.Compare(a.chains[y].time, a.chains[x].time); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	shown := 0
	for _, k := range keys {
		p := a.chains[k]
		if share(p.time) < 0.01 || shown >= 5 {
			continue
		}
		shown++
		n := len(a.chainSig[k])
		var pattern, cand, why string
		conf := Conditional
		switch {
		case p.flags["rmsnorm"]:
			pattern = "Unfused RMSNorm (+ residual add) between GEMMs"
			cand = "a fused RMSNorm (sglang/srt/layers/layernorm.py RMSNorm → sgl_kernel fused_add_rmsnorm; vLLM RMSNorm custom op) or torch.compile"
			if d.rocm {
				cand = "AITER rmsnorm2d_fwd_with_add (sglang/srt/layers/layernorm.py forward_hip) or torch.compile"
			}
			why = "The norm runs as a ladder of " + strconv.Itoa(n) + " pointwise/reduce kernels (pow, mean, rsqrt, mul, casts) between two GEMMs"
			if share(p.time) >= 0.04 {
				conf = Likely
			}
		case p.flags["swiglu"]:
			pattern = "Split activation + mul (SwiGLU) between GEMMs"
			cand = "sglang/srt/layers/activation.py SiluAndMul (silu_and_mul); vLLM SiluAndMul"
			why = "The MLP activation and the gate multiply run as " + strconv.Itoa(n) + " separate kernels between the gate/up and down GEMMs"
			if share(p.time) >= 0.04 {
				conf = Likely
			}
		default:
			pattern = "Elementwise chain between GEMMs (" + strconv.Itoa(n) + " kernels)"
			cand = "torch.compile (Inductor) pointwise fusion, or the neighbouring GEMM's epilogue"
			why = strconv.Itoa(n) + " consecutive pointwise kernels between two compute kernels"
		}
		why += "; seen " + strconv.Itoa(p.n) + " times."
		out = append(out, mk(p, pattern, conf, cand, why))
	}
	slices.SortStableFunc(out, func(x, y Row) int {
		rank := func(r Row) int {
			if r.Confidence == AlreadyFused {
				return 1
			}
			return 0
		}
		if c := rank(x) - rank(y); c != 0 {
			return c
		}
		if c := cmp.Compare(y.RelatedUS, x.RelatedUS); c != 0 {
			return c
		}
		return strings.Compare(x.Pattern, y.Pattern)
	})
	return out
}

// JSON returns fuse_opportunities.json.
func (r *Result) JSON() []byte {
	v := *r
	if v.Rows == nil {
		v.Rows = []Row{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":"encoding failed"}` + "\n")
	}
	return buf.Bytes()
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Markdown returns the Fuse Opportunity Table.
func (r *Result) Markdown() []byte {
	var b strings.Builder
	b.WriteString("## Fuse opportunities\n\n")
	b.WriteString("| Stage | Pattern | Confidence | Related GPU time | Share | Evidence kernels | Current kernel Python location | Candidate fused Python path | Rationale |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | --- | --- | --- | --- |\n")
	if len(r.Rows) == 0 {
		b.WriteString("| - | No fusion pattern with its kernels present matched this trace. | - | - | - | - | - | - | - |\n")
	}
	for _, row := range r.Rows {
		var ev []string
		for _, e := range row.Evidence {
			ev = append(ev, "`"+cell(short(e.Kernel, 70))+"` ("+e.TimeUS.String()+" us)")
		}
		loc := "unresolved"
		if len(row.Locations) > 0 {
			loc = cell(strings.Join(row.Locations, "<br>"))
		}
		b.WriteString("| " + strings.Join([]string{row.Stage, cell(row.Pattern), row.Confidence, row.RelatedUS.String() + " us",
			pct(row.Share), strings.Join(ev, "<br>"), loc, cell(row.Candidate), cell(row.Rationale)}, " | ") + " |\n")
	}
	return []byte(b.String())
}
