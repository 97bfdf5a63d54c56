package crash

import (
	"strings"
	"testing"
)

// Real wordings of Triton compile / launch failures (URLs per row) and the
// facts the triton extractors read from them.

func TestExtractTritonPass(t *testing.T) {
	cases := []struct {
		src, text string
		want      tritonPass
	}{
		{"https://github.com/ROCm/triton/issues/941",
			"note: Pipeline failed while executing [`TritonAMDGPUCanonicalizePointers` on 'tt.func' operation: @_causal_conv1d_update_kernel]",
			tritonPass{pass: "TritonAMDGPUCanonicalizePointers", op: "tt.func", fn: "_causal_conv1d_update_kernel"}},
		{"https://github.com/triton-lang/triton/issues/8546",
			"/home/XXXX/ai/./triton/python/tutorials/10-block-scaled-matmul.py:106:0: note: Pipeline failed while executing [`TritonGPUAccelerateMatmul` on 'builtin.module' operation]: reproducer generated at `std::errs, please share the re",
			tritonPass{pass: "TritonGPUAccelerateMatmul", op: "builtin.module"}},
		{"no pass", "RuntimeError: PassManager::run failed", tritonPass{}},
	}
	for _, c := range cases {
		if got := extractTritonPass(c.text); got != c.want {
			t.Errorf("%s: extractTritonPass(%q) = %+v, want %+v", c.src, c.text, got, c.want)
		}
	}
	// a wrapped line: "operation:" ends one line, "@kernel]" starts the next
	for _, c := range []struct{ text, want string }{
		{"@_causal_conv1d_update_kernel]", "_causal_conv1d_update_kernel"},
		{"  @matmul_kernel]", "matmul_kernel"},
		{"reproducer generated at `std::errs`", ""},
	} {
		if got := extractTritonAtName(c.text); got != c.want {
			t.Errorf("extractTritonAtName(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestExtractTritonLoadBinaryNull(t *testing.T) {
	cases := []struct {
		src, text string
		want      bool
	}{
		{"https://github.com/ROCm/legacy-rocm-build/issues/3131",
			"SystemError: <built-in function load_binary> returned NULL without setting an exception", true},
		{"https://github.com/ROCm/triton/issues/323",
			"SystemError: <built-in function load_binary> returned NULL without setting an exception", true},
		{"https://github.com/pytorch/pytorch/issues/98707 (title)",
			"Ubuntu 22.04 LTS issue <built-in function load_binary> returned NULL without setting an exception", true},
		{"short form (crash-formats.md §14)", "RuntimeError: load_binary returned NULL", true},
		// the traceback frame that calls it is not the failure
		{"https://github.com/ROCm/legacy-rocm-build/issues/3131",
			`    mod, func, n_regs, n_spills = fn_load_binary(self.metadata["name"], self.asm[bin_path], self.shared, device)`, false},
		{"a CPython SystemError of another builtin", "SystemError: <built-in function dump> returned NULL without setting an exception", false},
	}
	for _, c := range cases {
		if got := extractTritonLoadBinaryNull(c.text); got != c.want {
			t.Errorf("%s: extractTritonLoadBinaryNull(%q) = %v, want %v", c.src, c.text, got, c.want)
		}
	}
}

func TestExtractTritonError(t *testing.T) {
	cases := []struct {
		src, text string
		want      tritonError
		ok        bool
	}{
		{"https://github.com/triton-lang/triton/issues/4128", "RuntimeError: Triton Error [HIP]: Code: 1, Messsage: invalid argument",
			tritonError{"HIP", "1", "invalid argument"}, true},
		{"https://github.com/ROCm/triton/issues/552", "RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument",
			tritonError{"HIP", "1", "invalid argument"}, true},
		// the CUDA driver's wording carries no code, only the message
		{"https://github.com/InternLM/lmdeploy/issues/3322", "(RayWorkerWrapper pid=3014724) RuntimeError: Triton Error [CUDA]: invalid argument",
			tritonError{"CUDA", "", "invalid argument"}, true},
		{"https://github.com/ModelTC/LightLLM/issues/34", "RuntimeError: Triton Error [CUDA]: invalid argument",
			tritonError{"CUDA", "", "invalid argument"}, true},
		{"seed case c16b (load_binary)", "RuntimeError: Triton Error [HIP]:  Code: 200, Messsage: device kernel image is invalid",
			tritonError{"HIP", "200", "device kernel image is invalid"}, true},
	}
	for _, c := range cases {
		got, ok := extractTritonError(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractTritonError(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestExtractTritonLaunch(t *testing.T) {
	cases := []struct{ src, text, want string }{
		{"https://github.com/triton-lang/triton/issues/6087", "    _attn_fwd[grid](", "_attn_fwd"},
		{"https://github.com/InternLM/lmdeploy/issues/3322", "(RayWorkerWrapper pid=3014724)     _silu_and_mul_kernel[grid](gate_up,", "_silu_and_mul_kernel"},
		{"https://github.com/ByteDance-Seed/Triton-distributed/issues/11", "[rank3]:     compiled = kernel_consumer_gemm_persistent[grid](", "kernel_consumer_gemm_persistent"},
		{"indexing, not a launch", "    x = batch[idx](", ""},
	}
	for _, c := range cases {
		if got := extractTritonLaunch(c.text); got != c.want {
			t.Errorf("%s: extractTritonLaunch(%q) = %q, want %q", c.src, c.text, got, c.want)
		}
	}
}

// Triton's OutOfResources (raised when a compiled kernel is loaded): the
// per-block resource, what the kernel needs and what the device allows.
func TestExtractTritonOutOfResources(t *testing.T) {
	cases := []struct {
		src, text string
		want      tritonOOR
		ok        bool
	}{
		{"https://github.com/Yuliang-Liu/MonkeyOCR/issues/86",
			"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 126978, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
			tritonOOR{"shared memory", "126978", "101376"}, true},
		{"https://github.com/state-spaces/mamba/issues/387",
			"`triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 663808, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.`",
			tritonOOR{"shared memory", "663808", "101376"}, true},
		{"https://github.com/alipay/PainlessInferenceAcceleration/issues/35",
			"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware limitation: 101376. reducing the block size or `num_stages` may help",
			tritonOOR{"shared memory", "163842", "101376"}, true},
		{"https://github.com/triton-lang/triton/issues/8182 (title, no exception class)",
			"out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
			tritonOOR{"shared memory", "131072", "101376"}, true},
		{"https://github.com/FlashML-org/FreeToken/issues/246",
			"[16:10:42] health/ERROR  OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.  (×5)",
			tritonOOR{"shared memory", "98304", "65536"}, true},
		// the raise statement in a traceback frame carries no numbers: not the fact
		{"https://github.com/pytorch/helion/issues/470",
			`    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")`, tritonOOR{}, false},
	}
	for _, c := range cases {
		got, ok := extractTritonOutOfResources(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractTritonOutOfResources(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// The same text hard-wrapped after the resource name ("shared memory,"),
// its numbers on the next line, is still one OutOfResources.
func TestTritonOutOfResourcesWrapped(t *testing.T) {
	for _, c := range []struct{ src, log, want string }{
		{"https://github.com/vllm-project/vllm/issues/49778 (gfx950)", "triton.runtime.errors.OutOfResources: out of resource: shared memory,\nRequired: 165888, Hardware limit: 163840.\nReducing block sizes or `num_stages` may help.\n", "163840"},
	} {
		d := diagnoseWhole("x.log", []byte(c.log))
		f := hasClass(d, ClassTritonCompile)
		if f == nil || f.Details["resource_limit"] != c.want {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
		if hasClass(d, ClassVRAMOOM) != nil {
			t.Errorf("%s: per-block shared memory read as VRAM: %v", c.src, classesOf(d))
		}
	}
	// a line that only ends in a comma and a later "Required:" elsewhere are not joined
	d := diagnoseWhole("x.log", []byte("triton.runtime.errors.OutOfResources: out of resource: shared memory,\nsome other line\nRequired: 1, Hardware limit: 2\n"))
	if hasClass(d, ClassTritonCompile) != nil && hasClass(d, ClassTritonCompile).Details["resource_limit"] == "2" {
		t.Errorf("joined across an unrelated line: %s", d.JSON())
	}
}

// An exception raised inside Triton's cache manager, or naming a file in a
// Triton cache directory, is a Triton cache failure (seed 000 pattern 4),
// not an application error; the same exception text elsewhere is not.
func TestTritonCacheFailure(t *testing.T) {
	cases := []struct {
		src, text string
		want      bool
	}{
		{"triton runtime/cache.py FileCacheManager.get_group (grp_data = json.load(f)) on an empty __grp__ file; crash-heldout3 e38", `Traceback (most recent call last):
  File "/opt/venv/lib/python3.12/site-packages/triton/compiler/compiler.py", line 258, in compile
    metadata_group = fn_cache_manager.get_group(metadata_filename) or {}
  File "/opt/venv/lib/python3.12/site-packages/triton/runtime/cache.py", line 77, in get_group
    grp_data = json.load(f)
  File "/usr/lib/python3.12/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)`, true},
		{"a rank's os.replace in FileCacheManager.put (mamba training note quoting [rank3] output)", `[rank3]:   File "/home/share/u/.conda/envs/py10/lib/python3.10/site-packages/triton/runtime/cache.py", line 109, in put
[rank3]:     os.replace(temp_path, filepath)
[rank3]: FileNotFoundError: [Errno 2] No such file or directory: '/home/share/u/.triton/cache/8c4cc4f09876dc2a96c889dd587edceb/_state_passing_bwd_kernel.llir.tmp.pid_1010641_731384'`, true},
		{"vLLM engine whose HOME is /: FileCacheManager.__init__ cannot create the cache dir", `(EngineCore pid=84)   File "/usr/local/lib/python3.12/dist-packages/triton/runtime/cache.py", line 55, in __init__
(EngineCore pid=84)     os.makedirs(self.cache_dir, exist_ok=True)
(EngineCore pid=84) torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: '/.triton'`, true},
		{"https://github.com/vllm-project/vllm/issues/6276 (the path alone, no frame pasted)",
			`FileNotFoundError: [Errno 2] No such file or directory: '/root/.triton/cache/de758c429c9ff1f18930bbd9c3004506/fused_moe_kernel.json.tmp.pid_1528_587007'`, true},
		{"the same JSONDecodeError from an application's own config: no Triton frame", `Traceback (most recent call last):
  File "/app/serve.py", line 12, in <module>
    cfg = json.load(open("config.json"))
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)`, false},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if got := hasClass(d, ClassTritonCompile) != nil; got != c.want {
			t.Errorf("%s: triton_compile = %v, want %v\n%s", c.src, got, c.want, d.JSON())
		}
		if c.want && hasClass(d, ClassNotGPU) != nil {
			t.Errorf("%s: also not_gpu\n%s", c.src, d.JSON())
		}
	}
	// a frame far above an unrelated exception does not reach it
	far := "  File \"/x/triton/runtime/cache.py\", line 77, in get_group\n" + strings.Repeat("INFO step\n", 60) + "ValueError: bad request\n"
	if d := diagnoseWhole("x.log", []byte(far)); hasClass(d, ClassTritonCompile) != nil {
		t.Errorf("a cache frame 60 lines above an unrelated exception made a Triton finding\n%s", d.JSON())
	}
}

// Triton's driver raises "Triton Error [X]" from load_binary and from
// launch: a code object that does not load is a compile / cache problem,
// an argument the launch refuses is an invalid launch.
func TestTritonErrorClass(t *testing.T) {
	cases := []struct{ src, text, want string }{
		// driver.py's self.launch in the traceback (lmdeploy#3322), launch
		// args shown under pdb (ROCm/triton#552)
		{"https://github.com/ROCm/triton/issues/552", "RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument", ClassInvalidLaunch},
		{"https://github.com/InternLM/lmdeploy/issues/3322", "RuntimeError: Triton Error [CUDA]: invalid argument", ClassInvalidLaunch},
		{"https://github.com/lucidrains/titans-pytorch/issues/50", "RuntimeError: Triton Error [CUDA]: invalid argument", ClassInvalidLaunch},
		{"seed case c16b", "RuntimeError: Triton Error [HIP]:  Code: 200, Messsage: device kernel image is invalid", ClassTritonCompile},
		{"crash-heldout2 d38", "RuntimeError: Triton Error [HIP]:  Code: 209, Messsage: no kernel image is available for execution on the device", ClassTritonCompile},
	}
	for _, c := range cases {
		x, ok := extractTritonError(c.text)
		if !ok {
			t.Fatalf("%s: extractTritonError(%q) read nothing", c.src, c.text)
		}
		if got := tritonErrorClass(x.hipErr()); got != c.want {
			t.Errorf("%s: class of %q = %s, want %s", c.src, c.text, got, c.want)
		}
	}
}

// An installed Triton that lacks a name PyTorch or a kernel library imports
// is seed 000 pattern 4's version mismatch: Wan2GP#1263 ('AttrsDescriptor'
// from 'triton.compiler.compiler' on Windows), the Triton-3.3 prebuilt
// threads ('triton.backends.compiler'), and an older 'get_cuda_stream' from
// 'triton.runtime.jit'. The same ImportError from another package is not.
func TestTritonImportErrorIsVersionMismatch(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' (G:\\pinokio\\api\\wan.git\\app\\env\\lib\\site-packages\\triton\\compiler\\compiler.py)", true},
		{"[rank0]: ImportError: cannot import name 'AttrsDescriptor' from 'triton.backends.compiler' (/opt/venv/lib/python3.10/site-packages/triton/backends/compiler.py)", true},
		{"ImportError: cannot import name 'get_cuda_stream' from 'triton.runtime.jit' (/usr/local/lib/python3.10/dist-packages/triton/runtime/jit.py)", true},
		{"ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/usr/local/lib/python3.10/dist-packages/huggingface_hub/__init__.py)", false},
		{"ImportError: cannot import name 'tritonize' from 'mylib.triton_utils'", false},
	} {
		d := diagnoseWhole("run.log", []byte("Traceback (most recent call last):\n  File \"/w/train.py\", line 3, in <module>\n    import x\n"+c.line+"\n"))
		got := hasClass(d, ClassTritonCompile) != nil
		if got != c.want || c.want && d.Findings[0].Class != ClassTritonCompile {
			t.Errorf("%q: triton_compile %v, want %v: %s", c.line, got, c.want, d.JSON())
		}
	}
}
