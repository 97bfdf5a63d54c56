package identity

import (
	"strings"
	"testing"
)

func TestParseRun(t *testing.T) {
	id, err := ParseRun([]byte(`{"experiment_id":"exp-7","trial_id":"t3","base_image":"rocm/sglang:v0.5.5-rocm700-mi35x",
		"resource_class":"8xMI355X","gpu_device_ids":[4,5],"gpu_clocks_mhz":2400,"preflight_passed":false,
		"server_flags":"--tp 2","benchmark_config_hash":"abc","model_name":"Qwen/Qwen3-8B","profile_stage":"decode"}`))
	if err != nil {
		t.Fatal(err)
	}
	if id.ExperimentID != "exp-7" || id.TrialID != "t3" || len(id.GPUDeviceIDs) != 2 || id.GPUDeviceIDs[1] != 5 ||
		id.GPUClocksMHz == nil || *id.GPUClocksMHz != 2400 || id.PreflightPassed == nil || *id.PreflightPassed ||
		id.ModelName != "Qwen/Qwen3-8B" || id.ProfileStage != "decode" || id.ServerFlags != "--tp 2" {
		t.Errorf("parsed %+v", id)
	}
	// The allocation may be written as the flag's text form too.
	if id, err := ParseRun([]byte(`{"gpu_device_ids":"0, 1"}`)); err != nil || len(id.GPUDeviceIDs) != 2 {
		t.Errorf("string ids: %v %v", id.GPUDeviceIDs, err)
	}
	for _, bad := range []string{`{"experiment":"x"}`, `{"gpu_clocks_mhz":"fast"}`, `[1]`, `{"gpu_device_ids":[-1]}`} {
		if _, err := ParseRun([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestSetAndFill(t *testing.T) {
	var id Identity
	for _, f := range Fields {
		v := "7"
		if f == "preflight_passed" {
			v = "true"
		}
		if err := id.Set(f, v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if err := id.Set("gpu_clocks_mhz", "-3"); err == nil {
		t.Error("negative clock accepted")
	}
	given := Identity{ModelName: "given"}
	given.Fill(Identity{ModelName: "sidecar", TPSize: 2, ServerFlags: "x"})
	if given.ModelName != "given" || given.TPSize != 2 || given.ServerFlags != "x" {
		t.Errorf("fill: %+v", given)
	}
}

func TestFromServerArgs(t *testing.T) {
	// The shape of SGLang's /get_server_info (ServerArgs fields plus
	// runtime state), as python/sglang/profiler.py saves it.
	sg := `{"model_path":"Qwen/Qwen3-8B","served_model_name":"Qwen/Qwen3-8B","tp_size":2,"port":30000,"host":"0.0.0.0",
		"attention_backend":"aiter","version":"0.5.5","internal_states":[{"x":1}],"cuda_graph_max_bs":256}`
	id, ok := FromServerArgs([]byte(sg))
	if !ok || id.ModelName != "Qwen/Qwen3-8B" || id.TPSize != 2 {
		t.Fatalf("%+v %v", id, ok)
	}
	if strings.Contains(id.ServerFlags, "30000") || strings.Contains(id.ServerFlags, "internal_states") ||
		!strings.Contains(id.ServerFlags, `"attention_backend":"aiter"`) {
		t.Errorf("server_flags %s", id.ServerFlags)
	}
	// Another port, the same configuration: the same flags.
	id2, _ := FromServerArgs([]byte(strings.Replace(sg, "30000", "30001", 1)))
	if id2.ServerFlags != id.ServerFlags {
		t.Error("port changed server_flags")
	}
	if _, ok := FromServerArgs([]byte(`{"a":1}`)); ok {
		t.Error("unrelated JSON taken for server args")
	}
	if !IsSidecar("out/1712.3/server_args.json") || IsSidecar("server_args.json.gz.trace") {
		t.Error("IsSidecar")
	}
}
