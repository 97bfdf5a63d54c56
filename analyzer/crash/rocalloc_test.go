package crash

import "testing"

// MIOpen's and MIGraphX's refusal of a buffer larger than the free device
// memory, as real threads quote it, is VRAM OOM with the requested bytes.
func TestRocAllocBuffer(t *testing.T) {
	cases := []struct{ src, text, lib, bytes string }{
		{"https://github.com/ROCmSoftwarePlatform/tensorflow/issues/30", "    MIOpen Error: /data/repo/MIOpen/src/hip/handlehip.cpp:68: Memory not available to allocate buffer: 528515072", "MIOpen", "528515072 bytes"},
		{"https://github.com/ROCm/AMDMIGraphX/issues/3052", "As for SDXL, 1024x1024 compilation fails with the following error: `RuntimeError: /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/AMDMIGraphX/src/targets/gpu/hip.cpp:109: allocate_gpu: Memory not available to allocate buffer: 41943040`.", "MIGraphX", "41943040 bytes"},
		{"https://github.com/ROCm/MIOpen/issues/47", "MIOpen Error: /data/repo/MIOpen/src/hip/handlehip.cpp:70: Memory not available to allocate buffer: 655360000", "MIOpen", "655360000 bytes"},
	}
	for _, c := range cases {
		x, ok := extractRocAllocBuffer(c.text)
		if !ok || x.library != c.lib || x.bytes != c.bytes {
			t.Errorf("%s: %+v %v", c.src, x, ok)
		}
	}
	d := diagnoseWhole("x.log", []byte(cases[0].text+"\n"))
	f := hasClass(d, ClassVRAMOOM)
	if f == nil || len(d.Findings) != 1 || f.RequestedBytesText != "528515072 bytes" {
		t.Fatalf("MIOpen buffer refusal: %v", classesOf(d))
	}
	// a host allocation message of other software is no device buffer
	if _, ok := extractRocAllocBuffer(`printf("ERROR: memory not available to allocate buffer for Rx\n");`); ok {
		t.Error("a lower-case host malloc message read as a device buffer")
	}
}
