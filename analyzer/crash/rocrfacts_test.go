package crash

import (
	"reflect"
	"testing"
)

// Real wordings of the ROCr fault line (sources: testdata/crash-corpus
// SOURCES.md) and the facts they carry.
func TestExtractVMFault(t *testing.T) {
	cases := []struct {
		text string
		want vmFault
	}{
		{"Memory access fault by GPU node-2 (Agent handle: 0x38b6960) on address 0x1000. Reason: Page not present or supervisor privilege.",
			vmFault{node: 2, agent: "0x38b6960", address: "0x1000", reasons: []string{"Page not present or supervisor privilege"}}},
		{"Memory access fault by GPU node-4 (Agent handle: 0x152e220) on address (nil). Reason: Page not present or supervisor privilege.",
			vmFault{node: 4, agent: "0x152e220", address: "(nil)", reasons: []string{"Page not present or supervisor privilege"}}},
		// rocm/pytorch#797: the reason broken by a space, the shell's Aborted glued on
		{"Memory access fault by GPU node-2 (Agent handle: 0x56468ab3bb50) on address 0x7fe55fb03000. Reason: Page not present or supervisor p rivilege.Aborted (core dumped)",
			vmFault{node: 2, agent: "0x56468ab3bb50", address: "0x7fe55fb03000", reasons: []string{"Page not present or supervisor privilege"}}},
		{"Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f0000001000(may not be exact address). Reason: Write access to a read-only page.",
			vmFault{node: 1, agent: "0x1", address: "0x7f0000001000", imprecise: true, reasons: []string{"Write access to a read-only page"}}},
	}
	for _, c := range cases {
		got, ok := extractVMFault(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
	if _, ok := extractVMFault("no fault here"); ok {
		t.Error("a line without the fault wording gave a fact")
	}
}

func TestExtractMemoryError(t *testing.T) {
	got, ok := extractMemoryError("Memory critical error by agent node-1 (Agent handle: 0x2aecc9cfe0) on address 0x3f8b182000. Reason: Memory in use. ")
	want := memoryError{node: 1, agent: "0x2aecc9cfe0", address: "0x3f8b182000", reason: "Memory in use"}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v want %+v", got, want)
	}
}
