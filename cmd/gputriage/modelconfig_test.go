package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// moeTrace is one vllm::moe_forward whose recorded shapes give the hidden
// states [32,2880] and router logits [32,32] (hence 32 experts) but no
// top-k and no expert weights: the shapes vllm_decode_full's capture trace
// records for gpt-oss's MoE, without the ops inside it.
const moeTrace = `{"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","computeMajor":9,"computeMinor":4,"numSms":304,"totalGlobalMem":206141652992}],
"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"vllm::moe_forward","pid":100,"tid":100,"ts":1000,"dur":50,
 "args":{"External id":1,"Input Dims":[[32,2880],[32,32],[]],"Input type":["c10::BFloat16","c10::BFloat16",""],"Concrete Inputs":["","",""]}},
{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":100,"tid":100,"ts":1010,"dur":5,"args":{"External id":1,"correlation":7}},
{"ph":"X","cat":"kernel","name":"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu","pid":2,"tid":0,"ts":1020,"dur":100,
 "args":{"External id":1,"device":2,"stream":0,"correlation":7}}
]}`

// gpt-oss-20b's config.json, cut to what the roofline reads.
const gptOSSConfig = `{"architectures":["GptOssForCausalLM"],"hidden_size":2880,"intermediate_size":2880,"num_local_experts":32,
"num_experts_per_tok":4,"hidden_act":"silu","num_attention_heads":64,"num_key_value_heads":8,"torch_dtype":"bfloat16",
"quantization_config":{"quant_method":"mxfp4"}}`

// --model-config supplies what the trace lacks (top-k, expert weights), on
// both engines, and the row says which numbers came from it; without it
// the row is unmodelled and says to pass it; a bad file is a usage error
// naming it.
func TestModelConfigFlag(t *testing.T) {
	dir := t.TempDir()
	tr, cfg := filepath.Join(dir, "moe.json"), filepath.Join(dir, "config.json")
	os.WriteFile(tr, []byte(moeTrace), 0o644)
	os.WriteFile(cfg, []byte(gptOSSConfig), 0o644)
	type row struct {
		Op     string  `json:"op"`
		Share  float64 `json:"modelled_share"`
		Flops  float64 `json:"flops"`
		Bytes  float64 `json:"bytes"`
		Model  string  `json:"model"`
		Source string  `json:"source"`
		Note   string  `json:"note"`
	}
	rowOf := func(args ...string) row {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		var stderr bytes.Buffer
		if code := run(append([]string{"breakdown", "-q", "-o", out}, append(args, tr)...), nil, &bytes.Buffer{}, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "roofline.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Rows []row }
		if err := json.Unmarshal(b, &r); err != nil || len(r.Rows) != 1 {
			t.Fatalf("%v: roofline.json rows %+v, %v", args, r.Rows, err)
		}
		return r.Rows[0]
	}
	if r := rowOf(); r.Share > 0 || !strings.Contains(r.Note, "--model-config") {
		t.Errorf("without a config: %+v", r)
	}
	// Hand derivation: per token and expert, gate+up [2·2880, 2880] and
	// down [2880, 2880] are 2·2880·5760 + 2·2880·2880 FLOPs; 32 tokens × 4
	// experts. Bytes: x read and the output written (32·2880 bf16 each),
	// the router logits (32·32 bf16), and per expert touched the packed
	// FP4 weights (5760·2880/2 + 2880·2880/2 bytes) and one E8M0 scale per
	// 32 values; experts touched 32·(1 − (28/32)^32) under uniform routing.
	perExpert := (5760.0*2880 + 2880*2880) / 2 * (1 + 1.0/16)
	touched := 32 * (1 - math.Pow(28.0/32, 32))
	wantF := 32 * 4 * (2*2880*5760 + 2*2880*2880.0)
	wantB := 2*32*2880*2 + 32*32*2 + perExpert*touched
	for _, eng := range []string{"native", "wasm"} {
		r := rowOf("--engine", eng, "--model-config", cfg)
		if r.Share != 1 || r.Model != "moe" || math.Abs(r.Flops-wantF) > 1 || math.Abs(r.Bytes-wantB)/wantB > 1e-9 {
			t.Errorf("%s: %+v; want flops %.0f bytes %.0f", eng, r, wantF, wantB)
		}
		for _, from := range []string{"top_k 4 from the model config", "expert weights from the model config: hidden 2880, intermediate 2880"} {
			if !strings.Contains(r.Source, from) {
				t.Errorf("%s: source %q lacks %q", eng, r.Source, from)
			}
		}
	}
	// One rank of eight holds a shard of each layer (TP or EP, which the
	// trace does not say): the config's whole-layer weights do not apply.
	os.WriteFile(tr, []byte(strings.Replace(moeTrace, `"traceEvents"`, `"distributedInfo":{"backend":"nccl","rank":0,"world_size":8},"traceEvents"`, 1)), 0o644)
	if r := rowOf("--model-config", cfg); r.Share > 0 || !strings.Contains(r.Note, "1/8 shard") {
		t.Errorf("rank of 8: %+v", r)
	}
	os.WriteFile(tr, []byte(moeTrace), 0o644)
	for _, bad := range []struct{ content, want string }{
		{`{"hidden_size":`, "model config"},
		{`{"vocab_size":32000}`, "none of hidden_size"},
		{`[1,2]`, "model config"},
	} {
		p := filepath.Join(dir, "bad.json")
		os.WriteFile(p, []byte(bad.content), 0o644)
		var stderr bytes.Buffer
		code := run([]string{"breakdown", "-q", "--model-config", p, tr}, nil, &bytes.Buffer{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), p) || !strings.Contains(stderr.String(), bad.want) {
			t.Errorf("%s: exit %d, %q", bad.content, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run([]string{"breakdown", "-q", "--model-config", filepath.Join(dir, "absent.json"), tr}, nil, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "absent.json") {
		t.Errorf("absent config: exit %d, %q", code, stderr.String())
	}
}
