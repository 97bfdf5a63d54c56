package kernels

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/gputriage/gputriage/internal/fixture"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/classes.golden.tsv and the generated part of RULES.md")

// testdataRoot is the shared test data, relative to this package.
const testdataRoot = "../../../shared/testdata"

// traceDirs are the folders under testdataRoot whose traces are classified.
var traceDirs = []string{"traces", "gpu/traces"}

// maxOtherShare is the largest share of a trace's GPU time that may be "other".
const maxOtherShare = 0.02

// exempt lists traces whose "other" share says nothing about the rules.
var exempt = map[string]string{
	"traces/kineto/docs/traces/before_fix_trace.json": syntheticKineto,
	"traces/kineto/docs/traces/after_fix_trace.json":  syntheticKineto,
}

const syntheticKineto = `synthetic libkineto unit-test output: one 0.02 µs kernel literally named "Kernel"`

// nameCat identifies one distinct GPU activity.
type nameCat struct{ name, cat string }

// gpuTrace is the GPU time of one trace per activity.
type gpuTrace struct {
	path  string              // relative to testdataRoot
	dur   map[nameCat]float64 // summed dur, µs
	total float64
}

var loadTraces = sync.OnceValues(readTraces)

// traces returns the traces under traceDirs that have GPU activities. It
// skips the test in -short mode and when the shared data is absent.
func traces(t *testing.T) []gpuTrace {
	t.Helper()
	if testing.Short() {
		t.Skip("decoding all test traces takes seconds")
	}
	if _, err := os.Stat(testdataRoot); err != nil {
		fixture.Missing(t, "shared test data not available: %v", err)
	}
	ts, err := loadTraces()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func readTraces() ([]gpuTrace, error) {
	var out []gpuTrace
	for _, dir := range traceDirs {
		err := filepath.WalkDir(filepath.Join(testdataRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".json") {
				return err
			}
			tr, err := readTrace(path)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if tr.total > 0 {
				out = append(out, tr)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readTrace sums dur per activity over the complete ("X") GPU events.
func readTrace(path string) (gpuTrace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return gpuTrace{}, err
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return gpuTrace{}, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return gpuTrace{}, err
		}
	}
	type event struct {
		Ph, Cat, Name string
		Dur           float64
	}
	var doc struct {
		TraceEvents []event `json:"traceEvents"`
	}
	// Legacy writers emit a bare array of events. The JSON sidecars
	// (execution_details.json) are arrays too; they hold no GPU events.
	if data = bytes.TrimSpace(data); bytes.HasPrefix(data, []byte("[")) {
		err = json.Unmarshal(data, &doc.TraceEvents)
	} else {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		return gpuTrace{}, err
	}
	rel, _ := filepath.Rel(testdataRoot, path)
	tr := gpuTrace{path: filepath.ToSlash(rel), dur: map[nameCat]float64{}}
	for _, e := range doc.TraceEvents {
		cat := NormalizeCat(e.Cat)
		if e.Ph != "X" || (cat != CatKernel && cat != CatMemcpy && cat != CatMemset) {
			continue
		}
		tr.dur[nameCat{e.Name, cat}] += e.Dur
		tr.total += e.Dur
	}
	return tr, nil
}

// classes caches Classify as callers do.
type classes map[nameCat]Class

func (cs classes) of(a nameCat) Class {
	c, ok := cs[a]
	if !ok {
		c = Classify(a.name, a.cat)
		cs[a] = c
	}
	return c
}

func TestOtherShare(t *testing.T) {
	cs := classes{}
	var table strings.Builder
	for _, tr := range traces(t) {
		var other float64
		var worst []nameCat
		for a, d := range tr.dur {
			if cs.of(a).Category == CategoryOther {
				other += d
				worst = append(worst, a)
			}
		}
		share := other / tr.total
		fmt.Fprintf(&table, "%7.3f%%  %12.1f  %s\n", 100*share, tr.total, tr.path)
		if share <= maxOtherShare {
			continue
		}
		if why, ok := exempt[tr.path]; ok {
			t.Logf("%s: other %.1f%%, exempt: %s", tr.path, 100*share, why)
			continue
		}
		slices.SortFunc(worst, func(a, b nameCat) int { return cmp.Compare(tr.dur[b], tr.dur[a]) })
		var list strings.Builder
		for _, a := range worst[:min(len(worst), 10)] {
			fmt.Fprintf(&list, "\n  %6.2f%%  %s", 100*tr.dur[a]/tr.total, clip(a.name))
		}
		t.Errorf("%s: %.2f%% of GPU time is other (limit %.0f%%); top other kernels:%s",
			tr.path, 100*share, 100*maxOtherShare, list.String())
	}
	t.Logf("share of GPU time (kernel+memcpy+memset dur) classified other:\n  other      GPU µs      trace\n%s", table.String())
}

func TestGolden(t *testing.T) {
	share := map[nameCat]float64{} // largest share of its trace's GPU time
	for _, tr := range traces(t) {
		for a, d := range tr.dur {
			share[a] = max(share[a], d/tr.total)
		}
	}
	acts := make([]nameCat, 0, len(share))
	for a := range share {
		acts = append(acts, a)
	}
	slices.SortFunc(acts, func(a, b nameCat) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.cat, b.cat))
	})
	golden := goldenTable(acts, share, 0)
	if len(golden) > maxGoldenSize {
		golden = goldenTable(acts, share, 0.001)
	}
	checkGolden(t, "testdata/classes.golden.tsv", golden)
}

// maxGoldenSize keeps the golden file reviewable; past it, only activities
// with at least 0.1 % of their trace's GPU time are listed.
const maxGoldenSize = 1500 << 10

// goldenTable lists the class of every activity whose largest share of its
// trace's GPU time is at least minShare.
func goldenTable(acts []nameCat, share map[nameCat]float64, minShare float64) string {
	var b strings.Builder
	b.WriteString("# name\tcat\tcanonical\tcategory\tprovider\tmax_share_%\n")
	for _, a := range acts {
		if share[a] < minShare {
			continue
		}
		c := Classify(a.name, a.cat)
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%.3f\n",
			clip(a.name), a.cat, clip(Canonical(a.name)), c.Category, c.Provider, 100*share[a])
	}
	return b.String()
}

// clip shortens s to at most 200 bytes for the golden file. A clipped name
// ends in "…" and a hash of the whole name, so long names that share a
// prefix (Tensile's Cijk_…) stay distinct.
func clip(s string) string {
	const limit = 200
	s = strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
	if len(s) <= limit {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	suffix := fmt.Sprintf("…%08x", h.Sum32())
	cut := limit - len(suffix)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + suffix
}

// checkGolden compares got with the file at path, or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it with go test -update)", err)
	}
	if string(want) == got {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return ls[i]
		}
		return "(end of file)"
	}
	t.Errorf("%s is stale; run go test -update and review the diff. First difference, line %d:\n- %s\n+ %s",
		path, i+1, line(wl), line(gl))
}

// The part of RULES.md between these markers is generated from the tables.
const (
	generatedBegin = "<!-- BEGIN GENERATED by go test -update from kernels.go; do not edit -->\n"
	generatedEnd   = "<!-- END GENERATED -->\n"
)

func TestRulesDoc(t *testing.T) {
	doc, err := os.ReadFile("RULES.md")
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(doc), generatedBegin)
	_, tail, ok2 := strings.Cut(rest, generatedEnd)
	if !ok1 || !ok2 {
		t.Fatal("RULES.md lacks the generated-section markers")
	}
	got := head + generatedBegin + rulesMarkdown() + generatedEnd + tail
	if got == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile("RULES.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("RULES.md does not match the rule tables; run go test -update")
}

// rulesMarkdown renders the rule and keyword tables as markdown.
func rulesMarkdown() string {
	tables := []struct {
		name string
		kws  []opKeyword
		what string
	}{
		{"ops", ops, "lower-cased canonical name (template arguments included)"},
		{"inductorOps", inductorOps, "lower-cased canonical name of a TorchInductor kernel"},
		{"fbgemmOps", fbgemmOps, "lower-cased canonical name of an FBGEMM kernel"},
	}
	tableOf := func(kws []opKeyword) string {
		for _, tb := range tables {
			if len(kws) > 0 && &kws[0] == &tb.kws[0] {
				return tb.name
			}
		}
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Rule table (first match wins)\n\n")
	b.WriteString("| # | matches the raw or demangled name | category | provider | refined by | seen in |\n")
	b.WriteString("|---:|---|---|---|---|---|\n")
	for i, r := range rules {
		match := "activity cat is `" + r.cat + "`"
		if r.re != nil {
			match = code(r.re.String())
		}
		category := "`" + r.category + "`"
		switch {
		case r.refine != nil && r.category == "":
			category = "(no keyword: next rule)"
		case r.refine != nil:
			category += " if no keyword"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n", i+1, match, category, r.provider, tableOf(r.refine), r.seen)
	}
	for _, tb := range tables {
		fmt.Fprintf(&b, "\n## Op keywords: `%s`\n\nRegexps on the %s; first match wins.\n\n", tb.name, tb.what)
		b.WriteString("| # | category | keywords |\n|---:|---|---|\n")
		for i, kw := range tb.kws {
			fmt.Fprintf(&b, "| %d | `%s` | %s |\n", i+1, kw.category, code(kw.re.String()))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// code formats s as inline code that survives a markdown table cell.
func code(s string) string {
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name, cat string
		want      Class
		from      string // test trace (trace-format.md §0 label) or note
	}{
		// Pitfalls of trace-format.md §11.
		{"_combined_routing_memset", CatKernel, Class{CategoryMoE, ProviderTriton}, "vl-full: a kernel, not a memset"},
		{"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)", CatKernel, Class{CategoryElementwise, ProviderATen}, "a100-graph"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, std::array<char*, 1ul> >(int, at::native::FillFunctor<long>, std::array<char*, 1ul>)", CatKernel, Class{CategoryElementwise, ProviderATen}, "vl-full-cap"},
		{"void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1, ck_tile::ComposedAttention<0u, false> >(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, float, int const*, int const*, int const*, float const*, int, int, int, int, float*, float*, __hip_bfloat16*, float, float, float const*, float const*, float const*, ck_tile::ComposedAttention<0u, false> const*)", CatKernel, Class{CategoryAttention, ProviderAITER}, "sg-decode: AITER's ragged kernel (csrc/cpp_itfs/pa/pa_ragged.cpp.jinja), the only ll4mi kernel with an attention variant"},
		{"void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, __hip_bfloat16, 16, 128, 256, false, 4>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, int, float, int const*, int const*, int, float const*, int, int, int, float*, float*, __hip_bfloat16*, __hip_bfloat16*, int, float const*, float const*)", CatKernel, Class{CategoryAttention, ProviderAITERorVLLM}, "vLLM csrc/rocm/attention.cu and AITER csrc/kernels/attention.cu both define it: the trace's context decides"},
		{"void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 3, false>(__hip_bfloat16*, float const*, float const*, __hip_bfloat16 const*, int const*, int const*, int, int, float const*)", CatKernel, Class{CategoryAttention, ProviderAITERorVLLM}, "sg-decode: the reduce kernel carries no variant"},
		{"_Z39paged_attention_ll4mi_QKV_mfma16_kernelI14__hip_bfloat16S0_LN4vllm18Fp8KVCacheDataTypeE0ES0_Li16ELi128ELi256ELb0ELi4EEvPKT_", CatKernel, Class{CategoryAttention, ProviderAITERorVLLM}, "mangled, global namespace"},
		{"void vllm::paged_attention_v2_kernel<unsigned short, unsigned short, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float*, float*, unsigned short*, unsigned short const*)", CatKernel, Class{CategoryAttention, ProviderVLLM}, "vLLM CUDA paged attention"},
		{"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", CatKernel, Class{CategoryCommunication, ProviderNCCL}, "mi300-ddp"},
		{"create_flashinfer_kv_indices_triton", CatKernel, Class{CategoryIndex, ProviderTriton}, "sg-mixed"},
		{"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&)::{lambda(int)#1})", CatKernel, Class{CategoryElementwise, ProviderATen}, "h100-qwen (params shortened)"},
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CatKernel, Class{CategoryCommunication, ProviderNCCL}, "g-tp0: on the compute stream too"},

		// Memory is decided by the activity category only.
		{"Memcpy DtoD (Device -> Device)", CatMemcpy, Class{CategoryMemory, ProviderCopyEngine}, "sg-decode"},
		{"Memcpy HtoD (Pinned -> Device)", CatMemcpy, Class{CategoryMemory, ProviderCopyEngine}, "a100-graph"},
		{"Memset (Device)", CatMemset, Class{CategoryMemory, ProviderCopyEngine}, "g-tp0"},
		{"Memcpy DtoD (Device -> Device)", CatKernel, Class{CategoryOther, ProviderUnknown}, "never memory by name"},

		// ROCm.
		{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_LBSPPA512_LBSPPB256", CatKernel, Class{CategoryGEMM, ProviderHipBLASLt}, "sg-decode (shortened)"},
		{"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib", CatKernel, Class{CategoryNorm, ProviderAITER}, "sg-decode"},
		{"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i", CatKernel, Class{CategoryActivation, ProviderSGLKernel}, "sg-decode"},
		{"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEENS5_IJLi1ELi128EEEENS5_IJLi1ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb0ELNS_21Rmsnorm2dFusedAddEnumE0ELNS_23Rmsnorm2dFusedQuantEnumE0ELNS_22Rmsnorm2dSensitiveEnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2DEpilogueProblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_", CatKernel, Class{CategoryNorm, ProviderCKTile}, "vl-full"},
		{"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBatchPrefillPipelineQRKSVSAsync", CatKernel, Class{CategoryAttention, ProviderCKTile}, "sg-mixed (truncated: does not demangle)"},
		{"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_34GridwiseGemmMultiD_xdl_cshuffle_v3INS_13tensor_layout4gemm8RowMajorE", CatKernel, Class{CategoryConv, ProviderCK}, "xdit (truncated)"},
		{"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47GridwiseGemm_bk0mk1_bk0nk1_mn_xdlops_bwd_weightILi64EttftLNS_25InMemoryDataOperationEnu", CatKernel, Class{CategoryConv, ProviderCK}, "mi300-ddp (truncated): CK conv backward-weight"},
		{"void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, __hip_bfloat16*, long const*, long, long, long, long, long, int, int, int, float const*, float const*, int)", CatKernel, Class{CategoryIndex, ProviderVLLM}, "vl-full: KV-cache write"},
		{"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", CatKernel, Class{CategoryRoPE, ProviderVLLM}, "vl-full"},
		{"void rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", CatKernel, Class{CategoryRoPE, ProviderUnknown}, "sg-decode"},
		{"void (anonymous namespace)::store_kvcache<2048l, 4, false, long>((anonymous namespace)::StoreKVCacheParams)", CatKernel, Class{CategoryIndex, ProviderSGLKernel}, "sg-decode"},
		{"void (anonymous namespace)::groupnorm_kernel_dispatch_down<__hip_bfloat16, 1024u>(unsigned int, unsigned int, long, float, bool, __hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, float const*, float const*, __hip_bfloat16*)", CatKernel, Class{CategoryNorm, ProviderAITER}, "xdit"},
		{"kernel_unified_attention_3d", CatKernel, Class{CategoryAttention, ProviderTriton}, "vl-full"},
		{"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", CatKernel, Class{CategoryMoE, ProviderTriton}, "vl-full: MoE expert GEMM"},
		{"_topk_forward", CatKernel, Class{CategoryMoE, ProviderTriton}, "vl-full: MoE routing"},
		{"attn_fwd", CatKernel, Class{CategoryAttention, ProviderTriton}, "xdit, mi300-triton, mi300-qwen"},
		{"sage_quant_kernel", CatKernel, Class{CategoryQuantization, ProviderTriton}, "xdit"},
		{"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64_gkgs", CatKernel, Class{CategoryConv, ProviderMIOpen}, "xdit"},
		{"batched_transpose_32x32_half", CatKernel, Class{CategoryElementwise, ProviderMIOpen}, "xdit"},
		{"SubTensorOpWithScalar1d", CatKernel, Class{CategoryElementwise, ProviderMIOpen}, "mi210"},
		{"MIOpenBatchNormBwdSpatial", CatKernel, Class{CategoryNorm, ProviderMIOpen}, "mi300-norm"},
		{"void rocprim::ROCPRIM_400200_NS::detail::trampoline_kernel<rocprim::ROCPRIM_400200_NS::detail::wrapped_scan_config<rocprim::ROCPRIM_400200_NS::default_config, long>, (rocprim::ROCPRIM_400200_NS::detail::target_arch)942>()", CatKernel, Class{CategoryReduction, ProviderCUB}, "sg-mixed (shortened)"},

		// MI355X-era families (issue 10): by family, not by listed names.
		{"__amd_rocclr_fillBufferAligned", CatKernel, Class{CategoryMemory, ProviderROCclr}, "ROCclr blit kernel behind hipMemset"},
		{"__amd_rocclr_copyBuffer", CatKernel, Class{CategoryMemory, ProviderROCclr}, "ROCclr blit kernel behind hipMemcpy"},
		{"__amd_rocclr_copyBufferRectAligned", CatKernel, Class{CategoryMemory, ProviderROCclr}, "hipMemcpy2D"},
		{"__amd_rocclr_streamOpsWait", CatKernel, Class{CategoryOther, ProviderROCclr}, "hipStreamWaitValue: not a copy"},
		{"void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, int, int, int, __hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, int, int)", CatKernel, Class{CategoryGEMM, ProviderVLLM}, "vLLM ROCm skinny GEMM"},
		{"void wvSplitKQ_hf_<__hip_bfloat16, __hip_fp8_e4m3, 64, 2, 16, 16, 2, 4>(int, int, int, int, int, int, int, int, int)", CatKernel, Class{CategoryGEMM, ProviderVLLM}, "vLLM ROCm fp8 skinny GEMM"},
		{"_Z16wvSplitK_hf_sml_I14__hip_bfloat16Li64ELi2ELi16ELi8ELi2ELi1EEviiiiiPKT_S3_S3_PS1_ii", CatKernel, Class{CategoryGEMM, ProviderVLLM}, "mangled"},
		{"_Z16wvSplitK_hf_sml_I14__hip_bfloat16Li64E", CatKernel, Class{CategoryGEMM, ProviderVLLM}, "mangled, truncated"},
		{"void LLGemm1_kernel<__hip_bfloat16, 4>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, int)", CatKernel, Class{CategoryGEMM, ProviderVLLM}, "vLLM ROCm GEMV"},
		{"void aiter::wvSpltK_hf_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, int)", CatKernel, Class{CategoryGEMM, ProviderAITER}, "AITER's copy"},
		{"aiter::mla_dec_stage1_bf16_a16w16_subQ16_mqa16", CatKernel, Class{CategoryAttention, ProviderAITER}, "AITER asm MLA decode"},
		{"_ZN5aiter39mla_dec_stage1_bf16_a16w16_subQ128_mqa128E", CatKernel, Class{CategoryAttention, ProviderAITER}, "mangled"},
		{"aiter::mla_pfl_qh192_vh128_m32x8_n128x1_causal1", CatKernel, Class{CategoryAttention, ProviderAITER}, "AITER asm MLA prefill"},
		{"void aiter::kn_mla_reduce_v1<128, 512>(int)", CatKernel, Class{CategoryAttention, ProviderAITER}, "MLA split-KV reduce"},
		{"aiter::pa_bf16_pertokenFp8_gqa8_2tg_4w", CatKernel, Class{CategoryAttention, ProviderAITER}, "AITER asm paged attention"},
		{"void aiter::paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 16, 128, 256, false, 4>(__hip_bfloat16 const*, float, int const*)", CatKernel, Class{CategoryAttention, ProviderAITER}, "namespace says aiter"},
		{"_ZN5aiter39paged_attention_ll4mi_QKV_mfma16_kernelI14__hip_bfloat16S1_LN4vllm18Fp8KVCacheDataTypeE0ELi16ELi128ELi256ELb0ELi4EEEvPKT_", CatKernel, Class{CategoryAttention, ProviderAITER}, "mangled, truncated"},
		{"_fwd_kernel_stage2_asm", CatKernel, Class{CategoryAttention, ProviderTriton}, "AITER/SGLang Triton MLA decode stage 2"},
		{"gluon_mxfp4_moe_gemm_kernel", CatKernel, Class{CategoryMoE, ProviderGluon}, "Triton Gluon MoE"},
		{"_gluon_bf16_moe_routing", CatKernel, Class{CategoryMoE, ProviderGluon}, "Triton Gluon MoE"},
		{"void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<__hip_bfloat16, quickreduce::CodecQ4<8>, true>, 8>(int, int)", CatKernel, Class{CategoryCommunication, ProviderQuickReduce}, "vLLM/AITER quick all-reduce"},
		{"miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1", CatKernel, Class{CategoryConv, ProviderMIOpen}, "MIOpen asm conv"},
		{"miopenGcnAsmConv1x1U", CatKernel, Class{CategoryConv, ProviderMIOpen}, "MIOpen asm conv"},
		{"void mscclpp::allreduce8<__hip_bfloat16>(__hip_bfloat16*, mscclpp::DeviceHandle<mscclpp::MemoryChannel>*, unsigned long)", CatKernel, Class{CategoryCommunication, ProviderMSCCLPP}, "MSCCL++, not RCCL"},
		{"mscclKernel_Sum_bf16_LL128", CatKernel, Class{CategoryCommunication, ProviderNCCL}, "RCCL's own MSCCL"},
		{"triton_tem_fused_addmm_0", CatKernel, Class{CategoryGEMM, ProviderTriton}, "Inductor GEMM template"},
		{"triton_tem_fused_addmm_relu_t_3", CatKernel, Class{CategoryGEMM, ProviderTriton}, "epilogue is not the op"},
		{"triton_tem_fused__scaled_mm_mul_7", CatKernel, Class{CategoryGEMM, ProviderTriton}, "fp8 GEMM template"},
		{"triton_tem_fused_flex_attention_0", CatKernel, Class{CategoryAttention, ProviderTriton}, "flex attention template"},
		{"triton_tem_fused_convolution_relu_2", CatKernel, Class{CategoryConv, ProviderTriton}, "conv template"},
		// Tensile: rocBLAS or hipBLASLt by the solution name's tokens.
		{"Cijk_Ailk_Bljk_BBS_BH_MT128x64x64_MI32x32x8x1_SN_1LDSB0_APM1_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_BL1_BS1_CLR1_DTVA0_DTVB0_ETSP_EPS1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0", CatKernel, Class{CategoryGEMM, ProviderRocBLAS}, "xdit bmm (shortened)"},
		{"Cijk_Ailk_Bjlk_DB_MT32x64x8_SN_APM1_AF0EM1_AF1EM1_AMAS3_ASBE01_ASEM1_BL1_DTL0_EPS1_FL1_GRVW2_GSU1_ISA906_IU1_K1_KLA_LPA0_LPB0_LDL1_NLCA1_NLCB1_PBD0_PK0_PGR1_PLR1_RK0_SU0_SNLL1_TT4_4_USFGRO0_VAW1_VS1_VW2_WG8_16_1_WGM1", CatKernel, Class{CategoryGEMM, ProviderRocBLAS}, "ROCm 3.x rocBLAS"},
		{"Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_LDSB0_ISA90a", CatKernel, Class{CategoryGEMM, ProviderHipBLASLt}, "mi210"},
		{"Custom_Cijk_Alik_Bljk_BBS_BH_Bias_AS_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_K1_MIWT4_16", CatKernel, Class{CategoryGEMM, ProviderHipBLASLt}, "hipBLASLt custom kernel"},
		{"Cijk_S_BiasS_AS_PostGSU2_VW1", CatKernel, Class{CategoryGEMM, ProviderHipBLASLt}, "hipBLASLt GSU reduction"},
		{"Cijk_Alik_Bljk_HHS_BH_MT64x64x16_SN_ISA942", CatKernel, Class{CategoryGEMM, ProviderTensile}, "no token says which: not guessed"},
		{"void rocblas_gemvt_kernel<256, float>(int, int)", CatKernel, Class{CategoryGEMM, ProviderRocBLAS}, "rocBLAS source kernel"},

		// TorchInductor: the fused ops decide, whatever library they name.
		{"triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_clone_expand_index_mul_neg_slice_transpose_unsqueeze_view_3", CatKernel, Class{CategoryRoPE, ProviderTriton}, "g-compiled: rotate_half feeding SDPA"},
		{"triton_red_fused_add_mean_mul_pow_rsqrt_0", CatKernel, Class{CategoryNorm, ProviderTriton}, "mi300-triton"},
		{"triton_poi_fused__unsafe_view_mul_silu_2", CatKernel, Class{CategoryActivation, ProviderTriton}, "mi300-triton"},
		{"triton_poi_fused_add_cos_sin_0", CatKernel, Class{CategoryRoPE, ProviderTriton}, "a100-triton"},
		{"triton_red_fused_abs_amax_transpose_view_32", CatKernel, Class{CategoryQuantization, ProviderTriton}, "xdit"},
		{"triton_poi_fused__to_copy_1", CatKernel, Class{CategoryElementwise, ProviderTriton}, "vl-full"},
		{"triton__0d1d2d3d", CatKernel, Class{CategoryElementwise, ProviderTriton}, "a100-graph"},

		// NVIDIA.
		{"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", CatKernel, Class{CategoryGEMM, ProviderCuBLAS}, "g-compiled"},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", CatKernel, Class{CategoryGEMM, ProviderCuBLAS}, "h100-qwen"},
		{"volta_sgemm_64x64_nt", CatKernel, Class{CategoryGEMM, ProviderCuBLAS}, "legacy-2021"},
		{"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>(cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1::Params)", CatKernel, Class{CategoryGEMM, ProviderCUTLASS}, "a100-graph"},
		{"volta_scudnn_128x64_relu_interior_nn_v1", CatKernel, Class{CategoryConv, ProviderCuDNN}, "legacy-2021"},
		{"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistage", CatKernel, Class{CategoryConv, ProviderCuDNN}, "a100-nccl (truncated)"},
		{"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)", CatKernel, Class{CategoryNorm, ProviderCuDNN}, "a100-nccl"},
		{"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0", CatKernel, Class{CategoryAttention, ProviderCuDNN}, "g-eager"},
		{"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)", CatKernel, Class{CategoryAttention, ProviderFlashAttention}, "h100-qwen: cutlass only as a type"},
		{"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext", CatKernel, Class{CategoryAttention, ProviderTRTLLM}, "b200"},
		{"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f", CatKernel, Class{CategoryMoE, ProviderTRTLLM}, "b200"},
		{"void tensorrt_llm::kernels::quantize_with_block_size<(tensorrt_llm::BlockScaleQuantizationType)2, __nv_bfloat16, 32, true>(int, int, int, int, __nv_bfloat16 const*, float const*, unsigned int*, unsigned int*, flashinfer::QuantizationSFLayout)", CatKernel, Class{CategoryQuantization, ProviderTRTLLM}, "b200: flashinfer only as a parameter type"},
		{"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)", CatKernel, Class{CategoryNorm, ProviderVLLM}, "b200"},
		{"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)", CatKernel, Class{CategoryCommunication, ProviderSymmMem}, "b200"},
		{"_copy_page_indices_kernel", CatKernel, Class{CategoryIndex, ProviderTriton}, "b200"},
		{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", CatKernel, Class{CategoryCommunication, ProviderNCCL}, "a100-nccl"},
		{"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*, decltype(nullptr) const*, int const*, int const*, int const*, int*, decltype(nullptr)*)", CatKernel, Class{CategoryIndex, ProviderFBGEMM}, "a100-graph"},
		{"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float const*, float const*, int, int, unsigned char*, bool)", CatKernel, Class{CategoryQuantization, ProviderFBGEMM}, "sampled-0"},
		{"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float, int, int>(int, int volatile*, TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float, int, int)", CatKernel, Class{CategoryElementwise, ProviderApex}, "a100-oldflow"},
		{"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)", CatKernel, Class{CategoryReduction, ProviderCUB}, "a100-graph"},

		// ATen ops refined by keyword.
		{"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4, 4>)", CatKernel, Class{CategoryReduction, ProviderATen}, "sg-mixed: sampling"},
		{"void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*, float const*, int, int, int, bool const*, int, bool)", CatKernel, Class{CategoryReduction, ProviderATen}, "xdit"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul>)", CatKernel, Class{CategoryQuantization, ProviderATen}, "g-fp8: cast to fp8"},

		{"Kernel", CatKernel, Class{CategoryOther, ProviderUnknown}, "kineto-before: a placeholder name"},
	}
	for _, tt := range tests {
		if got := Classify(tt.name, tt.cat); got != tt.want {
			t.Errorf("Classify(%.90q, %q) = %+v, want %+v (%s)", tt.name, tt.cat, got, tt.want, tt.from)
		}
	}
}

func TestNormalizeCat(t *testing.T) {
	for in, want := range map[string]string{
		"Kernel": CatKernel, "Memcpy": CatMemcpy, "Memset": CatMemset,
		CatKernel: CatKernel, CatMemcpy: CatMemcpy, "cuda_runtime": "cuda_runtime",
	} {
		if got := NormalizeCat(in); got != want {
			t.Errorf("NormalizeCat(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		// The template stays, the parameter list and "void " go.
		{"void at::native::elementwise_kernel<128, 4, ...>(at::TensorIteratorBase&, ...)",
			"at::native::elementwise_kernel<128, 4, ...>"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul>)",
			"at::native::vectorized_elementwise_kernel<4, at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >"},
		{"void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
			"(anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>"},
		{"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
			"vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>"},
		// Non-template signatures lose their parameters too.
		{"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_Generic"},
		{"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", "cask_cudnn::computeOffsetsKernel"},
		// Mangled names are demangled first.
		{"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
			"aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 64, 8, false, false, true, 1>"},
		// Hex literals become 0xADDR; tile shapes such as MT160x256x64 are not hex.
		{"void foo<0x7f3a2b10>(int*)", "foo<0xADDR>"},
		{"kernel_at_ 0xDEADbeef done", "kernel_at_ 0xADDR done"},
		{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT160x256x64_MI16x16x1_ISA942",
			"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT160x256x64_MI16x16x1_ISA942"},
		// Prose and plain names stay as they are.
		{"Memcpy DtoD (Device -> Device)", "Memcpy DtoD (Device -> Device)"},
		{"Memset (Device)", "Memset (Device)"},
		{"triton_poi_fused_add_cos_sin_0", "triton_poi_fused_add_cos_sin_0"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestDemangle(t *testing.T) {
	const aiter = "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib"
	const want = "void aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 64, 8, false, false, true, 1>(std::bfloat16_t*, std::bfloat16_t*, float*, std::bfloat16_t*, std::bfloat16_t*, std::bfloat16_t*, double, int, int, int, int, int, int, int, bool)"
	tests := []struct{ in, want string }{
		{aiter, want},
		{aiter + ".kd", want}, // kernel-descriptor symbol
		{"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
			"void sgl_hip::activation::act_and_mul_kernel<__hip_bfloat16, &(silu<__hip_bfloat16>)>(__hip_bfloat16*, __hip_bfloat16 const*, int)"},
		{"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefill", "_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefill"}, // truncated
		{"_Z", "_Z"},
		{"Cijk_Alik_Bljk_BBS_BH", "Cijk_Alik_Bljk_BBS_BH"},
		{"void at::native::reduce_kernel<512, 1>(int)", "void at::native::reduce_kernel<512, 1>(int)"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Demangle(tt.in); got != tt.want {
			t.Errorf("Demangle(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	huge := "_ZN5aiter" + strings.Repeat("I", maxMangledLen)
	if got := Demangle(huge); got != huge {
		t.Errorf("Demangle of a %d-byte name changed it", len(huge))
	}
}

func TestISA(t *testing.T) {
	tests := []struct{ name, isa, vendor string }{
		{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_GLS0_ISA942_IU1_K1", "gfx942", "amd"},
		{"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_GSUAMB_ISA90a_IU1_K1_LBSPPA0", "gfx90a", "amd"},
		{"Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_ISA950_IU1", "gfx950", "amd"},
		{"Cijk_Ailk_Bljk_HHS_BH_MT64x64x32_ISA908_SK0", "gfx908", "amd"},
		{"fmha_fwd_hd128_bf16_gfx942_rtz", "gfx942", "amd"},
		{"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "sm90", "nvidia"},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "sm90", "nvidia"},
		{"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0", "sm80", "nvidia"},
		{"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext", "sm100", "nvidia"},
		{"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_tma_clmp_swiGlu_dynBatch_sm100f", "sm100", "nvidia"},
		{"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>(cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1::Params)", "sm80", "nvidia"},
		{"flash_fwd_sm_90_kernel", "sm90", "nvidia"},
		{"volta_sgemm_64x64_nt", "sm70", "nvidia"},
		{"cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "sm80", "nvidia"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, std::array<char*, 1ul> >(int)", "", ""},
		{"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64_gkgs", "", ""},
		{"MIOpenBatchNormBwdSpatial", "", ""},
		{"Memcpy DtoD (Device -> Device)", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		isa, vendor := ISA(tt.name)
		if isa != tt.isa || vendor != tt.vendor {
			t.Errorf("ISA(%.60q) = %q, %q; want %q, %q", tt.name, isa, vendor, tt.isa, tt.vendor)
		}
	}
}

var validCategories = []string{
	CategoryCommunication, CategoryGEMM, CategoryAttention, CategoryMoE, CategoryNorm, CategoryRoPE,
	CategoryActivation, CategoryQuantization, CategoryElementwise, CategoryReduction, CategoryConv,
	CategoryMemory, CategoryIndex, CategoryOther,
}

// FuzzClassify checks that hostile names neither panic nor produce classes
// outside the documented sets, and that results are deterministic.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
		"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefill", "_Z", "_ZZZZ", "void f<(>)", "std::enable_if<",
		"void a<b>(c)(d)", ")(", "Memset (Device)", "triton_poi_fused_", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c := Classify(name, CatKernel)
		if !slices.Contains(validCategories, c.Category) || c.Provider == "" {
			t.Fatalf("Classify(%q) = %+v", name, c)
		}
		if Classify(name, CatKernel) != c || Canonical(name) != Canonical(name) {
			t.Fatalf("non-deterministic result for %q", name)
		}
		ISA(name)
	})
}
