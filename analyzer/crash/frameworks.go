package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Frameworks around the GPU report its failures in their own words: a
// serving engine's start-up check, ggml's op wrapper around a CUDA/HIP
// error, a launcher's report of its child. frameworkParser reads the
// wordings the runtime catalogs (cudaerr.go, codes.go) cannot: each is a
// pure extractor over one line (frameworkWordings, extractGGMLOpFailure,
// extractBareLauncherReturn) and the parser only keeps the one-line context
// a wrapper needs (the op a ggml error belongs to, a launcher that is
// killing its children).

// frameworkWording is one framework message that implies a crash class on
// its own, with why.
type frameworkWording struct {
	sub       string // the framework's text, matched as printed
	and       string // a second text the line must hold too, or ""
	framework string
	class     string
	conf      float64
	why       string
}

// frameworkWordings: each row cites the real threads it was read from.
var frameworkWordings = []frameworkWording{
	// vLLM's start-up check (worker.py raise_if_cache_size_invalid, V1's
	// kv_cache_utils check_enough_kv_cache_memory): after the weights and a
	// profiling run no GPU memory is left for a single KV-cache block.
	// vllm-project/vllm#10439, #27508, #14574; netease-youdao/QAnything#302;
	// QwenLM/Qwen3#12; gensyn-ai/rl-swarm#118
	{"No available memory for the cache blocks", "", "vLLM", ClassVRAMOOM, 0.8,
		"vLLM found no GPU memory left for the KV cache after loading the weights: the model does not fit gpu_memory_utilization of this GPU, or other processes hold its memory"},
	// vLLM ≥ 0.9's start-up check of the free memory against the fraction it
	// was asked to take. vllm-project/vllm#20305, #25837, #33297;
	// pytorch/pytorch#175666; noonghunna/club-3090#4; QinYang79/ICL#3
	{"is less than desired GPU memory utilization", "", "vLLM", ClassVRAMOOM, 0.75,
		"vLLM found less free GPU memory at start-up than gpu_memory_utilization asks for: other processes (another engine, a leftover worker) hold the GPU's memory, or the fraction is set too high"},
	// SGLang's KV-cache pool sizing (model_runner profile_max_num_token):
	// the memory left after the weights holds no token.
	// sgl-project/sglang#4330, #322, #4895
	{"Not enough memory. Please try to increase --mem-fraction-static", "", "SGLang", ClassVRAMOOM, 0.75,
		"SGLang found no GPU memory for its KV-cache pool after loading the weights: mem_fraction_static is too low for this model on this GPU"},
	// stable-diffusion-webui's NaN check on the UNet / VAE output
	// (modules/devices.py test_for_nans), also "NaN's".
	// AUTOMATIC1111/stable-diffusion-webui#6923, #11695, #15872;
	// camenduru/stable-diffusion-webui-colab#253; AIrjen/OneButtonPrompt#87
	{"A tensor with all NaN", "", "stable-diffusion-webui", ClassNumericalNaN, 0.6,
		"the UNet / VAE produced only NaNs: half precision overflowed on this GPU (upcast cross attention to float32, --no-half / --no-half-vae)"},
	// vLLM V1's sampler warm-up (gpu_model_runner _dummy_sampler_run)
	// re-raises torch's OOM in its own words. vllm-project/vllm#14452,
	// #27508, #30637
	{"CUDA out of memory occurred when warming up sampler", "", "vLLM", ClassVRAMOOM, 0.8,
		"vLLM ran out of GPU memory warming up the sampler with max_num_seqs dummy requests: lower max_num_seqs or gpu_memory_utilization"},
	// PaddlePaddle's allocator (memory/allocation/cuda_allocator.cc).
	// PaddlePaddle/Paddle#42228, #26892, #54852; PaddleOCR#645, #1505;
	// PaddlePaddle/PGL#26; PaddleGAN#587; PaddleVideo#502
	{"Out of memory error on GPU", "", "PaddlePaddle", ClassVRAMOOM, 0.85,
		"PaddlePaddle could not allocate device memory: the batch or model needs more than the GPU has free, or another process holds it"},
	// CuPy's memory pool (Chainer and others): the older "out of memory to
	// allocate N bytes (total M bytes)" and the newer "Out of memory
	// allocating N bytes (allocated so far: M bytes)".
	// cupy/cupy#1912, #2537, #2227; motokimura/spacenet_building_detection#3;
	// oreilly-japan/deep-learning-from-scratch-2#16
	{"out of memory to allocate ", "bytes (total ", "CuPy", ClassVRAMOOM, 0.8,
		"CuPy's memory pool could not get device memory for an array"},
	{"Out of memory allocating ", "allocated so far", "CuPy", ClassVRAMOOM, 0.8,
		"CuPy's memory pool could not get device memory for an array"},
	// flash-attn 2's mha_fwd check of the device's compute capability: the
	// library has no kernels for this GPU (pre-sm80, or a build without the
	// new arch). Dao-AILab/flash-attention#762, #1485, #1540;
	// vllm-project/vllm#8189; if-ai/ComfyUI-IF_Trellis#40; komikndr/raylight#68
	{"FlashAttention only supports Ampere GPUs or newer", "", "flash-attn", ClassArchMismatch, 0.7,
		"flash-attn has no kernels for this GPU's architecture (it needs sm80+ and a build that includes the GPU's arch): use another attention backend (sdpa / xformers) or a build for this GPU"},
	// torch's device check (torch/cuda/__init__.py _check_capability):
	// the wheel has neither SASS nor PTX for this GPU's compute capability,
	// so every kernel launch will fail with "no kernel image".
	// xorbitsai/inference#3603, Hellod035/LeggedLab#26,
	// DreamTechAI/Direct3D-S2#32, pBFSLab/DeepPrep#233, pytorch/pytorch#150733
	{"is not compatible with the current PyTorch installation", "with CUDA capability sm_", "PyTorch", ClassArchMismatch, 0.7,
		"the installed PyTorch wheel has no kernels for this GPU's compute capability: install a build whose CUDA arch list includes it (e.g. a cu128 wheel for sm_120)"},
	// Ray's memory monitor kills a worker when the node's host memory
	// crosses its threshold (RAY_memory_usage_threshold): the host OOM kill
	// in Ray's words. ray-project/ray#30312; vllm-project/vllm#1765;
	// OpenRLHF/OpenRLHF#936; WM-PO/WMPO#3
	{"Task was killed due to the node running low on memory", "", "Ray", ClassHostOOMKill, 0.8,
		"Ray's memory monitor killed the task: the node's host memory crossed RAY_memory_usage_threshold"},
}

// reRayOOMKills: the raylet's summary of the workers its memory monitor
// killed, "2 Workers (tasks / actors) killed due to memory pressure (OOM), 0
// Workers crashed due to other reasons at node …" (WM-PO/WMPO#3); a count
// of 0 kills names none.
var reRayOOMKills = lazyre.New(`(\d+) Workers \(tasks / actors\) killed due to memory pressure \(OOM\)`)

// reRayOOMVictim: the memory monitor's report names the task or actor it
// killed, with its pid since Ray 2.2 ("where the task (task ID: …,
// name=allocate_memory, pid=548, memory used=12.18GB) was running …
// exceeds the memory usage threshold", ray-project/ray#30312; "(task ID: …,
// name=pi4_sample, pid=664672, memory used=0.05GB)", ray-project/ray#32730;
// an actor's "(actor ID: …, name=…, pid=N, …)").
var reRayOOMVictim = lazyre.New(`where the (?:task|actor) \([^)]*?\bpid=(\d+)`)

// extractRayOOMVictim returns the pid the memory monitor killed, 0 when
// the line is not its report or names none (Ray < 2.2).
func extractRayOOMVictim(t string) int {
	if !strings.Contains(t, "exceeds the memory usage threshold") {
		return 0
	}
	m := findIf(t, "where the ", reRayOOMVictim)
	if m == nil {
		return 0
	}
	return atoiDef(m[1], 0)
}

func extractRayOOMKills(t string) int {
	m := findIf(t, "killed due to memory pressure", reRayOOMKills)
	if m == nil {
		return 0
	}
	return atoiDef(m[1], 0)
}

// extractFrameworkWording returns the row whose wording the line holds.
func extractFrameworkWording(t string) (frameworkWording, bool) {
	for _, w := range frameworkWordings {
		if strings.Contains(t, w.sub) && strings.Contains(t, w.and) {
			return w, true
		}
	}
	return frameworkWording{}, false
}

// CTranslate2 (faster-whisper, WhisperX) reports a failed CUDA call as
// "CUDA failed with error <cudaGetErrorString text>": the text is CUDA's,
// read by its catalog (cudaerr.go). SYSTRAN/faster-whisper#442,
// m-bain/whisperX#504, #315, R3gm/SoniTranslate#88,
// Purfview/whisper-standalone-win#141, CheshireCC/faster-whisper-GUI#48
var reCUDAFailedWith = lazyre.New(`CUDA failed with error (.+?)[.\s]*$`)

func extractCUDAFailedWith(t string) (cudaErrFact, bool) {
	m := findIf(t, "CUDA failed with error ", reCUDAFailedWith)
	if m == nil {
		return cudaErrFact{}, false
	}
	for i := range cudaCatalog {
		if e := &cudaCatalog[i]; e.code != 0 && e.text != "" && strings.EqualFold(e.text, m[1]) {
			return cudaErrFact{e: e, via: "text"}, true
		}
	}
	return cudaErrFact{}, false
}

// ggml names the op whose CUDA/HIP call failed on the line before the
// error: "ggml_cuda_compute_forward: SOFT_MAX failed" then "CUDA error:
// invalid argument" and "current device: 0, in function
// ggml_cuda_compute_forward at …" (a HIP build keeps the CUDA names or says
// "ROCm error: ").
var reGGMLOpFailed = lazyre.New(`ggml_cuda_compute_forward: (\w+) failed`)

func extractGGMLOpFailure(t string) (string, bool) {
	m := findIf(t, "ggml_cuda_compute_forward: ", reGGMLOpFailed)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ggmlLaunchRefused reports an error line that, right after a failed op,
// means the op's kernel launch was refused: cudaErrorInvalidValue /
// cudaErrorInvalidConfiguration at compute_forward is a launch (grid,
// block or shared memory) the device does not accept. Elsewhere "invalid
// argument" is any API call (a copy into a buffer: llama.cpp#6201) and
// decides nothing.
func ggmlLaunchRefused(t string) (string, bool) {
	m := findIf(t, " error: ", reTorchErr)
	if m == nil {
		return "", false
	}
	msg := strings.TrimSpace(m[2])
	switch msg {
	case "invalid argument", "invalid configuration argument":
		return msg, true
	}
	return "", false
}

// reBareLauncherReturn: DeepSpeed's launcher's "exits with return code = N"
// without its "sigkill_handler]" stamp (a paste or an issue title kept only
// the end); read only after the launcher's own "Killing subprocess" lines.
var reBareLauncherReturn = lazyre.New(`exits with return code = (-?\d+)`)

func extractBareLauncherReturn(t string) (int, bool) {
	if strings.Contains(t, "sigkill_handler") {
		return 0, false // exit.go's extractLauncherReturn
	}
	m := findIf(t, "exits with return code = ", reBareLauncherReturn)
	if m == nil {
		return 0, false
	}
	return atoiDef(m[1], 0), true
}

type frameworkParser struct {
	s *Session
	// the op of the last "ggml_cuda_compute_forward: OP failed" and its line
	ggmlOp     string
	ggmlOpLine int
	// DeepSpeed's launcher is killing its children ("[launch.py:428:
	// sigkill_handler] Killing subprocess 6293")
	launcherKilling bool
}

// frameworkKeywords feed the line prefilter (prefilter.go).
var frameworkKeywords = append([]string{"operation to complete", "killed due to memory pressure", "exceeds the memory usage threshold", "CUDA failed with error", "ggml_cuda_compute_forward", "CUDA error: ", "ROCm error: ", "HIP error: ", "Killing subprocess", "exits with return code"}, frameworkWordingSubs()...)

func frameworkWordingSubs() []string {
	subs := make([]string, 0, len(frameworkWordings))
	for _, w := range frameworkWordings {
		subs = append(subs, w.sub)
	}
	return subs
}

func (p *frameworkParser) gate() uint64    { return kwFramework }
func (p *frameworkParser) active(int) bool { return false }
func (p *frameworkParser) beginFile(*Session) {
	p.ggmlOp, p.ggmlOpLine, p.launcherKilling = "", 0, false
}
func (p *frameworkParser) endFile() {}

func (p *frameworkParser) line(l *line) {
	t := l.text
	s := p.s
	if commandLike(t) {
		return // a command or a question names evidence, it is none
	}
	if w, ok := extractFrameworkWording(t); ok {
		s.format(strings.ToLower(w.framework))
		a := s.b.add(s, w.class, l, w.conf)
		a.detail("framework", w.framework)
		if strings.Contains(t, "CUDA capability sm_") {
			// a device named by its CUDA compute capability is NVIDIA's:
			// the advice asks CUDA's tools (evidence.go runtimeVendor)
			a.detail("runtime", "CUDA")
		}
		a.addReason(w.why)
		return
	}
	if pid := extractRayOOMVictim(t); pid > 0 {
		// the report's first line ("Task was killed due to the node running
		// low on memory") may be cut from the paste: the report is the kill
		s.format("ray")
		a := s.b.add(s, ClassHostOOMKill, l, 0.8)
		a.detail("framework", "Ray")
		a.memProof = true
		s.deathNamed(l, "SIGKILL", pid)
		return
	}
	if g, ok := extractGlooTimeout(t); ok {
		s.applyGlooTimeout(l, g) // gloo.go
		return
	}
	if n := extractRayOOMKills(t); n > 0 {
		s.format("ray")
		a := s.b.add(s, ClassHostOOMKill, l, 0.8)
		a.detail("framework", "Ray")
		a.detail("workers_killed", itoa(n))
		a.addReason("Ray's memory monitor killed " + itoa(n) + " worker(s): the node's host memory crossed RAY_memory_usage_threshold")
		return
	}
	if x, ok := extractCUDAFailedWith(t); ok {
		s.format("ctranslate2")
		s.applyCUDAError(l, x)
		return
	}
	if op, ok := extractGGMLOpFailure(t); ok {
		p.ggmlOp, p.ggmlOpLine = op, l.no
		return
	}
	if p.ggmlOp != "" && l.no-p.ggmlOpLine <= 2 {
		if msg, ok := ggmlLaunchRefused(t); ok {
			s.format("ggml")
			a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
			a.detail("ggml_op", p.ggmlOp)
			a.addReason("ggml's " + p.ggmlOp + " kernel launch was refused (" + msg + "): its grid, block or shared-memory size is not one this device accepts")
			p.ggmlOp = ""
			return
		}
	}
	if strings.Contains(t, "sigkill_handler") && strings.Contains(t, "Killing subprocess") {
		p.launcherKilling = true
		return
	}
	if p.launcherKilling {
		if code, ok := extractBareLauncherReturn(t); ok {
			s.format("deepspeed_launcher")
			s.exitCode(l, code, -1, 0)
		}
	}
}
