package crash

import (
	"strings"
	"testing"
)

// Next steps never ask for what the inputs already hold.
func TestNextStepsReadTheEvidence(t *testing.T) {
	nccl := []byte("node-3:48211:48311 [0] NCCL INFO NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL\n" +
		"[rank0]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600016 milliseconds before timing out.\n")
	s := New()
	_, dump := readInput(t, "testdata/rocgdb_hang.log")
	s.BeginFile("rocgdb_hang.log")
	s.Write(dump)
	s.BeginFile("nccl.log")
	s.Write(nccl)
	d := s.Diagnosis()
	for _, f := range d.Findings {
		steps := strings.Join(f.NextSteps, "\n")
		for _, bad := range []string{"rocgdb -p", "two dumps", "NCCL_DEBUG=INFO"} {
			if strings.Contains(steps, bad) {
				t.Errorf("%s asks for %q although the inputs hold it:\n%s", f.Class, bad, steps)
			}
		}
	}
	// the arch is printed: no rocminfo to find it
	_, s14 := readInput(t, "shared:s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log")
	d = diagnoseWhole("s14.log", append([]byte("  Name:                    gfx906\n"), s14...))
	for _, f := range d.Findings {
		if f.Class == ClassArchMismatch || f.Class == ClassIllegalInstruction {
			if steps := strings.Join(f.NextSteps, "\n"); strings.Contains(steps, "rocminfo | grep -m1") {
				t.Errorf("%s asks rocminfo for the arch the log prints:\n%s", f.Class, steps)
			}
		}
	}
	// pids fill the placeholders
	c := &stepCtx{pid: "48211"}
	if got := c.apply("py-spy dump --pid <scheduler pid> --native on every rank"); !strings.Contains(got, "--pid 48211") {
		t.Errorf("placeholder not filled: %s", got)
	}
}

// The framework's own words decide the vendor when no vendor-only format
// does: CUDA builds get CUDA tools, ROCm builds (which also print "CUDA
// error" and "CUDA kernel errors might be…", shared s13) keep ROCm's.
func TestNextStepsRuntimeVendor(t *testing.T) {
	hint := func(v string) string {
		return "RuntimeError: CUDA error: an illegal memory access was encountered\n" +
			"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n" +
			"For debugging consider passing " + v + "\n"
	}
	for _, c := range []struct {
		name, log  string
		want, deny []string
	}{
		{"cuda hint", hint("CUDA_LAUNCH_BLOCKING=1."), []string{"CUDA_LAUNCH_BLOCKING=1", "compute-sanitizer"}, []string{"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "debug agent", "rocgdb"}},
		{"rocm7 hint", hint("AMD_SERIALIZE_KERNEL=3"), []string{"AMD_SERIALIZE_KERNEL=3", "librocm-debug-agent"}, nil},
		{"cuda oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.02 GiB is free. Of the allocated memory 15.10 GiB is allocated by PyTorch, and 9.21 GiB is reserved by PyTorch but unallocated.\n",
			[]string{"PYTORCH_CUDA_ALLOC_CONF", "nvidia-smi"}, []string{"rocm-smi", "PYTORCH_HIP_ALLOC_CONF"}},
		{"hip oom", "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 191.98 GiB of which 1.02 GiB is free. Of the allocated memory 15.10 GiB is allocated by PyTorch, and 9.21 GiB is reserved by PyTorch but unallocated.\n",
			[]string{"PYTORCH_HIP_ALLOC_CONF", "rocm-smi"}, nil},
	} {
		d := diagnoseWhole("x.log", []byte(c.log))
		var steps string
		for _, f := range d.Findings {
			steps += strings.Join(f.NextSteps, "\n") + "\n"
		}
		for _, w := range c.want {
			if !strings.Contains(steps, w) {
				t.Errorf("%s: steps lack %q:\n%s", c.name, w, steps)
			}
		}
		for _, w := range c.deny {
			if strings.Contains(steps, w) {
				t.Errorf("%s: steps name %q on the other vendor:\n%s", c.name, w, steps)
			}
		}
	}
}

// Triton advice follows the backend the failing frame is in.
func TestTritonBackendAdvice(t *testing.T) {
	for loc, want := range map[string]string{
		"/venv/lib/python3.12/site-packages/triton/backends/amd/compiler.py:264 in make_ttgir": "amd",
		"/x/site-packages/triton/backends/intel/compiler.py:304 in make_ttgir":                 "intel",
		"/x/site-packages/triton/compiler/compiler.py:320 in compile":                          "",
	} {
		if got := tritonBackend(loc); got != want {
			t.Errorf("tritonBackend(%q) = %q, want %q", loc, got, want)
		}
	}
}
