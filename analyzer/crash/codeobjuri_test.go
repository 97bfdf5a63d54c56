package crash

import (
	"strings"
	"testing"
)

// LLVM AMDGPUUsage, "Code Object Uniform Resource Identifier (URI)":
// memory://<process-id>#offset=<n>&size=<n> names the process whose memory
// holds the code object; file:// URIs name none. (The search corpus held no
// real debug-agent dump with a memory:// URI; ROCgdb's frames in
// rocgdb_test.go print the same form.)
func TestCodeObjectPID(t *testing.T) {
	for uri, want := range map[string]int{
		"memory://40211#offset=0x5d2a1000&size=1482752":                  40211,
		"memory://220301#offset=0x7fffe1c00000&size=412672":              220301,
		"file:///opt/rocm/lib/librocblas.so#offset=26132480&size=311472": 0,
		"memory://#offset=0x10":                                          0,
		"":                                                               0,
	} {
		if got := codeObjectPID(uri); got != want {
			t.Errorf("%q: %d, want %d", uri, got, want)
		}
	}
}

// A debug-agent fault whose disassembly names a memory:// code object names
// that process as the culprit, also beside a peer's SIGQUIT wave dump.
func TestAgentFaultCulpritFromCodeObjectURI(t *testing.T) {
	fault := "Memory access fault by GPU node-2 (Agent handle: 0x55a0b13f7e40) on address 0x7f2d9c000000. Reason: Page not present or supervisor privilege.\n" +
		"--------------------------------------------------------\n" +
		"wave_1822: pc=0x7f31c40b7a10 (kernel_code_entry=0x7f31c40b6f00 <quant_kernel(float const*, float*)>, kernargs=0x7f2a20008000) (stopped, reason: MEMORY_VIOLATION)\n" +
		"\n" +
		"Disassembly for function quant_kernel(float const*, float*):\n" +
		"    code object: memory://40211#offset=0x5d2a1000&size=1482752\n" +
		"    loaded at: [0x7f31c4000000-0x7f31c416a000]\n" +
		" => 0x7f31c40b7a10 <+2832>:\ts_waitcnt vmcnt(0)\n" +
		"\n" +
		"End of disassembly.\n"
	f := hasClass(diagnoseWhole("w.log", []byte(fault)), ClassGPUMemoryFault)
	if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != 40211 {
		t.Fatalf("culprit %+v, want pid 40211", f)
	}
	noURI := strings.Replace(fault, "memory://40211#", "file:///tmp/k.co#", 1)
	if g := hasClass(diagnoseWhole("w.log", []byte(noURI)), ClassGPUMemoryFault); g != nil && g.Culprit != nil && g.Culprit.PID != nil && *g.Culprit.PID == 40211 {
		t.Errorf("a file:// code object named pid 40211")
	}
}
