package crash

import (
	"fmt"
	"strings"
	"testing"
)

// wave writes a debug-agent wave block whose v0/v1 lanes hold base+lane*8.
func regWave(id int, kernel, reason string, base uint64) string {
	var lo, hi strings.Builder
	for lane := 0; lane < 64; lane++ {
		v := base + uint64(lane)*8
		fmt.Fprintf(&lo, " [%d] %08x", lane, uint32(v))
		fmt.Fprintf(&hi, " [%d] %08x", lane, uint32(v>>32))
	}
	return fmt.Sprintf(`--------------------------------------------------------
wave_%d: pc=0x7f3a6c2a1a34 (kernel_code_entry=0x7f3a6c2a1000 <%s>, kernargs=0x7f3a5e400000) (stopped, reason: %s)

scalar registers:
            s0: 5e400000            s1: 00007f3a            s2: 00000000            s3: 00027000

vector registers:
            v0:%s
            v1:%s

general registers:
            pc: 00007f3a6c2a1a34          exec: ffffffffffffffff
`, id, kernel, reason, lo.String(), hi.String())
}

// Several kernels stopped with MEMORY_VIOLATION: the one whose registers
// hold the faulting page is the culprit, whichever comes first in the file.
func TestFaultKernelByRegisters(t *testing.T) {
	fault := "Memory access fault by GPU node-2 (Agent handle: 0x55d0c2e3f9a0) on address 0x7f3e00011000. Reason: Page not present or supervisor privilege.\n"
	a := regWave(1, "bystander_kernel", "MEMORY_VIOLATION", 0x7f3a00200000)
	b := regWave(2, "writer_kernel", "MEMORY_VIOLATION", 0x7f3e00011000)
	for name, text := range map[string]string{"bystander first": a + a + b + fault, "writer first": b + a + a + fault} {
		d := diagnoseWhole("dump.log", []byte(text))
		f := hasClass(d, ClassGPUMemoryFault)
		if f == nil || f.Kernel != "writer_kernel" || f.Details["kernel_by_registers"] == "" {
			t.Fatalf("%s: %s", name, d.JSON())
		}
	}
	// no register holds the page: the rule stays silent
	d := diagnoseWhole("dump.log", []byte(a+a+regWave(2, "writer_kernel", "MEMORY_VIOLATION", 0x7f3c00000000)+fault))
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Details["kernel_by_registers"] != "" {
		t.Fatalf("%s", d.JSON())
	}
}
