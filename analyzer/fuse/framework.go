package fuse

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Frameworks a trace can come from; candidate paths name files and options
// of the detected one only.
const (
	FrameworkSGLang  = "SGLang"
	FrameworkVLLM    = "vLLM"
	FrameworkXDiT    = "xDiT"
	FrameworkPyTorch = "PyTorch" // anything else: plain PyTorch, diffusers, transformers, …
)

// frameworkMarks are the spellings of each framework in Python frames
// ("sglang/srt/models/qwen3.py(231): forward"), CPU ops ("sglang::…",
// "vllm::unified_attention") and annotations.
var frameworkMarks = []struct {
	fw    string
	marks []string
}{
	{FrameworkSGLang, []string{"sglang/", "sglang::", "sgl_kernel"}},
	{FrameworkVLLM, []string{"vllm/", "vllm::"}},
	{FrameworkXDiT, []string{"xfuser/", "xfuser::"}},
}

// DetectFramework names the serving/inference framework a trace came from,
// by the framework whose marks its Python frames and CPU ops carry most
// often (SGLang imports some vLLM code, so presence alone does not decide);
// FrameworkPyTorch when none does.
func DetectFramework(st *trace.Store) string {
	count := make([]int, len(frameworkMarks))
	seen := map[uint32]bool{}
	scan := func(spans []trace.Span) {
		for i := range spans {
			id := spans[i].Name
			if seen[id] {
				continue
			}
			seen[id] = true
			n := st.Name(id)
			for f, fm := range frameworkMarks {
				for _, m := range fm.marks {
					if strings.Contains(n, m) {
						count[f]++
						break
					}
				}
			}
		}
	}
	scan(st.Python)
	scan(st.CPU)
	best, bestN := FrameworkPyTorch, 0
	for f, fm := range frameworkMarks {
		if count[f] > bestN {
			best, bestN = fm.fw, count[f]
		}
	}
	return best
}

// Path is one candidate fused path: for one framework ("" = any) and, for
// the chain rule, one chain kind ("" = any).
type Path struct {
	Framework, Kind, Text string
	// KVCache marks a path through a KV cache: not offered to diffusion
	// (xDiT) traces, which keep none.
	KVCache bool
}

// Paths are the candidate fused code paths, per runtime.
type Paths struct{ CUDA, ROCm []Path }

// For returns the candidate paths that apply to a trace of this runtime and
// framework (and chain kind), joined; framework-specific paths first.
func (p Paths) For(rocm bool, framework, kind string) string {
	list := p.CUDA
	if rocm {
		list = p.ROCm
	}
	var specific, generic []string
	for _, c := range list {
		if c.Kind != "" && c.Kind != kind || c.KVCache && framework == FrameworkXDiT {
			continue // diffusion transformers (xDiT) keep no KV cache
		}
		switch c.Framework {
		case framework:
			specific = append(specific, c.Text)
		case "":
			generic = append(generic, c.Text)
		}
	}
	if out := append(specific, generic...); len(out) > 0 {
		return strings.Join(out, "; ")
	}
	return "—"
}
