package crash

import "testing"

// NVIDIA's management stack reporting a degraded node (nvmlhealth.go), each
// wording from a public thread or the driver's format; and PyTorch's
// out-of-memory wordings across versions (torch.go).
func TestNVMLHealthAndOOMWordings(t *testing.T) {
	cases := []struct {
		src, text, want, detail, value string
	}{
		// NVML cannot start: the node's setup
		{"https://github.com/mozilla/translations/issues/1167", "[task 2025-07-01T05:06:30.005+00:00] [train] [nvidia-smi(stdout)] Failed to initialize NVML: Driver/library version mismatch", ClassNotGPU, "nvml_error", "Driver/library version mismatch"},
		{"https://github.com/lyulyul/shine-cluster/issues/30", "Failed to initialize NVML: Driver/library version mismatch", ClassNotGPU, "nvml_error", "Driver/library version mismatch"},
		{"https://github.com/qixuema/envs/issues/8", "Failed to initialize NVML: Driver/library version mismatch", ClassNotGPU, "nvml_error", "Driver/library version mismatch"},
		// fatal NVSwitch SXids (the driver's format: NVIDIA/NVSentinel test
		// fixtures, gpud's parser, the fabric manager log)
		{"NVSwitch driver format (fabric manager log, public fault-injection fixture)", "[2026-07-15T04:18:55.513286+00:00] nvidia-nvswitch0: SXid (PCI:0000:59:00.0): 23001, Fatal, Link 12 Always Fatal", ClassECCRAS, "sxid", "23001"},
		{"NVSwitch driver format (a health agent's injected record)", "nvidia-nvswitch0: SXid (PCI:0000:00:00.0): 11001, Fatal, ingress invalid command", ClassECCRAS, "sxid", "11001"},
		// PyTorch ≤ 2.0's parenthesised OOM: details read
		{"https://github.com/OPIXray-author/OPIXray/issues/5", " CUDA out of memory. Tried to allocate 264.00 MiB (GPU 0; 2.00 GiB total capacity; 788.51 MiB already allocated; 145.93 MiB free; 1.02 GiB reserved in total by PyTorch)", ClassVRAMOOM, "total_capacity", "2.00 GiB"},
		{"https://github.com/pytorch/pytorch/issues/59778", "`CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 781.59 MiB already allocated; 3.03 GiB free; 1.24 GiB reserved in total by PyTorch) `", ClassVRAMOOM, "free", "3.03 GiB"},
		{"PyTorch ≤ 1.4 wording (cached)", "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; 8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)", ClassVRAMOOM, "reserved_by_pytorch", "4.68 MiB"},
		// the caching allocator's NVML assert on its OOM path (pytorch#112377)
		{"https://github.com/pytorch/pytorch/issues/121899", `RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "/opt/builds/pytorch/c10/cuda/CUDACachingAllocator.cpp":830, please report a bug to PyTorch.`, ClassVRAMOOM, "allocator_assert", "NVML_SUCCESS == r"},
		{"https://github.com/pytorch/pytorch/issues/159149", `❌ Error generating speech: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":995, please report a bug to PyTorch.`, ClassVRAMOOM, "allocator_assert", "NVML_SUCCESS == r"},
		{"https://github.com/pytorch/pytorch/issues/112950", `RuntimeError: NVML_SUCCESS == DriverAPI::get()->nvmlDeviceGetHandleByPciBusId_v2_( pci_id, &nvml_device) INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":815, please report a bug to PyTorch.`, ClassVRAMOOM, "allocator_assert", "NVML_SUCCESS == r"},
		// THC's CUDA ≤ 10 wording: the catalog reads the text
		{"THC (PyTorch ≤ 1.4)", "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510", ClassVRAMOOM, "", ""},
		{"PyTorch 2.x", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free.", ClassVRAMOOM, "total_capacity", "79.15 GiB"},
		{"PyTorch 2.0", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 9.25 GiB already allocated; 16.12 MiB free; 9.74 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.", ClassVRAMOOM, "allocated_by_pytorch", "9.25 GiB"},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		ok := false
		for _, f := range d.Findings {
			if f.Class == c.want && (c.detail == "" || f.Details[c.detail] == c.value) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s\n%s\n got %v %+v", c.src, c.text, classesOf(d), d.Findings)
		}
	}
	// a non-fatal SXid, NVML in prose: nothing
	for _, s := range []string{
		"kernel: [123.456789] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 20009, Non-fatal, Link 28 RX Short Error Rate",
		"$ grep 'Failed to initialize NVML: Driver/library version mismatch' /var/log/syslog",
	} {
		d := diagnoseWhole("x.log", []byte(s+"\n"))
		if len(d.Findings) != 0 {
			t.Errorf("%q gave %v", s, classesOf(d))
		}
	}
}

// TensorFlow's BFC allocator out of GPU memory (xla.go), real lines.
func TestTFOOM(t *testing.T) {
	for _, c := range []struct{ src, text, gpu string }{
		{"https://github.com/tensorflow/models/issues/7142", "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[500,17,17,4032] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc.", "0"},
		{"https://github.com/keras-team/keras/issues/9643", "ResourceExhaustedError: OOM when allocating tensor with shape[128,128,109,109] and type float on /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc", "1"},
		{"https://github.com/Azure/MachineLearningNotebooks/issues/880", "  (0) Resource exhausted: OOM when allocating tensor with shape[16,112,112,147] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc", "0"},
		{"https://github.com/zzw922cn/Automatic_Speech_Recognition/issues/78", "2018-06-08 17:26:00.908130: W tensorflow/core/framework/op_kernel.cc:1202] OP_REQUIRES failed at tile_ops.cc:123 : Resource exhausted: OOM when allocating tensor with shape[16,1,892800,8,4,2,2] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc", "0"},
		{"https://github.com/Azure/MachineLearningNotebooks/issues/880 (the title, lower-cased)", "resource exhausted: oom when allocating tensor with shape[16,112,112,147] and type float on /job:localhost/replica:0/task:0/device:gpu:0 by allocator gpu_0_bfc", "0"},
	} {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		ok := false
		for _, f := range d.Findings {
			ok = ok || f.Class == ClassVRAMOOM && f.Details["gpu"] == c.gpu
		}
		if !ok || len(d.Findings) == 0 || d.Findings[0].Class != ClassVRAMOOM {
			t.Errorf("%s\n%s\n got %v", c.src, c.text, classesOf(d))
		}
	}
	// host memory: the CPU allocator
	d := diagnoseWhole("x.log", []byte("ResourceExhaustedError: OOM when allocating tensor with shape[1,5095,3729,3] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n"))
	for _, f := range d.Findings {
		if f.Class == ClassVRAMOOM {
			t.Errorf("CPU allocator read as vram_oom: %v", classesOf(d))
		}
	}
}
