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
		// jaxlib 0.1.x printed the status as "Resource exhausted: …"
		{"https://github.com/jax-ml/jax/issues/4994", "FAILED tests/core_test.py::CoreTest::test_jit_42 - RuntimeError: Resource exhausted: Out of memory while trying to allocate 24 bytes.", "24 bytes", "", true},
		{"https://github.com/jax-ml/jax/issues/4994", "FAILED tests/core_test.py::CoreTest::test_jvp_10 - RuntimeError: Resource exhausted: Out of memory while trying to allocate 16 bytes.", "16 bytes", "", true},
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

// A paste that wrapped the status after "Out" (jax#788's glog line) is one
// report: the size is on the next line.
func TestXLAOOMWrappedLine(t *testing.T) {
	log := "[1] 2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out \nof memory while trying to allocate 5520758552 bytes.\n"
	f := hasClass(diagnoseWhole("jax.log", []byte(log)), ClassVRAMOOM)
	if f == nil || f.RequestedBytesText != "5520758552 bytes" {
		t.Fatalf("https://github.com/jax-ml/jax/issues/788: %+v", f)
	}
	// two unrelated lines are not joined
	log = "E local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out\nsomething else\nof memory while trying to allocate 5520758552 bytes.\n"
	if f := hasClass(diagnoseWhole("jax.log", []byte(log)), ClassVRAMOOM); f != nil {
		t.Fatalf("joined across a line: %+v", f)
	}
}
