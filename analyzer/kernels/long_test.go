package kernels

import (
	"strings"
	"testing"
)

// longNames are hostile names of issue 13: megabytes long, or with
// thousands of template arguments. Classify must give the class the head of
// the name says, in time linear in the name (BenchmarkClassifyLong).
func longNames() []struct {
	name string
	want Class
} {
	const mb = 1 << 20
	manyArgs := func(n int) string {
		return "void at::native::elementwise_kernel<128, 4, " + strings.Repeat("at::native::silu_kernel<c10::BFloat16>, ", n) + "int>(int)"
	}
	return []struct {
		name string
		want Class
	}{
		{strings.Repeat("a", mb), Class{CategoryOther, ProviderUnknown}},
		{strings.Repeat("x", 4*mb), Class{CategoryOther, ProviderUnknown}},
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL" + strings.Repeat("_", 4*mb), Class{CategoryCommunication, ProviderNCCL}},
		{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64" + strings.Repeat("_MI16x16x1", mb/10), Class{CategoryGEMM, ProviderHipBLASLt}},
		{manyArgs(100000), Class{CategoryActivation, ProviderATen}},
		// An end-anchored rule must not match a name cut at the window.
		{"attn_fwd" + strings.Repeat("_x", mb) + "(", Class{CategoryAttention, ProviderUnknown}},
		// A mangled name too long to demangle keeps its library by the mangled namespace.
		{"_ZN5aiter24add_rmsnorm_quant_kernelI" + strings.Repeat("DF16b", mb/5) + "E", Class{CategoryNorm, ProviderAITER}},
		{"_Z1fI" + strings.Repeat("N1a1bE", 2000) + "EvT_", Class{CategoryOther, ProviderUnknown}},
		{"0x" + strings.Repeat("f", 4*mb) + " 0x1", Class{CategoryOther, ProviderUnknown}},
	}
}

func TestClassifyLongNames(t *testing.T) {
	for _, tt := range longNames() {
		if got := Classify(tt.name, CatKernel); got != tt.want {
			t.Errorf("Classify(%.60q… (%d bytes)) = %+v, want %+v", tt.name, len(tt.name), got, tt.want)
		}
		if c := Canonical(tt.name); len(c) > len(tt.name)+64 {
			t.Errorf("Canonical of %d bytes grew to %d", len(tt.name), len(c))
		}
		ISA(tt.name)
	}
	if got, want := Canonical("f<0x7f 0x"+strings.Repeat("a", 1<<20)+">(int)"), "f<0xADDR 0xADDR>"; got != want {
		t.Errorf("Canonical of a long hex literal = %.40q…, want %q", got, want)
	}
}

// BenchmarkClassifyLong times one uncached classification of each hostile
// name (issue 13: a 1 MB name took 2 s natively, 81 s under wazero).
func BenchmarkClassifyLong(b *testing.B) {
	names := longNames()
	var n int64
	for _, tt := range names {
		n += int64(len(tt.name))
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, tt := range names {
			classify(tt.name, CatKernel)
			Canonical(tt.name)
		}
	}
}

// BenchmarkClassifyReal times uncached classification of real-length names.
func BenchmarkClassifyReal(b *testing.B) {
	for b.Loop() {
		for _, n := range realNames {
			classify(n, CatKernel)
		}
	}
}

var realNames = []string{
	"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_LBSPPA512_LBSPPB256",
	"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, std::array<char*, 1ul> >(int, at::native::FillFunctor<long>, std::array<char*, 1ul>)",
	"triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_clone_expand_index_mul_neg_slice_transpose_unsqueeze_view_3",
	"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT",
}

// BenchmarkISA times ISA over real-length names.
func BenchmarkISA(b *testing.B) {
	for b.Loop() {
		for _, n := range realNames {
			ISA(n)
		}
	}
}
