package crash

import (
	"strings"
	"testing"
)

// gloo's send/recv timeout, each line from a public thread; a quoted or
// cut wording is none.
func TestGlooTimeout(t *testing.T) {
	cases := []struct {
		src, text, ms, op string
	}{
		{"https://github.com/genixpro/kwola/issues/2", "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:84] Timed out waiting 1800000ms for recv operation to complete", "1800000", "recv"},
		{"https://github.com/msr-fiddle/pipedream/issues/39", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:72] Timed out waiting 1800000ms for recv operation to complete", "1800000", "recv"},
		{"https://github.com/pytorch/gloo/issues/511", "[trainer22|6]:RuntimeError: [gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete", "1800000", "recv"},
		{"https://github.com/fsspec/gcsfs/pull/947", "RuntimeError: Timed out waiting 600000ms for recv/send operation to complete", "600000", "recv/send"},
		{"https://github.com/FoundationVision/VNext/issues/9", "RuntimeError: [/opt/conda/conda-bld/pytorch_1656352430114/work/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:136] Timed out waiting 1800000ms for send operation to complete", "1800000", "send"},
	}
	for _, c := range cases {
		g, ok := extractGlooTimeout(c.text)
		if !ok || g.timeoutMS != c.ms || g.op != c.op {
			t.Errorf("%s: %+v %v, want %s %s", c.src, g, ok, c.ms, c.op)
		}
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if hasClass(d, ClassCollectiveTimeout) == nil || hasClass(d, ClassNotGPU) != nil {
			t.Errorf("%s: %v, want collective_timeout and no not_gpu", c.src, classesOf(d))
		}
	}
	// the advice is gloo's, not NCCL's
	d := diagnoseWhole("x.log", []byte(cases[0].text+"\n"))
	if f := hasClass(d, ClassCollectiveTimeout); f != nil {
		for _, s := range f.NextSteps {
			if strings.Contains(s, "NCCL") {
				t.Errorf("gloo advice names NCCL: %q", s)
			}
		}
	}
	for _, s := range []string{
		"Timed out waiting for the store",       // another wait
		"Timed out waiting ms for operation",    // no number, no op
		"Timed out waiting 5000ms for the lock", // not gloo's wording
	} {
		if _, ok := extractGlooTimeout(s); ok {
			t.Errorf("%q read as a gloo timeout", s)
		}
	}
}
