package crash

import "testing"

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
