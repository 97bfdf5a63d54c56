package crash

import "testing"

// The test beds' own CUDA / HIP checks, each wording from a public thread.
func TestCollTestFailure(t *testing.T) {
	for _, c := range []struct {
		src, text, class string
	}{
		{"https://github.com/NVIDIA/nccl-tests/issues/263", "g0010: Test CUDA failure common.cu:941 'invalid device ordinal'", ClassRCCLTransport},
		{"https://github.com/NVIDIA/nccl-tests/issues/165", "majidnc24MPTXTH: Test CUDA failure common.cu:892 'invalid device ordinal'", ClassRCCLTransport},
		{"https://github.com/NVIDIA/nccl/issues/348 (Open MPI tag)", "[1,13]<stdout>:192.168.0.138: Test CUDA failure common.cu:732 'invalid device ordinal'", ClassRCCLTransport},
		{"https://github.com/ROCm/rccl-tests/issues/16", "Test HIP failure common.cu:1129 'hipErrorInvalidDevice'", ClassRCCLTransport},
		// an error that names no device problem decides nothing here
		{"https://github.com/NVIDIA/nccl-tests/issues/66", "Test CUDA failure common.cu:730 'unknown error'", ""},
		{"prose", "the Test CUDA failure line is printed by common.cu", ""},
	} {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if c.class == "" {
			if hasClass(d, ClassRCCLTransport) != nil {
				t.Errorf("%s: %q: %v, want no rccl_transport", c.src, c.text, classesOf(d))
			}
			continue
		}
		if hasClass(d, c.class) == nil {
			t.Errorf("%s: %q: %v, want %s", c.src, c.text, classesOf(d), c.class)
		}
	}
}
