package crash

import "testing"

func TestRocgdbGolden(t *testing.T) {
	d := goldenCase(t, "rocgdb_fx05.golden.json", "shared:fx05_rocgdb_info_agents_queues_dispatches_threads_docs_and_tests.txt")
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Kernel != "rocke_elementwise_add_f16_b256_v8" || f.Details["workgroup"] != "508,0,0" {
		t.Fatalf("%s", d.JSON())
	}
	if hasClass(d, ClassGPUKernelHang) != nil || hasClass(d, ClassHostSegfault) != nil {
		t.Fatalf("fx05 must not report a hang or a host segfault: %s", d.JSON())
	}
	d = goldenCase(t, "rocgdb_s18.golden.json", "shared:s18_rocgdb_sigsegv_lane_switch_bt_flang_offload.log")
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Address != "0x0" || f.Details["work_item"] != "224,0,0" {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "rocgdb_hang.golden.json", "testdata/rocgdb_hang.log")
	// two queues of one worker are two streams, not two ranks
	if f := hasClass(d, ClassGPUKernelHang); f == nil || f.Hang == nil || len(f.Hang.Dispatches) != 2 || len(f.Hang.Queues) != 2 ||
		f.Hang.Progress != "stuck" || f.Details["hang_kind"] != "split_k_shared_workspace" || f.QueueCount != 0 || f.Culprit == nil || f.Culprit.GPU == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzRocgdb(f *testing.F) {
	seedFuzz(f, "shared:fx05_rocgdb_info_agents_queues_dispatches_threads_docs_and_tests.txt", "shared:s18_rocgdb_sigsegv_lane_switch_bt_flang_offload.log", "testdata/rocgdb_hang.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &rocgdbParser{s: s} }), data, cut)
	})
}
