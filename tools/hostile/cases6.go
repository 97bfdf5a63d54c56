package main

// The seventh sweep's new kind (issue 24): what a user passes beside the
// input rather than in it — the run identity written into every artifact
// (--experiment-id … --server-flags, the Worker's experiment_id and
// trial_id), the stage and target-architecture selectors echoed in refusals,
// and a model's config.json (--model-config, the Worker's model_config)
// whose strings carry the payloads and whose numbers sit at the ends of
// their types. The earlier sweeps reached the identity only through diff's
// refusal reason and never the model config.

import (
	"fmt"
	"strings"
)

// moeTrace is a one-op vLLM MoE trace whose expert count and top-k the
// trace lacks: the roofline reads them from the model config.
func moeTrace() []byte {
	return []byte(`{"traceEvents":[` +
		`{"ph":"X","cat":"cpu_op","name":"vllm::moe_forward","pid":1,"tid":1,"ts":0,"dur":100,"args":{"External id":1,"Input Dims":[[128,4096],[128,8]],"Input type":["c10::BFloat16","float"]}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":5,"args":{"External id":1,"correlation":7}},` +
		`{"ph":"X","cat":"kernel","name":"fused_moe_kernel","pid":0,"tid":7,"ts":10,"dur":80,"args":{"device":0,"stream":7,"correlation":7,"External id":1}}` +
		`],"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","computeMajor":9,"computeMinor":0}]}`)
}

func gen7(add adder) error {
	pays := []struct{ id, s string }{{"markup", pMarkupAll}, {"term", pTermAll}, {"shell", pShellAll}}
	cliWorker := []string{"native", "wasm", "worker"}
	for _, p := range pays {
		// every identity flag of the CLI (seed 004's fields, written as given)
		var args []string
		for _, f := range []string{"--experiment-id", "--trial-id", "--model-name", "--server-flags", "--resource-class", "--base-image", "--profile-stage", "--benchmark-config-hash"} {
			args = append(args, f, p.s)
		}
		add(Case{ID: "id7-flags-" + p.id, Kind: "markup", What: "breakdown with every run-identity flag carrying " + p.id, Cmd: "breakdown", Args: args, Inputs: []string{"t.json"}, Hosts: cli2, Reason: "page: no identity; worker: id7-query-*"},
			map[string][]byte{"t.json": moeTrace()}, nil)
		add(Case{ID: "id7-query-" + p.id, Kind: "markup", What: "experiment_id and trial_id carrying " + p.id + " (CLI flags, Worker query)", Cmd: "breakdown",
			Args: []string{"--experiment-id", p.s, "--trial-id", p.s}, Query: map[string]string{"experiment_id": p.s, "trial_id": p.s}, Inputs: []string{"t.json"}, Hosts: cliWorker, Reason: "page: no identity"},
			map[string][]byte{"t.json": moeTrace()}, nil)
		// selectors echoed in a refusal (exit 2) or an empty selection
		add(Case{ID: "id7-stage-" + p.id, Kind: "markup", What: "--stage carrying " + p.id, Cmd: "breakdown", Args: []string{"--stage", p.s}, Query: map[string]string{"stage": p.s},
			Inputs: []string{"t.json"}, Hosts: cliWorker, Exits: []int{0, 1, 2}, Reason: "page: a stage is picked from the trace's"},
			map[string][]byte{"t.json": moeTrace()}, nil)
		add(Case{ID: "id7-arch-" + p.id, Kind: "markup", What: "--target-arch carrying " + p.id, Cmd: "breakdown", Args: []string{"--target-arch", p.s}, Query: map[string]string{"target_arch": p.s},
			Inputs: []string{"t.json"}, Hosts: cliWorker, Exits: []int{2}, Reason: "page: the arch is picked from a list"},
			map[string][]byte{"t.json": moeTrace()}, nil)
		// a model config whose every string the roofline may quote carries p
		cfg := mustJSON(map[string]any{"model_type": p.s, "architectures": []any{p.s}, "hidden_size": 4096, "intermediate_size": 14336, "moe_intermediate_size": 1024,
			"num_attention_heads": 32, "num_key_value_heads": 8, "num_local_experts": 64, "num_experts_per_tok": 8,
			"hidden_act": p.s, "torch_dtype": p.s, "quantization_config": map[string]any{"quant_method": p.s}})
		add(Case{ID: "mcfg7-strings-" + p.id, Kind: "markup", What: "a model config whose model_type, hidden_act, torch_dtype and quant_method carry " + p.id, Cmd: "breakdown",
			Args: []string{"--model-config", "config.json"}, Query: map[string]string{"model_config": string(cfg)}, Inputs: []string{"t.json"}, Hosts: cliWorker, Exits: []int{0, 1, 2}, Reason: "page: no model config"},
			map[string][]byte{"t.json": moeTrace(), "config.json": cfg}, nil)
	}
	// numbers at the ends of their types, in every dimension the roofline
	// multiplies: one answer on every engine, no panic, no wrapped product
	for _, n := range []struct{ id, v string }{
		{"1e308", "1e308"}, {"2p63", "9223372036854775808"}, {"2p62", "4611686018427387904"}, {"neg", "-4096"}, {"zero", "0"},
		{"half", "4096.5"}, {"string", `"4096"`}, {"nan", `"NaN"`}, {"2p40m1", "1099511627775"}, {"denormal", "5e-324"},
	} {
		var b strings.Builder
		b.WriteString("{")
		for i, k := range []string{"hidden_size", "intermediate_size", "moe_intermediate_size", "num_attention_heads", "num_key_value_heads", "num_local_experts", "num_experts_per_tok"} {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%s", k, n.v)
		}
		b.WriteString(`,"torch_dtype":"bfloat16"}`)
		cfg := b.String()
		add(Case{ID: "mcfg7-num-" + n.id, Kind: "numbers", What: "a model config whose every dimension is " + n.v, Cmd: "breakdown",
			Args: []string{"--model-config", "config.json"}, Query: map[string]string{"model_config": cfg}, Inputs: []string{"t.json"}, Hosts: cliWorker, Exits: []int{0, 1, 2}, Reason: "page: no model config"},
			map[string][]byte{"t.json": moeTrace(), "config.json": []byte(cfg)}, nil)
	}
	// structure: nesting and size of the config itself
	deep := strings.Repeat(`{"text_config":`, 1000000) + `{"hidden_size":1}` + strings.Repeat("}", 1000000)
	add(Case{ID: "mcfg7-deep", Kind: "json", What: "a model config of text_config nested 10^6 deep", Cmd: "breakdown", Args: []string{"--model-config", "config.json"}, Inputs: []string{"t.json"}, Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "worker: the query is bounded by the URL"},
		map[string][]byte{"t.json": moeTrace(), "config.json": []byte(deep)}, nil)
	big := `{"hidden_size":4096,"pad":"` + strings.Repeat(`\\u0041`, 20<<20/7) + `"}`
	add(Case{ID: "mcfg7-escapes", Kind: "json", What: "a 20 MB model config string of backslash escapes", Cmd: "breakdown", Args: []string{"--model-config", "config.json"}, Inputs: []string{"t.json"}, Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "worker: the query is bounded by the URL"},
		map[string][]byte{"t.json": moeTrace(), "config.json": []byte(big)}, nil)
	return nil
}
