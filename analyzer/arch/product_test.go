package arch

import "testing"

// Issue 22 item 13: --target-arch takes product names.
func TestProduct(t *testing.T) {
	for in, want := range map[string]string{
		"MI355X": "gfx950", "mi350x": "gfx950", "AMD Instinct MI300X": "gfx942", "MI325X": "gfx942",
		"H100": "sm90", "h200": "sm90", "B200": "sm100", "NVIDIA A100": "sm80", "gfx950": "", "sm90": "", "MI999": "",
	} {
		if got, _ := Product(in); got != want {
			t.Errorf("Product(%q) = %q, want %q", in, got, want)
		}
	}
}
