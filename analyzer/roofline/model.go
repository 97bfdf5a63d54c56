package roofline

import (
	"math"
	"strings"
)

// cost is what one op invocation does: FLOPs and the minimum bytes it must
// move to and from device memory (each operand read once, each result
// written once), and the data type its math runs in.
type cost struct {
	flops, bytes float64
	dtype        string
	model        string // gemm | attention | conv | elementwise | norm | moe | flops-arg
	// An attention op over a KV cache is linear in its step's sequence
	// lengths, which are not its shapes: FLOPs per scored (query, key)
	// pair, bytes per query token and per key token; the step's sums
	// (seqSums) give the counts. seq marks such a cost; rows is the op's
	// query rows (a step with more query tokens is not this op's).
	perPair, perQ, perK, rows float64
	seq                       bool
	// source says where numbers other than the op's own shapes came
	// from (a model config, ops inside the op, the step annotation).
	source string
}

// at adds the step's share to a cost.
func (c cost) at(s seqSums) (flops, bytes float64) {
	return c.flops + c.perPair*s.pairs(), c.bytes + c.perQ*s.sq + c.perK*s.sk
}

// model applies the formula for an op, or says why there is none.
func model(name string, s *sig, flopsArg int64) (cost, bool, string) {
	return withFlops(shapesModel(name, s), s, flopsArg)
}

// modelled is what an op's name and shapes give, before its flops
// argument: the part of model worth memoizing per signature.
type modelled struct {
	c     cost
	ok    bool
	note  string
	final bool // no shapes, or shapes out of range: the flops argument does not apply
}

func shapesModel(name string, s *sig) modelled {
	if !s.ok {
		return modelled{note: "no shapes recorded (profile with record_shapes=True)", final: true}
	}
	base, ns := name, ""
	if i := strings.LastIndex(name, "::"); i >= 0 {
		ns, base = name[:i], name[i+2:]
	}
	c, ok, note := formula(ns, base, s)
	if ok && (c.flops < 0 || c.bytes < 0 || math.IsNaN(c.flops+c.bytes) || math.IsInf(c.flops+c.bytes, 0)) {
		return modelled{note: "shapes out of range", final: true}
	}
	return modelled{c: c, ok: ok, note: note}
}

func withFlops(m modelled, s *sig, flopsArg int64) (cost, bool, string) {
	if m.final {
		return cost{}, false, m.note
	}
	c, ok, note := m.c, m.ok, m.note
	if flopsArg > 0 {
		// The profiler's own estimate (with_flops) wins for FLOPs.
		c.flops, c.model = float64(flopsArg), "flops-arg"
		if c.dtype == "" {
			c.dtype = firstDtype(s)
		}
		return c, true, ""
	}
	return c, ok, note
}

func formula(ns, base string, s *sig) (cost, bool, string) {
	name := base
	if ns != "" {
		name = ns + "::" + base
	}
	if ns == "aten" {
		b := strings.TrimSuffix(base, ".out")
		switch b {
		case "mm", "addmm", "linear", "bmm", "baddbmm", "matmul", "_scaled_mm", "_grouped_mm", "_scaled_grouped_mm":
			return gemm(b, s)
		case "scaled_dot_product_attention", "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
			"_scaled_dot_product_cudnn_attention", "_scaled_dot_product_flash_attention_for_cpu":
			return sdpa(b, s)
		case "conv1d", "conv2d", "conv3d", "convolution", "_convolution", "cudnn_convolution", "miopen_convolution":
			return conv(b, s)
		case "layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm", "group_norm", "native_group_norm",
			"batch_norm", "_batch_norm_impl_index", "softmax", "_softmax", "log_softmax", "_log_softmax":
			return readsPlusOutput(s, "norm")
		case "fill_", "zero_":
			if len(s.tensors()) == 0 {
				return cost{}, false, noTensor
			}
			return cost{bytes: s.bytesOf(s.tensors()[0]), dtype: firstDtype(s), model: "elementwise"}, true, ""
		case "copy_", "_to_copy", "_foreach_copy_":
			return readsOnly(s, "elementwise")
		case "argmax", "argmin", "max", "min", "amax", "amin", "aminmax", "sum", "mean", "prod", "norm", "linalg_vector_norm",
			"std", "var", "any", "all", "logsumexp", "topk", "sort":
			// A reduction reads its input once; its result is at most a
			// row of it and is not counted (a lower bound).
			return readsOnly(s, "elementwise")
		case "embedding", "index_select", "gather", "take_along_dim":
			return gather(b, s)
		case "cumsum", "cumprod":
			return readsPlusOutput(s, "elementwise")
		case "convolution_backward":
			return convBackward(s)
		case "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
			"avg_pool1d", "avg_pool2d", "avg_pool3d":
			return pool(b, s)
		case "max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward", "avg_pool2d_backward", "avg_pool3d_backward":
			return poolBackward(b, s)
		case "native_batch_norm_backward", "cudnn_batch_norm_backward", "miopen_batch_norm_backward", "batch_norm_backward",
			"native_layer_norm_backward", "native_group_norm_backward", "_fused_rms_norm_backward", "_softmax_backward_data",
			"_log_softmax_backward_data":
			return readsPlusOutput(s, "norm")
		case "_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_efficient_attention_backward",
			"_scaled_dot_product_cudnn_attention_backward", "_flash_attention_backward", "_efficient_attention_backward":
			return sdpaBackward(b, s)
		}
		if strings.HasSuffix(b, "_backward") && elementwise[strings.TrimSuffix(b, "_backward")] {
			return readsPlusOutput(s, "elementwise") // grad_out (and the saved input) read, grad_in written
		}
		if elementwise[strings.TrimSuffix(b, "_")] {
			return readsPlusOutput(s, "elementwise")
		}
		return cost{}, false, "no formula for " + name
	}
	lb := strings.ToLower(base)
	switch {
	case strings.HasPrefix(base, "triton_poi_") || strings.HasPrefix(base, "triton_per_") || strings.HasPrefix(base, "triton_red_"):
		return inductorReads(s)
	case strings.Contains(lb, "batch_prefill") || strings.Contains(lb, "varlen"):
		if c, ok, note := varlen(ns+"::"+base, s); ok {
			return c, ok, note
		}
		return kvAttention(s)
	case isKVAttention(lb):
		return kvAttention(s)
	case strings.Contains(lb, "moe") && strings.Contains(lb, "align"), strings.Contains(lb, "topk"), strings.Contains(lb, "top_k"):
		return readsOnly(s, "elementwise") // routing: logits read, ids/weights written
	case isCacheStore(lb):
		return cacheStore(s)
	case strings.Contains(lb, "rotary") || strings.Contains(lb, "rope"):
		return rotary(s)
	case strings.Contains(lb, "allreduce") || strings.Contains(lb, "all_reduce"):
		if strings.Contains(lb, "norm") {
			c, ok, note := customNorm(s)
			c.source = "all-reduce fused with a norm: local memory traffic only (the link is not a roof here)"
			return c, ok, note
		}
		return cost{}, false, "collective: no memory roof (see the collectives)"
	case strings.Contains(lb, "gemm") || strings.Contains(lb, "matmul") || strings.Contains(lb, "scaled_mm") || strings.HasSuffix(lb, "_mm"):
		return customGemm(lb, s)
	case strings.Contains(lb, "rmsnorm") || strings.Contains(lb, "rms_norm") || strings.Contains(lb, "layernorm") || strings.Contains(lb, "layer_norm") ||
		strings.Contains(lb, "groupnorm") || strings.Contains(lb, "group_norm"):
		return customNorm(s)
	case strings.HasSuffix(lb, "_and_mul"):
		t := s.tensors()
		switch len(t) {
		case 0:
			return cost{}, false, noTensor
		case 1: // out = act(x[:, :d]) * x[:, d:]: half the input written
			b := s.bytesOf(t[0])
			return cost{bytes: b * 1.5, dtype: firstDtype(s), model: "elementwise"}, true, ""
		}
		return readsOnly(s, "elementwise")
	}
	return cost{}, false, "no formula for " + name
}

// elementwise lists aten ops whose traffic is their tensor operands read
// once and a result the size of the largest one written once.
var elementwise = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`add sub rsub mul div true_divide floor_divide maximum minimum where pow eq ne lt gt le ge
		remainder fmod bitwise_and bitwise_or bitwise_xor bitwise_not logical_and logical_or logical_not masked_fill lerp
		addcmul addcdiv clamp clamp_min clamp_max neg exp exp2 log log2 log1p expm1 sqrt rsqrt abs sin cos tanh sigmoid
		relu gelu silu erf reciprocal sign sgn floor ceil round trunc frac hardtanh leaky_relu elu softplus threshold mish
		hardswish hardsigmoid square nan_to_num clone contiguous dropout native_dropout`) {
		elementwise[n] = true
	}
}

// readsPlusOutput: every tensor operand read once, plus a result the size
// of the largest operand (in the first operand's type) written once.
func readsPlusOutput(s *sig, kind string) (cost, bool, string) {
	t := s.tensors()
	if len(t) == 0 {
		return cost{}, false, noTensor
	}
	var sum float64
	big := int64(-1)
	for _, i := range t {
		sum += s.bytesOf(i)
		d, _ := s.tensor(i)
		big = max(big, numel(d))
	}
	out := float64(big) * elemBytes(s.typ(t[0]))
	return cost{bytes: sum + out, dtype: firstDtype(s), model: kind}, true, ""
}

// readsOnly: every tensor operand moved once (an out= operand or copy_'s
// destination is among them).
func readsOnly(s *sig, kind string) (cost, bool, string) {
	t := s.tensors()
	if len(t) == 0 {
		return cost{}, false, noTensor
	}
	var sum float64
	for _, i := range t {
		sum += s.bytesOf(i)
	}
	return cost{bytes: sum, dtype: firstDtype(s), model: kind}, true, ""
}

// customNorm: a library norm either writes into a passed output tensor (an
// operand of the input's shape) or returns a new one.
func customNorm(s *sig) (cost, bool, string) {
	t := s.tensors()
	if len(t) == 0 {
		return cost{}, false, noTensor
	}
	first, _ := s.tensor(t[0])
	for _, i := range t[1:] {
		if d, _ := s.tensor(i); equal(d, first) {
			return readsOnly(s, "norm")
		}
	}
	c, ok, note := readsOnly(s, "norm")
	c.bytes += s.bytesOf(t[0])
	return c, ok, note
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstDtype(s *sig) string {
	for _, i := range s.tensors() {
		if d := dtypeOf(s.typ(i)); d != "" {
			return d
		}
	}
	return ""
}

// mathDtype is the type a GEMM's math runs in: the wider operand (bf16
// activations × FP8/FP4 weights dequantize to bf16).
func mathDtype(ta, tb string) string {
	if elemBytes(tb) > elemBytes(ta) {
		ta = tb
	}
	return dtypeOf(ta)
}

func gemm(name string, s *sig) (cost, bool, string) {
	switch name {
	case "mm", "_scaled_mm":
		return gemmAt(s, 0, 1, -1, name == "_scaled_mm")
	case "addmm":
		return gemmAt(s, 1, 2, 0, false)
	case "linear":
		return linear(s)
	case "bmm":
		return bmm(s, 0, 1, -1)
	case "baddbmm":
		return bmm(s, 1, 2, 0)
	case "matmul":
		return matmul(s)
	case "_grouped_mm", "_scaled_grouped_mm":
		return groupedMM(s)
	}
	return cost{}, false, "no formula for aten::" + name
}

// gemmAt: A [M,K] (argument a) × B [K,N] (argument b), optional bias/C.
func gemmAt(s *sig, a, b, bias int, scaled bool) (cost, bool, string) {
	da, ok1 := s.tensor(a)
	db, ok2 := s.tensor(b)
	if !ok1 || !ok2 || len(da) != 2 || len(db) != 2 || da[1] != db[0] {
		return cost{}, false, "GEMM operands are not [M,K]×[K,N]"
	}
	m, k, n := da[0], da[1], db[1]
	outType := s.typ(a)
	if scaled {
		// _scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, …)
		if t, ok := scalarTypeNames[s.conc(6)]; ok {
			outType = t
		}
		bias = 4
	}
	c := cost{flops: 2 * float64(m) * float64(n) * float64(k), dtype: mathDtype(s.typ(a), s.typ(b)), model: "gemm"}
	c.bytes = s.bytesOf(a) + s.bytesOf(b) + float64(m*n)*elemBytes(outType)
	if bias >= 0 {
		c.bytes += s.bytesOf(bias)
	}
	if scaled {
		// scale_a, scale_b: one value (tensorwise), one per row / column
		// (rowwise) or one per block, each read once.
		c.bytes += s.bytesOf(2) + s.bytesOf(3)
	}
	return c, true, ""
}

// linear: x [..., K] × W [N, K] (+ b [N]).
func linear(s *sig) (cost, bool, string) {
	x, ok1 := s.tensor(0)
	w, ok2 := s.tensor(1)
	if !ok1 || !ok2 || len(x) < 1 || len(w) != 2 || x[len(x)-1] != w[1] {
		return cost{}, false, "linear operands are not [...,K]×[N,K]"
	}
	m := numel(x[:len(x)-1])
	n, k := w[0], w[1]
	c := cost{flops: 2 * float64(m) * float64(n) * float64(k), dtype: mathDtype(s.typ(0), s.typ(1)), model: "gemm"}
	c.bytes = s.bytesOf(0) + s.bytesOf(1) + s.bytesOf(2) + float64(m*n)*elemBytes(s.typ(0))
	return c, true, ""
}

// bmm: A [B,M,K] × B [B,K,N] (+ C).
func bmm(s *sig, a, b, cArg int) (cost, bool, string) {
	da, ok1 := s.tensor(a)
	db, ok2 := s.tensor(b)
	if !ok1 || !ok2 || len(da) != 3 || len(db) != 3 || da[2] != db[1] || da[0] != db[0] {
		return cost{}, false, "bmm operands are not [B,M,K]×[B,K,N]"
	}
	bt, m, k, n := da[0], da[1], da[2], db[2]
	c := cost{flops: 2 * float64(bt) * float64(m) * float64(n) * float64(k), dtype: mathDtype(s.typ(a), s.typ(b)), model: "gemm"}
	c.bytes = s.bytesOf(a) + s.bytesOf(b) + float64(bt*m*n)*elemBytes(s.typ(a))
	if cArg >= 0 {
		c.bytes += s.bytesOf(cArg)
	}
	return c, true, ""
}

// matmul follows torch.matmul's cases: vectors promote, leading dims of
// the first operand fold into M, batch dims broadcast.
func matmul(s *sig) (cost, bool, string) {
	da, ok1 := s.tensor(0)
	db, ok2 := s.tensor(1)
	if !ok1 || !ok2 || len(da) == 0 || len(db) == 0 {
		return cost{}, false, "matmul operands are not tensors"
	}
	a, b := da, db
	if len(a) == 1 {
		a = []int64{1, a[0]}
	}
	if len(b) == 1 {
		b = []int64{b[0], 1}
	}
	k := a[len(a)-1]
	if b[len(b)-2] != k {
		return cost{}, false, "matmul inner dimensions differ"
	}
	m, n := a[len(a)-2], b[len(b)-1]
	// Broadcast batch = the larger of the two batch shapes' element counts.
	batch := max(numel(a[:len(a)-2]), numel(b[:len(b)-2]))
	c := cost{flops: 2 * float64(batch) * float64(m) * float64(n) * float64(k), dtype: mathDtype(s.typ(0), s.typ(1)), model: "gemm"}
	c.bytes = s.bytesOf(0) + s.bytesOf(1) + float64(batch*m*n)*elemBytes(s.typ(0))
	return c, true, ""
}

// groupedMM: A [ΣM, K] × B [G, K, N] with group offsets (every row of A
// in one group), or batched A [G, M, K] × B [G, K, N].
func groupedMM(s *sig) (cost, bool, string) {
	da, ok1 := s.tensor(0)
	db, ok2 := s.tensor(1)
	if !ok1 || !ok2 || len(db) != 3 {
		return cost{}, false, "grouped GEMM shapes not [ΣM,K]×[G,K,N]"
	}
	var rows int64
	switch {
	case len(da) == 2 && da[1] == db[1]:
		rows = da[0]
	case len(da) == 3 && da[0] == db[0] && da[2] == db[1]:
		rows = da[0] * da[1]
	default:
		return cost{}, false, "grouped GEMM shapes not [ΣM,K]×[G,K,N]"
	}
	k, n := db[1], db[2]
	c := cost{flops: 2 * float64(rows) * float64(n) * float64(k), dtype: mathDtype(s.typ(0), s.typ(1)), model: "gemm"}
	out := s.typ(0)
	if elemBytes(out) < 2 {
		out = "c10::BFloat16"
	}
	c.bytes = s.bytesOf(0) + s.bytesOf(1) + float64(rows*n)*elemBytes(out)
	return c, true, ""
}

// customGemm models a library GEMM op (aiter, vLLM, sgl-kernel …) from its
// first 2-D tensor operands: A [M,K] and B as [N,K] or [K,N]; an output
// operand passed first ([M,N]) is recognised by its shape. Packed FP4
// operands (two values per byte) have half the logical K in their dims.
func customGemm(name string, s *sig) (cost, bool, string) {
	var mats []int
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); len(d) == 2 {
			mats = append(mats, i)
		}
	}
	if len(mats) < 2 {
		return cost{}, false, "GEMM without two matrix operands"
	}
	fp4 := strings.Contains(name, "fp4") || strings.Contains(name, "a4w4")
	try := func(a, b int) (m, n, k int64, ok bool) {
		da, _ := s.tensor(a)
		db, _ := s.tensor(b)
		ka := da[1]
		m = da[0]
		unpack := func(i int, k int64) int64 {
			if fp4 && elemBytes(s.typ(i)) == 1 || strings.HasPrefix(s.typ(i), "c10::Float4_") {
				return 2 * k
			}
			return k
		}
		ka = unpack(a, ka)
		switch {
		case unpack(b, db[1]) == ka:
			return m, db[0], ka, true
		case unpack(b, db[0]) == ka && !(fp4 && elemBytes(s.typ(b)) == 1):
			return m, db[1], ka, true
		}
		return 0, 0, 0, false
	}
	a, b, out := mats[0], mats[1], -1
	m, n, k, ok := try(a, b)
	if len(mats) >= 3 {
		if m2, n2, k2, ok2 := try(mats[1], mats[2]); ok2 {
			if d0, _ := s.tensor(mats[0]); d0[0] == m2 && d0[1] == n2 {
				a, b, out, m, n, k, ok = mats[1], mats[2], mats[0], m2, n2, k2, true
			}
		}
	}
	if !ok {
		return cost{}, false, "GEMM operand shapes do not chain"
	}
	c := cost{flops: 2 * float64(m) * float64(n) * float64(k), dtype: mathDtype(s.typ(a), s.typ(b)), model: "gemm"}
	if fp4 && c.dtype == "int8" {
		c.dtype = "fp4"
	}
	c.bytes = s.bytesOf(a) + s.bytesOf(b)
	// Scales (per tensor, row, block or 32-value group) and a bias are
	// read once: the other operands of at most 2 dims and no more
	// elements than the weight.
	nb := numel(func() []int64 { d, _ := s.tensor(b); return d }())
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); i != a && i != b && i != out && len(d) <= 2 && numel(d) <= nb {
			c.bytes += s.bytesOf(i)
		}
	}
	if out >= 0 {
		c.bytes += s.bytesOf(out)
	} else {
		// The result is returned, in the activation type; 8-bit and
		// narrower inputs return bf16 (what these kernels produce).
		t := s.typ(a)
		if elemBytes(t) < 2 {
			t = "c10::BFloat16"
		}
		c.bytes += float64(m*n) * elemBytes(t)
	}
	return c, true, ""
}

// sdpaCausal is where each SDPA variant's is_causal argument sits.
var sdpaCausal = map[string]int{
	"scaled_dot_product_attention":                5, // q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa
	"_scaled_dot_product_flash_attention":         4, // q, k, v, dropout_p, is_causal, return_debug_mask, scale
	"_scaled_dot_product_flash_attention_for_cpu": 4,
	"_scaled_dot_product_efficient_attention":     6, // q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale
	"_scaled_dot_product_cudnn_attention":         6, // q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, …
}

// sdpa: q [B,H,Sq,D], k [B,Hk,Sk,D], v [B,Hk,Sk,Dv]: QKᵀ and PV are
// 2·B·H·Sq·Sk·D and 2·B·H·Sq·Sk·Dv FLOPs, halved when causal; bytes
// Q + K + V + O.
func sdpa(name string, s *sig) (cost, bool, string) {
	q, ok1 := s.tensor(0)
	k, ok2 := s.tensor(1)
	v, ok3 := s.tensor(2)
	if !ok1 || !ok2 || !ok3 || len(q) < 3 || len(q) != len(k) || len(k) != len(v) {
		return cost{}, false, "attention operands are not [B,H,S,D]"
	}
	nd := len(q)
	bh := numel(q[:nd-2])
	sq, d := q[nd-2], q[nd-1]
	sk, dv := k[nd-2], v[nd-1]
	causal, known := boolArg(s.conc(sdpaCausal[name]))
	if !known {
		return cost{}, false, "is_causal not recorded (Concrete Inputs)"
	}
	f := 2 * float64(bh) * float64(sq) * float64(sk) * float64(d+dv)
	if causal {
		f /= 2
	}
	c := cost{flops: f, dtype: firstDtype(s), model: "attention"}
	c.bytes = s.bytesOf(0) + s.bytesOf(1) + s.bytesOf(2) + float64(bh*sq*dv)*elemBytes(s.typ(0))
	return c, true, ""
}

// varlenArgs: where a variable-length attention op keeps cu_seqlens_q,
// max_seqlen_q, max_seqlen_k and causal.
var varlenArgs = []struct {
	suffix                 string
	cu, maxQ, maxK, causal int
}{
	// aiter mha_batch_prefill(q, k, v, cu_seqlens_q, kv_indptr, kv_page_indices, max_seqlen_q,
	// max_seqlen_k, dropout_p, softmax_scale, logits_soft_cap, zero_tensors, is_causal, …)
	{"mha_batch_prefill", 3, 6, 7, 12},
	// flash_attn _flash_attn_varlen_forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
	// max_seqlen_k, dropout_p, softmax_scale, causal, …)
	{"_flash_attn_varlen_forward", 3, 5, 6, 9},
}

// varlen models packed variable-length attention (q [ΣSq, H, D]) only when
// the trace pins every sequence's length: ΣSq = batch × max_seqlen_q and
// max_seqlen_k = max_seqlen_q, i.e. every sequence is max_seqlen long with
// no cached prefix. Otherwise the per-sequence lengths are unknown.
func varlen(name string, s *sig) (cost, bool, string) {
	for _, a := range varlenArgs {
		if !strings.HasSuffix(name, a.suffix) {
			continue
		}
		q, ok1 := s.tensor(0)
		k, ok2 := s.tensor(1)
		cu, ok3 := s.tensor(a.cu)
		mq, okq := intList(s.conc(a.maxQ))
		mk, okk := intList(s.conc(a.maxK))
		causal, okc := boolArg(s.conc(a.causal))
		if !ok1 || !ok2 || !ok3 || !okq || !okk || !okc || len(q) != 3 || len(k) < 2 || len(cu) != 1 || len(mq) != 1 || len(mk) != 1 {
			return cost{}, false, "variable-length attention arguments not recorded"
		}
		batch, sq := cu[0]-1, mq[0]
		if batch <= 0 || q[0] != batch*sq || mk[0] != sq {
			return cost{}, false, "variable-length attention: per-sequence lengths are not in the trace"
		}
		h, d := q[1], q[2]
		hk, dk := k[len(k)-2], k[len(k)-1]
		f := 4 * float64(batch) * float64(h) * float64(sq) * float64(sq) * float64(d)
		if causal {
			f /= 2
		}
		eq := elemBytes(s.typ(0))
		kv := 2 * float64(batch*sq*hk*dk) * elemBytes(s.typ(1)) // only the keys/values of the batch are read
		return cost{flops: f, bytes: 2*float64(q[0]*h*d)*eq + kv, dtype: firstDtype(s), model: "attention"}, true, ""
	}
	return cost{}, false, "no formula for " + name
}

// convArgs: where each convolution op keeps stride, padding, dilation,
// and transposed (-1 = not an argument); groups need no argument: the
// weight's second dimension is already C/groups.
var convArgs = map[string][4]int{
	"conv1d":             {3, 4, 5, -1},
	"conv2d":             {3, 4, 5, -1},
	"conv3d":             {3, 4, 5, -1},
	"convolution":        {3, 4, 5, 6},
	"_convolution":       {3, 4, 5, 6},
	"cudnn_convolution":  {3, 2, 4, -1},
	"miopen_convolution": {4, 3, 5, -1},
}

// conv: input [N, C, spatial…], weight [O, C/g, kernel…]: 2·N·O·Πout·(C/g)·Πkernel
// FLOPs; bytes input + weight (+ bias) + output.
func conv(name string, s *sig) (cost, bool, string) {
	in, ok1 := s.tensor(0)
	w, ok2 := s.tensor(1)
	if !ok1 || !ok2 || len(in) < 3 || len(w) != len(in) {
		return cost{}, false, "convolution operands are not [N,C,…]×[O,C/g,…]"
	}
	a := convArgs[name]
	if a[3] >= 0 {
		if t, _ := boolArg(s.conc(a[3])); t {
			return cost{}, false, "transposed convolution: no formula"
		}
	}
	nsp := len(in) - 2
	get := func(i int) ([]int64, bool) {
		v, ok := intList(s.conc(i))
		if !ok {
			return nil, false
		}
		if len(v) == 1 && nsp > 1 {
			v = slicesRepeat(v[0], nsp)
		}
		return v, len(v) == nsp
	}
	stride, ok3 := get(a[0])
	dil, ok5 := get(a[2])
	var pad []int64
	ok4 := true
	switch p := strings.Trim(s.conc(a[1]), `"'`); p {
	case "valid":
		pad = make([]int64, nsp)
	case "same":
		pad = nil
	default:
		pad, ok4 = get(a[1])
	}
	if !ok3 || !ok4 || !ok5 {
		return cost{}, false, "convolution stride/padding/dilation not recorded"
	}
	for i := range stride {
		if stride[i] <= 0 || dil[i] <= 0 {
			return cost{}, false, "convolution stride/dilation not positive"
		}
	}
	outSp := int64(1)
	for i := 0; i < nsp; i++ {
		x, kk := in[2+i], w[2+i]
		o := x
		if pad != nil {
			o = (x+2*pad[i]-dil[i]*(kk-1)-1)/stride[i] + 1
		}
		if o <= 0 {
			return cost{}, false, "convolution output size not positive"
		}
		outSp *= o
	}
	n, o := in[0], w[0]
	cg := w[1]
	f := 2 * float64(n) * float64(o) * float64(outSp) * float64(cg) * float64(numel(w[2:]))
	c := cost{flops: f, dtype: mathDtype(s.typ(0), s.typ(1)), model: "conv"}
	c.bytes = s.bytesOf(0) + s.bytesOf(1) + float64(n*o*outSp)*elemBytes(s.typ(0))
	if name == "conv1d" || name == "conv2d" || name == "conv3d" || name == "convolution" || name == "_convolution" || name == "miopen_convolution" {
		c.bytes += s.bytesOf(2)
	}
	return c, true, ""
}

func slicesRepeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// pool: a max or average pool over input [N, C, spatial…] (or [C,
// spatial…]) with kernel, stride (empty = the kernel), padding, dilation
// (max pools) and ceil_mode: bytes the input read once, the output
// written once, and for *_with_indices the int64 indices beside it (what
// the GPU kernels write; max_pool2d runs max_pool2d_with_indices on GPUs).
// No FLOPs: comparisons and adds over the window, not multiply-adds.
func pool(name string, s *sig) (cost, bool, string) {
	in, ok := s.tensor(0)
	nsp := 0
	if i := strings.Index(name, "pool"); i >= 0 && i+4 < len(name) {
		nsp = int(name[i+4] - '0')
	}
	if !ok || nsp < 1 || nsp > 3 || len(in) != nsp+1 && len(in) != nsp+2 {
		return cost{}, false, "pool input is not [N,C,spatial…]"
	}
	get := func(i int) ([]int64, bool) {
		v, ok := intList(s.conc(i))
		if !ok {
			return nil, false
		}
		if len(v) == 1 && nsp > 1 {
			v = slicesRepeat(v[0], nsp)
		}
		return v, len(v) == nsp
	}
	maxPool := strings.HasPrefix(name, "max_")
	// max_pool(self, kernel, stride, padding, dilation, ceil_mode);
	// avg_pool(self, kernel, stride, padding, ceil_mode, count_include_pad, …).
	ceilAt := 5
	if !maxPool {
		ceilAt = 4
	}
	kern, ok1 := get(1)
	stride, ok2 := get(2)
	if !ok2 && strings.TrimSpace(s.conc(2)) == "[]" {
		stride, ok2 = kern, ok1
	}
	pad, ok3 := get(3)
	dil, ok4 := slicesRepeat(1, nsp), true
	if maxPool {
		dil, ok4 = get(4)
	}
	ceil, ok5 := boolArg(s.conc(ceilAt))
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return cost{}, false, "pool kernel/stride/padding/dilation/ceil_mode not recorded"
	}
	outSp := int64(1)
	sp := in[len(in)-nsp:]
	for i := range sp {
		if stride[i] <= 0 || dil[i] <= 0 || kern[i] <= 0 {
			return cost{}, false, "pool kernel/stride/dilation not positive"
		}
		// ATen's pooling_output_shape.
		num := sp[i] + 2*pad[i] - dil[i]*(kern[i]-1) - 1
		if ceil {
			num += stride[i] - 1
		}
		o := num/stride[i] + 1
		if ceil && (o-1)*stride[i] >= sp[i]+pad[i] {
			o--
		}
		if o <= 0 {
			return cost{}, false, "pool output size not positive"
		}
		outSp *= o
	}
	out := numel(in[:len(in)-nsp]) * outSp
	c := cost{dtype: firstDtype(s), model: "pool"}
	c.bytes = s.bytesOf(0) + float64(out)*elemBytes(s.typ(0))
	if maxPool {
		c.bytes += float64(out) * 8 // int64 indices
	}
	return c, true, ""
}

// poolBackward: grad_output read (and a max pool's int64 indices, the
// last operand), grad_input (the input's size, grad_output's type)
// written; the saved input itself is not read.
func poolBackward(name string, s *sig) (cost, bool, string) {
	g, ok1 := s.tensor(0)
	in, ok2 := s.tensor(1)
	if !ok1 || !ok2 || len(g) != len(in) {
		return cost{}, false, "pool backward operands are not grad_output, input"
	}
	c := cost{dtype: firstDtype(s), model: "pool"}
	c.bytes = s.bytesOf(0) + float64(numel(in))*elemBytes(s.typ(0))
	if strings.HasPrefix(name, "max_") {
		idx := len(s.dims) - 1
		d, ok := s.tensor(idx)
		if !ok || !equal(d, g) {
			return cost{}, false, "max pool backward without its indices"
		}
		c.bytes += s.bytesOf(idx)
	}
	return c, true, ""
}
