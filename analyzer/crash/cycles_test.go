package crash

import "testing"

// Cycles names a CUDA driver error by CUEW's short name before the call
// or queue step it failed in; the catalog decides the class.
func TestExtractCyclesCUDA(t *testing.T) {
	for _, c := range []struct {
		src, text, class, call string
		want                   bool
	}{
		{"https://github.com/jesterKing/CCSycles/issues/44", "CUDA error: ILLEGAL_ADDRESS in cuCtxSynchronize()", ClassGPUMemoryFault, "cuCtxSynchronize", true},
		{"https://github.com/jesterKing/CCSycles/issues/44", " ILLEGAL_ADDRESS in cuMemAlloc(&device_pointer, size)", ClassGPUMemoryFault, "cuMemAlloc", true},
		{"https://github.com/vosen/ZLUDA/issues/223", `Out of memory in cuStreamCreate(&cuda_stream_, CU_STREAM_NON_BLOCKING) (C:\Users\blender\git\blender-v410\blender.git\intern\cycles\device\cuda\queue.cpp:21)`, ClassVRAMOOM, "cuStreamCreate", true},
		// prose and a bare phrase are nobody's error
		{"prose", "Out of memory is what you get when the scene is too big", "", "", false},
		{"bare", "Illegal address", "", "", false},
	} {
		x, ok := extractCyclesCUDA(c.text)
		if ok != c.want || ok && (x.err.e.class != c.class || x.call != c.call) {
			t.Errorf("%s: extractCyclesCUDA(%q) = %+v, %v", c.src, c.text, x, ok)
		}
		if c.want && hasClass(diagnoseWhole("cycles.log", []byte(c.text+"\n")), c.class) == nil {
			t.Errorf("%s: no %s", c.src, c.class)
		}
	}
}
