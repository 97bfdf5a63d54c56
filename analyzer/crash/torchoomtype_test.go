package crash

import "testing"

// torch.OutOfMemoryError is raised only for a failed device allocation, so
// its type names VRAM OOM when the message does not (ComfyUI's re-raise, a
// wrapper's text, a paste cut mid-word); the JVM's OutOfMemoryError is none.
func TestTorchOOMType(t *testing.T) {
	cases := []struct {
		src, text string
		want      string
	}{
		{"https://github.com/Comfy-Org/ComfyUI/issues/10246", "torch.OutOfMemoryError: Allocation on device ", ClassVRAMOOM},
		{"https://github.com/Comfy-Org/ComfyUI/issues/6073", "2024-12-16 17:10:56,767 - root - ERROR - !!! Exception during processing !!! Allocation on device \ntorch.OutOfMemoryError: Allocation on device", ClassVRAMOOM},
		{"https://github.com/vllm-project/vllm/issues/10085", "(VllmWorkerProcess pid=35734) ERROR 11-06 17:51:07 multiproc_worker_utils.py:229] torch.OutOfMemoryError: Error in model executi", ClassVRAMOOM},
		// the older type with the allocator-fraction text (other rules read "out of memory" too)
		{"https://github.com/AIFSH/ComfyUI-ChatTTS/issues/9", "torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)", ClassVRAMOOM},
		{"https://github.com/microsoft/onnxruntime-inference-examples/issues/183", "    java.lang.OutOfMemoryError: Failed to allocate a 361332168 byte allocation with 8388608 free bytes and 164MB until OOM, target footprint 372920392, growth limit 536870912", ""},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		got := hasClass(d, ClassVRAMOOM) != nil
		if got != (c.want == ClassVRAMOOM) {
			t.Errorf("%s: %q: %v", c.src, c.text, classesOf(d))
		}
	}
	if _, ok := extractTorchOOMType("my.torch.OutOfMemoryError: x"); ok {
		t.Error("the type inside a longer dotted name read")
	}
}
