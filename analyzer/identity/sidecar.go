package identity

import (
	"path"
	"slices"
	"strings"

	"encoding/json"
)

// IsSidecar reports a file name the serving frameworks write beside their
// traces with the server's configuration: SGLang's profiler saves the
// server's /get_server_info answer as server_args.json
// (python/sglang/profiler.py, run_profile); gputriage profile saves vLLM's
// the same way.
func IsSidecar(name string) bool {
	name = strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	return name == "server_args.json"
}

// volatile are keys of a server-info answer that describe the moment or the
// host, not how the server was configured: left out of server_flags so that
// two runs of one configuration compare equal.
var volatile = map[string]bool{
	"host": true, "port": true, "nccl_port": true, "dist_init_addr": true, "internal_states": true,
	"version": true, "last_gen_throughput": true, "status": true, "memory_usage": true,
	"decode_throughput": true, "max_total_num_tokens": false, "random_seed": false,
	"tokenizer_worker_num": false, "gputriage_source": true,
}

// FromServerArgs reads a server-info document: SGLang's /get_server_info
// (ServerArgs fields: model_path, served_model_name, tp_size, …) or the
// equivalent gputriage profile writes for vLLM (model, tensor_parallel_size).
// server_flags becomes the configuration as canonical JSON (sorted keys,
// volatile keys left out). ok is false when b is not such a document.
func FromServerArgs(b []byte) (id Identity, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || len(m) == 0 {
		return id, false
	}
	str := func(k string) string {
		var s string
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	num := func(k string) int {
		var n int
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &n) == nil {
			return n
		}
		return 0
	}
	id.ModelName = firstNonEmpty(str("served_model_name"), str("model_path"), str("model"))
	id.TPSize = max(num("tp_size"), num("tensor_parallel_size"))
	if id.ModelName == "" && id.TPSize == 0 {
		return id, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !volatile[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var sb strings.Builder
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		sb.Write(kb)
		sb.WriteByte(':')
		sb.Write(compact(m[k]))
	}
	sb.WriteByte('}')
	id.ServerFlags = sb.String()
	return id, true
}

func compact(raw []byte) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v) // maps are written with sorted keys
	return b
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
