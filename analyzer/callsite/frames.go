package callsite

import "strings"

// Library frames that say nothing about where the user's code launched a
// kernel (the upstream skill's ignore list among them).
var libraryFrames = []string{
	"/torch/", "torch/nn/", "/contextlib.py", "/threading.py", "/asyncio/", "/functools.py",
	"/typing.py", "/triton/", "<built-in", "<frozen", "/site-packages/accelerate/",
	"/concurrent/", "/selectors.py", "/runpy.py", "/_ops.py", "/tqdm/", "/queue.py",
	"/logging/", "/socket.py", "/uvicorn/", "/fastapi/", "/starlette/",
}

// Meaningful reports whether a python_function name points at user or
// framework-model code ("path.py(line): func").
func Meaningful(name string) bool {
	if strings.HasPrefix(name, "nn.Module:") || strings.HasPrefix(name, "<") {
		return false
	}
	if !strings.Contains(name, ".py(") {
		return false
	}
	path := "/" + name
	for _, l := range libraryFrames {
		if strings.Contains(path, l) {
			return false
		}
	}
	return true
}

var roots = []string{"sglang/", "vllm/", "aiter/", "xfuser/", "diffusers/", "transformers/", "megatron/", "deepspeed/", "flashinfer/", "sgl_kernel/", "tensorrt_llm/"}

// Framework frames that wrap model code rather than being it: vLLM's
// torch.compile / CUDA-graph wrappers and tracing decorators. A compiled
// region's kernels are launched from Inductor's generated code under
// them, so the model line that entered the region is the better location.
var plumbing = []string{"vllm/compilation/", "vllm/tracing/"}

func plumbingFrame(loc string) bool {
	for _, p := range plumbing {
		if strings.HasPrefix(loc, p) {
			return true
		}
	}
	return false
}

func servingFrame(loc string) bool {
	return strings.HasPrefix(loc, "sglang/") || strings.HasPrefix(loc, "vllm/") || strings.HasPrefix(loc, "tensorrt_llm/")
}

func frameworkFrame(loc string) bool {
	for _, r := range roots {
		if strings.HasPrefix(loc, r) {
			return true
		}
	}
	return false
}

// Short trims a frame name to its package-relative path.
func Short(name string) string {
	for _, r := range roots {
		if i := strings.LastIndex(name, "/"+r); i >= 0 {
			return name[i+1:]
		}
		if strings.HasPrefix(name, r) {
			return name
		}
	}
	paren := strings.Index(name, ".py(")
	if paren < 0 {
		return name
	}
	path := name[:paren]
	cut := 0
	for n, i := 0, len(path)-1; i >= 0; i-- {
		if path[i] == '/' || path[i] == '\\' {
			n++
			if n == 2 {
				cut = i + 1
				break
			}
		}
	}
	return name[cut:]
}

// Score ranks a location (from Short) found depth frames out from the
// innermost: serving-framework code first (the upstream skill's priority to
// python/sglang/…), then kernel-library wrappers, then the rest, inner
// before outer; the highest score is the call site to show.
func Score(loc string, depth int) int {
	score := 10
	if frameworkFrame(loc) && !plumbingFrame(loc) {
		score = 50
		if servingFrame(loc) {
			score = 60
		}
	}
	if strings.Contains(loc, "utils.py") && strings.Contains(loc, "__call__") || strings.Contains(loc, "profiler") {
		score -= 15
	}
	return score - depth
}
