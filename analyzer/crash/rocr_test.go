package crash

import "testing"

func TestROCrGolden(t *testing.T) {
	d := goldenCase(t, "rocr_s02.golden.json", "shared:s02_rocr_fault_tqdm_remnant_plus_dmesg_rocm3452.log")
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Address != "0x7f9587e00000" || f.PID == nil || *f.PID != 25698 || f.Signal != "SIGABRT" {
		t.Fatalf("s02: %+v", f)
	}
	d = goldenCase(t, "rocr_variants.golden.json", "testdata/rocr_variants.log")
	f = hasClass(d, ClassGPUMemoryFault)
	if f == nil || len(f.Nodes) != 2 || f.Host != "node17" || f.Kernel == "" || len(f.Ranks) != 2 {
		t.Fatalf("variants: %+v", f)
	}
	if hasClass(d, ClassFP8AttentionCrash) == nil {
		t.Errorf("paged attention + fp8 kv cache should add fp8_attention_crash")
	}
}

func TestROCrLegacyAndHW(t *testing.T) {
	goldenCase(t, "rocr_hw_exception_ras.golden.json", "testdata/hw_exception_ras.log")
	d := goldenCase(t, "rocr_gpu_hang.golden.json", "testdata/gpu_hang_hw_exception.log")
	if f := hasClass(d, ClassGPUHangReset); f == nil || f.Node == nil || *f.Node != 2 {
		t.Fatalf("%s", d.JSON())
	}
}

func TestParseReasons(t *testing.T) {
	r := parseReasons("Page not present or supervisor privilege, Write access to a read-only page. ")
	if len(r) != 2 {
		t.Fatal(r)
	}
	if r := parseReasons("Page not present or supervisor privilege.s]"); len(r) != 1 || r[0] != "Page not present or supervisor privilege" {
		t.Fatal(r)
	}
	if k := addressKind("(nil)", nil); k == "" {
		t.Fatal("nil address kind")
	}
}

func FuzzROCr(f *testing.F) {
	seedFuzz(f, "shared:s01_rocr_fault_docker_compose_prefix_ollama8851.log", "shared:s18_rocgdb_sigsegv_lane_switch_bt_flang_offload.log", "shared:fx03_rocm_debug_agent_rocm631_reconstructed_fixture_mfc.txt", "testdata/rocr_variants.log", "testdata/hw_exception_ras.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &rocrParser{s: s} }), data, cut)
	})
}
