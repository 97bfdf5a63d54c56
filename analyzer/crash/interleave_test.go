package crash

import "testing"

func TestDegarble(t *testing.T) {
	clean := "void aiter::fmha_fwd_kernel<128>(aiter::Args)"
	known := []string{clean, "transpose", "at::native::index_copy_kernel"}
	for in, want := range map[string]string{
		"void aitvoid aiter::fmer::fmha_fwd_kernel<128>(aiter::Args)ha_fwd_kernel<128>(aiter::Args)": clean,
		"transpose_kernel": "transpose_kernel", // a longer name, not a splice
		clean:              clean,
		"rms_norm":         "rms_norm",
	} {
		if got := degarble(in, known); got != want {
			t.Errorf("degarble(%q) = %q, want %q", in, got, want)
		}
	}
	// a wave dump whose header name was spliced by two writers
	log := "--------------------------------------------------------\n" +
		"wave_3: pc=0x7f1c2d4a1044 (kernel_code_entry=0x7f1c2d4a0f00 <void aitvoid aiter::fmer::fmha_fwd_kernel<128>(aiter::Args)ha_fwd_kernel<128>(aiter::Args)>, kernargs=0x7f1b00000000) (stopped, reason: MEMORY_VIOLATION)\n" +
		"wave_4: pc=0x7f1c2d4a1044 (kernel_code_entry=0x7f1c2d4a0f00 <void aiter::fmha_fwd_kernel<128>(aiter::Args)>, kernargs=0x7f1b00000000) (stopped, reason: MEMORY_VIOLATION)\n"
	d := diagnoseWhole("interleaved.log", []byte(log))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Kernel != clean || len(f.Kernels) > 1 {
		t.Fatalf("%s", d.JSON())
	}
}
