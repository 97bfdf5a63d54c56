package crash

import "testing"

func TestCLRGolden(t *testing.T) {
	d := goldenCase(t, "clr_s14.golden.json", "shared:s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log")
	f := hasClass(d, ClassIllegalInstruction)
	if f == nil || f.Details["kernel_isa"] != "gfx908" || f.Queue != "0x7387a8e00000" || f.HSACode != "0x2a" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "clr_s12.golden.json", "shared:s12_hsa_exception_0x1016_tp8_no_kernel_atom.log")
	if f := hasClass(d, ClassDeviceAssert); f == nil || f.QueueCount != 8 || f.ExitCode == nil || *f.ExitCode != -6 {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "clr_hip_trace.golden.json", "testdata/hip_trace_launch.log")
	if hasClass(d, ClassInvalidLaunch) == nil || hasClass(d, ClassArchMismatch) == nil {
		t.Fatalf("%s", d.JSON())
	}
}

func TestHIPTables(t *testing.T) {
	if e := lookupHIPName("cudaErrorIllegalAddress"); e == nil || e.name != "hipErrorIllegalAddress" || e.code != 700 {
		t.Fatal(e)
	}
	if e := lookupHIPName("hipErrorInvalidLaunchConfig"); e == nil || e.code != 9 {
		t.Fatal(e)
	}
	if e := lookupHIPText("invalid device function  "); e == nil || e.code != 98 {
		t.Fatal(e)
	}
	if st := lookupHSA("HSA_STATUS_ERROR_EXCEPTION"); st == nil || st.code != "0x1016" {
		t.Fatal(st)
	}
}

func FuzzCLR(f *testing.F) {
	seedFuzz(f, "shared:s12_hsa_exception_0x1016_tp8_no_kernel_atom.log", "shared:s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log", "shared:s17_hip_invalid_device_function_amd_log_level3_rocm2527.log", "testdata/hip_trace_launch.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &clrParser{s: s} }), data, cut)
	})
}
