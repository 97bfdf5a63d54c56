package roofline

import "testing"

// Formulas on hand-written signatures, each checked against the arithmetic
// written out.
func TestFormulas(t *testing.T) {
	cases := []struct {
		op, dims, types, conc string
		flops, bytes          float64
		dtype                 string
	}{
		{"aten::matmul", `[[8,128,64],[64,32]]`, `["c10::Half","c10::Half"]`, `["",""]`,
			2 * 8 * 128 * 32 * 64, 2 * (8*128*64 + 64*32 + 8*128*32), "fp16"},
		{"aten::baddbmm", `[[4,16,16],[4,16,8],[4,8,16],[],[]]`, `["float","float","float","Scalar","Scalar"]`, `["","","","1","1"]`,
			2 * 4 * 16 * 16 * 8, 4 * (4*16*16 + 4*16*8 + 4*8*16 + 4*16*16), "fp32"},
		// FP8 scaled GEMM with a bf16 result (out_dtype 15).
		{"aten::_scaled_mm", `[[256,512],[512,1024],[],[],[],[],[],[]]`, `["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float","","","Scalar","Scalar"]`, `["","","","","","","15","False"]`,
			2 * 256 * 1024 * 512, 256*512 + 512*1024 + 2*256*1024 + 2*4, "fp8"}, // + two fp32 tensorwise scales
		// MoE grouped GEMM: 96 routed rows over 8 experts.
		{"aten::_grouped_mm", `[[96,64],[8,64,128],[8]]`, `["c10::BFloat16","c10::BFloat16","int"]`, `["","",""]`,
			2 * 96 * 128 * 64, 2 * (96*64 + 8*64*128 + 96*128), "bf16"},
		// Library GEMM with packed MXFP4 weights: B [N, K/2] bytes.
		{"aiter::gemm_a16wfp4", `[[16,1024],[512,512]]`, `["c10::BFloat16","unsigned char"]`, `["",""]`,
			2 * 16 * 512 * 1024, 2*16*1024 + 512*512 + 2*16*512, "bf16"},
		// Output passed first.
		{"_C::cutlass_scaled_mm", `[[32,256],[32,128],[128,256],[32,1],[1,256]]`, `["c10::BFloat16","c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float"]`, `["","","","",""]`,
			2 * 32 * 256 * 128, 32*128 + 128*256 + 2*32*256 + 4*(32+256), "fp8"}, // + fp32 row scales [32,1] and column scales [1,256]
		{"aten::_scaled_dot_product_flash_attention", `[[1,8,512,64],[1,8,512,64],[1,8,512,64],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar",""]`, `["","","","0.","True","False",""]`,
			4 * 8 * 512 * 512 * 64 / 2, 4 * 8 * 512 * 64 * 2, "bf16"},
		// 2 sequences of 256 tokens packed, causal.
		{"aiter::mha_batch_prefill", `[[512,8,64],[9000,2,64],[9000,2,64],[3],[3],[600],[],[],[],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","int","int","int","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"]`,
			`["","","","","","","256","256","0.","0.125","0.","False","True"]`,
			4 * 2 * 8 * 256 * 256 * 64 / 2, 2*512*8*64*2 + 2*2*256*2*64*2, "bf16"},
		// stride 2, padding 1: 32×32 → 16×16.
		{"aten::conv2d", `[[2,16,32,32],[32,16,3,3],[32],[],[],[],[]]`, `["float","float","float","ScalarList","ScalarList","ScalarList","Scalar"]`, `["","","","[2, 2]","[1, 1]","[1, 1]","1"]`,
			2 * 2 * 32 * 16 * 16 * 16 * 9, 4 * (2*16*32*32 + 32*16*9 + 32 + 2*32*16*16), "fp32"},
		{"aten::mul", `[[1024,4096],[4096]]`, `["c10::BFloat16","c10::BFloat16"]`, `["",""]`, 0, 2 * (1024*4096 + 4096 + 1024*4096), "bf16"},
		{"aten::copy_", `[[100],[100],[]]`, `["c10::BFloat16","float","Scalar"]`, `["","","False"]`, 0, 200 + 400, "bf16"},
		// ResNet-18's stem pool and its backward (the MI300X training trace,
		// traces2/tracelens_mi300_resnet18): 3×3, stride 2, padding 1,
		// 112×112 → (112 + 2 − 2 − 1)/2 + 1 = 56×56; bf16 in and out plus
		// int64 indices; backward reads grad_out and the indices and writes
		// grad_in (the input's size).
		{"aten::max_pool2d_with_indices", `[[512,64,112,112],[],[],[],[],[]]`, `["c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar"]`, `["","[3, 3]","[2, 2]","[1, 1]","[1, 1]","False"]`,
			0, 512*64*112*112*2 + 512*64*56*56*(2+8), "bf16"},
		{"aten::max_pool2d_with_indices_backward", `[[512,64,56,56],[512,64,112,112],[],[],[],[],[],[512,64,56,56]]`, `["c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","long int"]`, `["","","[3, 3]","[2, 2]","[1, 1]","[1, 1]","False",""]`,
			0, 512*64*56*56*(2+8) + 512*64*112*112*2, "bf16"},
		// ceil_mode: 7×7, kernel 2, stride 2 → ceil(5/2) + 1 = 4 (the last
		// window starts inside the input); avg pools write no indices.
		{"aten::avg_pool2d", `[[1,8,7,7],[],[],[],[],[],[]]`, `["float","ScalarList","ScalarList","ScalarList","Scalar","Scalar",""]`, `["","[2, 2]","[]","[0, 0]","True","True",""]`,
			0, 4 * (8*7*7 + 8*4*4), "fp32"},
		{"aiter::rmsnorm", `[[64,128],[64,128],[128],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"]`, `["","","",""]`, 0, 2 * (2*64*128 + 128), "bf16"},
	}
	for _, c := range cases {
		s := parseSig(c.dims, c.types, c.conc)
		got, ok, note := model(c.op, &s, -1)
		if !ok || got.flops != c.flops || got.bytes != c.bytes || got.dtype != c.dtype {
			t.Errorf("%s %s: flops %v bytes %v dtype %q ok %v (%s); want %v %v %q", c.op, c.dims, got.flops, got.bytes, got.dtype, ok, note, c.flops, c.bytes, c.dtype)
		}
	}
	// Not modelled, with the reason: no shapes, unpinned varlen lengths, paged decode.
	for _, c := range [][4]string{
		{"aten::mm", "", "", ""},
		{"aiter::mha_batch_prefill", `[[500,8,64],[9000,2,64],[9000,2,64],[3],[3],[600],[],[],[],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","int","int","int","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"]`, `["","","","","","","256","256","0.","0.125","0.","False","True"]`},
		{"aiter::paged_attention_rocm", `[[32,8,64]]`, `["c10::BFloat16"]`, `[""]`},
	} {
		s := parseSig(c[1], c[2], c[3])
		if _, ok, note := model(c[0], &s, -1); ok || note == "" {
			t.Errorf("%s %s: modelled %v, note %q", c[0], c[1], ok, note)
		}
	}
	// The trace's own flops argument wins.
	s := parseSig(`[[64,64],[64,64]]`, `["float","float"]`, `["",""]`)
	if c, ok, _ := model("aten::mm", &s, 12345); !ok || c.flops != 12345 || c.model != "flops-arg" || c.bytes != 3*64*64*4 {
		t.Errorf("flops arg: %+v", c)
	}
}

func TestSelectDevice(t *testing.T) {
	for _, c := range [][3]string{
		{"AMD Instinct MI300X VF", "gfx942", "MI300X"}, {"AMD Instinct MI325X", "gfx942", "MI325X"},
		{"", "gfx942", "MI300X"}, {"AMD Instinct MI355X", "gfx950", "MI355X"}, {"NVIDIA H100 80GB HBM3", "sm90", "H100-SXM"},
		{"NVIDIA H100 PCIe", "sm90", "H100-PCIe"}, {"NVIDIA A100-SXM4-80GB", "sm80", "A100-SXM"}, {"NVIDIA A100-SXM4-40GB", "sm80", "A100-SXM-40GB"},
		{"NVIDIA A100 80GB PCIe", "sm80", "A100-PCIe"}, {"NVIDIA B200", "sm100", "B200"}, {"NVIDIA H200", "sm90", "H200"},
		{"AMD Instinct MI210", "gfx90a", "MI210"}, {"AMD Instinct MI250X", "gfx90a", "MI250X"},
	} {
		d, _ := SelectDevice(c[0], c[1])
		if d == nil || d.Key != c[2] {
			t.Errorf("%q %s: %+v, want %s", c[0], c[1], d, c[2])
		}
	}
	if d, _ := SelectDevice("Tesla V100-SXM2-32GB", "sm70"); d != nil {
		t.Errorf("V100 is not in the table, got %s", d.Key)
	}
}

// Damaged or odd arguments are not modelled, and never panic.
func TestBadShapes(t *testing.T) {
	for _, c := range [][4]string{
		{"aten::conv2d", `[[1,3,8,8],[4,3,3,3],[],[],[],[],[]]`, `["float","float","","ScalarList","ScalarList","ScalarList","Scalar"]`, `["","","","[0, 0]","[1, 1]","[1, 1]","1"]`},
		{"aten::mm", `[[-4,8],[8,8]]`, `["float","float"]`, `["",""]`},
		{"aten::mm", `[[4,8],[9,8]]`, `["float","float"]`, `["",""]`},
		{"aten::mm", `not json`, `["float"]`, `[""]`},
		{"aten::scaled_dot_product_attention", `[[2,2],[2,2],[2,2]]`, `["float","float","float"]`, `["","",""]`},
		{"aten::linear", `[[],[4,4]]`, `["float","float"]`, `["",""]`},
		{"aiter::gemm_x", `[[4],[4]]`, `["float","float"]`, `["",""]`},
	} {
		s := parseSig(c[1], c[2], c[3])
		if _, ok, note := model(c[0], &s, -1); ok || note == "" {
			t.Errorf("%s %s: modelled %v, note %q", c[0], c[1], ok, note)
		}
	}
}
