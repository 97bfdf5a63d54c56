package crash

import (
	"reflect"
	"testing"
)

func TestNvidiaGolden(t *testing.T) {
	d := goldenCase(t, "nvidia_sanitizer.golden.json", "testdata/compute_sanitizer.log")
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Address != "0x7f4a1c000ffc" || f.Location != "/app/kern.cu:12" || f.Details["cuda_block"] != "(7,0,0)" {
		t.Fatalf("%s", d.JSON())
	}
	d = goldenCase(t, "nvidia_cuda_gdb.golden.json", "testdata/cuda_gdb.log")
	if f := hasClass(d, ClassGPUMemoryFault); f == nil || f.Kernel != "stray_store_kernel" {
		t.Fatalf("%s", d.JSON())
	}
	goldenCase(t, "nvidia_illegal_address.golden.json", "gpu:a2_illegal_address.stdout.txt", "gpu:a2_illegal_address.stderr.txt")
}

func FuzzNvidia(f *testing.F) {
	seedFuzz(f, "testdata/compute_sanitizer.log", "testdata/cuda_gdb.log", "gpu:a2_illegal_address.stderr.txt")
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzParser(t, only(func(s *Session) parser { return &nvidiaParser{s: s} }), data, cut)
	})
}

// Real compute-sanitizer and cuda-memcheck wordings (sources per row).
func TestExtractSanitizerLine(t *testing.T) {
	cases := []struct {
		src, text string
		want      sanLine
	}{
		{"https://github.com/muhos/ParaFROST/issues/10 (compute-sanitizer)", "========= Invalid __global__ write of size 4 bytes",
			sanLine{kind: "error", what: "Invalid __global__ write of size 4 bytes"}},
		{"https://github.com/muhos/ParaFROST/issues/10 (frame as symbol+offset)", "=========     at ParaFROST::cnt_cls_lits(const ParaFROST::CNF *)+0x8b0",
			sanLine{kind: "at", kernel: "ParaFROST::cnt_cls_lits(const ParaFROST::CNF *)"}},
		{"https://github.com/muhos/ParaFROST/issues/10", "=========     by thread (0,0,0) in block (278,0,0)",
			sanLine{kind: "thread", thread: "(0,0,0)", block: "(278,0,0)"}},
		{"https://github.com/muhos/ParaFROST/issues/10", "=========     Address 0x7fe71d800958 is out of bounds",
			sanLine{kind: "address", addr: "0x7fe71d800958", note: "is out of bounds"}},
		{"https://github.com/llnl/Quicksilver/issues/48 (cuda-memcheck, CUDA 11: no 'bytes')", "========= Invalid __global__ read of size 8",
			sanLine{kind: "error", what: "Invalid __global__ read of size 8"}},
		{"https://github.com/llnl/Quicksilver/issues/48 (cuda-memcheck frame 'at 0x… in')", "=========     at 0x000002e8 in CycleTrackingGuts(MonteCarlo*, int, ParticleVault*, ParticleVault*)",
			sanLine{kind: "at", kernel: "CycleTrackingGuts(MonteCarlo*, int, ParticleVault*, ParticleVault*)"}},
		{"https://github.com/lattice/quda/issues/222 (cuda-memcheck API error)", `========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuPointerGetAttribute. `,
			sanLine{kind: "api", apiError: "CUDA_ERROR_INVALID_VALUE", api: "cuPointerGetAttribute"}},
		{"https://github.com/StanfordLegion/realm/issues/285 (compute-sanitizer API error)", `========= Program hit CUDA_ERROR_NOT_PERMITTED (error 800) due to "operation not permitted" on CUDA API call to cuMemCreate.`,
			sanLine{kind: "api", apiError: "CUDA_ERROR_NOT_PERMITTED", api: "cuMemCreate"}},
		// API errors: the runtime's and the driver's names (these once
		// indexed past the match and panicked)
		{"https://github.com/cwpearson/stencil/issues/21 (cuda-memcheck API error)", `========= Program hit cudaErrorPeerAccessAlreadyEnabled (error 704) due to "peer access is already enabled" on CUDA API call to cudaDeviceEnablePeerAccess.`,
			sanLine{kind: "api", apiError: "cudaErrorPeerAccessAlreadyEnabled", api: "cudaDeviceEnablePeerAccess"}},
		{"https://github.com/jax-ml/jax/issues/3017 (driver API name)", `========= Program hit CUDA_ERROR_ILLEGAL_ADDRESS (error 700) due to "an illegal memory access was encountered" on CUDA API call to cuMemcpyDtoHAsync_v2.`,
			sanLine{kind: "api", apiError: "CUDA_ERROR_ILLEGAL_ADDRESS", api: "cuMemcpyDtoHAsync_v2"}},
	}
	for _, c := range cases {
		got, ok := extractSanitizerLine(c.text)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n%q\n got %+v\nwant %+v", c.src, c.text, got, c.want)
		}
	}
	for _, s := range []string{"=========     Host Frame:./qs [0x36feb]", "========= "} {
		if x, ok := extractSanitizerLine(s); ok {
			t.Errorf("%q gave %+v", s, x)
		}
	}
}

// The sanitizer's API-error record is read by CUDA's catalog: a launch
// failure is a kernel that crashed (gpu_memory_fault, not ROCm's trap); an
// informational error (704) decides nothing.
func TestSanitizerAPIErrorRule(t *testing.T) {
	d := diagnoseWhole("memcheck.log", []byte(`========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaFree.
=========     Saved host backtrace up to driver entry point at error
=========     Host Frame: [0x481946]
`))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Details["failing_api"] != "cudaFree" || hasClass(d, ClassDeviceAssert) != nil {
		t.Fatalf("launch failure: %s", d.JSON())
	}
	d = diagnoseWhole("memcheck.log", []byte(`========= Program hit cudaErrorPeerAccessAlreadyEnabled (error 704) due to "peer access is already enabled" on CUDA API call to cudaDeviceEnablePeerAccess.
`))
	if len(d.Findings) != 0 {
		t.Fatalf("704: %v", classesOf(d))
	}
}
