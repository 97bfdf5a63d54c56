package roofline

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// ModelConfig holds the dimensions a model's config.json (Hugging Face
// layout) gives, for ops whose shapes the trace lacks. 0 / "" = not given.
type ModelConfig struct {
	HiddenSize      int64  `json:"hidden_size"`
	Intermediate    int64  `json:"intermediate_size"`
	MoEIntermediate int64  `json:"moe_intermediate_size"`
	Experts         int64  `json:"experts"`
	TopK            int64  `json:"top_k"`
	Heads           int64  `json:"num_attention_heads"`
	KVHeads         int64  `json:"num_key_value_heads"`
	Act             string `json:"hidden_act"`
	Dtype           string `json:"dtype"`
	Quant           string `json:"quant_method"`
}

// ParseModelConfig reads a Hugging Face config.json (a multimodal
// model's text_config when present). The expert count and top-k go by
// several names across model families. A config naming none of the
// dimensions read is an error: the user meant to give something.
func ParseModelConfig(b []byte) (*ModelConfig, error) {
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("model config: %v", err)
	}
	if tc, ok := raw["text_config"].(map[string]any); ok {
		raw = tc
	}
	num := func(keys ...string) int64 {
		for _, k := range keys {
			if v, ok := raw[k].(float64); ok && v > 0 && v < 1<<40 && v == math.Trunc(v) {
				return int64(v)
			}
		}
		return 0
	}
	str := func(m map[string]any, keys ...string) string {
		for _, k := range keys {
			if v, ok := m[k].(string); ok {
				return v
			}
		}
		return ""
	}
	c := &ModelConfig{
		HiddenSize:      num("hidden_size", "d_model", "n_embd"),
		Intermediate:    num("intermediate_size", "ffn_hidden_size"),
		MoEIntermediate: num("moe_intermediate_size", "expert_intermediate_size"),
		Experts:         num("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"),
		TopK:            num("num_experts_per_tok", "num_experts_per_token", "moe_topk", "top_k", "moe_k"),
		Heads:           num("num_attention_heads", "n_head"),
		KVHeads:         num("num_key_value_heads", "num_kv_heads"),
		Act:             str(raw, "hidden_act", "activation"),
		Dtype:           str(raw, "torch_dtype", "dtype"),
	}
	if q, ok := raw["quantization_config"].(map[string]any); ok {
		c.Quant = str(q, "quant_method")
	}
	if *c == (ModelConfig{}) {
		return nil, fmt.Errorf("model config: none of hidden_size, num_attention_heads, num_key_value_heads, num_experts / num_local_experts, num_experts_per_tok, torch_dtype, quantization_config (not a Hugging Face config.json?)")
	}
	return c, nil
}

// isMoE: a mixture-of-experts op (vLLM moe_forward / fused_moe, SGLang,
// AITER/CK fused MoE, Triton matmul_ogs wrappers).
func isMoE(lb string) bool {
	return strings.Contains(lb, "moe") || strings.Contains(lb, "experts")
}

// expertWeight is one expert weight stack [E, a, b] seen in the trace.
type expertWeight struct {
	dims []int64
	typ  string
}

// packedFP4 reports whether an expert weight stores two 4-bit values a
// byte: uint8 or Float4 storage (MXFP4 in vLLM's and AITER's MoE; FP8
// weights have their own Float8 types).
func packedFP4(typ string) bool {
	return typ == "unsigned char" || strings.HasPrefix(typ, "c10::Float4_")
}

// moeCost models a fused / grouped MoE op from the hidden states x [T, H]
// (its first 2-D tensor), the expert count E and top-k, and the expert
// weight stacks: FLOPs 2·T·k·Σ_w (logical elements of w)/E — each token's
// k experts multiply it by every weight of one expert; bytes x read, the
// output [T, H] written, the router logits read, and the weights (and MX
// scales: one E8M0 byte per 32 FP4 values) of the experts touched. Which
// experts a batch touched is data: the expected count under uniform
// routing, E·(1 − (1 − k/E)^T), stands in (TraceLens' estimate), and the
// row says so.
func moeCost(s *sig, e, k int64, ws []expertWeight, src []string) (cost, bool, string) {
	var x []int64
	xi := -1
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); len(d) == 2 && dtypeOf(s.typ(i)) != "" && dtypeOf(s.typ(i)) != "int8" {
			x, xi = d, i
			break
		}
	}
	switch {
	case xi < 0:
		return cost{}, false, "MoE hidden states [T,H] not among the arguments"
	case e <= 0:
		return cost{}, false, "MoE expert count not in the trace (pass --model-config)"
	case k <= 0 || k > e:
		return cost{}, false, "MoE top-k not in the trace (pass --model-config)"
	case len(ws) == 0:
		return cost{}, false, "MoE expert weight shapes not in the trace (pass --model-config)"
	}
	t, h := x[0], x[1]
	var logical, stored, scales float64
	wt := ""
	for _, w := range ws {
		n := float64(numel(w.dims))
		b := n * elemBytes(w.typ)
		if packedFP4(w.typ) {
			n *= 2
			scales += n / 32
		}
		logical += n
		stored += b
		if wt == "" {
			wt = w.typ
		}
	}
	touched := float64(e) * (1 - math.Pow(1-float64(k)/float64(e), float64(t)))
	c := cost{model: "moe", dtype: dtypeOf(s.typ(xi))}
	if !packedFP4(wt) && elemBytes(wt) > elemBytes(s.typ(xi)) {
		c.dtype = dtypeOf(wt)
	}
	c.flops = 2 * float64(t) * float64(k) * logical / float64(e)
	act := float64(t*h) * elemBytes(s.typ(xi))
	c.bytes = 2*act + (stored+scales)*touched/float64(e)
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); i != xi && len(d) == 2 && d[0] == t && d[1] == e {
			c.bytes += s.bytesOf(i) // router logits
		}
	}
	src = append(src, fmt.Sprintf("experts touched: %.1f of %d expected under uniform routing", touched, e))
	c.source = strings.Join(src, "; ")
	return c, true, ""
}

// moe gathers what an MoE op's model needs from its own arguments, the
// ops recorded inside it (vLLM's Triton path views its weight stacks and
// runs a TopK op there) and the model config, and applies moeCost.
func (a *analysis) moe(op int32, s *sig) (cost, bool, string) {
	st := a.st
	var src []string
	var e, k int64
	var t int64 = -1
	var rest [][]int64 // 2-D tensors after x, with float-ness
	var restFloat []bool
	for _, i := range s.tensors() {
		d, _ := s.tensor(i)
		switch {
		case len(d) == 3 && e == 0:
			e = d[0]
			src = append(src, fmt.Sprintf("experts %d: weight stack %v", e, d))
		case len(d) == 2 && t < 0 && dtypeOf(s.typ(i)) != "":
			t = d[0]
		case len(d) == 2 && t >= 0 && d[0] == t:
			rest = append(rest, d)
			restFloat = append(restFloat, dtypeOf(s.typ(i)) != "" && dtypeOf(s.typ(i)) != "int8")
		}
	}
	for j, d := range rest {
		switch {
		case e == 0 && restFloat[j]:
			e = d[1]
			src = append(src, fmt.Sprintf("experts %d: router logits %v", e, d))
		case e > 0 && d[1] < e && k == 0:
			k = d[1]
			src = append(src, fmt.Sprintf("top_k %d: routing tensor %v", k, d))
		}
	}
	var cands []expertWeight
	addW := func(d []int64, typ string) {
		for _, c := range cands {
			if slices.Equal(c.dims, d) && c.typ == typ {
				return
			}
		}
		cands = append(cands, expertWeight{slices.Clone(d), typ})
	}
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); len(d) == 3 {
			addW(d, s.typ(i))
		}
	}
	inner := 0
	sp := &st.CPU[op]
	if n := a.j.CPUNest(sp.File, sp.Track); n != nil {
		p := n.At(st.CPU, sp.TS)
		for p >= 0 && n.Pos[p] != op {
			p = n.Parent[p]
		}
		for q := p + 1; p >= 0 && int(q) < len(n.Pos); q++ {
			c := &st.CPU[n.Pos[q]]
			if c.TS >= sp.End() {
				break
			}
			if c.Kind != trace.KindCPUOp {
				continue
			}
			sh := a.shapesOf(n.Pos[q])
			if sh == nil {
				continue
			}
			is := a.sigs[a.sigNum(*sh)]
			inner++
			if ln := strings.ToLower(st.Name(c.Name)); strings.Contains(ln, "topk") && k == 0 {
				if v, ok := intList(is.conc(1)); ok && len(v) == 1 && v[0] > 0 {
					k = v[0]
					src = append(src, fmt.Sprintf("top_k %d: %s inside the op", k, st.Name(c.Name)))
				}
				if d, ok := is.tensor(0); ok && len(d) == 2 && e == 0 {
					e = d[1]
					src = append(src, fmt.Sprintf("experts %d: %s input %v", e, st.Name(c.Name), d))
				}
			}
			for _, i := range is.tensors() {
				if d, _ := is.tensor(i); len(d) == 3 {
					addW(d, is.typ(i))
				}
			}
		}
	}
	cfg := a.cfg
	if e == 0 && cfg != nil && cfg.Experts > 0 {
		e = cfg.Experts
		src = append(src, fmt.Sprintf("experts %d from the model config", e))
	}
	if k == 0 && cfg != nil && cfg.TopK > 0 {
		k = cfg.TopK
		src = append(src, fmt.Sprintf("top_k %d from the model config", k))
	}
	// Expert weights: stacks led by E, each at least 16 rows of the hidden
	// size (activations [1, T, H] or [T·k, N] are not).
	var h int64
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); len(d) == 2 {
			h = d[1]
			break
		}
	}
	var ws []expertWeight
	var shown []string
	for _, c := range cands {
		if c.dims[0] == e && e > 1 && c.dims[1]*c.dims[2] >= 16*h {
			ws = append(ws, c)
			shown = append(shown, fmt.Sprintf("%v %s", c.dims, c.typ))
		}
	}
	if len(ws) > 0 {
		where := "arguments"
		if inner > 0 {
			where = "arguments and ops inside it"
		}
		w := "expert weights " + strings.Join(shown, " + ") + " from the op's " + where
		if packedFP4(ws[0].typ) {
			w += " (packed FP4, 2 values a byte, an E8M0 scale per 32)"
		}
		src = append(src, w)
	} else if cfg != nil && cfg.HiddenSize > 0 && e > 0 && a.world > 1 {
		// The config's weights are the whole layer's; this rank holds a
		// tensor- or expert-parallel shard of them, which the trace does
		// not say.
		return cost{}, false, fmt.Sprintf("MoE expert weight shapes not in the trace, and the model config's are the whole layer's while this rank holds a 1/%d shard of it (tensor or expert parallel: not in the trace)", a.world)
	} else if cfg != nil && cfg.HiddenSize > 0 && e > 0 {
		n := cfg.MoEIntermediate
		if n == 0 {
			n = cfg.Intermediate
		}
		if n > 0 {
			// gate+up [E, 2N, H] for gated activations, down [E, H, N].
			up := n
			if gatedAct(cfg.Act) {
				up = 2 * n
			}
			typ := configWeightType(cfg)
			ws = []expertWeight{{[]int64{e, up, cfg.HiddenSize}, typ}, {[]int64{e, cfg.HiddenSize, n}, typ}}
			if packedFP4(typ) {
				ws[0].dims[2] /= 2
				ws[1].dims[2] /= 2
			}
			src = append(src, fmt.Sprintf("expert weights from the model config: hidden %d, intermediate %d, %s", cfg.HiddenSize, n, cfg.Act))
		}
	}
	return moeCost(s, e, k, ws, src)
}

func gatedAct(act string) bool {
	switch strings.ToLower(act) {
	case "silu", "swiglu", "swigluoai", "gelu_and_mul", "geglu":
		return true
	}
	return false
}

// configWeightType is the storage type of a config's expert weights.
func configWeightType(c *ModelConfig) string {
	switch strings.ToLower(c.Quant) {
	case "mxfp4", "fp4", "nvfp4":
		return "unsigned char"
	case "fp8", "ptpc_fp8", "fbgemm_fp8":
		return "c10::Float8_e4m3fn"
	}
	switch c.Dtype {
	case "float16":
		return "c10::Half"
	case "float32":
		return "float"
	}
	return "c10::BFloat16"
}
