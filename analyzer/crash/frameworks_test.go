package crash

import "testing"

// Framework wordings that imply a class on their own (real lines, URL per row).
func TestExtractFrameworkWording(t *testing.T) {
	cases := []struct {
		src, text, class string
	}{
		{"https://github.com/vllm-project/vllm/issues/10439 (compose prefix, engine.py stamp)",
			"ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", ClassVRAMOOM},
		{"https://github.com/vllm-project/vllm/issues/27508 (V1 EngineCore, the raise in the traceback)",
			`(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]     raise ValueError("No available memory for the cache blocks. "`, ClassVRAMOOM},
		{"https://github.com/netease-youdao/QAnything/issues/302",
			"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", ClassVRAMOOM},
		{"https://github.com/QwenLM/Qwen3/issues/12 (title: the raise and the error on one line)",
			`raise ValueError("No available memory for the cache blocks. " ValueError: No available memory for the cache blocks. Try increasing ` + "`gpu_memory_utilization`" + ` when initializing the engine.`, ClassVRAMOOM},
		{"https://github.com/vllm-project/vllm/issues/25837",
			"(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718] ValueError: Free memory on device (3.22/4.0 GiB) on startup is less than desired GPU memory utilization (0.9, 3.6 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.", ClassVRAMOOM},
		{"https://github.com/pytorch/pytorch/issues/175666 (CI stamp)",
			"[2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.", ClassVRAMOOM},
		{"https://github.com/QinYang79/ICL/issues/3",
			"(VllmWorker rank=0 pid=3926141) ERROR 08-12 01:36:10 [multiproc_executor.py:511] ValueError: Free memory on device (16.61/23.68 GiB) on startup is less than desired GPU memory utilization (0.8, 18.95 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.", ClassVRAMOOM},
		// the passing start-up's own report is no failure
		{"https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/issues/47",
			"Free memory on device (110.37/121.69 GiB) on startup.", ""},
		{"https://github.com/sgl-project/sglang/issues/4330",
			"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", ClassVRAMOOM},
		{"https://github.com/sgl-project/sglang/issues/322 (title)",
			"Contradictory suggestions: Not enough memory. Please try to increase --mem-fraction-static", ClassVRAMOOM},
		{"https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/15872 (NaN's)",
			`"NansException: A tensor with all NaN's was produced in Unet. This could be either because there is not enough precision to represent the picture of because your video card does not support the half type`, ClassNumericalNaN},
		{"https://github.com/camenduru/stable-diffusion-webui-colab/issues/253 (title)",
			"[Bug]: NansException: A tensor with all NaNs was produced in Unet. (--no-half)", ClassNumericalNaN},
		{"https://github.com/AIrjen/OneButtonPrompt/issues/87 (rich traceback locals)",
			`│ │ message = "A tensor with all NaNs was produced in Unet. This could be either because there'"+324 │`, ClassNumericalNaN},
		{"https://github.com/vllm-project/vllm/issues/14452",
			"(VllmWorker rank=7 pid=10948) ERROR 03-16 06:12:38 [multiproc_executor.py:375] RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.", ClassVRAMOOM},
		{"https://github.com/PaddlePaddle/PaddleOCR/issues/1505",
			"Out of memory error on GPU 0. Cannot allocate 25.002197MB memory on GPU 0, available memory is only 15.187500MB.", ClassVRAMOOM},
		{"https://github.com/PaddlePaddle/PaddleGAN/issues/587 (in backquotes)",
			"``Out of memory error on GPU 0. Cannot allocate 3.621826GB memory on GPU 0, 21.184814GB memory has been allocated and available memory is only 2.814575GB. Please check whether there is any other process using GPU 0.``", ClassVRAMOOM},
		{"https://github.com/PaddlePaddle/Paddle/issues/26892 (after a Chinese label)",
			"报错信息：Out of memory error on GPU 0. Cannot allocate 1.531250GB memory on GPU 0, available memory is only ", ClassVRAMOOM},
		{"https://github.com/cupy/cupy/issues/1912",
			"cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 1073741824 bytes (total 12373894656 bytes)", ClassVRAMOOM},
		{"https://github.com/motokimura/spacenet_building_detection/issues/3 (Chainer's trainer)",
			"Exception in main training loop: out of memory to allocate 163840000 bytes (total 1673061376 bytes)", ClassVRAMOOM},
		{"https://github.com/cupy/cupy/issues/2537 (newer wording)",
			"Exception in main training loop: Out of memory allocating 25,600,000 bytes (allocated so far: 3,635,267,072 bytes).", ClassVRAMOOM},
		{"https://github.com/vllm-project/vllm/issues/8189 (vLLM's model-runner wrapper)",
			"ERROR 01-11 13:09:40 engine.py:366] RuntimeError: Error in model execution (input dumped to /tmp/err_execute_model_input_20250111-130939.pkl): FlashAttention only supports Ampere GPUs or newer.", ClassArchMismatch},
		{"https://github.com/Dao-AILab/flash-attention/issues/1540 (ComfyUI prefix)",
			"!!! Exception during processing !!! FlashAttention only supports Ampere GPUs or newer.", ClassArchMismatch},
		{"https://github.com/if-ai/ComfyUI-IF_Trellis/issues/40",
			"`RuntimeError: FlashAttention only supports Ampere GPUs or newer.", ClassArchMismatch},
		{"https://github.com/ray-project/ray/pull/30312 (pytest E prefix)",
			"E                       ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.", ClassHostOOMKill},
		{"https://github.com/OpenRLHF/OpenRLHF/issues/936 (title)",
			"ERROR - An error occurred during score calculation: Task was killed due to the node running low on memory.", ClassHostOOMKill},
		{"https://github.com/xorbitsai/inference/issues/3603",
			"NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.", ClassArchMismatch},
		{"https://github.com/pBFSLab/DeepPrep/issues/233 (indented, an older wheel's list)",
			"  NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.", ClassArchMismatch},
		{"https://github.com/DreamTechAI/Direct3D-S2/issues/32 (in backquotes)",
			"```NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.", ClassArchMismatch},
		// the list of what the wheel supports alone names no device
		{"https://github.com/Hellod035/LeggedLab/issues/26",
			"The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.", ""},
		// the KV cache smaller than max_model_len is a configuration limit, not no memory at all
		{"https://github.com/vllm-project/vllm/issues/2418",
			"ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (3664).", ""},
	}
	for _, c := range cases {
		w, ok := extractFrameworkWording(c.text)
		if got := map[bool]string{true: w.class}[ok]; got != c.class {
			t.Errorf("%s: extractFrameworkWording(%q) = %q, want %q", c.src, c.text, got, c.class)
		}
		if c.class == "" {
			continue
		}
		// the whole diagnosis: the class, and no application error instead
		d := diagnoseWhole("fw.log", []byte(c.text+"\n"))
		if hasClass(d, c.class) == nil || hasClass(d, ClassNotGPU) != nil {
			t.Errorf("%s: %v, want %s", c.src, classesOf(d), c.class)
		}
	}
}

// ggml's op wrapper: the op line, then the CUDA/HIP error (real lines).
func TestGGMLOpFailure(t *testing.T) {
	ops := []struct{ src, text, op string }{
		{"https://github.com/ggml-org/llama.cpp/issues/25095 (timestamped log)", "0.11.348.030 E ggml_cuda_compute_forward: SOFT_MAX failed", "SOFT_MAX"},
		{"https://github.com/ggml-org/llama.cpp/issues/22918 (Error: prefix)", "Error: ggml_cuda_compute_forward: MUL_MAT_ID failed", "MUL_MAT_ID"},
		{"https://github.com/leejet/stable-diffusion.cpp/issues/440", "ggml_cuda_compute_forward: SCALE failed", "SCALE"},
		// the function line names no op
		{"https://github.com/ggml-org/llama.cpp/issues/25095", "  current device: 0, in function ggml_cuda_compute_forward at /home/lf/codes/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:3163", ""},
	}
	for _, c := range ops {
		if op, _ := extractGGMLOpFailure(c.text); op != c.op {
			t.Errorf("%s: extractGGMLOpFailure(%q) = %q, want %q", c.src, c.text, op, c.op)
		}
	}
	for _, c := range []struct {
		src, log, class string
	}{
		{"https://github.com/ggml-org/llama.cpp/issues/25095",
			"0.11.348.030 E ggml_cuda_compute_forward: SOFT_MAX failed\n0.11.348.725 E CUDA error: invalid argument\n0.11.348.728 E   current device: 0, in function ggml_cuda_compute_forward at /home/lf/codes/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:3163\n", ClassInvalidLaunch},
		{"https://github.com/ggml-org/llama.cpp/issues/22918",
			"Error: ggml_cuda_compute_forward: MUL_MAT_ID failed\nError: CUDA error: invalid argument\nError:   current device: 1, in function ggml_cuda_compute_forward at llama.cpp-b9033/ggml/src/ggml-cuda/ggml-cuda.cu:2962\n", ClassInvalidLaunch},
		{"https://github.com/leejet/stable-diffusion.cpp/issues/440",
			"ggml_cuda_compute_forward: SCALE failed\nCUDA error: invalid configuration argument\n", ClassInvalidLaunch},
	} {
		if hasClass(diagnoseWhole("ggml.log", []byte(c.log)), c.class) == nil {
			t.Errorf("%s: no %s", c.src, c.class)
		}
	}
	// invalid argument in a copy into a buffer is no launch (no op failed)
	d := diagnoseWhole("ggml.log", []byte("  CUDA error: invalid argument\n  current device: 0, in function ggml_backend_cuda_buffer_set_tensor at /root/workspace/bisheng-rt/src/llama.cpp/ggml-cuda.cu:758\n  cudaMemcpyAsync((char *)tensor->data + offset, data, size, cudaMemcpyHostToDevice, ((cudaStream_t)0x2))\n"))
	if hasClass(d, ClassInvalidLaunch) != nil {
		t.Errorf("https://github.com/ggml-org/llama.cpp/issues/6201: a copy's invalid argument read as a launch: %s", d.JSON())
	}
}

// DeepSpeed's launcher return code without its sigkill_handler stamp, after
// the launcher's own "Killing subprocess" lines.
func TestBareLauncherReturn(t *testing.T) {
	if c, ok := extractBareLauncherReturn("执行 train.py过程报错 exits with return code = -9"); !ok || c != -9 {
		t.Errorf("https://github.com/liucongg/ChatGLM-Finetuning/issues/102: %d, %v", c, ok)
	}
	log := "[2023-09-10 11:45:59,207] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 6293\n[2023-09-10 11:45:59,501] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 6294\n执行 train.py过程报错 exits with return code = -9\n"
	if hasClass(diagnoseWhole("ds.log", []byte(log)), ClassHostOOMKill) == nil {
		t.Errorf("https://github.com/liucongg/ChatGLM-Finetuning/issues/102: no host_oom_kill")
	}
	// without the launcher's lines the sentence is a title or a note: nothing
	for _, src := range []string{
		"https://github.com/deepspeedai/DeepSpeed/issues/3160 [BUG] exits with return code = -9",
		"https://github.com/deepspeedai/DeepSpeed/issues/3989 [BUG] exits with return code = -11",
	} {
		if d := diagnoseWhole("title.txt", []byte(src+"\n")); len(d.Findings) != 0 {
			t.Errorf("%s: %s", src, d.JSON())
		}
	}
}

// Hydra's bare "EXIT CODE: 9" is the raw wait status of a SIGKILLed rank.
func TestHydraBareExitCode9(t *testing.T) {
	for _, c := range []struct{ src, log string }{
		{"https://github.com/je-santos/MPLBM-UT/issues/92", "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 92248 RUNNING AT fzh-desktop\n=   EXIT CODE: 9\n=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n"},
		{"https://github.com/cBio/cbio-cluster/issues/256", "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n\n=   EXIT CODE: 9\n\n=   CLEANING UP REMAINING PROCESSES\n"},
	} {
		if hasClass(diagnoseWhole("mpi.log", []byte(c.log)), ClassHostOOMKill) == nil {
			t.Errorf("%s: no host_oom_kill", c.src)
		}
	}
	if code, ok := extractHydraExit("=   EXIT CODE: 1"); !ok || code != 1 {
		t.Errorf("an application's exit(1) changed: %d, %v", code, ok)
	}
}

// CTranslate2's "CUDA failed with error <text>": CUDA's text, CUDA's class.
func TestCUDAFailedWith(t *testing.T) {
	for _, c := range []struct{ src, text, class string }{
		{"https://github.com/SYSTRAN/faster-whisper/issues/442", "RuntimeError: CUDA failed with error out of memory", ClassVRAMOOM},
		{"https://github.com/m-bain/whisperX/issues/504 (title)", "RuntimeError: CUDA failed with error out of memory", ClassVRAMOOM},
		{"https://github.com/jianchang512/pyvideotrans/issues/284 (title, glued)", "whole all CUDA failed with error out of memory", ClassVRAMOOM},
	} {
		x, ok := extractCUDAFailedWith(c.text)
		if !ok || x.e.class != c.class {
			t.Errorf("%s: extractCUDAFailedWith(%q) = %v, %v", c.src, c.text, x.e, ok)
		}
		d := diagnoseWhole("ct2.log", []byte(c.text+"\n"))
		if hasClass(d, c.class) == nil || hasClass(d, ClassNotGPU) != nil {
			t.Errorf("%s: %v, want %s", c.src, classesOf(d), c.class)
		}
	}
	// a text that is not CUDA's decides nothing
	if _, ok := extractCUDAFailedWith("CUDA failed with error something went wrong"); ok {
		t.Error("an unknown text read as a CUDA error")
	}
}

// The raylet's summary of its memory monitor's kills.
func TestRayOOMKills(t *testing.T) {
	line := "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at "
	if n := extractRayOOMKills(line); n != 2 {
		t.Errorf("https://github.com/WM-PO/WMPO/issues/3: %d kills, want 2", n)
	}
	if hasClass(diagnoseWhole("ray.log", []byte(line+"\n")), ClassHostOOMKill) == nil {
		t.Error("https://github.com/WM-PO/WMPO/issues/3: no host_oom_kill")
	}
	// no worker killed for memory: the summary names another failure
	if n := extractRayOOMKills("node_manager.cc:3022: 0 Workers (tasks / actors) killed due to memory pressure (OOM), 1 Workers crashed due to other reasons at node"); n != 0 {
		t.Errorf("0 kills read as %d", n)
	}
}

// Ray's memory monitor report names the task it killed and its pid: that
// process is the OOM kill's culprit.
func TestRayOOMVictim(t *testing.T) {
	for _, c := range []struct {
		src, text string
		pid       int
	}{
		{"https://github.com/ray-project/ray/pull/30312", "E                       Memory on the node (IP: 172.17.0.2, ID: 8c5a1410013588601db2a6344fa1e07476f4378155083682818ebb94) where the task (task ID: 41617bc740ae9ca27726b37f8578c02f4cf1698d01000000, name=allocate_memory, pid=548, memory used=12.18GB) was running was 21.91GB / 33.28GB (0.658192), which exceeds the memory usage threshold of 0.65. Ray killed this worker (ID: 0f7695fad1848c8703eb36240efa3a80cb82ea43206919f4", 548},
		{"https://github.com/ray-project/ray/issues/32730", "Memory on the node (IP: 172.31.237.1, ID: 2c0ca846c8a9b1630ce2a4aae5ce82dd974531325a67acab1801dbf1) where the task (task ID: 76b2551f16836f9d58427a0096d8ccf5ba077e2703000000, name=pi4_sample, pid=664672, memory used=0.05GB) was running was 219.41GB / 230.40GB (0.952289), which exceeds the memory usage threshold of 0.95. Ray killed this worker", 664672},
		// Ray 2.1's report names no pid
		{"https://github.com/ray-project/ray/pull/29341", "Memory on the node (IP: 172.17.0.2, ID: 3a4b60759256926fd0e84a9ff596dab3d7be854134107ef21b0e0260) where the task was running was 32.53GB / 33.28GB (0.977449), which exceeds the memory usage threshold of 0.969955. Ray killed this worker", 0},
	} {
		if pid := extractRayOOMVictim(c.text); pid != c.pid {
			t.Errorf("%s: pid %d, want %d", c.src, pid, c.pid)
		}
		if c.pid == 0 {
			continue
		}
		d := diagnoseWhole("ray.log", []byte("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"+c.text+"\n"))
		f := hasClass(d, ClassHostOOMKill)
		if f == nil || f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != c.pid {
			t.Errorf("%s: culprit %+v, want pid %d", c.src, f, c.pid)
		}
	}
}
