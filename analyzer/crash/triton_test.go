package crash

import (
	"strings"
	"testing"
)

func TestTritonGolden(t *testing.T) {
	d := goldenCase(t, "triton_s16.golden.json", "shared:s16_triton_amdgpu_pass_failure_rocm720_sglang29864.log")
	f := hasClass(d, ClassTritonCompile)
	if f == nil || f.Kernel != "store_cache_4d_kernel" || f.Details["failed_pass"] != "TritonAMDGPUCanonicalizePointers" {
		t.Fatalf("%s", d.JSON())
	}
}

func FuzzTriton(f *testing.F) {
	seedFuzz(f, "shared:s16_triton_amdgpu_pass_failure_rocm720_sglang29864.log")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &tritonParser{s: s} }), data, cut)
	})
}

// Triton's lowering to LLVM IR failing aborts the process through LLVM (no
// Python exception), on CUDA and ROCm alike.
func TestTritonLLVMTranslateAbort(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/triton-lang/triton/issues/3413": "Pass execution failedLLVM ERROR: Failed to translate TritonGPU to LLVM IR.",
		"https://github.com/vllm-project/vllm/issues/3878":  "Translate to LLVM IR failedLLVM ERROR: Failed to translate TritonGPU to LLVM IR.",
		"https://github.com/triton-lang/triton/issues/1495": "Translate to LLVM IR failedLLVM ERROR: Failed to translate TritonGPU to LLVM IR.",
	} {
		if hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassTritonCompile) == nil {
			t.Errorf("%s: no triton_compile for %q", src, l)
		}
	}
}

// OutOfResources whose sizes were cut off (a paste ending after "shared
// memory,", an issue title without them) is the same failure.
func TestTritonOutOfResourcesWithoutSizes(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/pytorch/helion/issues/470 (title)":        "triton.runtime.errors.OutOfResources: out of resource: shared memory",
		"https://github.com/Yuliang-Liu/MonkeyOCR/issues/189 (title)": "实测2080ti22g也会出现triton.runtime.errors.OutOfResources: out of resource: shared memory的报错",
		"paste cut after the comma":                                   "triton.runtime.errors.OutOfResources: out of resource: shared memory,",
	} {
		f := hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassTritonCompile)
		if f == nil || f.Details["out_of_resource"] != "shared memory" {
			t.Errorf("%s: %+v", src, f)
		}
	}
}

// Triton's driver wraps the HIP error of loading its own code object
// ("Triton Error [HIP]:  Code: 200, Messsage: device kernel image is
// invalid", s16's family; crash-heldout2 d38 Code 209): the Triton rule
// reads it — no arch_mismatch from the wrapped text.
func TestTritonErrorIsNotATorchError(t *testing.T) {
	for _, in := range []string{
		"RuntimeError: Triton Error [HIP]:  Code: 200, Messsage: device kernel image is invalid\n",
		"(EngineCore_DP0 pid=1412) ERROR 11-24 09:13:14 [core.py:708] RuntimeError: Triton Error [HIP]:  Code: 209, Messsage: no kernel image is available for execution on the device\n",
	} {
		d := diagnoseWhole("triton.log", []byte(in))
		if len(d.Findings) == 0 || d.Findings[0].Class != ClassTritonCompile || hasClass(d, ClassArchMismatch) != nil {
			t.Errorf("%q:\n%s", in, d.JSON())
		}
	}
}

// An autotuner that sets one candidate aside for OutOfResources goes on with
// the others: no finding. Triton's own OutOfResources raised to the caller
// still fails the run.
func TestTritonAutotuneCandidateOutOfResources(t *testing.T) {
	for _, c := range []struct {
		src, log string
		fails    bool
	}{
		{"pytorch/pytorch#143098", "E1216 site-packages/torch/_inductor/select_algorithm.py:1756] [0/0] Exception out of resource: shared memory, Required: 131072, Hardware limit:101376. Reducing block sizes or `num_stages` may help. for benchmark choice TritonTemplateCaller(/tmp/torchinductor_root/tc/k.py, BLOCK_K=64, BLOCK_M=128, BLOCK_N=128, num_stages=5, num_warps=8)\n", false},
		{"pytorch/pytorch#143098 (warning)", "W1216 site-packages/torch/_inductor/select_algorithm.py:1997] [0/0] out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n", false},
		{"an autotuner's skip line (helion#738 wording)", "[12s] Skipping config helion.Config(block_sizes=[256, 256, 64], num_stages=4): out of resource: shared memory, Required: 196608, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.\n", false},
		{"sgl-project/sglang#8513", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n", true},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		if got := hasClass(d, ClassTritonCompile) != nil; got != c.fails {
			t.Errorf("%s: triton_compile %v, want %v: %s", c.src, got, c.fails, d.JSON())
		}
	}
}

// Triton's driver-stub build failing under the host C compiler is a Triton
// compile failure (sources per row); a launcher's CalledProcessError for a
// worker script is not.
func TestTritonStubBuildFailure(t *testing.T) {
	for src, l := range map[string]string{
		"https://github.com/patientx-cfz/comfyui-rocm/issues/72 (ROCm, Windows, hip_utils.c)": `subprocess.CalledProcessError: Command '['D:\\comfyui\\python_env\\Lib\\site-packages\\triton\\runtime\\tcc\\tcc.exe', 'C:\\Users\\root\\AppData\\Local\\Temp\\tmpc9zutges\\hip_utils.c', '-O3', '-shared', '-Wno-psabi', '-o', 'C:\\Users\\root\\AppData\\Local\\Temp\\tmpc9zutges\\hip_utils.cp312-win_amd64.pyd', '-fPIC', '-D_Py_USE_GCC_BUILTIN_AT`,
		"https://github.com/woct0rdho/triton-windows/issues/107 (tcc, cuda_utils.c)":          `subprocess.CalledProcessError: Command '['C:\\ComfyUI_windows_portable_nvidia\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\triton\\runtime\\tcc\\tcc.exe', 'C:\\Users\\Administrator\\AppData\\Local\\Temp\\tmpapts0935\\cuda_utils.c', '-O3', '-shared', '-fPIC', '-Wno-psabi', '-o', 'C:\\Users\\Administrator\\AppData\\Local\\Temp\\tmpapts0935\\cuda_utils.cp311-win_amd64.pyd', '-lcuda', '-lpython3']' returned non-zero exit status 1.`,
		"https://github.com/luka-group/mDPO/issues/14 (gcc, main.c)":                          `subprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmpy1gk3r1e/main.c', '-O3', '-shared', '-fPIC', '-Wno-psabi', '-o', '/tmp/tmpy1gk3r1e/cuda_utils.cpython-310-x86_64-linux-gnu.so', '-lcuda', '-L/NAS/fengjw/miniconda3/envs/mdpo/lib/python3.10/site-packages/triton/backends/nvidia/lib', '-L/lib64', '-L/lib']' returned non-zero exit status 1.`,
		"https://github.com/lum3on/comfyui_HiDream-Sampler/issues/87 (MSVC cl.exe)":           `subprocess.CalledProcessError: Command '['C:\\Program Files\\Microsoft Visual Studio\\2022\\Community\\VC\\Tools\\MSVC\\14.40.33807\\bin\\Hostx64\\x64\\cl.exe', 'C:\\Users\\user\\AppData\\Local\\Temp\\tmpwx2nt3_a\\main.c', '/nologo', '/O2', '/LD', '/wd4819', '/IC:\\Users\\user\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\triton\\backends\\nvidia\\include']' returned non-zero exit status 2.`,
	} {
		f := hasClass(diagnoseWhole("run.log", []byte(l+"\n")), ClassTritonCompile)
		if f == nil {
			t.Errorf("%s: no triton_compile for %q", src, l)
			continue
		}
		// the advice is the host compiler's, not a cache or MLIR pass's
		steps := strings.Join(f.NextSteps, " | ")
		if !strings.Contains(steps, "compiler command") || strings.Contains(steps, "triton-opt") {
			t.Errorf("%s: next steps are not the stub build's: %s", src, steps)
		}
	}
	launcher := `subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=3']' returned non-zero exit status 1.`
	if hasClass(diagnoseWhole("run.log", []byte(launcher+"\n")), ClassTritonCompile) != nil {
		t.Errorf("a launcher's CalledProcessError is no Triton compile failure")
	}
}

// Triton's OutOfResources is a launch resource over the device's limit
// (invalid_launch, the root) that Triton's load of the compiled kernel
// refused (triton_compile, its consequence): both, the launch first, with
// the sizes on each and the Triton config steps instead of the HIP launch
// geometry ones (docs/artifacts.md).
func TestTritonOutOfResourcesIsAnInvalidLaunch(t *testing.T) {
	for src, l := range map[string]string{
		"sgl-project/sglang#8513":                   "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
		"Yuliang-Liu/MonkeyOCR#86":                  "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 126978, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
		"alipay/PainlessInferenceAcceleration#35":   "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware limitation: 101376. reducing the block size or `num_stages` may help",
		"pytorch/helion#470 (title, sizes cut off)": "triton.runtime.errors.OutOfResources: out of resource: shared memory",
	} {
		d := diagnoseWhole("run.log", []byte(l+"\n"))
		if got := classesOf(d); len(got) != 2 || got[0] != ClassInvalidLaunch || got[1] != ClassTritonCompile {
			t.Errorf("%s: classes %v, want [invalid_launch triton_compile]", src, got)
			continue
		}
		il, tc := &d.Findings[0], &d.Findings[1]
		if tc.ConsequenceOf != ClassInvalidLaunch || il.ConsequenceOf != "" {
			t.Errorf("%s: consequence_of %q / %q", src, il.ConsequenceOf, tc.ConsequenceOf)
		}
		for _, f := range []*Finding{il, tc} {
			if f.Details["out_of_resource"] != "shared memory" {
				t.Errorf("%s: %s details %v", src, f.Class, f.Details)
			}
			steps := strings.Join(f.NextSteps, "\n")
			if !strings.Contains(steps, "num_stages") || strings.Contains(steps, "AMD_LOG_LEVEL") {
				t.Errorf("%s: %s steps %q", src, f.Class, steps)
			}
		}
	}
}
