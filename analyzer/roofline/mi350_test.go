package roofline

import "testing"

// Issue 22 item 13: an MI350X (2.2 GHz) has its own roofs, not the
// MI355X's (2.4 GHz): by device name and as a named target.
func TestMI350XRoofs(t *testing.T) {
	d, _ := SelectDevice("AMD Instinct MI350X", "gfx950")
	x, _ := SelectDevice("AMD Instinct MI355X", "gfx950")
	if d == nil || d.Key != "MI350X" || x == nil || x.Key != "MI355X" {
		t.Fatalf("MI350X → %+v, MI355X → %+v", d, x)
	}
	if r := d.Peak["bf16"] / x.Peak["bf16"]; r < 0.915 || r > 0.918 { // 2.2/2.4
		t.Errorf("MI350X/MI355X bf16 peak ratio %.4f, want 2.2/2.4", r)
	}
	if archOf(d) != "gfx950" {
		t.Errorf("archOf(MI350X) = %q", archOf(d))
	}
	if tg, _ := SelectDevice("MI350X", "gfx950"); tg == nil || tg.Key != "MI350X" {
		t.Errorf("target MI350X → %+v", tg)
	}
	if tg, _ := SelectDevice("", "gfx950"); tg == nil || tg.Key != "MI355X" {
		t.Errorf("target gfx950 → %+v (the fleet part stays MI355X)", tg)
	}
}
