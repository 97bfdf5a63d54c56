package crash

import (
	"strings"
	"testing"
)

// Real wordings of the override (sources cited per row).
func TestExtractOverride(t *testing.T) {
	cases := []struct{ src, text, value, target string }{
		{"https://github.com/ollama/ollama/issues/8473 (ollama key=value log)",
			`time=2025-01-18T01:24:54.472Z level=INFO source=amd_linux.go:391 msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=10.3.0`, "10.3.0", "gfx1030"},
		{"https://github.com/ollama/ollama/issues/8473 (docker flag)",
			`    --env HSA_OVERRIDE_GFX_VERSION="10.3.0" \`, "10.3.0", "gfx1030"},
		{"https://github.com/ollama/ollama/issues/3107 (escaped quotes in ollama's log)",
			`msg="skipping rocm gfx compatibility check with HSA_OVERRIDE_GFX_VERSION=\"10.3.0\""`, "10.3.0", "gfx1030"},
		{"https://github.com/rjmalagon/ollama-linux-amd-apu/issues/12 (ollama server config map)",
			`msg="server config" env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION:10.3.0 HTTPS_PROXY:`, "10.3.0", "gfx1030"},
		{"https://github.com/ROCm/legacy-rocm-build/issues/5696 (.bashrc)",
			`export HSA_OVERRIDE_GFX_VERSION=12.0.1`, "12.0.1", "gfx1201"},
		{"https://github.com/1bit-MONSTER/1bit-MONSTER/issues/251 (env.sh)",
			`export HSA_OVERRIDE_GFX_VERSION=11.5.1`, "11.5.1", "gfx1151"},
		{"https://github.com/ROCm/ROCT-Thunk-Interface/pull/104 (per-node override)",
			`HSA_OVERRIDE_GFX_VERSION_1="11.0.0" HSA_OVERRIDE_GFX_VERSION_2="10.3.0" ollama serve`, "11.0.0", "gfx1100"},
		{"MI200 stepping in hex (libhsakmt topology.c)", `HSA_OVERRIDE_GFX_VERSION=9.0.10`, "9.0.10", "gfx90a"},
	}
	for _, c := range cases {
		got, ok := extractOverride(c.text)
		if !ok || got.value != c.value || got.target != c.target {
			t.Errorf("%s\n%s\n got %+v ok=%v, want %s → %s", c.src, c.text, got, ok, c.value, c.target)
		}
	}
	// https://github.com/likelovewant/ollama-for-amd/issues/56: the key unset in ollama's config map
	if o, ok := extractOverride(`env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION: HTTPS_PROXY: HTTP_PROXY:`); ok {
		t.Errorf("an empty override gave %+v", o)
	}
}

func TestExtractDeviceArch(t *testing.T) {
	cases := []struct{ src, text, gfx string }{
		{"https://github.com/ROCm/legacy-rocm-build/issues/1797 (rocminfo)", "  Name:                    gfx1032                            ", "gfx1032"},
		{"https://github.com/ROCm/legacy-rocm-build/issues/5696 (rocm-clinfo, tabs)", "  Name:\t\t\t\t\t\t gfx1201", "gfx1201"},
		{"https://github.com/ollama/ollama/issues/4099 (ollama detection)", `time=2024-05-02T12:17:03.655Z level=INFO source=amd_linux.go:88 msg="detected amdgpu versions [gfx1103]"`, "gfx1103"},
		{"ollama inference compute line", `msg="inference compute" id=0 library=rocm variant="" compute=gfx1032 driver=0.0 name=1002:73ff`, "gfx1032"},
		// two digits and a letter: gfx90a (MI200), gfx90c (APUs)
		{"https://github.com/ROCm/aiter/issues/179 (rocminfo, MI250X; also ROCm/rocm_smi_lib#160)", "  Name:                    gfx90a                             ", "gfx90a"},
		{"https://github.com/ROCm/legacy-rocm-build/issues/1743 (rocminfo, Ryzen 7 4700U APU)", "  Name:                    gfx90c                             ", "gfx90c"},
		{"https://github.com/ROCm/legacy-rocm-build/issues/5238 (rocminfo marketing name)", "  Marketing Name:          AMD Instinct MI210                 ", "gfx90a"},
		{"https://github.com/ROCm/legacy-rocm-build/issues/1797 (rocminfo marketing name)", "  Marketing Name:          AMD Radeon PRO W6600", "gfx1032"},
	}
	for _, c := range cases {
		got, ok := extractDeviceArch(c.text)
		if !ok || got.gfx != c.gfx {
			t.Errorf("%s\n%q\n got %+v ok=%v want %s", c.src, c.text, got, ok, c.gfx)
		}
	}
	// lists of supported targets name no device (ROCm/legacy-rocm-build#2353, ollama#4099)
	for _, s := range []string{
		`Ignoring visible gpu device (device: 0, name: , pci bus id: 0000:03:00.0) with AMDGPU version : gfx1031. The supported AMDGPU versions are gfx1030, gfx900, gfx906, gfx908, gfx90a.`,
		`msg="amdgpu [0] gfx1103 is not supported by /tmp/ollama2145067703/rocm [gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]"`,
		"      Name:                    amdgcn-amd-amdhsa--gfx1030",
	} {
		if d, ok := extractDeviceArch(s); ok {
			t.Errorf("%q gave a device arch %+v", s, d)
		}
	}
}

// The rule: an override that is not the device's arch is a finding even
// without a crash; a no-op override is not.
func TestOverrideMismatchRule(t *testing.T) {
	run := func(text string) *Diagnosis {
		s := New()
		s.BeginFile("ollama.log")
		s.Write([]byte(text))
		s.EndFile()
		return s.Diagnosis()
	}
	mismatch := `time=2025-01-18T01:24:54.472Z level=INFO source=amd_linux.go:391 msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=10.3.0
time=2025-01-18T01:24:54.473Z level=INFO source=types.go:131 msg="inference compute" id=0 library=rocm variant="" compute=gfx1032 driver=0.0
`
	d := run(mismatch)
	f := hasClass(d, ClassArchMismatch)
	if f == nil || f.SubKind != "hsa_override" || f.Details["device_arch"] != "gfx1032" || f.Details["override_target"] != "gfx1030" || len(f.Evidence) < 2 {
		t.Fatalf("mismatch: %s", d.JSON())
	}
	steps := strings.Join(f.NextSteps, " ")
	if !strings.Contains(steps, "without HSA_OVERRIDE_GFX_VERSION=10.3.0") || strings.Contains(steps, "runs the nearest supported ISA") {
		t.Errorf("advice must drop the override, not suggest it: %q", steps)
	}
	if !strings.Contains(strings.Join(f.Notes, " "), "wrong values") {
		t.Errorf("the finding must explain silent wrong output: %v", f.Notes)
	}
	// defeaters: the override names the device's own target; no device arch at all
	for _, text := range []string{
		strings.Replace(mismatch, "gfx1032", "gfx1030", 1),
		"export HSA_OVERRIDE_GFX_VERSION=10.3.0\n",
	} {
		if f := hasClass(run(text), ClassArchMismatch); f != nil {
			t.Errorf("no mismatch in %q, got %+v", text, f)
		}
	}
	// the device arch in another file than the override
	s := New()
	s.BeginFile("env.txt")
	s.Write([]byte("export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"))
	s.EndFile()
	s.BeginFile("rocminfo.txt")
	s.Write([]byte("  Marketing Name:          AMD Instinct MI210\n"))
	s.EndFile()
	if f := hasClass(s.Diagnosis(), ClassArchMismatch); f == nil || f.Details["device_arch"] != "gfx90a" {
		t.Errorf("cross-file: %+v", f)
	}
}
