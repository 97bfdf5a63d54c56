package roofline

import "strings"

// Formulas for the ops LLM serving spends its time in beyond GEMMs:
// attention over a KV cache, cache writes, rotary embeddings, routing,
// gathers and reductions, and the backward ops of training traces.

// isKVAttention: paged / ragged / unified attention and MLA decode ops
// (vLLM, SGLang, AITER, FlashInfer, FlashAttention with a KV cache).
func isKVAttention(lb string) bool {
	return strings.Contains(lb, "paged_attention") || strings.Contains(lb, "unified_attention") ||
		strings.Contains(lb, "decode") && strings.Contains(lb, "att") || strings.Contains(lb, "mla") ||
		strings.Contains(lb, "kvcache") && strings.Contains(lb, "att") || strings.Contains(lb, "batch_decode") ||
		strings.Contains(lb, "extend_attention")
}

// kvAttention models attention of a step's query tokens over their
// sequences' cached keys and values. The lengths are data, not shapes, so
// the cost is per step (cost.at): causal scoring of Σpairs (query, key)
// pairs costs 2·H·(D + Dv) FLOPs each (QKᵀ and PV); each query token reads
// its H·D query and writes its H·Dv output; each key token's K and V are
// read once per layer, Hk·(Dk + Dv) elements — or one shared latent of Dc
// per token for MLA (a single cache tensor), the absorbed form that scores
// against the compressed cache directly.
//
// Shapes: the query is the first 3-D tensor [T, H, D]; an output of
// [T, H, Dv] may come first or after it. Keys come from a cache —
// [blocks, page, Hk, D], or [2, blocks, page, Hk, D] for K and V together —
// or from the step's new keys [T, Hk, D] (vLLM's unified attention).
func kvAttention(s *sig) (cost, bool, string) {
	var three []int
	for _, i := range s.tensors() {
		if d, _ := s.tensor(i); len(d) == 3 && dtypeOf(s.typ(i)) != "" && dtypeOf(s.typ(i)) != "int8" {
			three = append(three, i)
		}
	}
	if len(three) == 0 {
		return cost{}, false, "attention query [T,H,D] not among the arguments"
	}
	q, _ := s.tensor(three[0])
	t, h, d := q[0], q[1], q[2]
	qi, dv := three[0], q[2]
	oi := -1
	var hk, dk, dvk int64
	kvType := ""
	for _, i := range three[1:] {
		x, _ := s.tensor(i)
		switch {
		case x[0] == t && x[1] == h && oi < 0:
			oi, dv = i, x[2]
		case x[0] == t && x[1] < h && hk == 0:
			hk, dk, kvType = x[1], x[2], s.typ(i)
			dvk = dk
		case x[0] == t && x[1] == hk && hk > 0:
			dvk = x[2]
		}
	}
	// Caches win over the new keys: they are what is read.
	caches := 0
	for _, i := range s.tensors() {
		x, _ := s.tensor(i)
		switch {
		case len(x) == 4 && dtypeOf(s.typ(i)) != "":
			if caches == 0 {
				hk, dk, dvk, kvType = x[2], x[3], x[3], s.typ(i)
			}
			caches++
		case len(x) == 5 && x[0] == 2:
			hk, dk, dvk, kvType = x[3], x[4], x[4], s.typ(i)
			caches += 2
		}
	}
	if hk <= 0 || dk <= 0 || h%hk != 0 && hk != 1 {
		return cost{}, false, "attention key/value heads not among the arguments"
	}
	if oi < 0 && qi == three[0] && len(three) > 1 {
		// out passed first with the query's dims: both [T,H,D]
		if x, _ := s.tensor(three[1]); x[0] == t && x[1] == h {
			dv = x[2]
		}
	}
	c := cost{seq: true, rows: float64(t), model: "attention", dtype: dtypeOf(s.typ(qi))}
	c.perPair = 2 * float64(h) * float64(d+dv)
	eq := elemBytes(s.typ(qi))
	c.perQ = float64(h) * float64(d+dv) * eq
	kvElems := float64(hk) * float64(dk+dvk)
	if caches == 1 {
		kvElems = float64(hk) * float64(dk) // MLA: one latent serves as K and V
	}
	c.perK = kvElems * elemBytes(kvType)
	return c, true, ""
}

// isCacheStore: ops that write a step's new keys and values into the cache.
func isCacheStore(lb string) bool {
	for _, k := range []string{"store_cache", "store_kvcache", "reshape_and_cache", "set_kv_buffer", "kv_cache_update",
		"concat_and_cache", "write_to_kv_cache", "save_kv_cache"} {
		if strings.Contains(lb, k) {
			return true
		}
	}
	return false
}

// cacheStore: the T new rows (tensors led by T) are read and written into
// the cache, slot indices read; the cache itself is touched only there.
func cacheStore(s *sig) (cost, bool, string) {
	t := s.tensors()
	if len(t) == 0 {
		return cost{}, false, noTensor
	}
	first, _ := s.tensor(t[0])
	if len(first) == 0 {
		return cost{}, false, "cache write rows not recorded"
	}
	rows := first[0]
	var b float64
	for _, i := range t {
		x, _ := s.tensor(i)
		switch {
		case len(x) >= 2 && x[0] == rows:
			b += 2 * s.bytesOf(i)
		case len(x) == 1 && x[0] == rows:
			b += s.bytesOf(i)
		}
	}
	return cost{bytes: b, dtype: firstDtype(s), model: "elementwise"}, true, ""
}

// rotary: positions [T] read; query and key (tensors led by T) rotated in
// place, read and written; one cos/sin row per token read from the cache
// (any other tensor, [max_positions, rot_dim]).
func rotary(s *sig) (cost, bool, string) {
	t := s.tensors()
	if len(t) == 0 {
		return cost{}, false, noTensor
	}
	rows := intIndex(s, t) // integer positions
	if rows < 0 {
		x, _ := s.tensor(t[0])
		if len(x) == 0 {
			return cost{}, false, "rotary rows not recorded"
		}
		rows = x[0]
	}
	var b float64
	dtype := ""
	for _, i := range t {
		x, _ := s.tensor(i)
		switch {
		case len(x) == 1 && x[0] == rows && dtypeOf(s.typ(i)) == "":
			b += s.bytesOf(i)
		case len(x) >= 1 && x[0] == rows:
			b += 2 * s.bytesOf(i)
			if dtype == "" {
				dtype = dtypeOf(s.typ(i))
			}
		case len(x) >= 1 && x[0] > 0:
			b += float64(rows) * s.bytesOf(i) / float64(x[0])
		}
	}
	return cost{bytes: b, dtype: dtype, model: "elementwise"}, true, ""
}

// gather: rows picked by an index are read once and written once.
// embedding(weight [V, H], indices), index_select(self, dim, index),
// gather(self, dim, index).
func gather(name string, s *sig) (cost, bool, string) {
	var src, idx int
	switch name {
	case "embedding":
		src, idx = 0, 1
	case "index_select":
		src, idx = 0, 2
	default: // gather, take_along_dim: the output has the index's shape
		x, ok1 := s.tensor(0)
		ix, ok2 := s.tensor(2)
		if name == "take_along_dim" {
			ix, ok2 = s.tensor(1)
		}
		if !ok1 || !ok2 || len(x) == 0 {
			return cost{}, false, "gather operands not recorded"
		}
		// The index is often an expanded (stride-0) view: not counted.
		out := float64(numel(ix)) * elemBytes(s.typ(0))
		return cost{bytes: 2 * out, dtype: firstDtype(s), model: "elementwise"}, true, ""
	}
	w, ok1 := s.tensor(src)
	ix, ok2 := s.tensor(idx)
	if !ok1 || !ok2 || len(w) == 0 {
		return cost{}, false, "gather operands not recorded"
	}
	dim := int64(0)
	if name == "index_select" {
		v, ok := intList(s.conc(1))
		if !ok || len(v) != 1 {
			return cost{}, false, "index_select dim not recorded"
		}
		dim = v[0]
		if dim < 0 {
			dim += int64(len(w))
		}
		if dim < 0 || dim >= int64(len(w)) {
			return cost{}, false, "index_select dim out of range"
		}
	}
	if w[dim] <= 0 {
		return cost{}, false, "empty source"
	}
	row := float64(numel(w)/w[dim]) * elemBytes(s.typ(src))
	picked := float64(numel(ix))
	return cost{bytes: s.bytesOf(idx) + 2*picked*row, dtype: dtypeOf(s.typ(src)), model: "elementwise"}, true, ""
}

// convBackward: convolution_backward(grad_output, input, weight,
// bias_sizes, stride, padding, dilation, transposed, output_padding,
// groups, output_mask). The forward's FLOPs are 2·numel(grad_output)·
// numel(weight)/O (every output element is a (C/g)·Πkernel dot product);
// the input gradient (mask[0]) and the weight gradient (mask[1]) each
// cost that again. Bytes: grad_output, input and weight read once, each
// requested gradient written once.
func convBackward(s *sig) (cost, bool, string) {
	g, ok1 := s.tensor(0)
	in, ok2 := s.tensor(1)
	w, ok3 := s.tensor(2)
	if !ok1 || !ok2 || !ok3 || len(w) < 3 || len(g) != len(w) || len(in) != len(w) || w[0] <= 0 {
		return cost{}, false, "convolution_backward operands not recorded"
	}
	if tr, _ := boolArg(s.conc(7)); tr {
		return cost{}, false, "transposed convolution: no formula"
	}
	mask, ok := boolList(s.conc(10))
	if !ok || len(mask) != 3 {
		return cost{}, false, "convolution_backward output_mask not recorded"
	}
	fwd := 2 * float64(numel(g)) * float64(numel(w)/w[0])
	c := cost{dtype: mathDtype(s.typ(0), s.typ(2)), model: "conv"}
	c.bytes = s.bytesOf(0) + s.bytesOf(1) + s.bytesOf(2)
	if mask[0] {
		c.flops += fwd
		c.bytes += s.bytesOf(1)
	}
	if mask[1] {
		c.flops += fwd
		c.bytes += s.bytesOf(2)
	}
	if mask[2] {
		c.bytes += float64(w[0]) * elemBytes(s.typ(0))
	}
	return c, true, ""
}

// sdpaBackwardCausal is where each SDPA backward keeps is_causal.
var sdpaBackwardCausal = map[string]int{
	"_scaled_dot_product_flash_attention_backward":     11,
	"_scaled_dot_product_efficient_attention_backward": 11,
	"_scaled_dot_product_cudnn_attention_backward":     14,
}

// sdpaBackward: grad_out, q, k, v [B,H,S,D] first. The backward runs five
// S×S matmuls to the forward's two (recomputing QKᵀ, then dV, dP, dQ, dK:
// FlashAttention-2, Dao 2023, §3.2), 2.5× the forward FLOPs; bytes dO, O,
// Q, K, V read and dQ, dK, dV written.
func sdpaBackward(name string, s *sig) (cost, bool, string) {
	ci, known := sdpaBackwardCausal[name]
	if !known {
		return cost{}, false, "no formula for aten::" + name
	}
	q, ok1 := s.tensor(1)
	k, ok2 := s.tensor(2)
	v, ok3 := s.tensor(3)
	if !ok1 || !ok2 || !ok3 || len(q) < 3 || len(q) != len(k) || len(k) != len(v) {
		return cost{}, false, "attention operands are not [B,H,S,D]"
	}
	causal, ok := boolArg(s.conc(ci))
	if !ok {
		return cost{}, false, "is_causal not recorded (Concrete Inputs)"
	}
	nd := len(q)
	bh := numel(q[:nd-2])
	f := 2.5 * 2 * float64(bh) * float64(q[nd-2]) * float64(k[nd-2]) * float64(q[nd-1]+v[nd-1])
	if causal {
		f /= 2
	}
	qkv := s.bytesOf(1) + s.bytesOf(2) + s.bytesOf(3)
	out := float64(bh*q[nd-2]*v[nd-1]) * elemBytes(s.typ(1))
	return cost{flops: f, bytes: s.bytesOf(0) + out + 2*qkv, dtype: firstDtype(s), model: "attention"}, true, ""
}

// boolList reads a Concrete Input that holds a bool list ("[True, False]").
func boolList(v string) ([]bool, bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, false
	}
	var out []bool
	for _, f := range strings.Split(v[1:len(v)-1], ",") {
		b, ok := boolArg(strings.TrimSpace(f))
		if !ok {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}

// inductorReads: an Inductor kernel is passed every buffer it reads or
// writes, each counted once — except that with an integer index [T] among
// them (an embedding or a rotary cache fused in), a buffer not led by T
// is gathered from: T of its rows are read, not all of it.
func inductorReads(s *sig) (cost, bool, string) {
	t := s.tensors()
	if len(t) == 0 {
		return cost{}, false, noTensor
	}
	rows := intIndex(s, t)
	led := false
	for _, i := range t {
		if x, _ := s.tensor(i); rows > 0 && len(x) >= 2 && x[0] == rows {
			led = true
		}
	}
	if !led {
		return readsOnly(s, "elementwise")
	}
	var b float64
	for _, i := range t {
		x, _ := s.tensor(i)
		if len(x) >= 2 && x[0] != rows && x[0] > 0 {
			b += float64(rows) * s.bytesOf(i) / float64(x[0])
			continue
		}
		b += s.bytesOf(i)
	}
	return cost{bytes: b, dtype: firstDtype(s), model: "elementwise"}, true, ""
}

// noTensor explains an op without a tensor argument the shapes describe.
const noTensor = "no tensor argument with recorded dims (tensor lists have none)"

// intIndex is the length T of the first integer index tensor [T] (positions,
// token ids) among t, or -1 when there is none.
func intIndex(s *sig, t []int) int64 {
	for _, i := range t {
		if x, _ := s.tensor(i); len(x) == 1 && dtypeOf(s.typ(i)) == "" {
			return x[0]
		}
	}
	return -1
}
