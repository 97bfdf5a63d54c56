package crash

import "testing"

// TensorRT's logger wordings for a device allocation it could not make
// (builder workspace, tactic timing, engine memory) are vram_oom; the
// logger's other errors and its tactic-skip warning are not.
func TestExtractTRTOOM(t *testing.T) {
	for _, c := range []struct {
		src, text   string
		bytes, call string
		want        bool
	}{
		{"https://github.com/huggingface/optimum-nvidia/issues/146", "[08/11/2024-06:10:36] [TRT] [E] [virtualMemoryBuffer.cpp::resizePhysical::151] Error Code 2: OutOfMemory (Requested size was 16654532608 bytes.)", "16654532608 bytes", "", true},
		{"https://github.com/NVIDIA/TensorRT/issues/4254", "[E] [virtualMemoryBuffer.cpp::resizePhysical::154] Error Code 2: OutOfMemory (Requested size was 16581132288 bytes.)", "16581132288 bytes", "", true},
		{"https://github.com/NVIDIA/TensorRT/issues/2682", "[02/15/2023-06:20:02] [E] Error[2]: [virtualMemoryBuffer.cpp::resizePhysical::145] Error Code 2: OutOfMemory (no further information)", "", "", true},
		{"https://github.com/VoltaML/voltaML-fast-stable-diffusion/issues/15", "[12/09/2022-20:25:24] [TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::145] Error Code 2: OutOfMemory (no further information)", "", "", true},
		{"https://github.com/NVIDIA/TensorRT/issues/4258", "[11/22/2024-13:40:47] [E] Error[1]: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)", "", "", true},
		{"https://github.com/NVIDIA/TensorRT/issues/840", "ERROR: ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)", "", "allocate", true},
		// the Windows build names the allocator's qualified method
		{"https://github.com/NVIDIA/TensorRT/issues/948 (title)", `[E] [TRT] C:\source\rtSafe\safeRuntime.cpp (25) - Cuda Error in nvinfer1::internal::DefaultAllocator::allocate: 2 (out of memory)`, "", "nvinfer1::internal::DefaultAllocator::allocate", true},
		{"https://github.com/NVIDIA/TensorRT/issues/477", `[03/07/2020-16:57:34] [E] [TRT] C:\source\rtSafe\safeRuntime.cpp (25) - Cuda Error in nvinfer1::internal::DefaultAllocator::allocate: 2 (out of memory)`, "", "nvinfer1::internal::DefaultAllocator::allocate", true},
		{"https://github.com/microsoft/onnxruntime/issues/10770 (title)", "E:onnxruntime:Default, tensorrt_execution_provider.h:50 log] [2022-03-04 13:39:28 ERROR] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)", "", "allocate", true},
		// another Cuda Runtime error and the tactic-skip warning are not OOM reports
		{"https://github.com/open-mmlab/mmdeploy/issues/1948", "[TRT] [E] 1: [cudaResources.cpp::~ScopedCudaEvent::24] Error Code 1: Cuda Runtime (an illegal memory access was encountered)", "", "", false},
		{"https://github.com/NVIDIA/TensorRT/issues/4258", "[11/22/2024-13:40:47] [W] [TRT] Requested amount of GPU memory (15485030400 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.", "", "", false},
	} {
		x, ok := extractTRTOOM(c.text)
		if ok != c.want || x.bytes != c.bytes || x.call != c.call {
			t.Errorf("%s: extractTRTOOM(%q) = %+v, %v", c.src, c.text, x, ok)
		}
		if c.want && hasClass(diagnoseWhole("trt.log", []byte(c.text+"\n")), ClassVRAMOOM) == nil {
			t.Errorf("%s: no vram_oom for %q", c.src, c.text)
		}
	}
}
