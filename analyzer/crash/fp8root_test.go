package crash

import "testing"

// Seed 000 pattern 3 (FP8 flash-attention crash): under an FP8 KV cache, a
// generic launch failure raised from the attention path is led by
// fp8_attention_crash, the launch failure its consequence. The error block
// is PyTorch's on ROCm (ROCm/TheRock#4214, mila-iqia/milabench#397); a
// memory fault keeps the lead (crash-seedcases c15, c21), and so does a
// launch failure raised outside the attention path or without FP8.
func TestFP8AttentionRoot(t *testing.T) {
	errBlock := "torch.AcceleratorError: HIP error: unspecified launch failure\nSearch for `hipErrorLaunchFailure' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.\nHIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
	args := "server_args=ServerArgs(model_path='/models/m', tp_size=8, kv_cache_dtype='fp8_e4m3', attention_backend='aiter')\n"
	attn := "Traceback (most recent call last):\n  File \"/sgl-workspace/sglang/python/sglang/srt/layers/attention/aiter_backend.py\", line 918, in forward_decode\n    mla_decode_fwd(\n  File \"/sgl-workspace/aiter/aiter/mla.py\", line 201, in mla_decode_fwd\n    aiter.mla_decode_stage1_asm_fwd(\n"
	conv := "Traceback (most recent call last):\n  File \"/site-packages/torch/nn/modules/conv.py\", line 548, in _conv_forward\n    return F.conv2d(\n"

	d := diagnoseWhole("serve.log", []byte(args+attn+errBlock))
	if len(d.Findings) == 0 || d.Findings[0].Class != ClassFP8AttentionCrash {
		t.Fatalf("fp8 + attention frame + launch failure: %v, want fp8_attention_crash first", classesOf(d))
	}
	if f := hasClass(d, ClassDeviceAssert); f == nil || f.ConsequenceOf != ClassFP8AttentionCrash {
		t.Errorf("the launch failure is not the fp8 finding's consequence: %s", d.JSON())
	}
	for _, c := range []struct{ name, log string }{
		{"no fp8", attn + errBlock},
		{"not the attention path", args + conv + errBlock},
	} {
		d := diagnoseWhole("serve.log", []byte(c.log))
		if len(d.Findings) > 0 && d.Findings[0].Class == ClassFP8AttentionCrash {
			t.Errorf("%s: fp8_attention_crash leads: %v", c.name, classesOf(d))
		}
		for _, f := range d.Findings {
			if f.ConsequenceOf == ClassFP8AttentionCrash {
				t.Errorf("%s: %s is a consequence of fp8", c.name, f.Class)
			}
		}
	}
	// a memory fault with an address keeps the lead (the seed cases' shape)
	fault := ":0:rocdevice.cpp            :2984: 7713391234 us: [pid:4242 tid:0x7f] Memory access fault by GPU node-2 (Agent handle: 0x55d1) on address 0x7f1c00000000. Reason: Page not present or supervisor privilege.\n"
	d = diagnoseWhole("serve.log", []byte(args+attn+fault))
	if len(d.Findings) == 0 || d.Findings[0].Class != ClassGPUMemoryFault || hasClass(d, ClassFP8AttentionCrash) == nil {
		t.Errorf("memory fault under fp8: %v, want gpu_memory_fault first and fp8_attention_crash kept", classesOf(d))
	}
}
