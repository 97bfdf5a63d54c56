package crash

import "testing"

// Xid records as the driver prints them and as reporters condense them
// (sources per row).
func TestExtractXid(t *testing.T) {
	cases := []struct {
		src, text string
		code      int
		address   string
		condensed bool
	}{
		{"https://github.com/ggml-org/llama.cpp/issues/27105 (the driver's own line)",
			`NVRM: Xid (PCI:0000:03:00): 31, pid=18865, name=llama-server, channel 0x00000019, intr 10000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_5 faulted @ 0x32_0134b000. Fault is of type FAULT_PDE ACCESS_TYPE_READ`,
			31, "0x320134b000", false},
		{"https://github.com/leptonai/gpud/pull/46 (Xid 13 without an MMU decode)",
			`NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter`,
			13, "", false},
		{"https://github.com/vllm-project/vllm/issues/53726 (a reporter's kern.log table, read)",
			`08-04 06:43:55 Xid 31 GPC1 GPCCLIENT_T1_9  @ 0xede3_7fa00000  FAULT_PDE ACCESS_TYPE_VIRT_READ`,
			31, "0xede37fa00000", true},
		{"https://github.com/vllm-project/vllm/issues/53726 (same table, a write)",
			`08-19 19:41:00 Xid 31 GPC3 GPCCLIENT_T1_7  @ 0xee7a_a0203000  FAULT_PDE ACCESS_TYPE_VIRT_WRITE`,
			31, "0xee7aa0203000", true},
		{"a project's notes quoting the driver (public repository text found by the code search)",
			"`NVRM Xid 31: MMU Fault, FAULT_PTE, ACCESS_TYPE_VIRT_READ @ 0x20_0a064000`",
			31, "0x200a064000", true},
		{"a journalctl -k paraphrase in a project's status notes (public repository text)",
			`NVRM: Xid 31 ... MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_6 ... FAULT_PDE ACCESS_TYPE_VIRT_READ`,
			31, "", true},
	}
	for _, c := range cases {
		x, ok := extractXid(c.text)
		if !ok || x.code != c.code || x.address != c.address || x.condensed != c.condensed {
			t.Errorf("%s\n%s\n got %+v ok=%v, want code %d address %q condensed %v", c.src, c.text, x, ok, c.code, c.address, c.condensed)
		}
	}
	// prose naming an Xid without the driver's MMU decode is no record
	// (the NVSentinel#271 feature request, a summary line)
	for _, s := range []string{
		`Currently all XID 31s are ignored as non-fatal. This is likely sweeping some problems under the rug`,
		`Reproduced consistently across 7+ runs, always Xid 31, varying only in GPC client and fault address`,
		`w416  CE2        HUBCLIENT_CE0 @ 0x7683_27600000  FAULT_PDE ACCESS_TYPE_VIRT_WRITE`,
	} {
		if x, ok := extractXid(s); ok {
			t.Errorf("%q gave %+v", s, x)
		}
	}
}

// A condensed Xid 31 line alone is an MMU fault: gpu_memory_fault with its
// address (vllm#53726).
func TestCondensedXidRule(t *testing.T) {
	d := diagnoseWhole("kern.log", []byte("08-04 06:43:55 Xid 31 GPC1 GPCCLIENT_T1_9  @ 0xede3_7fa00000  FAULT_PDE ACCESS_TYPE_VIRT_READ\n"))
	if len(d.Findings) == 0 || d.Findings[0].Class != ClassGPUMemoryFault || d.Findings[0].Address != "0xede37fa00000" {
		t.Fatalf("got %+v", d.Findings)
	}
}
