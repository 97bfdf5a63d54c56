package roofline

import (
	"math"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

// Each serving / backward model on a signature recorded in a shared trace
// (named per case), checked against the arithmetic written out by hand.
func TestServingFormulas(t *testing.T) {
	cases := []struct {
		why, op, dims, types, conc string
		flops, bytes               float64
	}{
		// sglang_decode capture: positions [32] long, q [32, 32·128], k [32, 8·128]
		// rotated in place (read + write), 32 rows of the [41216, 128] cos/sin cache.
		{"rotary", "sgl_kernel::rotary_embedding", `[[32],[32,4096],[32,1024],[],[41216,128],[]]`,
			`["long int","c10::BFloat16","c10::BFloat16","Scalar","c10::BFloat16","Scalar"]`, `["","","","128","","True"]`,
			0, 32*8 + 2*(32*4096*2) + 2*(32*1024*2) + 32*128*2},
		// sglang_decode capture: new K and V [32, 8, 128] read and written into the
		// [835874, 8, 128] caches, slot ids [32] read.
		{"KV cache write", "sglang::store_cache", `[[32,8,128],[32,8,128],[835874,8,128],[835874,8,128],[32]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","long int"]`, `["","","","",""]`,
			0, 2*2*(32*8*128*2) + 32*8},
		// sglang_prefilldecode: embedding's gather — 15360 rows of 4096 bf16 read and written.
		{"gather", "aten::gather", `[[151936,4096],[],[15360,4096],[],[15360,4096]]`,
			`["c10::BFloat16","Scalar","long int","Scalar","c10::BFloat16"]`, `["","0","","False",""]`,
			0, 2 * 15360 * 4096 * 2},
		{"index_select", "aten::index_select", `[[151936,4096],[],[15360]]`, `["c10::BFloat16","Scalar","long int"]`, `["","0",""]`,
			0, 15360*8 + 2*15360*4096*2},
		// sglang_prefilldecode: argmax over the fp32 logits reads them once.
		{"reduction", "aten::argmax", `[[15,151936],[],[]]`, `["float","Scalar","Scalar"]`, `["","-1","False"]`, 0, 15 * 151936 * 4},
		// resnet_act_checkpoint: 3×3 conv backward, both gradients: 2 × forward
		// (2·numel(grad_out)·512·9); grad_out, input, weight read, grad_in and grad_w written.
		{"conv backward", "aten::convolution_backward", `[[10,512,7,7],[10,512,7,7],[512,512,3,3],[],[],[],[],[],[],[],[]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"]`,
			`["","","","[0]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, False]"]`,
			2 * (2 * 10 * 512 * 49 * 512 * 9), 2*(2*10*512*49+512*512*9) + 2*(10*512*49+512*512*9)},
		// resnet_act_checkpoint: batch-norm backward — every operand read once, grad_in written.
		{"batch-norm backward", "aten::native_batch_norm_backward", `[[10,512,7,7],[10,512,7,7],[512],[512],[512],[512],[512],[],[],[]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","float","Scalar","Scalar","ScalarList"]`,
			`["","","","","","","","True","1.0000000000000001e-05","[True, True, True]"]`,
			0, 2*(2*10*512*49+3*512) + 2*512*4 + 2*10*512*49},
		// normalization_layer_test: layer-norm backward.
		{"layer-norm backward", "aten::native_layer_norm_backward", `[[8,16,32,32],[8,16,32,32],[],[8,1,1,1],[8,1,1,1],[],[],[]]`,
			`["float","float","ScalarList","float","float","","",""]`, `["","","[16, 32, 32]","","","","",""]`,
			0, 4 * (3*8*16*32*32 + 2*8)},
		{"activation backward", "aten::threshold_backward", `[[10,512,7,7],[10,512,7,7],[]]`, `["c10::BFloat16","c10::BFloat16","Scalar"]`, `["","","0"]`,
			0, 2 * 3 * 10 * 512 * 49},
		// SDPA backward (no shared trace records one; shapes as PyTorch records the
		// flash variant): causal, 2.5 × the forward's 4·B·H·S²·D / 2.
		{"SDPA backward", "aten::_scaled_dot_product_flash_attention_backward",
			`[[2,8,256,64],[2,8,256,64],[2,8,256,64],[2,8,256,64],[2,8,256,64],[2,8,256],[],[],[],[],[],[],[],[]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","","","Scalar","Scalar","Scalar","Scalar","",""]`,
			`["","","","","","","","","256","256","0.","True","",""]`,
			2.5 * 4 * 2 * 8 * 256 * 256 * 64 / 2, 2 * 2 * 8 * 256 * 64 * (1 + 1 + 2*3)},
		// all-reduce fused with RMSNorm (AITER/vLLM style, output passed): local bytes only.
		{"all-reduce + norm", "vllm::fused_allreduce_rmsnorm", `[[32,4096],[32,4096],[4096],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"]`, `["","","",""]`,
			0, 2 * (2*32*4096 + 4096)},
	}
	for _, c := range cases {
		s := parseSig(c.dims, c.types, c.conc)
		got, ok, note := model(c.op, &s, -1)
		if !ok || got.flops != c.flops || got.bytes != c.bytes {
			t.Errorf("%s (%s): flops %v bytes %v ok %v (%s); want %v %v", c.why, c.op, got.flops, got.bytes, ok, note, c.flops, c.bytes)
		}
	}
}

// Attention over a KV cache takes the step's sequence-length sums.
func TestKVAttention(t *testing.T) {
	cases := []struct {
		why, op, dims, types, step string
		flops, bytes               float64
	}{
		// sglang_decode: AITER paged attention (out, workspace, q [32,32,128], K/V caches
		// [835874,1,8,128]); 32 decode sequences holding 32785 keys in all:
		// 2·32·(128+128) FLOPs per key, q read + out written per query token,
		// 8·(128+128) bf16 per key.
		{"paged decode", "sglang_profiler::attention_paged_attention_ragged_100",
			`[[32,32,128],[10905190400],[32,32,128],[835874,1,8,128],[835874,1,8,128],[33],[20971520],[4096],[],[1],[1],[]]`,
			`["c10::BFloat16","unsigned char","c10::BFloat16","c10::BFloat16","c10::BFloat16","int","int","int","","float","float",""]`,
			"execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)",
			2 * 32 * 256 * 32785, 32*32*256*2 + 32785*8*256*2},
		// vllm_prefilldecode_piecewise: unified attention over 9 prefill chunks
		// and 37 decodes; causal pairs Σsq·sk − (Σsq² − Σsq)/2.
		{"unified mixed", "vllm::unified_attention_with_output",
			`[[8192,64,64],[8192,8,64],[8192,8,64],[8192,64,64],[],[],[],[0]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","","","","c10::BFloat16"]`,
			"execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37(sq37sk34489sqsq37sqsk34489)",
			2 * 64 * 128 * ((7671310 + 34489) - ((7475785+37)-(8155+37))/2), 8192*64*128*2 + (8430+34489)*8*128*2},
		// MLA decode, absorbed (no shared trace records one; DeepSeek-V3 shapes per
		// rank): q [T,16,576], one latent cache [pages,1,1,576] read once per key,
		// out [T,16,512]: 2·16·(576+512) FLOPs per key.
		{"MLA decode", "aiter::mla_decode_fwd", `[[8,16,576],[4096,1,1,576],[8,16,512],[9],[4096],[8],[]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16","int","int","int","Scalar"]`,
			"execute_8_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk8000sqsq8sqsk8000)",
			2 * 16 * (576 + 512) * 8000, 8*16*(576+512)*2 + 8000*576*2},
	}
	for _, c := range cases {
		s := parseSig(c.dims, c.types, "")
		got, ok, note := model(c.op, &s, -1)
		sums, sok := parseSeqSums(c.step)
		if !ok || !got.seq || !sok {
			t.Errorf("%s: modelled %v seq %v (%s), step parsed %v", c.why, ok, got.seq, note, sok)
			continue
		}
		if f, b := got.at(sums); f != c.flops || b != c.bytes {
			t.Errorf("%s: flops %v bytes %v, want %v %v", c.why, f, b, c.flops, c.bytes)
		}
	}
	for _, bad := range []string{"execute_32", "execute_1_context_1(sq1sk1sqsq1)", "step[DECODE bs=32]", "execute_1_generation_1(sq1sk-1sqsq1sqsk1)"} {
		if _, ok := parseSeqSums(bad); ok {
			t.Errorf("%q parsed as a step", bad)
		}
	}
}

// The vllm_decode_full MoE (gpt-oss, MXFP4) from the shapes its capture
// trace records inside vllm::moe_forward: x [32,3072], router logits
// [32,32], TopK k=4, packed FP4 weight stacks [32,1536,5888] (gate+up) and
// [32,1472,3072] (down).
func TestMoECost(t *testing.T) {
	s := parseSig(`[[32,3072],[32,32],[],[]]`, `["c10::BFloat16","c10::BFloat16","",""]`, "")
	ws := []expertWeight{{[]int64{32, 1536, 5888}, "unsigned char"}, {[]int64{32, 1472, 3072}, "unsigned char"}}
	c, ok, note := moeCost(&s, 32, 4, ws, nil)
	logical := 2.0 * (32*1536*5888 + 32*1472*3072) // FP4 values, two a byte
	touched := 32 * (1 - math.Pow(28.0/32, 32))
	wantB := 2*32*3072*2 + 32*32*2 + (logical/2+logical/32)*touched/32
	if !ok || c.flops != 2*32*4*logical/32 || math.Abs(c.bytes-wantB) > 1e-3 || c.dtype != "bf16" || c.model != "moe" {
		t.Errorf("moe: %+v ok %v (%s); want flops %v bytes %v", c, ok, note, 2*32*4*logical/32, wantB)
	}
	// Without top-k it is not modelled, and says so.
	if _, ok, note := moeCost(&s, 32, 0, ws, nil); ok || !strings.Contains(note, "top-k") {
		t.Errorf("no top-k: ok %v note %q", ok, note)
	}
	// The model config supplies what the trace lacks.
	cfg, err := ParseModelConfig([]byte(`{"text_config":{"hidden_size":2880,"intermediate_size":2880,"num_local_experts":32,"num_experts_per_tok":4,"hidden_act":"silu","quantization_config":{"quant_method":"mxfp4"}}}`))
	if err != nil || cfg.Experts != 32 || cfg.TopK != 4 || cfg.HiddenSize != 2880 || cfg.Quant != "mxfp4" || configWeightType(cfg) != "unsigned char" {
		t.Errorf("config %+v %v", cfg, err)
	}
	if _, err := ParseModelConfig([]byte(`{`)); err == nil {
		t.Error("broken config accepted")
	}
}

// Every shared MI300X serving trace with its capture trace: at least 95 %
// of GPU time has a modelled row (issue 23's bar), and no row beats its
// roof.
func TestServingCoverage(t *testing.T) {
	dir := "traces/tracelens/inference/"
	for _, c := range []struct{ formal, capture string }{
		{"sglang_decode/sglang_Qwen3-8B_decode.json.gz", "sglang_decode/capture_traces/bs_32_rank0.json.gz"},
		{"sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz", ""},
		{"vllm_decode_full/graph_execution.json.gz", "vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz"},
		{"vllm_prefilldecode_piecewise/graph_execution.json.gz", "vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz"},
	} {
		st := fixture.Load(t, dir+c.formal)
		opt := Options{DeviceName: "AMD Instinct MI300X", Arch: "gfx942"}
		if c.capture != "" {
			opt.Mapping = fixture.Load(t, dir+c.capture)
		}
		res := Analyze(st, opt)
		var all, mod int64
		for _, s := range res.Stages {
			all += s.KernelTime
			mod += s.Modelled
		}
		share := float64(mod) / float64(all)
		t.Logf("%s: %.2f %% of %d ns modelled", c.formal, 100*share, all)
		if share < 0.95 {
			t.Errorf("%s: %.2f %% modelled", c.formal, 100*share)
		}
		for _, r := range res.Rows {
			if r.Modelled && r.Efficiency > 1 {
				t.Errorf("%s: %s %s efficiency %.3f", c.formal, r.Op, r.InputDims, r.Efficiency)
			}
			if (r.Model == "moe" || r.Model == "attention" && strings.Contains(r.Op, "paged")) && r.Source == "" {
				t.Errorf("%s: %s modelled without saying where its numbers came from", c.formal, r.Op)
			}
		}
	}
}
