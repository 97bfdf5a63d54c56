package crash

import (
	"strings"
	"testing"
)

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

// ROCm prints the queue abort first and CLR's dispatch dump after it; the
// dump names the aborted kernel unless it belongs to another pid.
func TestKernelNameAfterQueueAbort(t *testing.T) {
	abort := ":0:rocdevice.cpp            :3020: 8812033411 us: [pid:44017 tid:0x7f9a5bfff640] Callback: Queue 0x7f98d3c00000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29\n"
	dump := func(pid string) string {
		return ":1:rocvirtual.cpp           :3417: 8812033428 us: [pid:" + pid + " tid:0x7f9a5bfff640] Kernel Name: _Z22scatter_add_rows_kernelPKfPKlPfii\n"
	}
	for _, c := range []struct {
		pid  string
		want bool
	}{{"44017", true}, {"50000", false}} {
		s := New()
		s.BeginFile("hip.log")
		s.Write([]byte(abort + dump(c.pid)))
		s.EndFile()
		f := hasClass(s.Diagnosis(), ClassGPUMemoryFault)
		if f == nil || strings.Contains(f.Kernel+f.KernelMangled, "scatter_add_rows_kernel") != c.want {
			t.Errorf("pid %s: %+v", c.pid, f)
		}
	}
}
