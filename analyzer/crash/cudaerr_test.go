package crash

import "testing"

// The catalog itself (cudaerr.go, from driver_types.h / cuda.h, CUDA 12.x:
// docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html and
// docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html): numbers
// and names unique, every class explained, the documented sticky device
// exceptions all read as faults.
func TestCUDACatalog(t *testing.T) {
	codes, names := map[int]bool{}, map[string]bool{}
	classed := 0
	for _, e := range cudaCatalog {
		if codes[e.code] {
			t.Errorf("code %d twice", e.code)
		}
		codes[e.code] = true
		for _, n := range []string{e.name, e.driver} {
			if n == "" {
				continue
			}
			if names[n] {
				t.Errorf("name %s twice", n)
			}
			names[n] = true
		}
		if e.name == "" && e.driver == "" {
			t.Errorf("code %d has no name", e.code)
		}
		if e.class != "" {
			classed++
			if e.why == "" || e.conf <= 0 || e.conf > 1 {
				t.Errorf("%s: class %s without why / confidence", e.cudaName(), e.class)
			}
		}
	}
	if len(cudaCatalog) < 120 {
		t.Errorf("catalog has %d rows, CUDA 12 documents more than 120", len(cudaCatalog))
	}
	for code, want := range map[int]string{700: ClassGPUMemoryFault, 714: ClassGPUMemoryFault, 715: ClassIllegalInstruction, 716: ClassGPUMemoryFault, 717: ClassGPUMemoryFault, 718: ClassGPUMemoryFault, 719: ClassGPUMemoryFault, 710: ClassDeviceAssert, 2: ClassVRAMOOM, 209: ClassArchMismatch, 214: ClassECCRAS, 220: ClassECCRAS, 802: ClassNotGPU} {
		if e := lookupCUDACode(code); e == nil || e.class != want {
			t.Errorf("code %d: %+v, want %s", code, e, want)
		}
	}
	t.Logf("%d rows, %d imply a class", len(cudaCatalog), classed)
}

// Real lines naming a CUDA error the HIP table lacks, in every wrapper's
// wording, each diagnosed by the catalog's class (sources per row).
func TestCUDACatalogLines(t *testing.T) {
	cases := []struct {
		src, text, want, cudaErr string
	}{
		// 220 NVLink
		{"https://github.com/MIC-DKFZ/nnUNet/issues/1519", "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", ClassECCRAS, "cudaErrorNvlinkUncorrectable"},
		{"https://github.com/NVIDIA/srt-slurm/pull/307", "A job killed by `CUDA error: uncorrectable NVLink error detected during the execution` names no link", ClassECCRAS, "cudaErrorNvlinkUncorrectable"},
		// 802 fabric manager
		{"https://github.com/pytorch/pytorch/issues/35710", "RuntimeError: cuda runtime error (802) : system not yet initialized at /opt/conda/conda-bld/pytorch_1579022034529/work/aten/src/THC/THCGeneral.cpp:50", ClassNotGPU, "cudaErrorSystemNotReady"},
		{"https://github.com/pytorch/pytorch/issues/35710", `CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) "cudaSetDevice(currentDevice)"`, ClassNotGPU, "cudaErrorSystemNotReady"},
		{"https://github.com/cupy/cupy/issues/2845", "cupy.cuda.runtime.CUDARuntimeError: cudaErrorSystemNotReady: system not yet initialized", ClassNotGPU, "cudaErrorSystemNotReady"},
		{"https://github.com/ollama/ollama/issues/11963", "ggml_cuda_init: failed to initialize CUDA: system not yet initialized", ClassNotGPU, "cudaErrorSystemNotReady"},
		{"https://github.com/microsoft/lisa/issues/2823", "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at  ../c10/cuda/CUDAFunctions.cpp:112.)", ClassNotGPU, "cudaErrorSystemNotReady"},
		// 222 PTX from a newer toolkit
		{"https://github.com/ComputationalRadiationPhysics/cuda_memtest/issues/31", "[05/23/2021 18:30:06][computer][0]:ERROR: CUDA error: the provided PTX was compiled with an unsupported toolchain., line 148, file /var/tmp/pamac-build-user/cuda_memtest/src/cuda_memtest/cuda_memtest.cu", ClassArchMismatch, "cudaErrorUnsupportedPtxVersion"},
		{"https://github.com/EricLBuehler/mistral.rs/issues/867", `Error: DriverError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was compiled with an unsupported toolchain.") when loading dequantize_block_q4_K_f32`, ClassArchMismatch, "cudaErrorUnsupportedPtxVersion"},
		{"https://github.com/mit-han-lab/inter-operator-scheduler/issues/4", "Cuda failure: 222 the provided PTX was compiled with an unsupported toolchain.", ClassArchMismatch, "cudaErrorUnsupportedPtxVersion"},
		{"https://github.com/ximinng/VectorFusion-pytorch/issues/3", "CUDA Runtime Error: the provided PTX was compiled with an unsupported toolchain.", ClassArchMismatch, "cudaErrorUnsupportedPtxVersion"},
		{"https://github.com/d-li14/involution/issues/52", "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.", ClassArchMismatch, "cudaErrorUnsupportedPtxVersion"},
		// 35 driver older than the runtime (CUDA's own text, not HIP's)
		{"https://github.com/nagadomi/nunif/issues/702", "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", ClassNotGPU, "cudaErrorInsufficientDriver"},
		{"https://github.com/C0untFloyd/roop-unleashed/issues/465", `D:\a\_work\1\s\onnxruntime\core\providers\cuda\cuda_call.cc:121 onnxruntime::CudaCall D:\a\_work\1\s\onnxruntime\core\providers\cuda\cuda_call.cc:114 onnxruntime::CudaCall CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version ; GPU=-2011338632 ; hostname=DESKTOP-F9GHF2T`, ClassNotGPU, "cudaErrorInsufficientDriver"},
		{"https://github.com/mlcommons/inference/issues/54", "THCudaCheck FAIL file=/pytorch/torch/csrc/cuda/Module.cpp line=34 error=35 : CUDA driver version is insufficient for CUDA runtime version", ClassNotGPU, "cudaErrorInsufficientDriver"},
		// 46 busy or unavailable (exclusive-process mode), current and CUDA ≤ 10 texts
		{"https://github.com/ggml-org/llama.cpp/issues/11841", "CUDA error: CUDA-capable device(s) is/are busy or unavailable", ClassNotGPU, "cudaErrorDevicesUnavailable"},
		{"https://github.com/facebookresearch/detectron2/issues/2580", "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable", ClassNotGPU, "cudaErrorDevicesUnavailable"},
		{"https://github.com/NVIDIA/DIGITS/issues/2005", "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable", ClassNotGPU, "cudaErrorDevicesUnavailable"},
		// 714 hardware stack error, 718 invalid PC by name (driver API)
		{"CUDA runtime text (cudaGetErrorString(cudaErrorHardwareStackError))", "RuntimeError: CUDA error: hardware stack error", ClassGPUMemoryFault, "cudaErrorHardwareStackError"},
		{"CUDA driver API name", "numba.cuda.cudadrv.driver.CudaAPIError: [714] Call to cuCtxSynchronize results in CUDA_ERROR_HARDWARE_STACK_ERROR", ClassGPUMemoryFault, "cudaErrorHardwareStackError"},
		{"CUDA driver API name", "Call to cuMemcpyDtoH results in CUDA_ERROR_INVALID_PC", ClassGPUMemoryFault, "cudaErrorInvalidPc"},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		ok := false
		for _, f := range d.Findings {
			if f.Class == c.want && f.CUDAError == c.cudaErr {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s\n%s\n got %v, want %s (%s)", c.src, c.text, findingsBrief(d), c.want, c.cudaErr)
		}
	}
}

// Mentions are not evidence: a grep, a catalog quoted in help text, a CUDA
// text on a line that does not speak of CUDA, a catalog row without a class.
func TestCUDACatalogNegatives(t *testing.T) {
	for _, s := range []string{
		"$ grep -n CUDA_ERROR_HARDWARE_STACK_ERROR run.log",
		"Error (gpu_burn-drv.cpp:298): OS call failed or operation not supported on this OS",
		"RuntimeError: CUDA error: invalid resource handle",
		"cudaErrorNotReady: device not ready",
		"Launch status: hardware stack error",
		// a doc page quoting the wording (crash-heldout-real8 n01's shape)
		"+``RuntimeError: CUDA out of memory`` with a Python traceback; ``Killed`` is the",
		// NCCL's CUDACHECK report: the NCCL rules read it (NVIDIA/nccl#1231)
		"Cuda failure 802 'system not yet initialized'",
	} {
		d := diagnoseWhole("x.log", []byte(s+"\n"))
		for _, f := range d.Findings {
			if f.Details["cuda_error_code"] != "" {
				t.Errorf("%q gave %s %v", s, f.Class, f.Details)
			}
		}
	}
}

func findingsBrief(d *Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.Class+"/"+f.CUDAError)
	}
	return out
}
