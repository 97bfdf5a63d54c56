package report

import "testing"

func TestUnits(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 1: "0.001", 1500: "1.500", 1712195495527376234: "1712195495527376.234", -2250: "-2.250"} {
		if got := US(ns).String(); got != want {
			t.Errorf("US(%d) = %s, want %s", ns, got, want)
		}
	}
	b, _ := Ratio(0.12345678).MarshalJSON()
	if string(b) != "0.123457" {
		t.Errorf("Ratio = %s", b)
	}
	if s := mdCode("a|b`c\nd"); s != `a\|b'c d` {
		t.Errorf("mdCode = %q", s)
	}
	if s := short("αβγδε", 3); s != "αβ…" {
		t.Errorf("short = %q", s)
	}
}
