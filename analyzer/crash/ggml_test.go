package crash

import "testing"

// ggml's failed device allocations (real wordings, URL per row).
func TestExtractGGMLAlloc(t *testing.T) {
	cases := []struct {
		src, text string
		want      ggmlAlloc
		ok        bool
	}{
		{"https://github.com/ggml-org/llama.cpp/issues/9352 (HIP build, ROCm0)",
			"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 17536.01 MiB on device 0: cudaMalloc failed: out of memory",
			ggmlAlloc{"17536.01 MiB", "0", "cudaMalloc"}, true},
		{"https://github.com/ggml-org/llama.cpp/issues/11476 (compose prefix)",
			"deep-seek-1  | ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9866.00 MiB on device 1: cudaMalloc failed: out of memory",
			ggmlAlloc{"9866.00 MiB", "1", "cudaMalloc"}, true},
		{"https://github.com/ggml-org/llama.cpp/pull/26297 (timestamped log)",
			"1.06.520.077 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 51748.72 MiB on device 1: cudaMalloc failed: out of memory",
			ggmlAlloc{"51748.72 MiB", "1", "cudaMalloc"}, true},
		{"https://github.com/ikawrakow/ik_llama.cpp/issues/749",
			"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 279356.51 MiB on device 0: cudaMalloc failed: out of memory",
			ggmlAlloc{"279356.51 MiB", "0", "cudaMalloc"}, true},
		// the follow-up line names a buffer, not the failed call: not this fact
		{"https://github.com/ggml-org/llama.cpp/issues/16725",
			"ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296", ggmlAlloc{}, false},
	}
	for _, c := range cases {
		got, ok := extractGGMLAlloc(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractGGMLAlloc(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}
