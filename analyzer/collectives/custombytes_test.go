package collectives

import "testing"

func TestFirstTensor(t *testing.T) {
	for _, c := range []struct {
		name, dims, types string
		bytes             int64
		dtype             string
		ok                bool
	}{
		// symm_mem::multimem_all_reduce_ in TraceLens's B200 eager trace
		{"symm_mem", `[[2557440], [], []]`, `["c10::BFloat16", "", ""]`, 2557440 * 2, "BFloat16", true},
		// vLLM's _C_custom_ar::all_reduce(fa, inp, out, reg_buffer, size): the handle has no dims
		{"vllm", `[[], [16, 4096], [16, 4096], [], []]`, `["long int", "c10::Half", "c10::Half", "long int", "long int"]`, 16 * 4096 * 2, "Half", true},
		{"float", `[[8, 8]]`, `["float"]`, 256, "Float", true},
		{"unknown type", `[[8, 8]]`, `["Tensor(a!)"]`, 0, "", false},
		{"scalars only", `[[], []]`, `["int", "float"]`, 0, "", false},
		{"overflow", `[[4611686018427387904, 4]]`, `["float"]`, 0, "", false},
		{"negative", `[[-1, 4]]`, `["float"]`, 0, "", false},
		{"not json", `[[8`, `["float"]`, 0, "", false},
	} {
		m, ok := firstTensor(c.dims, c.types)
		if ok != c.ok || m.bytes != c.bytes || m.dtype != c.dtype {
			t.Errorf("%s: got %+v %v, want %d %q %v", c.name, m, ok, c.bytes, c.dtype, c.ok)
		}
	}
}
