package crash

import "testing"

// XLA's RESOURCE_EXHAUSTED allocation failures, as JAX users post them, are
// device OOMs; a TPU compile running out of its vector memory is not.
func TestExtractXLAOOM(t *testing.T) {
	for _, c := range []struct {
		src, text  string
		bytes, dev string
		want       bool
	}{
		{"https://github.com/patrickbryant1/AFProfile/issues/8", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4770354232 bytes.", "4770354232 bytes", "", true},
		{"https://github.com/jax-ml/jax/issues/13428", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.", "6291456 bytes", "", true},
		{"https://github.com/google-deepmind/jaxline/issues/11", "errors.  RESOURCE_EXHAUSTED: Out of memory while trying to allocate 285212672 bytes.", "285212672 bytes", "", true},
		{"https://github.com/sokrypton/ColabFold/issues/65", "RuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 14285187448 bytes.", "14285187448 bytes", "", true},
		{"https://github.com/onpix/LLNeRF/issues/9", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 20029400304 bytes.", "20029400304 bytes", "", true},
		{"https://github.com/ecmwf-lab/ai-models-graphcast/issues/18", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) on device ordinal 0", "2.99GiB", "0", true},
		// TPU vector memory at compile time: no GPU allocation
		{"https://github.com/pytorch/xla/issues/9524", "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem.", "", "", false},
	} {
		x, ok := extractXLAOOM(c.text)
		if ok != c.want || x.bytes != c.bytes || x.device != c.dev {
			t.Errorf("%s: extractXLAOOM(%q) = %+v, %v", c.src, c.text, x, ok)
		}
		if c.want && hasClass(diagnoseWhole("jax.log", []byte(c.text+"\n")), ClassVRAMOOM) == nil {
			t.Errorf("%s: no vram_oom for %q", c.src, c.text)
		}
	}
}
