package units

import (
	"math"
	"testing"
)

func TestUnits(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 1: "0.001", 1500: "1.500", 1712195495527376234: "1712195495527376.234", -2250: "-2.250", math.MinInt64: "-9223372036854775.808", math.MaxInt64: "9223372036854775.807"} {
		if got := US(ns).String(); got != want {
			t.Errorf("US(%d) = %s, want %s", ns, got, want)
		}
	}
	if US(1500).Signed() != "+1.500" || US(-1).Signed() != "-0.001" {
		t.Error("Signed")
	}
	if b, _ := Ratio(0.12345678).MarshalJSON(); string(b) != "0.123457" {
		t.Errorf("Ratio = %s", b)
	}
	if Pct(0.1234) != "12.3 %" || Cell("a|b\nc") != `a\|b c` || Short("αβγδε", 3) != "αβ…" {
		t.Error("formatting")
	}
	if got := string(JSON(map[string]string{"k": "<a&b>"})); got != "{\n  \"k\": \"<a&b>\"\n}\n" {
		t.Errorf("JSON = %q", got)
	}
}
