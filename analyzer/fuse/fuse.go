// Package fuse finds kernel-fusion opportunities in a GPU profile (the Fuse
// Opportunity Table of gputriage breakdown and triage), extending the two
// rules of the upstream SGLang skill (trace-format.md §12.2: TP all-reduce
// + residual/RMSNorm, Likely when all-reduce time is ≥ 4 % of the stage,
// else Conditional; Q/K RMSNorm + RoPE at ≥ 1 %) with ROCm awareness and
// evidence from the trace itself.
//
// The rules are data: Catalog (catalog.go) lists each rule's pattern
// name, thresholds, candidate fused paths per runtime and rationale; the
// detectors below only collect occurrences under a rule's ID. Patterns are
// detected from the adjacency of kernel categories on one stream of the
// heaviest GPU, never from model names: all-reduce → residual add →
// RMSNorm, two norms → RoPE, a pointwise producer → standalone
// quantization, chains of light kernels between compute kernels (unfused
// RMSNorm ladder, split SwiGLU, other pointwise ladders), runs of ≥ 3
// copies/fills, split-K GEMM → reduction kernel, LM-head GEMM → sampling
// reductions, runs of ≥ 3 small MoE routing kernels. A pattern needs its
// kernels present. Families that are already fused (AITER
// add_rmsnorm_quant, vLLM fused_add_rms_norm, fused Q/K-norm+RoPE kernels)
// are reported as such instead of being recommended. Custom all-reduce
// (cross_device_reduce) and symmetric-memory all-reduce count as
// all-reduce.
//
// Each GPU op is counted in at most one row (claimOrder: specific patterns
// before chains and already-fused rows), rows cite only the kernels of
// their pattern (an RMSNorm ladder row its pow/mean/rsqrt/mul kernels), and
// candidate paths name only the framework the trace came from
// (DetectFramework: SGLang, vLLM, xDiT, else plain PyTorch).
//
// Output is deterministic: integer nanoseconds, explicit tie-breaks.
package fuse

import (
	"cmp"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Options select the stage and supply the CPU-side attribution.
type Options struct {
	// StageOf returns the stage of st.GPU[i] (e.g. from overlap.Stages);
	// nil puts every op in stage "all".
	StageOf func(i int) string
	// Stage keeps only this stage; "" keeps all.
	Stage string
	// Locate returns the Python location of a canonical kernel name (e.g.
	// overlap.Result.Locate, which carries graph-off mapping onto graph
	// replays); nil or "" means unresolved.
	Locate func(kernel string) string
}

// Confidence levels.
const (
	Likely       = "Likely"
	Conditional  = "Conditional"
	AlreadyFused = "Already fused"
)

// kernel is one GPU op in stream order.
type kernel struct {
	i     int32
	dur   int64
	canon int32
	cat   string
	lower string // lower-cased canonical name
	copy  bool   // a memcpy or memset, not a kernel
}

type detector struct {
	st       *trace.Store
	opt      Options
	rocm     bool
	canons   []string
	canonIdx map[string]int32
	memo     map[uint32]int32
	cats     []string
	lowers   []string // lower-cased canonical names
	fw       string   // the framework the trace came from (Framework*)
}

func (d *detector) canon(o *trace.GPUOp) int32 {
	if c, ok := d.memo[o.Name]; ok {
		return c
	}
	raw := d.st.Name(o.Name)
	cn := kernels.Canonical(raw)
	c, ok := d.canonIdx[cn]
	if !ok {
		c = int32(len(d.canons))
		d.canons = append(d.canons, cn)
		d.canonIdx[cn] = c
		d.cats = append(d.cats, kernels.Classify(raw, o.Kind.String()).Category)
		d.lowers = append(d.lowers, strings.ToLower(cn))
	}
	d.memo[o.Name] = c
	return c
}

// Analyze detects fusion opportunities in every stage of st.
func Analyze(st *trace.Store, opt Options) *Result {
	d := &detector{st: st, opt: opt, canonIdx: map[string]int32{}, memo: map[uint32]int32{}}
	res := &Result{}
	// Each file's heaviest GPU: a store of several files holds one rank's
	// stage files (SGLang's EXTEND and DECODE traces), chains kept per file.
	devOf := st.HeaviestDevices()
	if len(devOf) == 0 {
		return res
	}
	d.rocm = isROCm(st)
	d.fw = DetectFramework(st)
	res.Framework = d.fw
	res.Vendor = "CUDA"
	if d.rocm {
		res.Vendor = "ROCm"
	}
	type skey struct {
		stage  string
		file   uint16
		stream int64
	}
	seqs := map[skey][]kernel{}
	totals := map[string]int64{}
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if d, ok := devOf[o.File]; !ok || o.Device != d || !o.Kind.IsGPUWork() {
				continue
			}
			stage := "all"
			if opt.StageOf != nil {
				if s := opt.StageOf(i); s != "" {
					stage = s
				}
			}
			if opt.Stage != "" && stage != opt.Stage {
				continue
			}
			totals[stage] += o.Dur
			c := d.canon(o)
			k := skey{stage, o.File, o.Stream}
			// Copies and fills neither break nor join kernel chains; they
			// stay in the sequence for the copy-chain rule only.
			seqs[k] = append(seqs[k], kernel{i: int32(i), dur: o.Dur, canon: c, cat: d.cats[c], lower: d.lowers[c],
				copy: o.Kind != trace.KindKernel})
		}
	})
	keys := make([]skey, 0, len(seqs))
	for k := range seqs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y skey) int {
		if c := strings.Compare(x.stage, y.stage); c != 0 {
			return c
		}
		if c := cmp.Compare(x.file, y.file); c != 0 {
			return c
		}
		return cmp.Compare(x.stream, y.stream)
	})
	acc := map[string]*stageAcc{}
	for _, k := range keys {
		ks := seqs[k]
		slices.SortStableFunc(ks, func(x, y kernel) int { return cmp.Compare(st.GPU[x.i].TS, st.GPU[y.i].TS) })
		a := acc[k.stage]
		if a == nil {
			a = newStageAcc()
			acc[k.stage] = a
		}
		d.scanCopies(ks, a)
		kernelsOnly := ks[:0:0]
		for _, x := range ks {
			if !x.copy {
				kernelsOnly = append(kernelsOnly, x)
			}
		}
		d.scan(kernelsOnly, a)
	}
	stages := make([]string, 0, len(totals))
	for s := range totals {
		stages = append(stages, s)
	}
	slices.SortFunc(stages, func(x, y string) int {
		if c := callsite.Rank(x) - callsite.Rank(y); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	for _, s := range stages {
		res.Stages = append(res.Stages, StageTotal{Stage: s, GPUTimeUS: us(totals[s])})
		if a := acc[s]; a != nil {
			res.Rows = append(res.Rows, d.rows(s, totals[s], a)...)
		}
	}
	return res
}

// isROCm: HIP launches, or kernels of ROCm-only libraries.
func isROCm(st *trace.Store) bool {
	for i := range st.CPU {
		if k := st.CPU[i].Kind; k == trace.KindRuntime || k == trace.KindDriver {
			n := st.Name(st.CPU[i].Name)
			return strings.HasPrefix(n, "hip")
		}
	}
	seen := map[uint32]bool{}
	for i := range st.GPU {
		if n := st.GPU[i].Name; !seen[n] {
			seen[n] = true
			if _, v := kernels.ISA(st.Name(n)); v != "" {
				return v == "amd"
			}
		}
	}
	return false
}

// light kernels form chains; everything else bounds them.
func light(cat string) bool {
	switch cat {
	case kernels.CategoryElementwise, kernels.CategoryActivation, kernels.CategoryNorm, kernels.CategoryRoPE,
		kernels.CategoryQuantization, kernels.CategoryReduction, kernels.CategoryIndex:
		return true
	}
	return false
}

func computeHeavy(cat string) bool {
	switch cat {
	case kernels.CategoryGEMM, kernels.CategoryAttention, kernels.CategoryMoE, kernels.CategoryConv:
		return true
	}
	return false
}

func isAllReduce(k *kernel) bool {
	if k.cat != kernels.CategoryCommunication {
		return false
	}
	for _, w := range []string{"allreduce", "all_reduce", "cross_device_reduce", "one_shot", "two_shot"} {
		if strings.Contains(k.lower, w) {
			return true
		}
	}
	return false
}

func customAllReduce(k *kernel) bool {
	return strings.Contains(k.lower, "cross_device_reduce") || strings.Contains(k.lower, "custom_all_reduce") ||
		strings.Contains(k.lower, "quick_all_reduce")
}

// ladderRsqrt: the rsqrt kernel of PyTorch's unfused RMSNorm
// (x.pow(2).mean(-1), rsqrt, mul). An Inductor kernel that holds the mean
// (or variance) as well is a whole norm already fused by torch.compile,
// often with the RoPE that follows (…mean_mul_neg_pow_rsqrt_stack…): not a
// ladder.
func ladderRsqrt(k *kernel) bool {
	if !strings.Contains(k.lower, "rsqrt") {
		return false
	}
	return !(inductorKernel(k) && (strings.Contains(k.lower, "mean") || strings.Contains(k.lower, "var") || strings.Contains(k.lower, "sum")))
}

// inductorKernel: a kernel generated by TorchInductor (triton_poi/red/per_…).
func inductorKernel(k *kernel) bool {
	return strings.HasPrefix(k.lower, "triton_poi_") || strings.HasPrefix(k.lower, "triton_red_") ||
		strings.HasPrefix(k.lower, "triton_per_")
}

func isNorm(k *kernel) bool { return k.cat == kernels.CategoryNorm }

// layoutCopy: ATen's copy_/contiguous kernel (direct_copy_kernel), the
// reshape of a view into contiguous memory, not a computation.
func layoutCopy(k *kernel) bool {
	return k.cat == kernels.CategoryElementwise && strings.Contains(k.lower, "direct_copy_kernel")
}

func fusedAddNorm(k *kernel) bool {
	for _, w := range []string{"add_rmsnorm", "fused_add_rms", "addrmsnorm", "add_rms_norm", "fusedaddrmsnorm", "add_layernorm"} {
		if strings.Contains(k.lower, w) {
			return true
		}
	}
	return false
}

func normWithQuant(k *kernel) bool {
	return isNorm(k) && (strings.Contains(k.lower, "quant") || strings.Contains(k.lower, "fp8") || strings.Contains(k.lower, "mxfp4"))
}

func fusedQKNormRope(k *kernel) bool {
	for _, w := range []string{"qknorm_rope", "qk_norm_rope", "qk_norm_mrope", "qknorm_mrope", "norm_rope", "rmsnorm_rope", "split_qkv_rmsnorm_rope"} {
		if strings.Contains(k.lower, w) {
			return true
		}
	}
	return false
}

func isActivation(k *kernel) bool { return k.cat == kernels.CategoryActivation }

func isMul(k *kernel) bool {
	return k.cat == kernels.CategoryElementwise && (strings.Contains(k.lower, "mul") || strings.Contains(k.lower, "binaryfunctor"))
}

// occurrence of a pattern: its kernels.
type occurrence []kernel

type patternAcc struct {
	ops     []int32 // the GPU ops counted, for the one-row-per-kernel check
	time    int64
	n       int
	byCanon map[int32]int64
	flags   map[string]bool
}

type stageAcc struct {
	claimed  map[int32]bool // GPU ops already counted in a row
	pat      map[string]*patternAcc
	extra    map[string]int64 // rule → time of context kernels not counted as related (split-K GEMMs)
	arTime   int64            // all all-reduce time in the stage
	chains   map[string]*patternAcc
	chainSig map[string][]int32
}

func newStageAcc() *stageAcc {
	return &stageAcc{claimed: map[int32]bool{}, pat: map[string]*patternAcc{}, extra: map[string]int64{}, chains: map[string]*patternAcc{}, chainSig: map[string][]int32{}}
}

func (a *stageAcc) add(m map[string]*patternAcc, key string, occ occurrence, flags ...string) {
	p := m[key]
	if p == nil {
		p = &patternAcc{byCanon: map[int32]int64{}, flags: map[string]bool{}}
		m[key] = p
	}
	p.n++
	for _, k := range occ {
		p.time += k.dur
		p.byCanon[k.canon] += k.dur
		p.ops = append(p.ops, k.i)
	}
	for _, f := range flags {
		p.flags[f] = true
	}
}

// pending is an occurrence a detector found, before kernels are assigned
// to rows.
type pending struct {
	rule  string
	occ   occurrence
	flags []string
}

// claimOrder is the order occurrences get their kernels: a kernel counts in
// at most one row, so specific patterns (all-reduce + norm, Q/K norm +
// RoPE) take their kernels before the generic chain and the
// already-fused rows (an AITER add_rmsnorm_quant used as the Q/K norm is not
// a residual add + RMSNorm).
var claimOrder = []string{RuleAllReduceNorm, RuleQKNormRoPE, RuleSplitK, RuleSampling, RuleMoERouting,
	RuleQuantize, RuleQKNormRoPEDone, RuleAddNormQuant, RuleChain}

// scan walks one stream's kernels (copies left out) and feeds the
// catalog's detectors: runs of light kernels between heavy ones, and
// adjacency rules over the whole sequence. Each kernel ends up in at most
// one occurrence (claimOrder).
func (d *detector) scan(ks []kernel, a *stageAcc) {
	var found []pending
	emit := func(rule string, occ occurrence, flags ...string) {
		found = append(found, pending{rule, slices.Clone(occ), flags})
	}
	for i := range ks {
		if isAllReduce(&ks[i]) {
			a.arTime += ks[i].dur
		}
		// Already-fused families, wherever they are.
		if fusedAddNorm(&ks[i]) {
			emit(RuleAddNormQuant, occurrence{ks[i]}, "done")
		}
		if fusedQKNormRope(&ks[i]) {
			emit(RuleQKNormRoPEDone, occurrence{ks[i]}, "done")
		}
		// Split-K GEMM followed by its reduction kernel.
		if i+1 < len(ks) && splitKGEMM(&ks[i]) && splitKReduce(&ks[i+1]) {
			occ := occurrence{ks[i+1]}
			flags := []string{}
			if i+2 < len(ks) && isAdd(&ks[i+2]) {
				occ = append(occ, ks[i+2])
				flags = append(flags, "residual")
			}
			emit(RuleSplitK, occ, flags...)
			a.extra[RuleSplitK] += ks[i].dur
		}
	}
	// MoE routing: ≥ 3 consecutive small MoE kernels (not expert GEMMs).
	for i := 0; i < len(ks); {
		if !moeRouting(&ks[i]) {
			i++
			continue
		}
		j := i
		for j < len(ks) && moeRouting(&ks[j]) {
			j++
		}
		if j-i >= 3 {
			emit(RuleMoERouting, occurrence(ks[i:j]))
		}
		i = j
	}
	for i := 0; i < len(ks); {
		if !light(ks[i].cat) {
			i++
			continue
		}
		j := i
		for j < len(ks) && light(ks[j].cat) {
			j++
		}
		prev, next := i-1, j
		run := ks[i:j]
		// All-reduce → (residual add) → RMSNorm.
		if prev >= 0 && isAllReduce(&ks[prev]) {
			if end, fused := normEnd(run, 10); end >= 0 {
				occ := append(occurrence{ks[prev]}, run[:end+1]...)
				flags := []string{}
				if customAllReduce(&ks[prev]) {
					flags = append(flags, "custom")
				}
				if fused {
					flags = append(flags, "fusednorm")
				} else {
					flags = append(flags, "ladder")
				}
				emit(RuleAllReduceNorm, occ, flags...)
			}
		}
		// Two norms, then RoPE (before attention): the norms, the RoPE
		// kernel and the layout copies of the same chain (Qwen3-style
		// apply_qk_norm reshapes Q and K into contiguous heads before each
		// norm: one copy_ kernel ahead of each norm), which a fused
		// QK-norm + RoPE kernel also removes.
		for r := range run {
			if run[r].cat != kernels.CategoryRoPE || fusedQKNormRope(&run[r]) {
				continue
			}
			lo := max(0, r-6)
			first := -1
			for q := lo; q < r; q++ {
				if isNorm(&run[q]) || ladderRsqrt(&run[q]) {
					first = q
					break
				}
			}
			var occ occurrence
			norms := 0
			for q := lo; q < r; q++ {
				switch {
				case isNorm(&run[q]) || ladderRsqrt(&run[q]):
					norms++
					occ = append(occ, run[q])
				case first >= 0 && q >= first-1 && layoutCopy(&run[q]):
					occ = append(occ, run[q])
				}
			}
			if norms >= 2 {
				emit(RuleQKNormRoPE, append(occ, run[r]))
			}
		}
		// Producer (activation, norm, RoPE, copy) → standalone quantization.
		for q := 1; q < len(run); q++ {
			if !standaloneQuant(&run[q]) {
				continue
			}
			for b := q - 1; b >= max(0, q-2); b-- {
				if kind := producerKind(&run[b]); kind != "" {
					emit(RuleQuantize, occurrence{run[b], run[q]}, kind)
					break
				}
			}
		}
		// Sampling after the LM head: a sampling reduction in a run that
		// follows a GEMM.
		if prev >= 0 && ks[prev].cat == kernels.CategoryGEMM {
			if end := samplingEnd(run); end > 0 {
				emit(RuleSampling, run[:end])
			}
		}
		// Chains between compute kernels; what other rules claimed is taken
		// out when the chain is resolved.
		if prev >= 0 && next < len(ks) && computeHeavy(ks[prev].cat) && computeHeavy(ks[next].cat) {
			emit(RuleChain, run)
		}
		i = j
	}
	for _, rule := range claimOrder {
		for _, p := range found {
			if p.rule == rule {
				d.claim(p, a)
			}
		}
	}
}

// claim adds an occurrence whose kernels no earlier occurrence took. A
// chain keeps its runs of consecutive unclaimed kernels that still form a
// chain; any other pattern needs all of its kernels.
func (d *detector) claim(p pending, a *stageAcc) {
	if p.rule == RuleChain {
		for i := 0; i < len(p.occ); {
			if a.claimed[p.occ[i].i] {
				i++
				continue
			}
			j := i
			for j < len(p.occ) && !a.claimed[p.occ[j].i] {
				j++
			}
			d.claimChain(p.occ[i:j], a)
			i = j
		}
		return
	}
	for _, k := range p.occ {
		if a.claimed[k.i] {
			return
		}
	}
	for _, k := range p.occ {
		a.claimed[k.i] = true
	}
	a.add(a.pat, p.rule, p.occ, p.flags...)
}

// claimChain reports a run of light kernels: an unfused RMSNorm ladder
// (only its pow/mean/rsqrt/mul kernels), a split SwiGLU, or a pointwise
// chain of ≥ 3 kernels.
func (d *detector) claimChain(run occurrence, a *stageAcc) {
	kind := chainKind(run)
	if kind == "rmsnorm" {
		run = ladderSpan(run)
	}
	if len(run) < 3 && kind != "swiglu" {
		return
	}
	sig := make([]byte, 0, 4*len(run))
	ids := make([]int32, len(run))
	inductor := true
	for q := range run {
		k := &run[q]
		ids[q] = k.canon
		sig = strconv.AppendInt(sig, int64(k.canon), 36)
		sig = append(sig, ',')
		inductor = inductor && inductorKernel(k)
		a.claimed[k.i] = true
	}
	flags := []string{kind}
	if inductor {
		flags = append(flags, "inductor")
	}
	key := kind + ":" + string(sig)
	a.add(a.chains, key, run, flags...)
	a.chainSig[key] = ids
}

// ladderSpan trims a run holding an unfused RMSNorm to the ladder: from the
// first pow/mean kernel before the rsqrt to the multiplies and casts after it.
func ladderSpan(run occurrence) occurrence {
	r := slices.IndexFunc(run, func(k kernel) bool { return ladderRsqrt(&k) })
	if r < 0 {
		return nil
	}
	lo := r
	for q := r - 1; q >= max(0, r-4); q-- {
		if ladderPiece(&run[q]) {
			lo = q
		}
	}
	hi := r
	for hi+1 < len(run) && hi+1 <= r+3 && run[hi+1].cat == kernels.CategoryElementwise {
		hi++
	}
	return run[lo : hi+1]
}

// ladderPiece: a kernel of PyTorch's x.pow(2).mean(-1, keepdim=True) + eps.
func ladderPiece(k *kernel) bool {
	if k.cat != kernels.CategoryElementwise && k.cat != kernels.CategoryReduction {
		return false
	}
	for _, w := range []string{"pow", "mean", "add", "square"} {
		if strings.Contains(k.lower, w) {
			return true
		}
	}
	return false
}

// scanCopies finds runs of ≥ 3 memcpy/memset operations with no kernel
// between them on one stream.
func (d *detector) scanCopies(ks []kernel, a *stageAcc) {
	for i := 0; i < len(ks); {
		if !ks[i].copy {
			i++
			continue
		}
		j := i
		for j < len(ks) && ks[j].copy {
			j++
		}
		if j-i >= 3 {
			a.add(a.pat, RuleCopyChain, occurrence(ks[i:j]))
		}
		i = j
	}
}

func splitKGEMM(k *kernel) bool {
	return k.cat == kernels.CategoryGEMM && (strings.Contains(k.lower, "splitk") || strings.Contains(k.lower, "split_k"))
}

func splitKReduce(k *kernel) bool {
	for _, w := range []string{"splitkreduce", "split_k_reduce", "splitk_reduce", "postgsu", "reduce_splitk"} {
		if strings.Contains(k.lower, w) {
			return true
		}
	}
	return false
}

func isAdd(k *kernel) bool {
	return k.cat == kernels.CategoryElementwise && strings.Contains(k.lower, "add")
}

// moeRouting: a small MoE routing kernel (top-k, histogram, offsets,
// memsets), not an expert GEMM, and not an Inductor kernel that only carries
// moe_forward in its name because Inductor compiled the code around the
// custom op (triton_poi_fused_constant_pad_nd_moe_forward_0 pads the
// activations).
func moeRouting(k *kernel) bool {
	if k.cat != kernels.CategoryMoE || inductorKernel(k) {
		return false
	}
	for _, w := range []string{"matmul", "gemm", "bmm", "fused_moe_kernel", "moe_mlp", "expert_gemm", "finalize"} {
		if strings.Contains(k.lower, w) {
			return false
		}
	}
	return true
}

// standaloneQuant: a quantization kernel that is not a norm with fused quant.
func standaloneQuant(k *kernel) bool {
	return k.cat == kernels.CategoryQuantization && !strings.Contains(k.lower, "norm") && !strings.Contains(k.lower, "act_and_mul")
}

// producerKind names what kind of pointwise kernel can absorb a following
// quantization, or "".
func producerKind(k *kernel) string {
	switch {
	case k.cat == kernels.CategoryActivation:
		return "activation"
	case isNorm(k) || ladderRsqrt(k):
		return "norm"
	case k.cat == kernels.CategoryRoPE:
		return "rope"
	case k.cat == kernels.CategoryElementwise:
		return "copy"
	}
	return ""
}

var samplingWords = []string{"argmax", "topk", "top_k", "top_p", "sampling", "multinomial", "gumbel", "sampler", "min_p"}

// samplingEnd returns how many kernels from the start of run belong to a
// sampling tail (0: none): up to the sampling reduction and the index /
// mask / cast kernels that follow it, stopping at the next step's norm or
// embedding lookup.
func samplingEnd(run []kernel) int {
	at := -1
	for q := 0; q < len(run) && q < 4; q++ {
		if run[q].cat != kernels.CategoryReduction {
			continue
		}
		for _, w := range samplingWords {
			if strings.Contains(run[q].lower, w) {
				at = q
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return 0
	}
	end := at + 1
	for end < len(run) && end <= at+8 {
		k := &run[end]
		if isNorm(k) || ladderRsqrt(k) || strings.Contains(k.lower, "pow_tensor") || strings.Contains(k.lower, "indexselect") ||
			strings.Contains(k.lower, "embedding") || k.cat == kernels.CategoryRoPE {
			break
		}
		end++
	}
	if end < 2 {
		return 0 // a lone reduction is not a chain
	}
	return end
}

// normEnd finds the RMSNorm within the first limit kernels of a run: the
// index of a norm kernel (fused=true), or the end of an unfused ladder
// (rsqrt and the multiplies/casts that follow it).
func normEnd(run []kernel, limit int) (int, bool) {
	for q := 0; q < len(run) && q < limit; q++ {
		if isNorm(&run[q]) {
			return q, true
		}
		if ladderRsqrt(&run[q]) {
			e := q
			for e+1 < len(run) && e+1 <= q+3 && run[e+1].cat == kernels.CategoryElementwise {
				e++
			}
			return e, false
		}
	}
	return -1, false
}

// chainKind names what an elementwise chain most likely is.
func chainKind(run []kernel) string {
	for q := range run {
		if ladderRsqrt(&run[q]) {
			return "rmsnorm"
		}
	}
	for q := 0; q+1 < len(run); q++ {
		if isActivation(&run[q]) && isMul(&run[q+1]) {
			return "swiglu"
		}
	}
	return "pointwise"
}
