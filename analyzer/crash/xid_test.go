package crash

import (
	"strings"
	"testing"
)

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

// Every Xid the kernel log can carry, read by NVIDIA's catalog (xid.go):
// real NVRM lines from public threads, one or more per class the catalog
// implies, and the catalog's own wording where no thread shows a line.
func TestXidCatalogLines(t *testing.T) {
	cases := []struct {
		src, text, want, xid string
	}{
		// the application's memory faults: 13, 31
		{"vllm-project/vllm#5901", "[93297.027938] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52e7b0=0x101000e 0x52e7b4=0x4 0x52e7a8=0xc81eb60 0x52e7ac=0x1174", ClassGPUMemoryFault, "13"},
		{"pastebin.com/gn6mYmM4", "May 6 00:38:27 alex kernel: [ 4909.922970] NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104 00000000 00000100", ClassGPUMemoryFault, "13"},
		{"pastebin.com/fTNHmgzB", "May 13 17:19:01 hyperion kernel: NVRM: Xid (PCI:0000:08:00): 31, Ch 0000003b, intr 10000000. MMU Fault: ENGINE GRAPHICS HUBCLIENT_SCC faulted @ 0x0_04687000. Fault is of type FAULT_PDE ACCESS_TYPE_READ", ClassGPUMemoryFault, "31"},
		{"Bumblebee-Project/Bumblebee#677", "[24128.834365] NVRM: Xid (PCI:0000:01:00): 31, Ch 00000003, engmask 00000101, intr 10000000", ClassGPUMemoryFault, "31"},
		// Xid 13's SM warp exception that names an illegal instruction
		{"3dem/relion#436", "Feb 15 17:37:45 Gipfeli kernel: [82659.755933] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Illegal Instruction Encoding", ClassIllegalInstruction, "13"},
		{"ggml-org/llama.cpp#23811", "[ 1204.123584] NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 2, TPC 0, SM 0): Illegal Instruction Encoding", ClassIllegalInstruction, "13"},
		{"leptonai/gpud#46", "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter", ClassIllegalInstruction, "13"},
		// 69 graphics engine class error
		{"pastebin.com/fTNHmgzB", "May 13 17:18:47 hyperion kernel: NVRM: Xid (PCI:0000:08:00): 69, Class Error: ChId 003b, Class 0000c197, Offset 00002040, Data 00004b30, ErrorCode 0000000c", ClassDeviceAssert, "69"},
		// hang / reset / firmware: 8, 62, 109, 119, 79, 154, 38
		{"leptonai/gpud#46", "[Fri Aug 30 11:43:14 2024] NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005", ClassGPUHangReset, "109"},
		{"NVIDIA/open-gpu-kernel-modules#1045", "kwi 15 07:56:59 testowy kernel: NVRM: Xid (PCI:0000:07:00): 109, pid=326, name=modprobe, channel 0x00000007, errorString CTX SWITCH TIMEOUT, Info 0x74007", ClassGPUHangReset, "109"},
		{"NVIDIA/open-gpu-kernel-modules#1045", "kwi 15 07:56:59 testowy kernel: NVRM: Xid (PCI:0000:07:00): 38, pid=326, name=modprobe, channel 0x00000003 0000c597 00000000 00000000", ClassGPUHangReset, "38"},
		{"NVIDIA/open-gpu-kernel-modules#1045 (title: Xid 62/45 -> Xid 119 -> Xid 154)", "NVRM: Xid (PCI:0000:01:00): 62, pid='<unknown>', name=<unknown>, 0000b28c 0000b2ae 00000000 00000000 00000000 00000000", ClassGPUHangReset, "62"},
		{"NVIDIA/NVSentinel#155", "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus", ClassGPUHangReset, "79"},
		{"NVIDIA XID catalog, Xid 8 (ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT)", "NVRM: Xid (PCI:0000:3b:00): 8, pid=4821, name=python, Channel 0x00000020", ClassGPUHangReset, "8"},
		// hardware: ECC, row remapping, NVLink
		{"leptonai/gpud#1174", "NVRM: Xid (PCI:0000:9b:00): 94, pid=1234, name=python3, Contained ECC error", ClassECCRAS, "94"},
		{"leptonai/gpud#1174", "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)", ClassECCRAS, "145"},
		{"stas00/ml-engineering compute/accelerator/nvidia/debug.md", "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.", ClassECCRAS, "63"},
		{"plexus.company/guides/gpu-xid-errors/64", "NVRM: Xid (PCI:0000:65:00): 64, pid='N/A', Row Remapper: Failed to remap row", ClassECCRAS, "64"},
		{"NVIDIA XID catalog, Xid 48 (DBE)", "NVRM: Xid (PCI:0000:06:00): 48, pid=2214, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 1.", ClassECCRAS, "48"},
		{"NVIDIA XID catalog, Xid 95", "NVRM: Xid (PCI:0000:b3:00): 95, pid=77120, name=pt_main_thread, Uncontained ECC error", ClassECCRAS, "95"},
		// the driver's own path: push buffer, copy engine
		{"Bumblebee-Project/Bumblebee#677", "[24128.828315] NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000000 intr 00004000", ClassDMADriverFault, "32"},
		{"NVIDIA XID catalog, Xid 9", "NVRM: Xid (PCI:0000:01:00): 9, Channel 00000020 Instance 00000000 Intr 00100000", ClassDMADriverFault, "9"},
	}
	for _, c := range cases {
		d := diagnoseWhole("dmesg.log", []byte(c.text+"\n"))
		if len(d.Findings) == 0 || d.Findings[0].Class != c.want {
			t.Errorf("%s: %q: %v, want %s", c.src, c.text, classesOf(d), c.want)
			continue
		}
		if f := d.Findings[0]; f.Details["xid"] != c.xid || f.Details["xid_meaning"] == "" {
			t.Errorf("%s: xid %q (%q), want %s", c.src, f.Details["xid"], f.Details["xid_meaning"], c.xid)
		}
		nvidiaSteps(t, c.src, d.Findings[0])
	}
	// display and video-codec Xids say nothing about a compute job
	for _, text := range []string{
		"NVRM: Xid (PCI:0000:01:00): 56, pid=1034, name=Xorg, Display Engine error",
		"NVRM: Xid (PCI:0000:01:00): 68, pid=2211, name=ffmpeg, NVDEC0 Exception",
	} {
		if d := diagnoseWhole("dmesg.log", []byte(text+"\n")); len(d.Findings) != 0 {
			t.Errorf("%q: %v, want no finding", text, classesOf(d))
		}
	}
}

// The catalog table itself: every code has a description; each class the
// catalog implies comes with a confidence.
func TestXidCatalogTable(t *testing.T) {
	known := map[string]bool{"": true, ClassGPUMemoryFault: true, ClassDeviceAssert: true, ClassECCRAS: true, ClassGPUHangReset: true, ClassDMADriverFault: true}
	for code, e := range xidCatalog {
		if e.name == "" || !known[e.class] || (e.class == "") != (e.conf == 0) {
			t.Errorf("Xid %d: %+v", code, e)
		}
	}
	if c, _ := xidClass(999, ""); c != "" {
		t.Errorf("unknown Xid 999 gave %s", c)
	}
}

// nvidiaSteps: advice for an NVIDIA-only log names NVIDIA's tools and none
// of ROCm's.
func nvidiaSteps(t *testing.T, src string, f Finding) {
	t.Helper()
	all := strings.Join(f.NextSteps, "\n")
	for _, w := range []string{"rocm-smi", "rocgdb", "rocminfo", "amdgpu", "KFD", "HSA_", "gfx", "debug agent", "AMD_", "HIP_"} {
		if strings.Contains(all, w) {
			t.Errorf("%s: %s advice names ROCm's %q: %q", src, f.Class, w, f.NextSteps)
		}
	}
	if !containsAny(all, "nvidia-smi", "compute-sanitizer", "cuda-gdb", "CUDA_LAUNCH_BLOCKING", "cuobjdump", "dcgmi", "NCCL_") {
		t.Errorf("%s: %s advice names no NVIDIA tool: %q", src, f.Class, f.NextSteps)
	}
}
