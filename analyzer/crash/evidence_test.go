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
