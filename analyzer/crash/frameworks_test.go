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
		// the KV cache smaller than max_model_len is a configuration limit, not no memory at all
		{"https://github.com/vllm-project/vllm/issues/2418",
			"ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (3664).", ""},
	}
	for _, c := range cases {
		w, ok := extractFrameworkWording(c.text)
		if got := map[bool]string{true: w.class}[ok]; got != c.class {
			t.Errorf("%s: extractFrameworkWording(%q) = %q, want %q", c.src, c.text, got, c.class)
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
