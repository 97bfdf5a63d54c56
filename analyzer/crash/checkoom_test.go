package crash

import "testing"

// Error-check macros' out-of-memory reports, in real wordings, are vram_oom;
// "out of memory" in other words (the host's, a prose line) is not theirs.
func TestCheckOOM(t *testing.T) {
	for _, c := range []struct{ src, log, call string }{
		{"https://github.com/llnl/camp/issues/157", "terminate called after throwing an instance of 'std::runtime_error'\n  what():  campHipErrchk(hipStreamCreate(&s)) out of memory .../camp/include/camp/resource/hip.hpp:154\n", "hipStreamCreate"},
		{"https://github.com/tromp/cuckoo/issues/53", "GPUassert: out of memory mean.cu 377\n", ""},
		{"https://github.com/NVIDIA/nv-wavenet/issues/87", "assert info:\nGPUassert: out of memory ../nv_wavenet.cuh 326\n", ""},
		{"https://github.com/cuiDarchan/PointPillars_MultiHead_40FPS_ROS/issues/2", "GPUassert:out of memory/../PointPillars_multihead_40FPS/PointPillars_multihead_40FPS_ROS/pointpillars/pointpillars.cc 378\nSegmentation fault(core dumped)\n", ""},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassVRAMOOM)
		if f == nil || f.Details["runtime_call"] != c.call {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
		if len(d.Findings) > 0 && d.Findings[0].Class != ClassVRAMOOM {
			t.Errorf("%s: %v, want vram_oom first", c.src, classesOf(d))
		}
	}
	for _, l := range []string{
		"Out of memory: Killed process 4242 (python) total-vm:1234kB",
		"the loader ran out of memory while reading the dataset",
		"GPU assertions enabled; out of memory handling is tested below",
	} {
		if _, ok := extractCheckOOM(l); ok {
			t.Errorf("%q read as an error-check OOM", l)
		}
	}
}
