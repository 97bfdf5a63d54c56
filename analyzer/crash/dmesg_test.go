package crash

import (
	"reflect"
	"testing"
)

func TestDmesgGolden(t *testing.T) {
	d := goldenCase(t, "dmesg_s06.golden.json", "shared:s06_dmesg_gfxhub0_no_retry_page_fault_pt_main_thread_amdgpu172.log")
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Address != "0xae8570611000" || len(f.Addresses) != 2 {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "dmesg_s19.golden.json", "shared:s19_dmesg_rdna4_sdma_page_fault_walker_error_solus7986.log")
	if f := hasClass(d, ClassDMADriverFault); f == nil || f.Details["utcl2_client"] == "" || hasClass(d, ClassGPUMemoryFault) != nil {
		t.Fatalf("%s", d.JSON())
	}
	goldenCase(t, "dmesg_s07.golden.json", "shared:s07_dmesg_mes_remove_queue_gpu_reset_strix_halo_rocm5724.log")
	d = goldenCase(t, "dmesg_s10.golden.json", "shared:s10_host_oom_killer_tqdm_killed_deepseekvl2_90.log")
	if f := hasClass(d, ClassHostOOMKill); f == nil || f.Details["anon_rss_kB"] != "54398260" {
		t.Fatalf("%+v", f)
	}
}

// ROCr line in one file, dmesg in another: one finding, correlated.
func TestDmesgCrossFile(t *testing.T) {
	s := New()
	s.BeginFile("app.log")
	s.Write([]byte("Memory access fault by GPU node-1 (Agent handle: 0x55) on address 0x7f9587e00000. Reason: Page not present or supervisor privilege.\n"))
	s.EndFile()
	s.BeginFile("dmesg.txt")
	s.Write([]byte("[ 10.0] amdgpu 0000:0d:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32783)\n[ 10.0] amdgpu 0000:0d:00.0: amdgpu:  in process python pid 25698 thread python pid 25698)\n[ 10.0] amdgpu 0000:0d:00.0: amdgpu:   in page starting at address 0x00007f9587e00000 from client 10\n"))
	s.EndFile()
	d := s.Diagnosis()
	f := hasClass(d, ClassGPUMemoryFault)
	if len(d.Findings) != 1 || f.PID == nil || *f.PID != 25698 || len(f.Notes) == 0 {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzDmesg(f *testing.F) {
	seedFuzz(f, "shared:s02_rocr_fault_tqdm_remnant_plus_dmesg_rocm3452.log", "shared:s06_dmesg_gfxhub0_no_retry_page_fault_pt_main_thread_amdgpu172.log", "shared:s07_dmesg_mes_remove_queue_gpu_reset_strix_halo_rocm5724.log", "shared:s19_dmesg_rdna4_sdma_page_fault_walker_error_solus7986.log", "shared:s10_host_oom_killer_tqdm_killed_deepseekvl2_90.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &dmesgParser{s: s} }), data, cut)
	})
}

// Real amdgpu decode wordings across kernel versions (sources per row).
func TestExtractPageFaultLine(t *testing.T) {
	cases := []struct {
		src, text string
		want      pfLine
	}{
		{"https://github.com/ROCm/amdgpu/issues/150 (5.x, mmhub0, process in the header)",
			"amdgpu 0000:88:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:24 vmid:8 pasid:32768, for process ipython3 pid 846049 thread ipython3 pid 846049)",
			pfLine{kind: pfHeader, bdf: "0000:88:00.0", hub: "mmhub0", retry: "no-retry", ring: "24", vmid: "8", process: "ipython3", pid: 846049}},
		{"https://github.com/ROCm/amdgpu/issues/172 (header without process)",
			"amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)",
			pfLine{kind: pfHeader, bdf: "0000:c6:00.0", hub: "gfxhub0", retry: "no-retry", ring: "24", vmid: "3"}},
		{"https://github.com/ROCm/amdgpu/issues/172 (process on its own line, 'for process')",
			"amdgpu 0000:c6:00.0: amdgpu:  for process pt_main_thread pid 12924 thread pt_main_thread pid 12924)",
			pfLine{kind: pfProcess, bdf: "0000:c6:00.0", process: "pt_main_thread", pid: 12924}},
		{"https://github.com/pop-os/cosmic-greeter/issues/344 ('in process')",
			"amdgpu 0000:0d:00.0: amdgpu:  in process cosmic-comp pid 4732 thread cosmic-com:cs0 pid 4753)",
			pfLine{kind: pfProcess, bdf: "0000:0d:00.0", process: "cosmic-comp", pid: 4732}},
		{"https://github.com/pop-os/cosmic-comp/issues/2352 (6.x 'Process', no 'amdgpu:' tag)",
			"amdgpu 0000:05:00.0:  Process cosmic-comp pid 20242 thread cosmic-com:cs0 pid 20273",
			pfLine{kind: pfProcess, bdf: "0000:05:00.0", process: "cosmic-comp", pid: 20242}},
		{"https://github.com/pop-os/cosmic-comp/issues/2352 (6.x header, hub without index)",
			"amdgpu 0000:05:00.0: [gfxhub] page fault (src_id:0 ring:24 vmid:7 pasid:98)",
			pfLine{kind: pfHeader, bdf: "0000:05:00.0", hub: "gfxhub", ring: "24", vmid: "7"}},
		{"https://github.com/ROCm/amdgpu/issues/150 (IH client name)",
			"amdgpu 0000:88:00.0: amdgpu:   in page starting at address 0x00007fe99dff7000 from IH client 0x12 (VMC)",
			pfLine{kind: pfAddr, bdf: "0000:88:00.0", addr: "0x00007fe99dff7000", ihClient: "0x12 (VMC)"}},
		{"https://github.com/getsolus/packages/issues/7986 (RDNA4, 'from client 10')",
			"amdgpu 0000:0e:00.0: amdgpu:   in page starting at address 0x00007febd6383000 from client 10",
			pfLine{kind: pfAddr, bdf: "0000:0e:00.0", addr: "0x00007febd6383000", ihClient: "10"}},
		{"https://github.com/FreeBSDDesktop/kms-drm/issues/76 (4.15 'VMC page fault', vm_id/pas_id)",
			"drmn0: [mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)",
			pfLine{kind: pfHeader, hub: "mmhub", ring: "153", vmid: "0"}},
		{"https://github.com/FreeBSDDesktop/kms-drm/issues/76 (4.15 'at page … from N')",
			"  at page 0x00005b7199707000 from 18",
			pfLine{kind: pfAddr, addr: "0x00005b7199707000", ihClient: "18"}},
		{"https://github.com/ROCm/amdgpu/issues/168 (GCVM status, gfx10+)",
			"amdgpu 0000:2b:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031",
			pfLine{kind: pfStatus, bdf: "0000:2b:00.0", status: "0x00701031"}},
		{"https://github.com/ROCm/amdgpu/issues/168 (client CB/DB, tab-indented)",
			"amdgpu 0000:2b:00.0: amdgpu: \t Faulty UTCL2 client ID: CB/DB (0x0)",
			pfLine{kind: pfClient, bdf: "0000:2b:00.0", client: "CB/DB (0x0)"}},
		{"https://github.com/getsolus/packages/issues/7986 (SDMA0 client)",
			"amdgpu 0000:0e:00.0: amdgpu: \t Faulty UTCL2 client ID: SDMA0 (0xd)",
			pfLine{kind: pfClient, bdf: "0000:0e:00.0", client: "SDMA0 (0xd)"}},
		{"https://github.com/getsolus/packages/issues/7986 (status bit field)",
			"amdgpu 0000:0e:00.0: amdgpu: \t WALKER_ERROR: 0x5",
			pfLine{kind: pfFlag, bdf: "0000:0e:00.0", flag: "WALKER_ERROR", val: "0x5"}},
		// the pre-gfx9 decode (gmc v6–v8): header, page number, status, vmid + client
		{"https://github.com/Lucretia/vulkan-overlay/issues/31 (GMC header without process)",
			"[   54.018783] amdgpu 0000:01:00.0: GPU fault detected: 147 0x0e384801",
			pfLine{kind: pfHeader, bdf: "0000:01:00.0", hub: "gmc"}},
		{"https://github.com/Requiem4Eternity/Appstream/issues/77 (GMC header with its process)",
			"May 25 17:21:45 k8snode234 kernel: amdgpu 0005:01:00.0: GPU fault detected: 146 0x0000480c for process Media1190 pid 2828872 thread appstream:cs0 pid 2828891",
			pfLine{kind: pfHeader, bdf: "0005:01:00.0", hub: "gmc", process: "Media1190", pid: 2828872}},
		{"https://github.com/PhoenixMinerDevTeam/PhoenixMiner/issues/60 (quoted without the kernel prefix)",
			"GPU fault detected: 146 0x0ff8c40c for process PhoenixMiner pid 2298 thread PhoenixMiner pid 2298",
			pfLine{kind: pfHeader, hub: "gmc", process: "PhoenixMiner", pid: 2298}},
		{"https://github.com/Lucretia/vulkan-overlay/issues/31 (FAULT_ADDR is a page number)",
			"[   54.018785] amdgpu 0000:01:00.0:   VM_CONTEXT1_PROTECTION_FAULT_ADDR   0x0462075D",
			pfLine{kind: pfAddr, bdf: "0000:01:00.0", addr: "0x462075d000"}},
		{"https://github.com/ValveSoftware/steam-for-linux/issues/3795 (status)",
			"[15342.107081] amdgpu 0000:01:00.0:   VM_CONTEXT1_PROTECTION_FAULT_STATUS 0x0A0C800C",
			pfLine{kind: pfStatus, bdf: "0000:01:00.0", status: "0x0A0C800C"}},
		{"https://github.com/Requiem4Eternity/Appstream/issues/91 (vmid, pasid, texture-cache client)",
			"May 29 12:42:58 k8snode231 kernel: amdgpu 0005:01:00.0: VM fault (0x0c, vmid 1, pasid 32784) at page 0, read from 'TC4' (0x54433400) (72)",
			pfLine{kind: pfClient, bdf: "0005:01:00.0", vmid: "1", client: "TC4", flag: "RW", val: "0x0"}},
		{"https://github.com/ValveSoftware/steam-for-linux/issues/3795 (no BDF on the VM fault line)",
			"[15342.107083] VM fault (0x0c, vmid 5) at page 1194279, read from 'TC3' (0x54433300) (200)",
			pfLine{kind: pfClient, vmid: "5", client: "TC3", flag: "RW", val: "0x0"}},
	}
	for _, c := range cases {
		got, ok := extractPageFaultLine(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n%q\n got %+v\nwant %+v", c.src, c.text, got, c.want)
		}
	}
	for _, s := range []string{
		"amdgpu 0000:44:00.0: amdgpu: ring sdma0 uses VM inv eng 12 on hub 0",
		"amdgpu: amdgpu_amdkfd_restore_userptr_worker: Failed to resume KFD",
	} {
		if x, ok := extractPageFaultLine(s); ok {
			t.Errorf("%q is no decode line: %+v", s, x)
		}
	}
}

// The pre-gfx9 decode is a fault like the newer ones: with the process on
// the header it names the culprit; a reset that follows keeps its own finding.
func TestDmesgGMCFault(t *testing.T) {
	for _, c := range []struct {
		src, log string
		pid      int
		addr     string
	}{
		{"https://github.com/Requiem4Eternity/Appstream/issues/77", `May 25 18:20:04 k8snode234 kernel: amdgpu 0005:01:00.0: GPU fault detected: 146 0x0000480c for process Media1190 pid 2828872 thread appstream:cs0 pid 2828891
May 25 18:20:04 k8snode234 kernel: amdgpu 0005:01:00.0:   VM_CONTEXT1_PROTECTION_FAULT_ADDR   0x00000000
May 25 18:20:04 k8snode234 kernel: amdgpu 0005:01:00.0:   VM_CONTEXT1_PROTECTION_FAULT_STATUS 0x0604800C
May 25 18:20:04 k8snode234 kernel: amdgpu 0005:01:00.0: VM fault (0x0c, vmid 3, pasid 32773) at page 0, read from 'TC4' (0x54433400) (72)
May 25 18:20:14 k8snode234 kernel: amdgpu 0005:01:00.0: GPU reset begin!
`, 2828872, "0x0"},
		{"https://github.com/ValveSoftware/steam-for-linux/issues/3795", `[15342.107078] amdgpu 0000:01:00.0: GPU fault detected: 146 0x0938c80c
[15342.107081] amdgpu 0000:01:00.0:   VM_CONTEXT1_PROTECTION_FAULT_ADDR   0x00123927
[15342.107081] amdgpu 0000:01:00.0:   VM_CONTEXT1_PROTECTION_FAULT_STATUS 0x0A0C800C
[15342.107083] VM fault (0x0c, vmid 5) at page 1194279, read from 'TC3' (0x54433300) (200)
`, 0, "0x123927000"},
	} {
		d := diagnoseWhole("dmesg.txt", []byte(c.log))
		f := hasClass(d, ClassGPUMemoryFault)
		if f == nil || f.Address != c.addr {
			t.Errorf("%s: %s", c.src, d.JSON())
			continue
		}
		if got := 0; c.pid > 0 {
			if f.PID != nil {
				got = *f.PID
			}
			if got != c.pid {
				t.Errorf("%s: pid %d, want %d", c.src, got, c.pid)
			}
		}
	}
}

// A paste that begins after the header (https://github.com/CachyOS/linux-cachyos/issues/960
// quotes the block from its status line; here it starts at the address): the
// fault is still read, with its page, client and pid-less record.
func TestDmesgMidBlockPaste(t *testing.T) {
	s := New()
	s.BeginFile("dmesg.txt")
	s.Write([]byte(`Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0:   in page starting at address 0x00000043800e1000 from client 0x1b (UTCL2)
Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0: GCVM_L2_PROTECTION_FAULT_STATUS:0x00401031
Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0:          Faulty UTCL2 client ID: TCP (0x8)
Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0:          MORE_FAULTS: 0x1
Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0:          PERMISSION_FAULTS: 0x3
`))
	s.EndFile()
	d := s.Diagnosis()
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Address != "0x43800e1000" || f.Details["utcl2_client"] != "TCP (0x8)" {
		t.Fatalf("%s", d.JSON())
	}
}

// The process of a timed-out job: the line right after the ring timeout.
func TestDmesgTimeoutProcess(t *testing.T) {
	cases := []struct {
		src, log string
		pid      int
	}{
		{"https://github.com/ublue-os/bazzite/issues/4464 (6.x ' Process … pid')", `[32554.992028] amdgpu 0000:08:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=13441142, emitted seq=13441144
[32554.992032] amdgpu 0000:08:00.0: amdgpu:  Process Main pid 65975 thread vkd3d_queue pid 66181
[32554.992035] amdgpu 0000:08:00.0: amdgpu: Starting gfx_0.0.0 ring reset
`, 65975},
		{"https://github.com/yshui/picom/issues/1390 (5.x 'Process information: process')", `Nov 14 10:46:51 leviathan kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=5235351, emitted seq=5235353
Nov 14 10:46:51 leviathan kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process picom pid 37593 thread picom:cs0 pid 37625
Nov 14 10:46:51 leviathan kernel: amdgpu 0000:0c:00.0: amdgpu: GPU reset begin!
`, 37593},
	}
	for _, c := range cases {
		s := New()
		s.BeginFile("dmesg.txt")
		s.Write([]byte(c.log))
		s.EndFile()
		f := hasClass(s.Diagnosis(), ClassGPUHangReset)
		if f == nil || f.PID == nil || *f.PID != c.pid {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
	// https://github.com/freebsd/drm-kmod/issues/78: a process without a name in the header
	x, ok := extractPageFaultLine("drmn0: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:3 pasid:32770, for process  pid 101779 thread  pid 101779)")
	if !ok || x.pid != 101779 || x.retry != "retry" {
		t.Errorf("%+v", x)
	}
}

// NVRM's "fallen off the bus" without an Xid: a device loss (gpu_hang_reset)
// on the GPU the message names, also when the open driver splits it over
// three lines and the BDF is only on the first.
func TestDmesgNVRMOffBus(t *testing.T) {
	cases := []struct {
		src, log, bdf string
	}{
		{"https://github.com/NVIDIA/NVSentinel/issues/155", `[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0
               NVRM: (PCI ID: 10de:26b5) installed in this system has
               NVRM: fallen off the bus and is not responding to commands.
[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).
`, "0000:b3:00.0"},
		{"https://github.com/Bumblebee-Project/Bumblebee/issues/554", `[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.
[   49.261465] NVRM: os_pci_init_handle: invalid context!
`, "0000:01:00.0"},
		{"../shared/testdata/crash-seedcases c26 (after its Xid 79 line)", `[Tue May 12 21:02:11 2026] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.
`, "0000:3b:00.0"},
	}
	for _, c := range cases {
		d := diagnoseWhole("dmesg.txt", []byte(c.log))
		f := hasClass(d, ClassGPUHangReset)
		if f == nil || f.Device != c.bdf || hasClass(d, ClassGPUMemoryFault) != nil {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
	}
}

// A paste that begins inside a fault's decode fields (no header, no
// address) proves a VM fault on that device only when no fault header of
// the device follows; otherwise it is the cut tail of a fault and the
// complete records that follow speak (real pastes, URL per case).
func TestDmesgOrphanFaultFields(t *testing.T) {
	cases := []struct {
		src, log string
		fault    bool
	}{
		{"https://github.com/ROCm/legacy-rocm-build/issues/1020", "[  501.631604] amdgpu 0000:67:00.0: \t MORE_FAULTS: 0x1\n[  501.631606] amdgpu 0000:67:00.0: \t WALKER_ERROR: 0x7\n[  501.631608] amdgpu 0000:67:00.0: \t PERMISSION_FAULTS: 0xf\n[  501.631610] amdgpu 0000:67:00.0: \t MAPPING_ERROR: 0x1\n[  501.631612] amdgpu 0000:67:00.0: \t RW: 0x1\n[  510.633583] qcm fence wait loop timeout expired\n[  510.633592] amdgpu 0000:67:00.0: GPU reset begin!\n", true},
		// the cut tail is followed by complete vmid-0 / pid-0 records: those decide
		{"https://github.com/ROCm/legacy-rocm-build/issues/2755", "[266017.022902] amdgpu 0000:83:00.0: amdgpu: \t WALKER_ERROR: 0x1\n[266017.022907] amdgpu 0000:83:00.0: amdgpu: \t PERMISSION_FAULTS: 0x3\n[266017.022911] amdgpu 0000:83:00.0: amdgpu: \t MAPPING_ERROR: 0x1\n[266017.022914] amdgpu 0000:83:00.0: amdgpu: \t RW: 0x0\n[266017.033202] amdgpu 0000:83:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:0 pasid:0, for process  pid 0 thread  pid 0)\n[266017.033213] amdgpu 0000:83:00.0: amdgpu:   in page starting at address 0x00007fffec27d000 from client 10\n", true},
		// all-zero fields (a continuation record's tail): no fault
		{"https://github.com/ValveSoftware/csgo-osx-linux/issues/3298", "[68747.506936] amdgpu 0000:06:00.0: amdgpu: \tWALKER_ERROR: 0x0\n[68747.506938] amdgpu 0000:06:00.0: amdgpu: \tPERMISSION_FAULTS: 0x0\n[68747.506941] amdgpu 0000:06:00.0: amdgpu: \tMAPPING_ERROR: 0x0\n[68747.506943] amdgpu 0000:06:00.0: amdgpu: \tRW: 0x0\n", false},
	}
	for _, c := range cases {
		d := diagnoseWhole("dmesg.txt", []byte(c.log))
		// a fault either way: #2755's complete records are vmid 0 / pid 0,
		// the driver's own VM (dma_driver_fault, TestKernelVMFaultIsDriverPath)
		if got := hasClass(d, ClassGPUMemoryFault) != nil || hasClass(d, ClassDMADriverFault) != nil; got != c.fault {
			t.Errorf("%s: GPU fault %v, want %v: %s", c.src, got, c.fault, d.JSON())
		}
	}
}

// MES's older wording "MES failed to response msg=N" (DRM_ERROR in
// mes_v11_0.c before it became "failed to respond to msg=…") is the same
// GPU hang as the newer one.
func TestDmesgMESOldWording(t *testing.T) {
	for _, c := range []struct{ src, line, reason string }{
		{"https://github.com/ROCm/ROCm/issues/2820", `[283919.087877] [drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* MES failed to response msg=14`, "MES failed to respond to msg=14"},
		{"https://github.com/ROCm/ROCm/issues/3452", `[Tue Jul 23 13:49:25 2024] [drm:amdgpu_debugfs_mes_event_log_init [amdgpu]] *ERROR* MES failed to response msg=3`, "MES failed to respond to msg=3"},
		{"https://github.com/ROCm/ROCm/issues/2196 (journal)", `Apr 29 00:58:13 ArchDesktop kernel: [drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* MES failed to response msg=14`, "MES failed to respond to msg=14"},
		{"newer wording", `amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE`, "MES failed to respond to msg=REMOVE_QUEUE"},
	} {
		e, ok := extractKernelEvent(c.line)
		if !ok || e.kind != "reset" || !e.strong || e.reason != c.reason {
			t.Errorf("%s: %+v %v", c.src, e, ok)
		}
		if f := hasClass(diagnoseWhole("dmesg.txt", []byte(c.line+"\n")), ClassGPUHangReset); f == nil {
			t.Errorf("%s: no gpu_hang_reset", c.src)
		}
	}
}

// The SMU no longer answering the driver (powerplay's "failed to send
// message N ret is R", swsmu's "Failed to send message 0x…, response 0x…")
// and a device coredump's own "Ring timed out details" are GPU hangs; a
// user-space "failed to send message" (D-Bus, sockets) is none.
func TestDmesgSMUAndCoredumpHang(t *testing.T) {
	for _, c := range []struct {
		src, log string
		want     bool
	}{
		{"https://github.com/ishitatsuyuki/acominer/issues/9 (wrapped after \"amdgpu:\")", "[442366.409593] amdgpu:\n                 failed to send message 200 ret is 0\n[442368.471903] amdgpu:\n                 last message was failed ret is 0\n", true},
		{"https://github.com/ROCm/legacy-rocm-build/issues/1886", "[Sat Jan  7 14:25:59 2023] amdgpu 0000:e3:00.0: amdgpu: Failed to send message 0x26, response 0x0\n", true},
		{"https://github.com/ROCm/legacy-rocm-build/issues/1020", "[  511.030771] amdgpu: [powerplay] Failed to send message 0x7, response 0xffffffff\n", true},
		{"https://github.com/HansKristian-Work/vkd3d-proton/issues/3073 (devcoredump data)", "**** AMDGPU Device Coredump ****\nversion: 1\nmodule: amdgpu\nprocess_name: ForzaHorizon5.e PID: 10960\n\nRing timed out details\nIP Type: 0 Ring Name: gfx_0.0.0\n", true},
		{"a desktop session's D-Bus error", "gnome-shell[2101]: Failed to send message to the bus: Connection closed\n", false},
	} {
		if got := hasClass(diagnoseWhole("dmesg.txt", []byte(c.log)), ClassGPUHangReset) != nil; got != c.want {
			t.Errorf("%s: gpu_hang_reset %v, want %v", c.src, got, c.want)
		}
	}
}

// The OOM killer's first line ("X invoked oom-killer: gfp_mask=…") is a
// host OOM kill also when the paste ends before the victim line; X is the
// process whose allocation failed, not the victim, so it is no culprit.
func TestDmesgOOMInvoked(t *testing.T) {
	for _, c := range []struct{ src, log, task string }{
		{"https://github.com/pytorch/pytorch/issues/5522", "[Fri Mar  2 11:34:55 2018] java invoked oom-killer: gfp_mask=0x24201ca, order=0, oom_score_adj=0\n[Fri Mar  2 11:34:55 2018] java cpuset=/ mems_allowed=0\n[Fri Mar  2 11:34:55 2018]  [<ffffffff81193eb2>] oom_kill_process+0x202/0x3c0\n", "java"},
		{"LKML report (2.6 kernel, syslog)", "Jun 18 07:44:52 jbarnes-g45 kernel: [64377.426677] apt-check invoked oom-killer: gfp_mask=0x201da, order=0, oom_adj=0\n", "apt-check"},
		{"LTP oom02 (comm:pid, flag names)", "[  364.737486] oom02:4583 invoked oom-killer: gfp_mask=0x16080c0(GFP_KERNEL|__GFP_ZERO|__GFP_NOTRACK), nodemask=1,  order=0, oom_score_adj=0\n", "oom02:4583"},
		{"dmesg | tail walkthrough (call trace follows)", "[9927609.690053] ffmpeg invoked oom-killer: gfp_mask=0x201da, order=0, oom_score_adj=0\n[9927609.690106]  [<ffffffff81184c7e>] oom_kill_process+0x24e/0x3c0\n", "ffmpeg"},
	} {
		f := hasClass(diagnoseWhole("dmesg.txt", []byte(c.log)), ClassHostOOMKill)
		if f == nil || f.PID != nil || f.Details["invoked_by"] != c.task {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
	// the victim line that follows names the pid
	f := hasClass(diagnoseWhole("dmesg.txt", []byte("[  581.376828] python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0\n[  581.600000] Out of memory: Killed process 4242 (python) total-vm:1000kB, anon-rss:900kB\n")), ClassHostOOMKill)
	if f == nil || f.PID == nil || *f.PID != 4242 {
		t.Errorf("victim: %+v", f)
	}
	// prose about the OOM killer is no report
	if f := hasClass(diagnoseWhole("notes.txt", []byte("if the kernel invoked oom-killer, raise the limit\n")), ClassHostOOMKill); f != nil {
		t.Errorf("prose: %+v", f)
	}
}

// The OOM reaper's line names the OOM killer's victim: a grep that kept it
// and dropped "Killed process" still has the pid (the culprit); a reaper
// line alone is an OOM kill, the invoker of the report never the victim.
func TestDmesgOOMReaper(t *testing.T) {
	for _, c := range []struct {
		src, log string
		pid      int
	}{
		{"https://github.com/equinor/ert/issues/7797 (iso time, after the kill line)", "2024-04-29T14:55:41,679700+02:00 Out of memory: Killed process 1440763 (perl) total-vm:87033376kB, anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB, UID:21417 pgtables:169956kB oom_score_adj:0\n2024-04-29T14:55:46,947445+02:00 oom_reaper: reaped process 1440763 (perl), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n", 1440763},
		{"https://github.com/openbmc/openbmc/issues/1887 (reaper line alone)", "[ 4022.980000] oom_reaper: reaped process 935 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n", 935},
		{"https://github.com/theyosh/TerrariumPI/issues/155 (a terminal wrapped the rss fields)", "[79018.562727] oom_reaper: reaped process 5711 (python), now anon-rss:0kB, file-\n                                                     rss:0kB, shmem-rss:0kB\n", 5711},
		{"https://github.com/ShengcaiLiao/QAConv/issues/19 (an invoker of a later report)", "[441281.626336] oom_reaper: reaped process 698405 (python), now anon-rss:0kB, file-rss:68664kB, shmem-rss:53172kB\n[448212.100902] sunloginclient invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n", 698405},
	} {
		f := hasClass(diagnoseWhole("dmesg.txt", []byte(c.log)), ClassHostOOMKill)
		if f == nil || f.PID == nil || *f.PID != c.pid {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
	// two victims reaped: the kernel names no one process
	f := hasClass(diagnoseWhole("dmesg.txt", []byte("[  518.053407] oom_reaper: reaped process 15784 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n[  518.073567] oom_reaper: reaped process 15783 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n")), ClassHostOOMKill)
	if f == nil || f.Culprit != nil && f.Culprit.PID != nil {
		t.Errorf("docker/for-linux#1001 two victims: %+v", f)
	}
}

// The pre-4.19 victim line as enterprise kernels print it, with the owner's
// UID after (RHEL 7) or before (RHEL 6) the command: a host OOM kill naming
// the victim.
func TestDmesgOOMVictimWithUID(t *testing.T) {
	for _, c := range []struct {
		src, log string
		pid      int
	}{
		{"https://pjolsson.com/smcp/10662.html (CentOS 7, messages)", "Out of memory: Kill process 5372 (mongod) score 130 or sacrifice child\nKilled process 5372 (mongod), UID 0, total-vm:2539052kB, anon-rss:2117096kB, file-rss:0kB, shmem-rss:0kB\n", 5372},
		{"https://github.com/cPanelSSP/SSP/issues/76 (CentOS 6.7)", "Mar  2 17:35:10 server1 kernel: [2858609.598568] Killed process 11726, UID 498, (mysqld) total-vm:7823732kB, anon-rss:2539268kB, file-rss:768kB\n", 11726},
		{"https://miaokee.com/830725.html (CentOS 6.5)", "Aug 11 16:28:11 kernel: Out of memory: Kill process 3080 (forward) score 559 or sacrifice child\nAug 11 16:28:11 kernel: Killed process 3080, UID 0, (forward) total-vm:1429064kB, anon-rss:1130444kB, file-rss:136kB\n", 3080},
	} {
		f := hasClass(diagnoseWhole("messages", []byte(c.log)), ClassHostOOMKill)
		if f == nil || f.PID == nil || *f.PID != c.pid {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
	if f := hasClass(diagnoseWhole("notes.txt", []byte("Killed processes, UID 0, are restarted by systemd\n")), ClassHostOOMKill); f != nil {
		t.Errorf("prose: %+v", f)
	}
}

// A kernel oops whose faulting instruction is in the GPU driver module is a
// driver bug (dma_driver_fault), in the oops wordings of several kernels;
// a RIP outside the driver, a call-trace frame in amdgpu and a RIP line
// without an oops header (a WARN splat) are not.
func TestDmesgDriverOops(t *testing.T) {
	for _, c := range []struct{ src, log, fn string }{
		{"https://github.com/ROCm/amdgpu/issues/70 (4.15, 'IP: fn+off [amdgpu]')", "[  279.910283] BUG: unable to handle kernel NULL pointer dereference at 0000000000000000\n[  279.910345] IP: kfd_dbgmgr_wave_control+0x12/0x60 [amdgpu]\n[  279.910347] PGD 7e8155067 P4D 7e8155067 PUD 81419b067 PMD 0 \n[  279.910352] Oops: 0000 [#1] SMP NOPTI\n", "kfd_dbgmgr_wave_control"},
		{"https://github.com/ROCm/amdgpu/issues/71", "[   28.478193] BUG: unable to handle kernel NULL pointer dereference at 0000000000000000\n[   28.478255] IP: kfd_dbgmgr_address_watch+0x12/0x60 [amdgpu]\n", "kfd_dbgmgr_address_watch"},
		{"https://github.com/ROCm/hip/issues/15 (journal, 'IP: [<addr>] fn')", "Mar 24 11:53:49 pandemonium kernel: [   19.067885] BUG: unable to handle kernel NULL pointer dereference at 0000000000000010\nMar 24 11:53:49 pandemonium kernel: [   19.067889] IP: [<ffffffffc01cc246>] amdgpu_bo_list_set+0x196/0x3d0 [amdgpu]\nMar 24 11:53:49 pandemonium kernel: [   19.067905] PGD 0 \n", "amdgpu_bo_list_set"},
		{"https://github.com/marazmista/radeon-profile/issues/147 (5.0, 'RIP: 0010:')", "[ 1747.571494] BUG: unable to handle kernel NULL pointer dereference at 00000000000000a8\n[ 1747.571497] #PF error: [normal kernel read fault]\n[ 1747.571499] PGD 0 P4D 0 \n[ 1747.571502] Oops: 0000 [#4] SMP NOPTI\n[ 1747.571505] CPU: 4 PID: 10587 Comm: radeon-profile Tainted: G      D    OE     5.0.0-29-generic #31~18.04.1-Ubuntu\n[ 1747.571567] RIP: 0010:amdgpu_get_dpm_state+0x4b/0xb0 [amdgpu]\n", "amdgpu_get_dpm_state"},
	} {
		f := hasClass(diagnoseWhole("dmesg.txt", []byte(c.log)), ClassDMADriverFault)
		if f == nil || f.Details["driver_function"] != c.fn {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
	for _, c := range []struct{ src, log string }{
		// the oops stopped in core kernel code, not in the driver
		{"https://github.com/ROCm/ROCm/issues/2596", "Nov 26 01:10:31 code01 kernel: BUG: kernel NULL pointer dereference, address: 0000000000000002\nNov 26 01:10:31 code01 kernel: Oops: 0000 [#1] PREEMPT SMP NOPTI\nNov 26 01:10:31 code01 kernel: RIP: 0010:__list_add_valid_or_report+0x1a/0xa0\n"},
		// a hung task's call trace passes through amdgpu: no oops
		{"https://github.com/ROCm/tensorflow-upstream/issues/180", "[Wed Sep 26 00:30:18 2018] INFO: task python:19772 blocked for more than 120 seconds.\n[Wed Sep 26 00:30:18 2018]  amdgpu_bo_create+0x42/0x210 [amdgpu]\n"},
		// a WARN splat prints a RIP in the driver without an oops header
		{"WARN splat", "[  100.1] WARNING: CPU: 3 PID: 812 at drivers/gpu/drm/amd/amdgpu/amdgpu_vm.c:2712 amdgpu_vm_fini+0x2f1/0x330 [amdgpu]\n[  100.1] RIP: 0010:amdgpu_vm_fini+0x2f1/0x330 [amdgpu]\n"},
		// a user-space RIP
		{"https://github.com/ollama/ollama/pull/16983", "kern  :warn  : [qua jul  8 09:49:25 2026] RIP: 0033:0x7f1920815480\n"},
	} {
		if f := hasClass(diagnoseWhole("dmesg.txt", []byte(c.log)), ClassDMADriverFault); f != nil {
			t.Errorf("%s: %+v", c.src, f)
		}
	}
}

// NVRM lines the Xid table reads beyond the application faults: a teardown
// "caused by previous Xid N" takes N's class (the cause), NVLink Xids
// 144–150 are hardware, Xid 154 asks for a reset, and the open module's GSP
// timeouts without an Xid 119 are a firmware hang.
func TestNVRMCauseNVLinkGSP(t *testing.T) {
	cases := []struct{ src, text, want string }{
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1150", "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149", ClassECCRAS},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1150", "kernel: NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c caused by previous Xid 145", ClassECCRAS},
		{"https://github.com/leptonai/gpud/pull/1174", "NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)", ClassECCRAS},
		{"https://github.com/leptonai/gpud/pull/1160", "NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 0x00000000 0x00000000 0x00000000)", ClassECCRAS},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/446", "192.168.11.119: kern: warning: [2026-04-22T21:30:51.870495804Z]: NVRM: Xid (PCI:0000:0b:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", ClassGPUHangReset},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/446", "192.168.11.119: kern: warning: [2026-04-22T21:30:51.526447914Z]: NVRM: nvAssertFailedNoLog: Assertion failed: Back to back GSP RPC timeout detected! GPU marked for reset @ kernel_gsp.c:2387", ClassGPUHangReset},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1230", "[   24.302465] NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200", ClassGPUHangReset},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1230", "[   84.300488] NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP Timeout **********************************", ClassGPUHangReset},
		// a teardown without a cause, or a cause the table does not know,
		// keeps the teardown's own reading
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1045 (title wording)", "NVRM: Xid (PCI:0000:01:00): 45, pid=4242, name=python, Ch 00000010", ClassGPUMemoryFault},
		{"synthetic: unknown cause code", "NVRM: Xid (PCI:0000:01:00): 45, pid=4242, name=python, Ch 00000010 caused by previous Xid 999", ClassGPUMemoryFault},
	}
	for _, c := range cases {
		d := diagnoseWhole("dmesg.log", []byte(c.text+"\n"))
		if len(d.Findings) == 0 || d.Findings[0].Class != c.want {
			t.Errorf("%s: %q: %v, want %s", c.src, c.text, classesOf(d), c.want)
		}
	}
	// the driver's load banner and a heartbeat *setting* are no timeout
	d := diagnoseWhole("dmesg.log", []byte("[   14.650646] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  595.71.05  Release Build\n"))
	if len(d.Findings) != 0 {
		t.Errorf("load banner: %v", classesOf(d))
	}
}

// A paste that begins after a decode's header: the process line that
// follows the header ("for process P pid N …)" in 5.x, " Process P pid N …"
// in 6.x) opens no record on its own but names the owner of the address
// line that comes next on the same device, also when another GPU's decode
// interleaves; a process line with no address after it (a ring timeout's
// job) is no page fault.
func TestDmesgHeadlessProcessLine(t *testing.T) {
	for _, c := range []struct {
		src, log string
		pid      int
	}{
		{"https://github.com/sgl-project/sglang/issues/10195 (MI300X, dmesg -T, two GPUs interleaved)", `[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu:   cookie node_id 2 fault from die AID0.XCD1
[Tue Sep  9 02:30:28 2025] amdgpu 0000:06:00.0: amdgpu:  for process python3 pid 132529 thread python3 pid 132529)
[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00341051
[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu:          Faulty UTCL2 client ID: TCP (0x8)
[Tue Sep  9 02:30:28 2025] amdgpu 0000:06:00.0: amdgpu:   in page starting at address 0x00007ef7cd5fd000 from IH client 0x1b (UTCL2)
[Tue Sep  9 02:30:28 2025] amdgpu 0000:06:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00341051
[Tue Sep  9 02:30:28 2025] amdgpu 0000:06:00.0: amdgpu:          PERMISSION_FAULTS: 0x5
`, 132529},
		{"https://github.com/ROCm/ROCm/issues/5616 (6.x ' Process' line, header cut)", `[   67.058806] amdgpu 0000:c4:00.0: amdgpu:  Process python3 pid 3370 thread python3 pid 3370
[   67.058809] amdgpu 0000:c4:00.0: amdgpu:   in page starting at address 0x00007fa4808cb000 from client 10
[   67.058812] amdgpu 0000:c4:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932
[   67.058813] amdgpu 0000:c4:00.0: amdgpu:      Faulty UTCL2 client ID: CPF (0x4)
`, 3370},
		{"https://github.com/ROCm/amdgpu/issues/172 (5.x split header, first line cut)", `[ 4778.916081] amdgpu 0000:c6:00.0: amdgpu:  for process pt_main_thread pid 12924 thread pt_main_thread pid 12924)
[ 4778.916571] amdgpu 0000:c6:00.0: amdgpu:   in page starting at address 0x0000ae8570611000 from IH client 0x1b (UTCL2)
[ 4778.917054] amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031
[ 4778.917532] amdgpu 0000:c6:00.0: amdgpu: 	 Faulty UTCL2 client ID: TCP (0x8)
`, 12924},
	} {
		d := diagnoseWhole("dmesg.txt", []byte(c.log))
		var f *Finding
		for _, cl := range []string{ClassGPUMemoryFault, ClassDMADriverFault} {
			if f = hasClass(d, cl); f != nil {
				break
			}
		}
		if f == nil || f.PID == nil || *f.PID != c.pid {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
	}
	// a timeout's job line with no decode after it opens no fault (pop-os/cosmic-epoch#3764)
	d := diagnoseWhole("dmesg.txt", []byte("[  312.522692] amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=57638, emitted seq=57641\n[  312.522700] amdgpu 0000:28:00.0:  Process cosmic-comp pid 2288 thread cosmic-com:cs0 pid 2316\n[  312.522706] amdgpu 0000:28:00.0: Starting gfx_0.0.0 ring reset\n"))
	if hasClass(d, ClassGPUMemoryFault) != nil || hasClass(d, ClassDMADriverFault) != nil {
		t.Errorf("timeout job line: %s", d.JSON())
	}
	if f := hasClass(d, ClassGPUHangReset); f == nil || f.PID == nil || *f.PID != 2288 {
		t.Errorf("timeout job line lost its pid: %s", d.JSON())
	}
}

// Xid 13's SM warp exception names what trapped: "Illegal Instruction
// Encoding" / "Illegal Instruction Parameter" is an illegal instruction;
// "Out Of Range Address" stays the application's memory fault.
func TestXid13IllegalInstruction(t *testing.T) {
	for _, c := range []struct{ src, line, class string }{
		{"https://github.com/3dem/relion/issues/436", "Feb 15 17:37:45 Gipfeli kernel: [82659.755933] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Illegal Instruction Encoding", ClassIllegalInstruction},
		{"https://github.com/ggml-org/llama.cpp/issues/23811", "[ 1204.123584] NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 2, TPC 0, SM 0): Illegal Instruction Encoding", ClassIllegalInstruction},
		{"https://github.com/leptonai/gpud/pull/46", "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter", ClassIllegalInstruction},
		{"NVIDIA Xid catalog wording", "[ 9.1] NVRM: Xid (PCI:0000:9b:00): 13, pid=51002, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address", ClassGPUMemoryFault},
	} {
		d := diagnoseWhole("kern.log", []byte(c.line+"\n"))
		if hasClass(d, c.class) == nil {
			t.Errorf("%s: want %s: %s", c.src, c.class, d.JSON())
		}
		if c.class == ClassIllegalInstruction && hasClass(d, ClassGPUMemoryFault) != nil {
			t.Errorf("%s: an illegal instruction also read as a memory fault: %s", c.src, d.JSON())
		}
	}
}

// The NVIDIA resource manager's NV_ERR_RESET_REQUIRED (0x62) says the GPU
// must be reset before it takes work again — in an assertion or a check,
// from whatever call failed — a gpu_hang_reset with or without an Xid; the
// status named in prose or in another error is none.
func TestDmesgNVResetRequired(t *testing.T) {
	for _, c := range []struct {
		src, log string
		want     bool
	}{
		{"https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/982", "[373871.354096] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827\n", true},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1045 (check, journal, cut by the pager)", "Jun 12 16:31:50 fedora-box kernel: NVRM: GPU0 nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from _gpushareddataSendDataPollRpc(pGpu, polle>\n", true},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/446 (talos kern log, the excerpt cut after the callee)", "192.168.11.119: kern: warning: [2026-04-22T21:37:31.524565304Z]: NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from pRmApi\n", true},
		{"another status in the same assertion shape", "Jun 12 16:31:50 fedora-box kernel: NVRM: nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:259\n", false},
		{"the status named in a note", "grep dmesg for NV_ERR_RESET_REQUIRED before rebooting\n", false},
	} {
		if got := hasClass(diagnoseWhole("dmesg.txt", []byte(c.log)), ClassGPUHangReset) != nil; got != c.want {
			t.Errorf("%s: gpu_hang_reset %v, want %v", c.src, got, c.want)
		}
	}
}

// A command-processor (CPF) or copy-engine (SDMA) page fault is the
// driver path, but the decode still names the process whose queue or copy
// faulted: that process is the culprit, as for a shader fault. Wordings:
// the older inline "in process X pid N thread X pid N)" line (shared s02),
// the newest own-line "Process X pid N thread X pid N" with SDMA0 (shared
// s19), CPF on gfx1151 (ROCm/ROCm#5890).
func TestDMAFaultCulpritFromDecode(t *testing.T) {
	for _, c := range []struct {
		name, log string
		pid       int
	}{
		{"CPF, inline process line", "[Sat Mar 14 03:27:10 2026] amdgpu 0000:02:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:169 vmid:9 pasid:32790)\n" +
			"[Sat Mar 14 03:27:10 2026] amdgpu 0000:02:00.0: amdgpu:  in process lammps pid 48812 thread lammps pid 48812)\n" +
			"[Sat Mar 14 03:27:10 2026] amdgpu 0000:02:00.0: amdgpu:   in page starting at address 0x00007f0000000000 from client 10\n" +
			"[Sat Mar 14 03:27:10 2026] amdgpu 0000:02:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00940C31\n" +
			"[Sat Mar 14 03:27:10 2026] amdgpu 0000:02:00.0: amdgpu: \t Faulty UTCL2 client ID: CPF (0x4)\n", 48812},
		{"SDMA, own process line", "[ 2480.727736] amdgpu 0000:0e:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:8 vmid:3 pasid:32773)\n" +
			"[ 2480.727739] amdgpu 0000:0e:00.0: amdgpu:  Process python3 pid 15615 thread python3 pid 15615\n" +
			"[ 2480.727741] amdgpu 0000:0e:00.0: amdgpu:   in page starting at address 0x0000000000001000 from client 10\n" +
			"[ 2480.727743] amdgpu 0000:0e:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00B41051\n" +
			"[ 2480.727744] amdgpu 0000:0e:00.0: amdgpu: \t Faulty UTCL2 client ID: SDMA0 (0xd)\n", 15615},
		// the multimedia hub's named clients are no shader: its DMA engine
		// (XDMA) and the platform processors (MP0)
		{"mmhub, MP0 (ROCm/amdgpu#150)", "[282248.294764] amdgpu 0000:88:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:24 vmid:8 pasid:32768, for process ipython3 pid 846049 thread ipython3 pid 846049)\n" +
			"[282248.295825] amdgpu 0000:88:00.0: amdgpu:   in page starting at address 0x00007fe99dff7000 from IH client 0x12 (VMC)\n" +
			"[282248.296375] amdgpu 0000:88:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00000000\n" +
			"[282248.296966] amdgpu 0000:88:00.0: amdgpu:     Faulty UTCL2 client ID: MP0 (0x0)\n", 846049},
		{"mmhub, XDMA on gfx906 (ROCm/rocm-systems#4817's kernel log, a pid added)", "[ 911.204417] amdgpu 0000:01:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:24 vmid:8 pasid:31, for process rpc-server pid 7731 thread rpc-server pid 7731)\n" +
			"[ 911.204420] amdgpu 0000:01:00.0: amdgpu:   in page starting at address 0x000075a69ae0b000 from IH client 0x12 (VMC)\n" +
			"[ 911.204422] amdgpu 0000:01:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00800031\n" +
			"[ 911.204424] amdgpu 0000:01:00.0: amdgpu:      Faulty UTCL2 client ID: XDMA (0x0)\n", 7731},
	} {
		f := hasClass(diagnoseWhole("dmesg.log", []byte(c.log)), ClassDMADriverFault)
		if f == nil {
			t.Fatalf("%s: no dma_driver_fault", c.name)
		}
		if f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != c.pid {
			t.Errorf("%s: culprit %+v, want pid %d", c.name, f.Culprit, c.pid)
		}
	}
}

// A paste that begins mid-block: the decode tail before the first header
// (status, client, flags) belongs to the same fault burst, and names the
// client when the record after it was cut before its own decode
// (ROCm/rocm-systems#4817: XDMA on gfx906). A record with its own decode
// keeps its own client.
func TestDmesgHeadlessTailClient(t *testing.T) {
	tail := "amdgpu 0000:01:00.0: VM_L2_PROTECTION_FAULT_STATUS:0x00800031\n" +
		"amdgpu 0000:01:00.0:      Faulty UTCL2 client ID: XDMA (0x0)\n" +
		"amdgpu 0000:01:00.0:      PERMISSION_FAULTS: 0x3\n"
	head := "amdgpu 0000:01:00.0: [mmhub0] no-retry page fault (src_id:0 ring:24 vmid:8 pasid:31)\n" +
		"                     from IH client 0x12 (VMC)\n"
	d := diagnoseWhole("dmesg.log", []byte(tail+head))
	if f := hasClass(d, ClassDMADriverFault); f == nil || f.Details["utcl2_client"] != "XDMA (0x0)" {
		t.Errorf("cut record after an XDMA tail: %s", d.JSON())
	}
	own := head + "amdgpu 0000:01:00.0:   in page starting at address 0x000075a69ae0b000 from IH client 0x1b (UTCL2)\n" +
		"amdgpu 0000:01:00.0: VM_L2_PROTECTION_FAULT_STATUS:0x00301031\n" +
		"amdgpu 0000:01:00.0:      Faulty UTCL2 client ID: TCP (0x8)\n"
	d = diagnoseWhole("dmesg.log", []byte(tail+own))
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Details["utcl2_client"] != "TCP (0x8)" {
		t.Errorf("a record with its own decode: %s", d.JSON())
	}
}
