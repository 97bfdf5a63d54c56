package crash

import (
	"strings"
	"testing"
)

// Real wordings of a build's gfx targets (sources per row).
func TestExtractBuildTargets(t *testing.T) {
	cases := []struct{ src, text, want string }{
		{"a public DeepSpeed job script (code search)", `export PYTORCH_ROCM_ARCH=gfx942`, "gfx942"},
		{"ROCm xformers install notes (code search)", `export PYTORCH_ROCM_ARCH="gfx942"`, "gfx942"},
		{"a vLLM ROCm Dockerfile (code search)", `ARG PYTORCH_ROCM_ARCH=gfx942`, "gfx942"},
		{"vLLM's Dockerfile.rocm target list", `ARG PYTORCH_ROCM_ARCH="gfx90a;gfx942"`, "gfx90a gfx942"},
		{"CMake flag (rocBLAS / llama.cpp HIP builds)", `cmake -S . -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=gfx1030 -DCMAKE_BUILD_TYPE=Release`, "gfx1030"},
		{"hipcc command line", `hipcc --offload-arch=gfx90a --offload-arch=gfx942 -O3 kernel.hip -o kernel`, "gfx90a gfx942"},
		{"seed 000 pattern 1", `Cause: Container built for gfx942 (MI300X) but running on gfx950 (MI355X)`, "gfx942"},
		{"a launcher's image line", `[amdpilot] image: rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250410 (built for gfx942 / MI300X)`, "gfx942"},
	}
	for _, c := range cases {
		b, ok := extractBuildTargets(c.text)
		if !ok || strings.Join(b.gfx, " ") != c.want {
			t.Errorf("%s\n%s\n got %+v ok=%v, want %s", c.src, c.text, b, ok, c.want)
		}
	}
	// an arch list of the wheel, advice and a device name are no build of this run
	for _, s := range []string{
		`gfx1034 is present in torch.cuda.get_arch_list(), so the wheel claims to support this GPU`,
		`- **Target arch explicitly**: Do not assume a kernel tuned on gfx942 is optimal on gfx950.`,
		`  Name:                    gfx950`,
	} {
		if b, ok := extractBuildTargets(s); ok {
			t.Errorf("%q gave %+v", s, b)
		}
	}
}

// The rule: a device arch outside the build's targets is arch_mismatch
// without any error; the device among the targets, an override, or no
// device arch defeat it.
func TestBuildTargetRule(t *testing.T) {
	cases := []struct {
		name, log string
		want      bool
	}{
		{"gfx942 build on gfx950", "export PYTORCH_ROCM_ARCH=gfx942\n  Name:                    gfx950\n", true},
		{"the device is a target", "ARG PYTORCH_ROCM_ARCH=\"gfx942;gfx950\"\n  Name:                    gfx950\n", false},
		{"no device arch", "export PYTORCH_ROCM_ARCH=gfx942\n", false},
		{"an override owns it", "export PYTORCH_ROCM_ARCH=gfx1030\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n  Name:                    gfx1030\n", false},
	}
	for _, c := range cases {
		d := diagnoseWhole("run.log", []byte(c.log))
		got := false
		for _, f := range d.Findings {
			if f.Class == ClassArchMismatch && f.SubKind == "build_target" {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%s: build_target mismatch=%v, want %v (%+v)", c.name, got, c.want, d.Findings)
		}
	}
}
