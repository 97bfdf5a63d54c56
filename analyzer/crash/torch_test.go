package crash

import (
	"strings"
	"testing"
)

func TestTorchGolden(t *testing.T) {
	d := goldenCase(t, "torch_s04.golden.json", "shared:s04_hip_oom_fragmentation_comfyui_pytorch138002.log")
	if f := hasClass(d, ClassVRAMOOM); f == nil || f.SubKind != "fragmentation" || f.RequestedBytesText != "6.64 GiB" {
		t.Fatalf("%+v", f)
	}
	d = goldenCase(t, "torch_assert_async.golden.json", "gpu:a_index_copy_async.stderr.txt")
	f := hasClass(d, ClassDeviceAssert)
	if f == nil || f.Details["assert_threads"] != "128" || hasClass(d, ClassAsyncRace) == nil {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "torch_assert_blocking.golden.json", "gpu:a_index_copy_blocking.stderr.txt")
	if hasClass(d, ClassAsyncRace) != nil || hasClass(d, ClassDeviceAssert).Location == "" {
		t.Fatalf("%s", d.JSON())
	}
	goldenCase(t, "torch_s13.golden.json", "shared:s13_hip_illegal_address_terminate_c10_accelerator_error_rocm6003.log")
	goldenCase(t, "torch_not_gpu.golden.json", "testdata/not_gpu.log")
}

func TestOOMSubKinds(t *testing.T) {
	g := float64(1 << 30)
	cases := map[string][5]float64{
		"device_capacity": {16 * g, 15.24 * g, 15.09 * g, 0, 0},
		"fragmentation":   {6.64 * g, 19.92 * g, 6.22 * g, 5.34 * g, 7.10 * g},
		"exhaustion":      {4 * g, 79.18 * g, 2.66 * g, 76 * g, 0},
	}
	for want, c := range cases {
		if got := oomSubKind(c[0], c[1], c[2], c[3], c[4], false); got != want {
			t.Errorf("%v: got %s want %s", c, got, want)
		}
	}
	if parseSize("10240.00 GiB") != 10240*g || parseSize("0 bytes") != 0 {
		t.Fatal("parseSize")
	}
}

func FuzzTorch(f *testing.F) {
	seedFuzz(f, "shared:s03_hip_invalid_device_function_torch_hip_dsa_openoasis27.log", "shared:s04_hip_oom_fragmentation_comfyui_pytorch138002.log", "shared:s13_hip_illegal_address_terminate_c10_accelerator_error_rocm6003.log", "gpu:a_index_copy_async.stderr.txt", "gpu:e_segv.stderr.txt")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &torchParser{s: s} }), data, cut)
	})
}

// CUDA's reading of errors HIP reads otherwise or lacks (codes.go
// cudaErrors): each wording from a different public thread; on a ROCm
// session (its own rerun hint) the launch failure keeps HIP's reading.
func TestCUDAReadings(t *testing.T) {
	cases := []struct {
		src, text, class, cudaErr string
	}{
		{"https://github.com/XPixelGroup/BasicSR/issues/211", "RuntimeError: CUDA error: unspecified launch failure", ClassGPUMemoryFault, "cudaErrorLaunchFailure"},
		{"https://github.com/facebookresearch/DeepSDF/issues/40", "  what():  CUDA error: unspecified launch failure (insert_events at /opt/conda/conda-bld/pytorch_1544202130060/work/aten/src/THC/THCCachingAllocator.cpp:470)", ClassGPUMemoryFault, "cudaErrorLaunchFailure"},
		{"https://github.com/pytorch/pytorch/issues/21276", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=271 error=4 : unspecified launch failure       x", ClassGPUMemoryFault, "cudaErrorLaunchFailure"},
		{"https://github.com/pytorch/pytorch/issues/49832", "  what():  CUDA error: unspecified launch failure (insert_events at /pytorch/c10/cuda/CUDACachingAllocator.cpp:764)", ClassGPUMemoryFault, "cudaErrorLaunchFailure"},
		{"https://github.com/deepspeedai/DeepSpeedExamples/issues/530", "CUDA error: misaligned address", ClassGPUMemoryFault, "cudaErrorMisalignedAddress"},
		{"https://github.com/modelscope/ms-swift/issues/3283", "RuntimeError: CUDA error: misaligned address", ClassGPUMemoryFault, "cudaErrorMisalignedAddress"},
		{"https://github.com/drubinstein/pokemonred_puffer/issues/8", "RuntimeError: CUDA error: misaligned address\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1", ClassGPUMemoryFault, "cudaErrorMisalignedAddress"},
		// ROCm 7 prints "CUDA error" too; its hints say HIP: HIP's reading stays
		{"testdata/crash-heldout3 e37 (ROCm 7 wording)", "torch.AcceleratorError: CUDA error: unspecified launch failure\nSearch for `hipErrorLaunchFailure' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3", ClassDeviceAssert, ""},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		var got *Finding
		for i := range d.Findings {
			if d.Findings[i].Class == c.class {
				got = &d.Findings[i]
			}
		}
		if got == nil {
			t.Errorf("%s: %q: no %s finding in %v", c.src, c.text, c.class, classesOf(d))
			continue
		}
		if c.cudaErr != "" && (got.CUDAError != c.cudaErr || got.HIPError != "") {
			t.Errorf("%s: cuda_error %q hip_error %q, want %q and none", c.src, got.CUDAError, got.HIPError, c.cudaErr)
		}
		if c.class == ClassDeviceAssert {
			for _, f := range d.Findings {
				if f.Class == ClassGPUMemoryFault {
					t.Errorf("%s: a ROCm session kept CUDA's reading", c.src)
				}
			}
		}
	}
}

func classesOf(d *Diagnosis) []string {
	var c []string
	for _, f := range d.Findings {
		c = append(c, f.Class)
	}
	return c
}

// A device assert whose backticks a markdown paste ate still names its
// kernel: "… thread: [2,0,0] Assertion t >= 0 && t < n_classes failed."
func TestAssertWithoutBackticks(t *testing.T) {
	cases := []struct{ src, text, kernel string }{
		{"https://github.com/LiyuanLucasLiu/LM-LSTM-CRF/issues/27", "`/opt/conda/conda-bld/pytorch_1518244421288/work/torch/lib/THCUNN/ClassNLLCriterion.cu:101: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [2,0,0] Assertion t >= 0 && t < n_classes failed.`", "cunn_ClassNLLCriterion_updateOutput_kernel"},
		{"a pasted issue log in a public repository (search corpus id 7199404045)", "`/opt/conda/conda-bld/pytorch_1614378083779/work/aten/src/THCUNN/ClassNLLCriterion.cu:108: cunn_ClassNLLCriterion_updateOutput_kernel: block: [0,0,0], thread: [6,0,0] Assertion t >= 0 && t < n_classes failed.`", "cunn_ClassNLLCriterion_updateOutput_kernel"},
		{"a pasted chat log in a public repository (search corpus id 32496819642)", "/opt/conda/conda-bld/pytorch_1678411187366/work/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion t >= 0 && t < n_classes failed.", "nll_loss_forward_reduce_cuda_kernel_2d"},
		{"https://github.com/modelscope/ms-swift/issues/3267 (with backticks, as before)", "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.", "nll_loss_forward_reduce_cuda_kernel_2d"},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		f := hasClass(d, ClassDeviceAssert)
		if f == nil || !strings.Contains(f.Kernel, c.kernel) {
			t.Errorf("%s: %q: %s", c.src, c.text, d.JSON())
		}
	}
}

// The error and the runtime's asynchronous-report hint on one line (line
// ends lost in a paste, an exception's repr logged with "\n" escapes) is
// still the error: the hint alone is no finding, and no error is dropped
// with it. Wordings: vladmandic/sdnext#1574 (SD.Next's API error log,
// the repr with \n escapes), the one-line RuntimeError of issue titles
// and bodies (Bing-su/adetailer#346, yewzijian/RegTR#33's trainer line
// joined with its hint), a HIP one (ROCm's text, same hint).
func TestErrorOnTheHintLine(t *testing.T) {
	for _, c := range []struct {
		line, class string
	}{
		{`15:57:52-867527 ERROR    API error: POST: http://127.0.0.1:7860/internal/progress {'error': 'RuntimeError', 'detail': '', 'body': '', 'errors': 'CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n'}`, ClassGPUMemoryFault},
		{`RuntimeError: CUDA error: an illegal memory access was encountered CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1.`, ClassGPUMemoryFault},
		{`06/26 18:54:31 [ERROR] trainer - <class 'RuntimeError'> at trainer.py:101 - CUDA error: an illegal memory access was encountered CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.`, ClassGPUMemoryFault},
		{`RuntimeError: HIP error: invalid device function HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.`, ClassArchMismatch},
		// the hint alone
		{`CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.`, ""},
	} {
		d := diagnoseWhole("x.log", []byte(c.line+"\n"))
		if c.class == "" {
			if len(d.Findings) > 0 && d.Findings[0].Class != ClassAsyncRace {
				t.Errorf("hint alone: %s", d.Findings[0].Class)
			}
			continue
		}
		if f := hasClass(d, c.class); f != nil && strings.Contains(c.line, "CUDA_LAUNCH_BLOCKING") {
			// the rerun hint on the line tells a CUDA build: CUDA's tools
			if steps := strings.Join(f.NextSteps, " "); strings.Contains(steps, "debug agent") || !strings.Contains(steps, "compute-sanitizer") {
				t.Errorf("%.60q: ROCm advice for a CUDA log: %s", c.line, steps)
			}
		}
		if hasClass(d, c.class) == nil {
			var got []string
			for _, f := range d.Findings {
				got = append(got, f.Class)
			}
			t.Errorf("%.60q: want %s, got %v", c.line, c.class, got)
		}
	}
}

// The runtime's own error string is the error whoever prefixes it: a miner's
// "Failed to initialize miner on GPU1: …: <string>", a checker's "Cuda
// failure file.cu:361: '<string>'" (no "error" word on the line).
func TestRuntimeErrorStringWithoutErrorWord(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/develsoftware/GMinerRelease/issues/184": "10:33:01 Failed to initialize miner on GPU1: ASUS GeForce GTX TITAN Black 6GB [0000:81:00.0]: no kernel image is available for execution on the device",
		"https://github.com/scale-snu/ckks-gpu-core/issues/2":       "Cuda failure /home/fsy/fhe/ckks-gpu-core/src/public/Context.cu:361: 'no kernel image is available for execution on the device'",
	} {
		if hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassArchMismatch) == nil {
			t.Errorf("%s: no arch_mismatch for %q", src, l)
		}
	}
}

// glibc's assert() in host code aborts the process; it is no device-side
// assert (those carry block/thread coordinates, or HIP's "Device-side
// assertion"), whatever the source file's suffix.
func TestHostAssertIsNoDeviceAssert(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/NVIDIA/TensorRT/issues/122":           "sample_bert: /home1/liuxin/TensorRT/TensorRT/demo/BERT/sampleBERT.cpp:211: nvinfer1::ICudaEngine* APIToModel(int, int, int): Assertion `engine != nullptr' failed.",
		"https://github.com/jkjung-avt/tensorrt_demos/issues/483": "python3: yolo_layer.cu:73: nvinfer1::YoloLayerPlugin::YoloLayerPlugin(const void*, size_t): Assertion `d == a + length' failed.",
		"https://github.com/puttsk/cuda-tutorial/issues/12":       "vector_add: vector_add.cu:48: int main(): Assertion `fabs(output[i] - a[i] - b[i]) < 1e-6' failed.",
		"https://github.com/wang-xinyu/tensorrtx/issues/654":      "dbnet: /home/zhengxin/tensorrtx/dbnet/dbnet.cpp:759: void APIToModel(unsigned int, nvinfer1::IHostMemory**): Assertion `engine != nullptr' failed.",
		// LLVM's assertion alone on its line, its file and function wrapped onto the lines before
		"https://github.com/triton-lang/triton/issues/10256 (Triton's AMD backend)": "  Assertion `detail::isPresent(Val) && \"dyn_cast on a non-existent value\"' failed.",
		"https://github.com/OpenCilk/opencilk-project/issues/324 (clang)":           "Assertion `isa<To>(Val) && \"cast<Ty>() argument of incompatible type!\"' failed.",
		"https://github.com/triton-lang/triton/issues/3513 (MLIR in Triton)":        "Assertion `parentOp->getNumRegions() == 1 && parentOp->getRegion(0).getBlocks().size() == 1' failed",
	} {
		if f := hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassDeviceAssert); f != nil {
			t.Errorf("%s: device_assert for a host assert %q", src, l)
		}
	}
	// device asserts stay device asserts
	for src, l := range map[string]string{
		"https://github.com/deepspeedai/Megatron-DeepSpeed/issues/207": "../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [615,0,0], thread: [121,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
		"https://github.com/ROCm/vllm/issues/527":                      "/app/vllm/csrc/rocm/skinny_gemms.hip:497: void wvSplitK_hf_sml_(const int, const int) [scalar_t = __hip_bfloat16, THRDS = 64]: Device-side assertion `false' failed.",
	} {
		if hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassDeviceAssert) == nil {
			t.Errorf("%s: no device_assert for %q", src, l)
		}
	}
}

// faulthandler dumping every thread without a fatal error is a watchdog's
// (or a harness's) snapshot of a stalled process: cpu_hang. A crash dump
// ("Fatal Python error", a "Current thread" block without a timeout header)
// is not.
func TestFaulthandlerWatchdogDump(t *testing.T) {
	for src, log := range map[string]string{
		"https://github.com/vulnerability-lookup/vulnerability-lookup/pull/591": "Timeout (0:00:02)!\nThread 0x00007f809fc98340 (most recent call first):\n  File \".../test_fh_probe.py\", line 5 in test_slow\n  File \".../_pytest/python.py\", line 167 in pytest_pyfunc_call\n",
		"https://github.com/pytorch/pytorch/pull/54818":                         "Process 3 timed out with traceback:\nCurrent thread 0x00007ff3363ff700 (most recent call first):\n  File \"torch/testing/_internal/common_distributed.py\", line 373 in _event_listener\n  File \"threading.py\", line 870 in run\n\nThread 0x00007ff406132180 (most recent call first):\n  File \"torch/distributed/distributed_c10d.py\", line 2477 in barrier\n",
	} {
		if hasClass(diagnoseWhole("run.log", []byte(log)), ClassCPUHang) == nil {
			t.Errorf("%s: no cpu_hang", src)
		}
	}
	crash := "Fatal Python error: Segmentation fault\n\nThread 0x00007ff64c9ff6c0 (most recent call first):\n  <no Python frame>\n\nCurrent thread 0x00007ff962067300 (most recent call first):\n  File \"x.py\", line 3 in f\n"
	if f := hasClass(diagnoseWhole("run.log", []byte(crash)), ClassCPUHang); f != nil {
		t.Errorf("a crash dump is no hang: %+v", f)
	}
	// py-spy's thread lines are not faulthandler blocks
	pyspy := "Thread 0x7F768F77C740 (idle): \"MainThread\"\n    wait (threading.py:295)\nThread 0x7F76848B4700 (idle): \"Thread-6\"\n    wait (threading.py:299)\n"
	d := diagnoseWhole("dump.txt", []byte(pyspy))
	for _, f := range d.Findings {
		if f.Details["source"] == "Python faulthandler thread dump" {
			t.Errorf("py-spy read as faulthandler: %+v", f)
		}
	}
}

// The same asynchronously reported error at different Python locations
// (reruns or retries in one paste) is an error whose reported site moves:
// the race is the root cause, the reported error its symptom (seed 003
// step 5; the site pointed at "an irrelevant sentence" until a blocking
// rerun: pytorch/pytorch#42077; random per run: VITA-Group/TEGNAS#19).
// One location keeps the GPU error first.
func TestAsyncErrorWhoseSiteMovesIsTheRace(t *testing.T) {
	report := func(line, code string) string {
		return "Traceback (most recent call last):\n  File \"/work/moe_bench.py\", line " + line + ", in <module>\n    " + code + "\n" +
			"torch.AcceleratorError: HIP error: an illegal memory access was encountered\n" +
			"HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n" +
			"For debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
	}
	moved := diagnoseWhole("runs.log", []byte(report("144", "n = int(counts.sum().item())")+"### run 2\n"+report("131", "out = torch.ops.moe.permute(x, topk_ids, expert_map)")))
	if len(moved.Findings) == 0 || moved.Findings[0].Class != ClassAsyncRace {
		t.Errorf("site moved: want async_race first, got %v", classesOf(moved))
	}
	if f := hasClass(moved, ClassGPUMemoryFault); f == nil || f.ConsequenceOf != ClassAsyncRace {
		t.Errorf("site moved: the memory fault should be the race's consequence: %s", moved.JSON())
	}
	ranked := func(r, line string) string {
		var b strings.Builder
		for _, x := range strings.SplitAfter(report(line, "x = y.item()"), "\n") {
			if x != "" {
				b.WriteString("[rank" + r + "]: " + x)
			}
		}
		return b.String()
	}
	if d := diagnoseWhole("ranks.log", []byte(ranked("0", "144")+ranked("1", "131"))); len(d.Findings) == 0 || d.Findings[0].Class != ClassGPUMemoryFault {
		t.Errorf("two ranks, each at its own place: want gpu_memory_fault first, got %v", classesOf(d))
	}
	same := diagnoseWhole("runs.log", []byte(report("144", "n = int(counts.sum().item())")+report("144", "n = int(counts.sum().item())")))
	if len(same.Findings) == 0 || same.Findings[0].Class != ClassGPUMemoryFault {
		t.Errorf("one site: want gpu_memory_fault first, got %v", classesOf(same))
	}
}

// A launch failure in a wrapper that names CUDA some other way than
// "CUDA error:" is CUDA's (a crashed kernel, gpu_memory_fault), not ROCm's
// trap; a line that also names HIP stays HIP's.
func TestLaunchFailureNamedCUDA(t *testing.T) {
	for _, c := range []struct{ src, text string }{
		{"https://github.com/vlfeat/matconvnet/issues/40", "im2col: CUDA kernel error (unspecified launch failure)"},
		{"https://github.com/3dem/relion/issues/189", "KERNEL_ERROR: unspecified launch failure in /data/bin/EM/RELION/relion-devel-lmb_copy_newPC/src/gpu_utils/cuda_helper_functions.cu at line 386 (error-code 4)"},
		{"https://github.com/leggedrobotics/darknet_ros/issues/149", "CUDA Error: unspecified launch failure CUDA Error: unspecified launch failure: No error"},
	} {
		if !extractTorchError(c.text).cuda {
			t.Errorf("%s: not read as CUDA's: %q", c.src, c.text)
		}
		d := diagnoseWhole("run.log", []byte(c.text+"\n"))
		if hasClass(d, ClassGPUMemoryFault) == nil || hasClass(d, ClassDeviceAssert) != nil {
			t.Errorf("%s: %v", c.src, classesOf(d))
		}
	}
	for _, s := range []string{
		"RuntimeError: HIP error: unspecified launch failure",
		"hipErrorLaunchFailure in /src/cuda_compat/kernel.cu: unspecified launch failure",
		"Warning: unspecified launch failure on the ship's computer",
	} {
		if extractTorchError(s).cuda {
			t.Errorf("read as CUDA's: %q", s)
		}
	}
}

// The C++ runtime's terminate handler prints the exception's message on the
// next line ("  what():  …"); a paste that lost its line ends glues the two,
// and the message is still the error. The two lines of NVIDIA/cudf-spark#1065,
// NVIDIA/cuopt#165 and MegviiRobot/MegBA#33 joined as such a paste joins them.
func TestTerminateGluedToWhat(t *testing.T) {
	for src, l := range map[string]string{
		"NVIDIA/cudf-spark#1065": "terminate called after throwing an instance of 'thrust::system::system_error'  what():  parallel_for failed: cudaErrorIllegalAddress: an illegal memory access was encountered",
		"NVIDIA/cuopt#165":       "terminate called after throwing an instance of 'thrust::system::system_error'  what():  reduce failed to synchronize: cudaErrorIllegalAddress: an illegal memory access was encountered",
		"MegviiRobot/MegBA#33":   "Start with error: 0, log error: -inf, elapsed 209 ms terminate called after throwing an instance of 'thrust::system::system_error'  what():  after reduction step 1: cudaErrorIllegalAddress: an illegal memory access was encountered",
	} {
		d := diagnoseWhole("x.log", []byte(l+"\n"))
		if hasClass(d, ClassGPUMemoryFault) == nil {
			t.Errorf("%s: %v", src, classesOf(d))
		}
	}
	// the header alone names no GPU error
	if d := diagnoseWhole("x.log", []byte("terminate called after throwing an instance of 'std::runtime_error'  what():  config file not found\n")); hasClass(d, ClassGPUMemoryFault) != nil {
		t.Errorf("an application's message became a GPU fault: %v", classesOf(d))
	}
}

// The terminate handler's message goes on over the lines after "what():":
// a terminal's wrap mid-word (TuSimple/mx-maskrcnn#98: "cudaMalloc fail" /
// "ed: out of memory"), c10's hint lines (sgl-project/sglang#8296). The
// line after it is read joined to it; a line of its own stays its own.
func TestWhatMessageContinues(t *testing.T) {
	for _, c := range []struct {
		src, log, class string
	}{
		{"TuSimple/mx-maskrcnn#98", "terminate called after throwing an instance of 'dmlc::Error'\n" +
			"  what():  [10:44:35] src/engine/./threaded_engine.h:359: [10:44:35] src/storage/./pooled_storage_manager.h:107: cudaMalloc fail\n" +
			"ed: out of memory\n", ClassVRAMOOM},
		{"sgl-project/sglang#8296", "terminate called after throwing an instance of 'c10::DistBackendError'\n" +
			"  what():  [PG ID 2 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n" +
			"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n" +
			"For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n", ClassGPUMemoryFault},
	} {
		d := diagnoseWhole("x.log", []byte(c.log))
		if hasClass(d, c.class) == nil {
			t.Errorf("%s: want %s, got %v", c.src, c.class, classesOf(d))
		}
	}
	// without the what() line before it, the bare tail is no GPU error
	if d := diagnoseWhole("x.log", []byte("ed: out of memory\n")); hasClass(d, ClassVRAMOOM) != nil {
		t.Errorf("a bare tail became vram_oom: %v", classesOf(d))
	}
}
