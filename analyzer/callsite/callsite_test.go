package callsite

import (
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

func TestStageOfAnnotation(t *testing.T) {
	for in, want := range map[string]string{
		"step[DECODE bs=32]":             StageDecode,  // SGLang, sg-decode
		"step[EXTEND bs=15 toks=15360]":  StagePrefill, // SGLang, sg-mixed
		"prefill":                        StagePrefill, // gpu/ traces
		"decode_step":                    StageDecode,
		"ProfilerStep#6":                 "",
		"## Call CompiledFxGraph abc ##": "",
		"execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)":                StageDecode,
		"execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)_generation_0(sq0sk0sqsq0sqsk0)": StagePrefill,
		"execute_40_context_8(a)_generation_32(b)":                                                        StageMixed,
	} {
		if got := OfAnnotation(in); got != want {
			t.Errorf("OfAnnotation(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStageOfPath(t *testing.T) {
	for in, want := range map[string]string{
		"prof/1732-TP-0-EXTEND.trace.json.gz":                        StagePrefill,
		"prof/1732-TP-0-DECODE.trace.json.gz":                        StageDecode,
		"decode/trace.json":                                          StageDecode,
		"sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz": "",
		"runs/x.json.gz":                                             "",
	} {
		if got := OfPath(in); got != want {
			t.Errorf("OfPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPythonFrames(t *testing.T) {
	for in, want := range map[string]bool{
		"sglang/srt/layers/layernorm.py(120): forward_hip":                                 true,
		"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py(1): _call_impl": false,
		"torch/cuda/graphs.py(139): replay":                                                false,
		"threading.py(1016): run":                                                          false,
		"nn.Module: Qwen3DecoderLayer_0":                                                   false,
		"<built-in method mm of type object at 0x7f>":                                      false,
		"train_ddp.py(82): train_step":                                                     true,
	} {
		if got := Meaningful(in); got != want {
			t.Errorf("Meaningful(%q) = %v", in, got)
		}
	}
	for in, want := range map[string]string{
		"/usr/lib/python3/dist-packages/sglang/srt/layers/linear.py(12): f": "sglang/srt/layers/linear.py(12): f",
		"/home/u/proj/models/resnet.py(89): forward":                        "models/resnet.py(89): forward",
		"train.py(1): main": "train.py(1): main",
	} {
		if got := Short(in); got != want {
			t.Errorf("Short(%q) = %q, want %q", in, got, want)
		}
	}
}

// The nesting index returns the innermost interval around t, walking up
// past siblings that ended before t.
func TestNest(t *testing.T) {
	spans := []trace.Span{
		{TS: 0, Dur: 100},  // 0: outer
		{TS: 10, Dur: 10},  // 1: child ending at 20
		{TS: 30, Dur: 40},  // 2: child 30–70
		{TS: 40, Dur: 5},   // 3: grandchild 40–45
		{TS: 200, Dur: 10}, // 4: separate
	}
	n := NewNest(spans, []int32{4, 3, 2, 1, 0})
	for tcase, want := range map[int64]int32{5: 0, 15: 1, 25: 0, 42: 3, 50: 2, 99: 0, 150: -1, 205: 4, -1: -1} {
		p := n.At(spans, tcase)
		got := int32(-1)
		if p >= 0 {
			got = n.Pos[p]
		}
		if got != want {
			t.Errorf("at(%d) = span %d, want %d", tcase, got, want)
		}
	}
}
