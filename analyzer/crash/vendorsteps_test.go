package crash

import (
	"strings"
	"testing"
)

// Launch-resource failures read on CUDA get CUDA's limits and tools: the
// runtime's cudaError* name marks the runtime (ROCm prints hipError*).
// Wordings: kysucix/gipuma#30, voxcraft/voxcraft-sim#26 ("too many resources
// requested for launch"), JuliaGPU/CUDAnative.jl#293 (code #701).
func TestInvalidLaunchStepsOnCUDA(t *testing.T) {
	log := "ptxas info    : Used 255 registers, 400 bytes stack frame\n" +
		"stencil3d.cu(188): CUDA error: too many resources requested for launch (cudaErrorLaunchOutOfResources)\n"
	f := hasClass(diagnoseWhole("run.log", []byte(log)), ClassInvalidLaunch)
	if f == nil {
		t.Fatal("no invalid_launch")
	}
	steps := strings.Join(f.NextSteps, "\n")
	for _, bad := range []string{"AMD_LOG_LEVEL", "rocminfo", "LDS"} {
		if strings.Contains(steps, bad) {
			t.Errorf("CUDA advice names %q: %q", bad, f.NextSteps)
		}
	}
	if !strings.Contains(steps, "regsPerBlock") {
		t.Errorf("CUDA advice lacks the register limit: %q", f.NextSteps)
	}
}

// ROCm-only evidence gets no CUDA aside: a HIP OOM (shared s04's wording)
// is not sent to nvidia-smi; the same step on evidence of unknown vendor
// keeps both tools.
func TestROCmStepsDropCUDAAside(t *testing.T) {
	hip := "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.12 GiB. GPU 0 has a total capacity of 15.92 GiB of which 872.00 MiB is free. Of the allocated memory 14.61 GiB is allocated by PyTorch, and 188.40 MiB is reserved by PyTorch but unallocated.\n"
	f := hasClass(diagnoseWhole("comfy.log", []byte(hip)), ClassVRAMOOM)
	if f == nil {
		t.Fatal("no vram_oom")
	}
	steps := strings.Join(f.NextSteps, "\n")
	if strings.Contains(steps, "nvidia-smi") || strings.Contains(steps, "PYTORCH_CUDA_ALLOC_CONF") {
		t.Errorf("ROCm advice names a CUDA tool: %q", f.NextSteps)
	}
	if !strings.Contains(steps, "rocm-smi") {
		t.Errorf("ROCm advice lost rocm-smi: %q", f.NextSteps)
	}
	if got := rocmStep.Replace("Watch memory while reproducing: rocm-smi --showmeminfo vram (nvidia-smi)"); got != "Watch memory while reproducing: rocm-smi --showmeminfo vram" {
		t.Errorf("rocmStep: %q", got)
	}
}

// A hang that persists with launches already serialized is not sent to
// serialize them (the step that asks is replaced).
func TestHangStepsWhenLaunchBlockingSet(t *testing.T) {
	dump := "$ export HIP_LAUNCH_BLOCKING=1 AMD_SERIALIZE_KERNEL=3 HSA_TOOLS_LIB=/opt/rocm-7.2.0/lib/librocm-debug-agent.so.2\n" +
		"--------------------------------------------------------\n" +
		"wave_0: pc=0x7d40e1a0c210 (kernel_code_entry=0x7d40e1a0b800 <_sparse_topk_select_kernel>, kernargs=0x7d3fd0200000) (running)\n" +
		"--------------------------------------------------------\n" +
		"wave_1: pc=0x7d40e1a0c210 (kernel_code_entry=0x7d40e1a0b800 <_sparse_topk_select_kernel>, kernargs=0x7d3fd0200000) (running)\n"
	f := hasClass(diagnoseWhole("agent.log", []byte(dump)), ClassGPUKernelHang)
	if f == nil {
		t.Fatal("no gpu_kernel_hang")
	}
	if steps := strings.Join(f.NextSteps, "\n"); strings.Contains(steps, "HIP_LAUNCH_BLOCKING=1") {
		t.Errorf("asks for HIP_LAUNCH_BLOCKING=1 already set: %q", f.NextSteps)
	}
}

// An arch mismatch read on CUDA (torch names the device by its compute
// capability: xorbitsai/inference#3603) is asked of CUDA's tools, never
// rocminfo or the HSA override.
func TestArchMismatchStepsOnCUDA(t *testing.T) {
	log := "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n" +
		"The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
	f := hasClass(diagnoseWhole("run.log", []byte(log)), ClassArchMismatch)
	if f == nil {
		t.Fatal("no arch_mismatch")
	}
	steps := strings.Join(f.NextSteps, "\n")
	for _, bad := range []string{"rocminfo", "HSA_OVERRIDE", "AMD_LOG_LEVEL", "gfx"} {
		if strings.Contains(steps, bad) {
			t.Errorf("CUDA advice names %q: %q", bad, f.NextSteps)
		}
	}
	for _, want := range []string{"compute_cap", "get_arch_list", "cuobjdump"} {
		if !strings.Contains(steps, want) {
			t.Errorf("CUDA advice lacks %q: %q", want, f.NextSteps)
		}
	}
}

// A CUDA math library's status is NVIDIA's (ROCm prints hipBLAS / MIOpen
// statuses): a cuDNN failure is sent to compute-sanitizer, not the ROCm
// debug agent (pytorch/pytorch#27588's wording).
func TestLibStatusStepsOnCUDA(t *testing.T) {
	f := hasClass(diagnoseWhole("run.log", []byte("RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR\n")), ClassGPUMemoryFault)
	if f == nil {
		t.Fatal("no gpu_memory_fault")
	}
	steps := strings.Join(f.NextSteps, "\n")
	if strings.Contains(steps, "HSA_TOOLS_LIB") || strings.Contains(steps, "AMD_SERIALIZE_KERNEL") {
		t.Errorf("CUDA advice names ROCm's tools: %q", f.NextSteps)
	}
	if !strings.Contains(steps, "compute-sanitizer") {
		t.Errorf("CUDA advice lacks compute-sanitizer: %q", f.NextSteps)
	}
}
