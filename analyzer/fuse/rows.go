package fuse

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Units as every artifact writes them (analyzer/internal/units).
type (
	us    = units.US
	ratio = units.Ratio
)

func cell(s string) string         { return units.Cell(s) }
func short(s string, n int) string { return units.Short(s, n) }

func pct(r ratio) string { return units.Pct(float64(r)) }

// Result is the fuse opportunity table of one trace.
type Result struct {
	Rows      []Row        `json:"rows"`
	Vendor    string       `json:"vendor"`    // ROCm | CUDA
	Framework string       `json:"framework"` // SGLang | vLLM | xDiT | PyTorch: candidate paths are for this one
	Stages    []StageTotal `json:"stages"`
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
	Rule        string     `json:"rule"` // catalog ID
	Pattern     string     `json:"pattern"`
	Confidence  string     `json:"confidence"` // Likely | Conditional | Already fused
	RelatedUS   us         `json:"related_us"`
	Share       ratio      `json:"share"` // of the stage's GPU time
	Occurrences int        `json:"occurrences"`
	Evidence    []Evidence `json:"evidence_kernels"`
	Locations   []string   `json:"python_locations"`
	Candidate   string     `json:"candidate_path"`
	Rationale   string     `json:"rationale"`
	ops         []int32    // the GPU ops counted (each in one row only)
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
		k := kernel{canon: c, cat: d.cats[c], lower: d.lowers[c]}
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
	mk := func(r *Rule, p *patternAcc, pattern, conf, why string) Row {
		ev, locs := d.evidence(p, 4)
		kind := ""
		for _, k := range []string{"rmsnorm", "swiglu", "pointwise", "inductor"} {
			if p.flags[k] {
				kind = k // "inductor" last: it wins
			}
		}
		return Row{Stage: stage, Rule: r.ID, Pattern: pattern, Confidence: conf, RelatedUS: us(p.time), Share: share(p.time),
			Occurrences: p.n, Evidence: ev, Locations: locs, Candidate: r.Candidate.For(d.rocm, d.fw, kind), Rationale: why,
			ops: p.ops}
	}
	conf := func(r *Rule, s ratio) string {
		switch {
		case r.Fused:
			return AlreadyFused
		case r.LikelyShare > 0 && float64(s) >= r.LikelyShare:
			return Likely
		}
		return Conditional
	}
	seen := func(p *patternAcc) string { return " Seen " + strconv.Itoa(p.n) + " times." }
	for i := range Catalog {
		r := &Catalog[i]
		if r.ID == RuleChain {
			out = append(out, d.chainRows(r, a, share, mk, conf)...)
			continue
		}
		p := a.pat[r.ID]
		if p == nil || float64(share(p.time)) < r.MinShare {
			continue
		}
		why := r.Rationale
		c := conf(r, share(p.time))
		switch r.ID {
		case RuleAllReduceNorm:
			arShare := share(a.arTime)
			c = conf(r, arShare)
			why = "All-reduce is " + pct(arShare) + " of the stage's GPU time (Likely from 4 %); " + strconv.Itoa(p.n) +
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
		case RuleQuantize:
			var kinds []string
			for _, k := range []string{"activation", "norm", "rope", "copy"} {
				if p.flags[k] {
					kinds = append(kinds, k)
				}
			}
			why += " Producers seen: " + strings.Join(kinds, ", ") + "." + seen(p)
		case RuleSplitK:
			why += " The split-K GEMMs themselves take " + us(a.extra[RuleSplitK]).String() + " us; the related time counted here is the reduction"
			if p.flags["residual"] {
				why += " and the residual add that follows it"
			}
			why += "." + seen(p)
		case RuleAddNormQuant:
			if d.has(p, normWithQuant) {
				why += " (AITER add_rmsnorm_quant family: add + RMSNorm + optional quant)"
			}
			why += "; nothing to fuse here."
		case RuleQKNormRoPE, RuleQKNormRoPEDone:
			why = strings.TrimSuffix(why, ".") + "." + seen(p)
		default:
			why += seen(p)
		}
		out = append(out, mk(r, p, r.Pattern, c, why))
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

// chainRows turns elementwise chains, one per kernel signature, into at most
// five rows (largest first).
func (d *detector) chainRows(r *Rule, a *stageAcc, share func(int64) ratio,
	mk func(*Rule, *patternAcc, string, string, string) Row, conf func(*Rule, ratio) string) []Row {
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
	var out []Row
	for _, k := range keys {
		p := a.chains[k]
		if float64(share(p.time)) < r.MinShare || len(out) >= 5 {
			continue
		}
		n := len(a.chainSig[k])
		var pattern, why string
		c := conf(r, share(p.time))
		switch {
		case p.flags["rmsnorm"]:
			pattern = "Unfused RMSNorm (+ residual add) between GEMMs"
			why = "The norm runs as a ladder of " + strconv.Itoa(n) + " pointwise/reduce kernels (pow, mean, rsqrt, mul, casts) between two GEMMs"
		case p.flags["swiglu"]:
			pattern = "Split activation + mul (SwiGLU) between GEMMs"
			why = "The MLP activation and the gate multiply run as " + strconv.Itoa(n) + " separate kernels between the gate/up and down GEMMs"
		default:
			pattern = "Elementwise chain between GEMMs (" + strconv.Itoa(n) + " kernels)"
			why = strconv.Itoa(n) + " consecutive pointwise kernels between two compute kernels"
			c = Conditional
		}
		if p.flags["inductor"] {
			why += " (all generated by torch.compile/Inductor already)"
		}
		why += "; seen " + strconv.Itoa(p.n) + " times. " + r.Rationale
		out = append(out, mk(r, p, pattern, c, why))
	}
	return out
}

// JSON returns fuse_opportunities.json.
func (r *Result) JSON() []byte {
	v := *r
	if v.Rows == nil {
		v.Rows = []Row{}
	}
	return units.JSON(v)
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
			locs := make([]string, len(row.Locations))
			for i, l := range row.Locations {
				locs[i] = units.Text(l)
			}
			loc = strings.Join(locs, "<br>")
		}
		b.WriteString("| " + strings.Join([]string{units.Text(row.Stage), units.Text(row.Pattern), units.Text(row.Confidence), row.RelatedUS.String() + " us",
			pct(row.Share), strings.Join(ev, "<br>"), loc, units.Text(row.Candidate), units.Text(row.Rationale)}, " | ") + " |\n")
	}
	return []byte(b.String())
}
