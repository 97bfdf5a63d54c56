package crash

import (
	"strings"
	"testing"
)

// Real AMD_LOG_LEVEL trace lines (URL per case).
func TestExtractCLRTrace(t *testing.T) {
	const cijk4070 = "Cijk_Ailk_Bljk_SB_MT128x96x16_MI32x32x2x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS0_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR0_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB2_GRCGA1_GRCGB1_GRPM1_GRVW2_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPPA0_LBSPPB128_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV1_MDA2_MO40_MMFGLC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR9_SIA1_SS0_SU0_SUM0_SUS0_SCIUI1_SPO0_SRVW0_SSO4_SVW4_SNLL0_TSGRA0_TSGRB0_TT1_96_TLDS1_UMLDSA0_UMLDSB1_U64SL1_USFGROn1_VAW1_VSn1_VW1_VWB1_VFLRP0_WSGRA0_WSGRB0_WS64_WG128_2_1_WGM15"
	const cijk6623 = "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x32_MI16x16x1_SN_LDSB0_AFC1_AG0_AFEM1_AFEM1_ASEM1_CD1_1_CLR0_CADS0_DTLA0_DTLB0_DTLM0_DTVA0_DTVB0_DTVMXSA0_DTVMXSB0_DTVSM0_DPLB0_EPS0_ELFLR0_EMLLn1_FDSI0_GRPM1_GRVWA1_GRVWB1_GSUAMB_GLS0_HPLR0_ISA1201_IU1_K1_LDSTI0_LBSPPA128_LBSPPB128_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV1_MIWT1_1_MXLIBL_MXSFNS_MO40_MGRIPM1_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS0_NLCA1_NLCB1_ONLL1_PGR2_PLR0_PKA0_SGROB0_SIA1_SS1_SPO0_SRVW0_SSO0_SVW1_SK0_SKFTR0_SKXCCM0_SIP1_SGRO0_TDMI0_TDMS0_TIN0_TLDS2_TLDSM1_ULSGRO0_USL1_USLMX0_UIOFGRO0_UPLRP0_USFGROn1_USI0_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS32_WG16_2_1"
	cases := []struct {
		src, text string
		want      clrTrace
	}{
		// Linux: "0x…" out pointer and module (ROCm/ROCm#4070, ROCm 6.2.2)
		{"https://github.com/ROCm/ROCm/issues/4070", "hipModuleGetFunction ( 0x7ffd650e5788, 0x559d78ba0e70, " + cijk4070 + " ) ",
			clrTrace{kind: ctGetFunction, name: cijk4070}},
		{"https://github.com/ROCm/ROCm/issues/4070", "Cannot find the function: " + cijk4070 + " for module: 0x78ba0e70",
			clrTrace{kind: ctNotFound, name: cijk4070}},
		{"https://github.com/ROCm/ROCm/issues/4070", "hipModuleGetFunction: Returned hipErrorNotFound : ",
			clrTrace{kind: ctReturned, api: "hipModuleGetFunction", status: "hipErrorNotFound"}},
		{"https://github.com/ROCm/ROCm/issues/4070", "hipExtModuleLaunchKernel ( 0x0x559d7d771340, 768, 66, 1, 256, 1, 1, 0, stream:0x559d688e6a50, char array:<null>, 0x7ffd650e57d0, event:0, event:0, 0 ) ",
			clrTrace{kind: ctLaunch, launch: launchConfig{fn: "0x0x559d7d771340", grid: [3]int64{768, 66, 1}, block: [3]int64{256, 1, 1}, set: true}}},
		// Windows: bare hex pointers (ROCm/rocm-systems#6623)
		{"https://github.com/ROCm/rocm-systems/pull/6623", "hipModuleGetFunction ( 000000EFBB9EB700, 000002C781772B50, " + cijk6623 + " )",
			clrTrace{kind: ctGetFunction, name: cijk6623}},
		// level 1, no pid prefix (ROCm/rocBLAS#1457)
		{"https://github.com/ROCm/rocBLAS/issues/1457", "Cannot find the function: Cijk_Ailk_Bljk_SB_MT128x128x8_SN_AMAS3_BL1_BS1_EPS0_GLVWA4_GLVWB4_GRVW4_GSU1_GSUASB_ISA1010_IU1_K1_KLA_LDL1_LRVW4_MMFGLC_NLCA1_NLCB1_PGR1_PLR1_SIA1_SU32_SUM3_SUS128_SVW4_TT8_16_USFGROn1_VAW1_VSn1_VW4_VWB4_WS32_WG16_8_1_WGM1 for module: 0x8b25960",
			clrTrace{kind: ctNotFound, name: "Cijk_Ailk_Bljk_SB_MT128x128x8_SN_AMAS3_BL1_BS1_EPS0_GLVWA4_GLVWB4_GRVW4_GSU1_GSUASB_ISA1010_IU1_K1_KLA_LDL1_LRVW4_MMFGLC_NLCA1_NLCB1_PGR1_PLR1_SIA1_SU32_SUM3_SUS128_SVW4_TT8_16_USFGROn1_VAW1_VSn1_VW4_VWB4_WS32_WG16_8_1_WGM1"}},
	}
	for _, c := range cases {
		got, ok := extractCLRTrace(c.text)
		if !ok || got != c.want {
			t.Errorf("%s: %q\n got %+v\nwant %+v", c.src, c.text, got, c.want)
		}
	}
	for _, l := range []string{"hipModuleGetFunction: Returned hipSuccess : ", "call hipModuleGetFunction to look the kernel up"} {
		if got, ok := extractCLRTrace(l); ok {
			t.Errorf("%q: %+v", l, got)
		}
	}
}

// A module launch that fails is tied to a kernel name only when its process
// looked up exactly one function: ROCm/ROCm#4070's probe (not found in one
// module, found in the next) leaves one name; two functions leave none.
func TestModuleLaunchKernelFromLookup(t *testing.T) {
	const pre = ":3:hip_module.cpp           :74  : 305270480312 us: [pid:312732 tid:0x15533460c740] "
	lookup := pre + " hipModuleGetFunction ( 0x7ffd650e5788, 0x559d78ba0e70, Cijk_Ailk_Bljk_SB_MT128x96x16 ) \n" +
		":1:hip_module.cpp           :84  : 305270480339 us: [pid:312732 tid:0x15533460c740] Cannot find the function: Cijk_Ailk_Bljk_SB_MT128x96x16 for module: 0x78ba0e70\n" +
		pre + "hipModuleGetFunction: Returned hipErrorNotFound : \n" +
		pre + " hipModuleGetFunction ( 0x7ffd650e5788, 0x559d7aa260b0, Cijk_Ailk_Bljk_SB_MT128x96x16 ) \n" +
		pre + "hipModuleGetFunction: Returned hipSuccess : \n"
	fail := pre + " hipExtModuleLaunchKernel ( 0x0x559d7d771340, 768, 66, 1, 1024, 1, 1, 0, stream:0x559d688e6a50, char array:<null>, 0x7ffd650e57d0, event:0, event:0, 0 ) \n" +
		pre + "hipExtModuleLaunchKernel: Returned hipErrorLaunchOutOfResources : \n"
	d := diagnoseWhole("trace.log", []byte(lookup+fail))
	f := hasClass(d, ClassInvalidLaunch)
	if f == nil || f.Kernel != "Cijk_Ailk_Bljk_SB_MT128x96x16" {
		t.Fatalf("one function looked up: %s", d.JSON())
	}
	two := lookup + pre + " hipModuleGetFunction ( 0x7ffd650e5790, 0x559d7aa260b0, Cijk_Alik_Bljk_SB_MT64x64x16 ) \n"
	d = diagnoseWhole("trace.log", []byte(two+fail))
	if f := hasClass(d, ClassInvalidLaunch); f == nil || f.Kernel != "" || strings.Contains(string(d.JSON()), "looked up") {
		t.Fatalf("two functions looked up: %s", d.JSON())
	}
}
