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

// Real HW-exception wordings: the "reason :" spacing of ROCm 5.x–7.x.
func TestExtractHWException(t *testing.T) {
	cases := []struct {
		src, text string
		want      hwException
	}{
		{"https://github.com/ROCm/legacy-rocm-build/issues/5259 (ROCm 6.x, gfx942, torchrun)",
			"HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang",
			hwException{node: 4, agent: "0x1ebc04e0", reason: "GPU Hang"}},
		{"https://github.com/komikndr/raylight/issues/102 (ROCm 7.13, after a tqdm bar on the same line)",
			"(pid=63079) :  25%|███▊ | 5.00/20.0 [1:04:24<3:07:19, 749s/it]HW Exception by GPU node-1 (Agent handle: 0x3508fba0) reason :GPU Hang",
			hwException{node: 1, agent: "0x3508fba0", reason: "GPU Hang"}},
		{"https://github.com/lamikr/rocm_sdk_builder/issues/141 (gfx1103, 64-bit handle)",
			"HW Exception by GPU node-1 (Agent handle: 0x5ab48bbcc960) reason :GPU Hang",
			hwException{node: 1, agent: "0x5ab48bbcc960", reason: "GPU Hang"}},
		{"ROCR-Runtime runtime.cpp HwExceptionHandler (ECC reason)",
			"HW Exception by GPU node-2 (Agent handle: 0x55d0c3b0) reason : Uncorrectable ECC error",
			hwException{node: 2, agent: "0x55d0c3b0", reason: "Uncorrectable ECC error"}},
	}
	for _, c := range cases {
		got, ok := extractHWException(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n%s\n got %+v\nwant %+v", c.src, c.text, got, c.want)
		}
	}
	if _, ok := extractHWException("GPU Hang reported by the scheduler"); ok {
		t.Error("a line without the HW exception wording gave a fact")
	}
}

// "Memory in use" across ROCm 6.3–7.2, hosts and prefixes.
func TestExtractMemoryErrorWordings(t *testing.T) {
	cases := []struct {
		src, text string
		want      memoryError
	}{
		{"https://github.com/ollama/ollama/issues/11123 (journald prefix, node-0 APU)",
			"Jun 18 22:16:41 ollama[116408]: Memory critical error by agent node-0 (Agent handle: 0x561adbeb8a80) on address 0x7f401b600000. Reason: Memory in use.",
			memoryError{node: 0, agent: "0x561adbeb8a80", address: "0x7f401b600000", reason: "Memory in use"}},
		{"https://github.com/ROCm/hip/issues/3806 (MI210 on RISC-V, after hsaKmtFreeMemory errno=16)",
			"Memory critical error by agent node-1 (Agent handle: 0x2aecc9cfe0) on address 0x3f8b182000. Reason: Memory in use.",
			memoryError{node: 1, agent: "0x2aecc9cfe0", address: "0x3f8b182000", reason: "Memory in use"}},
	}
	for _, c := range cases {
		got, ok := extractMemoryError(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n got %+v\nwant %+v", c.src, got, c.want)
		}
	}
}

func TestExtractLegacyFault(t *testing.T) {
	// https://github.com/QMCPACK/qmcpack/issues/4553 (ROCm 5.4.3, OpenMP offload on Frontier)
	got, ok := extractLegacyFault("[GPU Memory Error] Addr: 0x7fe5f5162000 Reason: No Idea!")
	want := legacyFault{node: -1, address: "0x7fe5f5162000", reasons: []string{"No Idea!"}, form: "gpu_memory_error"}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v want %+v", got, want)
	}
	got, ok = extractLegacyFault("Memory access fault at GPU Node: 1 / Address: 0x7f36 (page not present)")
	want = legacyFault{node: 1, address: "0x7f36", reasons: []string{"Page not present or supervisor privilege"}, form: "agent"}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v want %+v", got, want)
	}
}

func TestExtractOffload(t *testing.T) {
	f, ok := extractOffloadFault("AMDGPU fatal error 1: Received error in queue 0x7f: HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION")
	if ok {
		t.Errorf("an aperture violation without OFFLOAD ERROR is not an offload fault: %+v", f)
	}
	// llvm-project offload/plugins-nextgen/amdgpu: snprintf("memory access fault by GPU %u (agent 0x%lx)
	// at virtual address %p. Reasons: %s"), wrapped by the plugin's error report
	f, ok = extractOffloadFault("\"PluginInterface\" error: Failure to synchronize stream (nil): \"OFFLOAD ERROR: memory access fault by GPU 0 (agent 0x5555) at virtual address 0x1000. Reasons: Page not present or supervisor privilege, Write access to a read-only page\"")
	want := offloadFault{device: "0", agent: "0x5555", address: "0x1000", reasons: []string{"Page not present or supervisor privilege", "Write access to a read-only page"}}
	if !ok || !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v want %+v", f, want)
	}
	// the older plugin's wording, one fault per line
	for _, c := range []struct {
		src, text string
		want      offloadFault
	}{
		{"https://github.com/ROCm/llvm-project/issues/267", "AMDGPU fatal error 1: Memory access fault by GPU 2 (agent 0x1280c060) at virtual address 0x7f0f8521b000. Reasons: Page not present or supervisor privilege, Write access to a read-only page",
			offloadFault{device: "2", agent: "0x1280c060", address: "0x7f0f8521b000", reasons: []string{"Page not present or supervisor privilege", "Write access to a read-only page"}}},
		{"https://github.com/llvm/llvm-project/issues/60937", "AMDGPU fatal error 1: Memory access fault by GPU 2 (agent 0x5616e63e14c0) at virtual address 0x7f9f19c55000. Reasons: Unknown (0)",
			offloadFault{device: "2", agent: "0x5616e63e14c0", address: "0x7f9f19c55000", reasons: parseReasons("Unknown (0)")}},
	} {
		if f, ok := extractOffloadFault(c.text); !ok || !reflect.DeepEqual(f, c.want) {
			t.Errorf("%s: got %+v want %+v", c.src, f, c.want)
		}
	}
	if k, ok := extractOffloadKernel("Kernel 'omp target in main @ 12 (__omp_offloading_fd00_1a2b_main_l12)'"); !ok || k != "__omp_offloading_fd00_1a2b_main_l12" {
		t.Errorf("offload kernel %q", k)
	}
}

func TestExtractMemoryFaultError(t *testing.T) {
	// ROCm 7.x CLR rocdevice.cpp, wrapped over two lines (the parser joins them)
	rec := "Memory Fault Error [host: acitehost, GPU index: 0, faulting addr: 0x7f1665600000, kernel: Cijk_Ailk_Bjlk_BBS_BH_MT64x128x16]"
	got := extractMemoryFaultError(rec)
	want := memoryFaultErrorRec{host: "acitehost", gpuIndex: "0", address: "0x7f1665600000", kernel: "Cijk_Ailk_Bjlk_BBS_BH_MT64x128x16"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v want %+v", got, want)
	}
}

// ROCm 2.x's debug agent: node on one line, address and reasons on the
// next (https://github.com/ROCm/rocr_debug_agent/issues/2, address as the
// reporter masked it; here a full one).
func TestLegacyAgentAddressLine(t *testing.T) {
	d := diagnoseWhole("agent.log", []byte("[rocr debug agent]: \nMemory access fault at GPU Node: 2\nAddress: 0x12345678 (page not present;write access to a read-only page;)\n"))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Address != "0x12345678" || f.Node == nil || *f.Node != 2 || len(f.Reasons) != 2 {
		t.Fatalf("%s", d.JSON())
	}
	if r := parseReasons("page not present;write access to a read-only page;"); len(r) != 2 {
		t.Errorf("both short forms: %v", r)
	}
}

// The debug agents' fault header with the address on the next line: ROCm
// 2.x's "Memory access fault at GPU Node: N" (ROCm/rocr_debug_agent#2,
// ROCm/legacy-rocm-build#993) and the pre-release debugger's "Memory access
// fault by GPU agent: AMD gfx900" / "Node: 1" / "Address: …"
// (ROCm/legacy-rocm-build#383).
func TestLegacyAgentHeaderForms(t *testing.T) {
	for _, c := range []struct{ src, log, addr string }{
		{"https://github.com/ROCm/legacy-rocm-build/issues/383", "Memory access fault by GPU agent: AMD gfx900\nNode: 1\nAddress: 0x1502F3Cxxx (page not present;)\n \n16 wavefront(s) found in XNACK error state @PC: 0x0000001101F0B1A4\n", "0x1502F3Cxxx"},
		{"https://github.com/ROCm/rocr_debug_agent/issues/2", "[rocr debug agent]: \nMemory access fault at GPU Node: 2\nAddress: 0x12345xxx (page not present;write access to a read-only page;)\n", "0x12345xxx"},
		{"https://github.com/ROCm/legacy-rocm-build/issues/993", "[rocr debug agent]: \nMemory access fault at GPU Node: 1\nAddress: 0x7F36437BBxxx (page not present;write access to a read-only page;)\n", "0x7F36437BBxxx"},
	} {
		d := diagnoseWhole("agent.log", []byte(c.log))
		if f := hasClass(d, ClassGPUMemoryFault); f == nil {
			t.Errorf("%s: no gpu_memory_fault: %s", c.src, d.JSON())
		}
	}
	if f, ok := extractLegacyFault("Memory access fault by GPU agent: AMD gfx900"); !ok || f.agent != "AMD gfx900" || f.form != "agent" {
		t.Errorf("extractLegacyFault: %+v %v", f, ok)
	}
}
