package crash

import "testing"

// Real rocBLAS wordings (sources per row).
func TestExtractTensileArch(t *testing.T) {
	cases := []struct {
		src, text string
		want      tensileArch
		ok        bool
	}{
		{"https://github.com/LostRuins/koboldcpp/issues/676 (named arch)", `rocBLAS error: Cannot read \AppData\Local\Temp\_MEI59482\/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036`,
			tensileArch{library: `\AppData\Local\Temp\_MEI59482\/library/TensileLibrary.dat`, arch: "gfx1036"}, true},
		{"https://github.com/ROCm/rocBLAS/issues/1267 (5.2–5.7 fallback)", "rocBLAS error: Cannot read /opt/rocm/rocblas/library/TensileLibrary.dat: Illegal seek",
			tensileArch{library: "/opt/rocm/rocblas/library/TensileLibrary.dat"}, true},
		{"https://github.com/vladmandic/sdnext/issues/4405 (lazy loader, Windows HIP SDK 6.4)", `Could not load C:\Program Files\AMD\ROCm\6.4\bin\/rocblas/library/TensileLibrary_lazy_gfx1103.dat`,
			tensileArch{}, false}, // "rocBLAS error:" ended the line before; without it no library is named
		{"https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu-forge/issues/90", `rocBLAS error: Could not load C:\Program Files\AMD\ROCm\6.2\bin\/rocblas/library/TensileLibrary_lazy_gfx1036.dat`,
			tensileArch{library: `C:\Program Files\AMD\ROCm\6.2\bin\/rocblas/library/TensileLibrary_lazy_gfx1036.dat`, arch: "gfx1036"}, true},
		{"https://github.com/likelovewant/ollama-for-amd/issues/35 (HSA_OVERRIDE_GFX_VERSION=9.0.12)", `rocBLAS error: Could not load C:\Program Files\AMD\ROCm\5.7\bin\/rocblas/library/TensileLibrary_lazy_gfx90c.dat`,
			tensileArch{library: `C:\Program Files\AMD\ROCm\5.7\bin\/rocblas/library/TensileLibrary_lazy_gfx90c.dat`, arch: "gfx90c"}, true},
		{"https://github.com/vladmandic/sdnext/issues/3485 (lazy loader, the fallback name)", `rocBLAS error: Could not load C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/TensileLibrary.dat`,
			tensileArch{library: `C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/TensileLibrary.dat`}, true},
		{"https://github.com/vladmandic/sdnext/issues/4035 (hipBLASLt's loader is blaslib.go's)", `rocblaslt error: Could not load "C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\hipblaslt\\library\\TensileLibrary_lazy_gfx1030.dat"`,
			tensileArch{}, false},
		{"https://github.com/vladmandic/sdnext/issues/4405 (the abort that follows decides nothing alone)", "rocBLAS error: Could not initialize Tensile library",
			tensileArch{}, false},
		{"https://github.com/PiDanShouRouZhouXD/Sakura_Launcher_GUI/issues/46 (no device matched)", "rocBLAS error: Could not initialize Tensile host: No devices found",
			tensileArch{noDevice: true}, true},
		{"https://github.com/oobabooga/textgen/issues/5064 (RX 580 gfx803, the issue's title)", "rocBLAS error: Could not initialize Tensile host: No devices found",
			tensileArch{noDevice: true}, true},
		{"https://github.com/YellowRoseCx/koboldcpp-rocm/issues/103 (Radeon VII, Windows HIP SDK 5.7.1; the issue's title)", "rocBLAS error: Could not initialize Tensile host: No devices found",
			tensileArch{noDevice: true}, true},
		{"https://github.com/jax-ml/jax/issues/24458 (another reason on the next line: not an arch)", "rocBLAS error: Could not initialize Tensile host:",
			tensileArch{}, false},
	}
	for _, c := range cases {
		got, ok := extractTensileArch(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s\n%q\n got %+v %v\nwant %+v %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}
