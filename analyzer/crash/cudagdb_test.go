package crash

import "testing"

// cuda-gdb table rows; each row names its source.
func TestExtractCudaRows(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      cudaKernel
		ok        bool
	}{
		// CUDA-GDB manual, "info cuda kernels" (https://docs.nvidia.com/cuda/cuda-gdb/, 8.3.5)
		{"CUDA-GDB manual", "*      1      -   0    2 Active 0x00ffffff (240,1,1) (128,1,1) acos_main parms=...", cudaKernel{id: "1", status: "Active", grid: "(240,1,1)", block: "(128,1,1)", name: "acos_main parms=...", invocation: "acos_main parms=..."}, true},
		// attach to a hung process (testdata/cuda_gdb_hang.log): the Invocation column cut at its arguments
		{"hang attach", "*      0      -   0    1 Active 0x00ffffff (64,1,1) (256,1,1) spin_wait_kernel(flag=0x7f4a1c000000)", cudaKernel{id: "0", status: "Active", grid: "(64,1,1)", block: "(256,1,1)", name: "spin_wait_kernel", invocation: "spin_wait_kernel(flag=0x7f4a1c000000)"}, true},
		{"header", "  Kernel Parent Dev Grid Status   SMs Mask   GridDim  BlockDim Invocation", cudaKernel{}, false},
	} {
		got, ok := extractCudaKernelRow(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
	for _, c := range []struct {
		src, line string
		want      cudaThreads
		ok        bool
	}{
		// CUDA-GDB manual, "info cuda threads" (8.3.9): ranges of threads at one virtual PC
		{"CUDA-GDB manual", "*  (0,0,0)    (0,0,0)     (0,0,0)  (31,0,0)    32 0x000000000088f88c   acos.cu   376", cudaThreads{count: 32, pc: normPC("0x000000000088f88c"), where: "acos.cu:376", from: "(0,0,0)(0,0,0)", to: "(0,0,0)(31,0,0)"}, true},
		{"hang attach", "*  (0,0,0)    (0,0,0)     (63,0,0) (255,0,0) 16384 0x00007fffd7a3c310   spin.cu    18", cudaThreads{count: 16384, pc: normPC("0x00007fffd7a3c310"), where: "spin.cu:18", from: "(0,0,0)(0,0,0)", to: "(63,0,0)(255,0,0)"}, true},
		{"no source", "   (1,0,0)    (0,0,0)     (1,0,0)  (31,0,0)    32 0x0000000000001000", cudaThreads{count: 32, pc: normPC("0x0000000000001000"), from: "(1,0,0)(0,0,0)", to: "(1,0,0)(31,0,0)"}, true},
		{"kernel label", "Kernel 0", cudaThreads{}, false},
	} {
		got, ok := extractCudaThreadRow(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
}

// cuda-gdb stop lines; the wordings are the CUDA-GDB manual's (exception
// banner, "[Switching focus to CUDA kernel …]", kernel<<<…>>> frames; also
// quoted by testdata/cuda_gdb_hang.log and the NVIDIA cases of the shared
// bug-report set).
func TestExtractCudaGdbLine(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      cudaGdbLine
		ok        bool
	}{
		{"exception banner", "CUDA Exception: Warp Illegal Address", cudaGdbLine{kind: "exception", what: "Warp Illegal Address"}, true},
		{"signal banner", `Thread 1 "python3" received signal CUDA_EXCEPTION_14, Warp Illegal Address.`, cudaGdbLine{kind: "exception", what: "Warp Illegal Address"}, true},
		{"assert", `Thread 1 "a.out" received signal CUDA_EXCEPTION_12, Warp Assert.`, cudaGdbLine{kind: "exception", what: "Warp Assert"}, true},
		{"focus", "[Switching focus to CUDA kernel 0, grid 1, block (7,0,0), thread (31,0,0), device 0, sm 12, warp 3, lane 31]", cudaGdbLine{kind: "focus", block: "7,0,0", thread: "31,0,0", device: "0"}, true},
		{"frame", "0x00007fffd7a3c2b0 in stray_store_kernel<<<(16,1,1),(256,1,1)>>> (p=0x7f4a1c000000, n=1099511627776) at kern.cu:12", cudaGdbLine{kind: "frame", kernel: "stray_store_kernel"}, true},
		{"kernels row", "*      1      -   0    2 Active 0x00ffffff (240,1,1) (128,1,1) acos_main parms=...", cudaGdbLine{kind: "kernel", kernel: "acos_main parms=...", active: true}, true},
		{"terminated row", "       2      -   0    3 Terminated 0x00ffffff (1,1,1) (32,1,1) init_kernel()", cudaGdbLine{kind: "kernel", kernel: "init_kernel()"}, true},
		{"plain CUDA error", "RuntimeError: CUDA error: an illegal memory access was encountered", cudaGdbLine{}, false},
	} {
		got, ok := extractCudaGdbLine(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
}
