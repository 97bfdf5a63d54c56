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
	}
	d.memo[o.Name] = c
	return c
}

// Analyze detects fusion opportunities in every stage of st.
func Analyze(st *trace.Store, opt Options) *Result {
	d := &detector{st: st, opt: opt, canonIdx: map[string]int32{}, memo: map[uint32]int32{}}
	res := &Result{}
	file, dev, ok := heaviest(st)
	if !ok {
		return res
	}
	d.rocm = isROCm(st)
	res.Vendor = "CUDA"
	if d.rocm {
		res.Vendor = "ROCm"
	}
	type skey struct {
		stage  string
		stream int32
	}
	seqs := map[skey][]kernel{}
	totals := map[string]int64{}
	for i := range st.GPU {
		o := &st.GPU[i]
		if o.File != file || o.Device != dev || !o.Kind.IsGPUWork() {
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
		k := skey{stage, o.Stream}
		// Copies and fills neither break nor join kernel chains; they
		// stay in the sequence for the copy-chain rule only.
		seqs[k] = append(seqs[k], kernel{i: int32(i), dur: o.Dur, canon: c, cat: d.cats[c], lower: strings.ToLower(d.canons[c]),
			copy: o.Kind != trace.KindKernel})
	}
	keys := make([]skey, 0, len(seqs))
	for k := range seqs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y skey) int {
		if c := strings.Compare(x.stage, y.stage); c != 0 {
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

func heaviest(st *trace.Store) (uint16, int32, bool) {
	type fd struct {
		file uint16
		dev  int32
	}
	sum := map[fd]int64{}
	for i := range st.GPU {
		if o := &st.GPU[i]; o.Kind == trace.KindKernel {
			sum[fd{o.File, o.Device}] += o.Dur
		}
	}
	var best fd
	var bt int64 = -1
	for k, v := range sum {
		if v > bt || v == bt && (k.file < best.file || k.file == best.file && k.dev < best.dev) {
			best, bt = k, v
		}
	}
	return best.file, best.dev, bt >= 0
}

// isROCm: HIP launches, or kernels of ROCm-only libraries.
func isROCm(st *trace.Store) bool {
	for i := range st.CPU {
		if k := st.CPU[i].Kind; k == trace.KindRuntime || k == trace.KindDriver {
			n := st.Name(st.CPU[i].Name)
			return strings.HasPrefix(n, "hip")
		}
	}
	for i := range st.GPU {
		if _, v := kernels.ISA(st.Name(st.GPU[i].Name)); v != "" {
			return v == "amd"
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

// ladder: a kernel of PyTorch's unfused RMSNorm (x.pow(2).mean(-1), rsqrt).
func ladderRsqrt(k *kernel) bool { return strings.Contains(k.lower, "rsqrt") }

func isNorm(k *kernel) bool { return k.cat == kernels.CategoryNorm }

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
	time    int64
	n       int
	byCanon map[int32]int64
	flags   map[string]bool
}

type stageAcc struct {
	pat      map[string]*patternAcc
	extra    map[string]int64 // rule → time of context kernels not counted as related (split-K GEMMs)
	arTime   int64            // all all-reduce time in the stage
	chains   map[string]*patternAcc
	chainSig map[string][]int32
}

func newStageAcc() *stageAcc {
	return &stageAcc{pat: map[string]*patternAcc{}, extra: map[string]int64{}, chains: map[string]*patternAcc{}, chainSig: map[string][]int32{}}
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
	}
	for _, f := range flags {
		p.flags[f] = true
	}
}

// scan walks one stream's kernels (copies left out) and feeds the
// catalog's detectors: runs of light kernels between heavy ones, and
// adjacency rules over the whole sequence.
func (d *detector) scan(ks []kernel, a *stageAcc) {
	for i := range ks {
		if isAllReduce(&ks[i]) {
			a.arTime += ks[i].dur
		}
		// Already-fused families, wherever they are.
		if fusedAddNorm(&ks[i]) {
			a.add(a.pat, RuleAddNormQuant, occurrence{ks[i]}, "done")
		}
		if fusedQKNormRope(&ks[i]) {
			a.add(a.pat, RuleQKNormRoPEDone, occurrence{ks[i]}, "done")
		}
		// Split-K GEMM followed by its reduction kernel.
		if i+1 < len(ks) && splitKGEMM(&ks[i]) && splitKReduce(&ks[i+1]) {
			occ := occurrence{ks[i+1]}
			flags := []string{}
			if i+2 < len(ks) && isAdd(&ks[i+2]) {
				occ = append(occ, ks[i+2])
				flags = append(flags, "residual")
			}
			a.add(a.pat, RuleSplitK, occ, flags...)
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
			a.add(a.pat, RuleMoERouting, occurrence(ks[i:j]))
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
		claimed := false
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
				a.add(a.pat, RuleAllReduceNorm, occ, flags...)
				claimed = true
			}
		}
		// Two norms, then RoPE (before attention).
		for r := range run {
			if run[r].cat != kernels.CategoryRoPE {
				continue
			}
			lo := max(0, r-6)
			norms := 0
			for q := lo; q < r; q++ {
				if isNorm(&run[q]) || ladderRsqrt(&run[q]) {
					norms++
				}
			}
			if norms >= 2 {
				first := lo
				for !(isNorm(&run[first]) || ladderRsqrt(&run[first])) {
					first++
				}
				a.add(a.pat, RuleQKNormRoPE, run[first:r+1])
				claimed = true
			}
		}
		// Producer (activation, norm, RoPE, copy) → standalone quantization.
		for q := 1; q < len(run); q++ {
			if !standaloneQuant(&run[q]) {
				continue
			}
			for b := q - 1; b >= max(0, q-2); b-- {
				if kind := producerKind(&run[b]); kind != "" {
					a.add(a.pat, RuleQuantize, run[b:q+1], kind)
					break
				}
			}
		}
		// Sampling after the LM head: a sampling reduction in a run that
		// follows a GEMM.
		if prev >= 0 && ks[prev].cat == kernels.CategoryGEMM {
			if end := samplingEnd(run); end > 0 {
				a.add(a.pat, RuleSampling, run[:end])
				claimed = true
			}
		}
		// Elementwise chain between compute kernels.
		if !claimed && prev >= 0 && next < len(ks) && computeHeavy(ks[prev].cat) && computeHeavy(ks[next].cat) {
			kind := chainKind(run)
			if len(run) >= 3 || kind == "swiglu" {
				sig := make([]byte, 0, 4*len(run))
				ids := make([]int32, len(run))
				for q, k := range run {
					ids[q] = k.canon
					sig = strconv.AppendInt(sig, int64(k.canon), 36)
					sig = append(sig, ',')
				}
				key := kind + ":" + string(sig)
				a.add(a.chains, key, occurrence(run), kind)
				a.chainSig[key] = ids
			}
		}
		i = j
	}
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

// moeRouting: a small MoE kernel (routing, top-k, histogram, padding,
// finalize), not an expert GEMM.
func moeRouting(k *kernel) bool {
	if k.cat != kernels.CategoryMoE {
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
