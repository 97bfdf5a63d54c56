package breakdown

import "strings"

// Library frames that say nothing about where the user's code launched a
// kernel; the first frame outside them (innermost first) is the location.
var libraryFrames = []string{
	"/torch/", "torch/nn/", "/contextlib.py", "/threading.py", "/asyncio/", "/functools.py",
	"/typing.py", "/triton/", "<built-in", "<frozen", "/site-packages/accelerate/",
	"/concurrent/", "/selectors.py", "/runpy.py", "/_ops.py", "/tqdm/",
}

// meaningfulFrame reports whether a python_function name points at user or
// framework-model code ("path.py(line): func").
func meaningfulFrame(name string) bool {
	if strings.HasPrefix(name, "nn.Module:") || strings.HasPrefix(name, "<") {
		return false
	}
	if !strings.Contains(name, ".py(") {
		return false
	}
	path := "/" + name // so that a relative "torch/…" matches "/torch/"
	for _, l := range libraryFrames {
		if strings.Contains(path, l) {
			return false
		}
	}
	return true
}

// Known package roots: a location is shown from the root on
// ("sglang/srt/layers/layernorm.py(120): forward_hip").
var roots = []string{"sglang/", "vllm/", "aiter/", "xfuser/", "diffusers/", "transformers/", "megatron/", "deepspeed/", "flashinfer/", "sgl_kernel/"}

// shortLocation trims a frame name to its package-relative path.
func shortLocation(name string) string {
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
	// keep the last two path components
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
