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

// Trunc gives one answer on every platform for every float, int64(x) for
// the ones in range.
func TestTrunc(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int64
	}{
		{0, 0}, {1.9, 1}, {-1.9, -1}, {1e18, 1e18}, {-9.2e18, -9.2e18},
		{1e20, math.MaxInt64}, {1 << 63, math.MaxInt64}, {math.Inf(1), math.MaxInt64}, {1e30, math.MaxInt64},
		{-1e20, math.MinInt64}, {-1 << 63, math.MinInt64}, {math.Inf(-1), math.MinInt64},
		{math.NaN(), 0}, {math.Nextafter(1<<63, 0), 9223372036854774784},
	} {
		if got := Trunc(c.x); got != c.want {
			t.Errorf("Trunc(%g) = %d, want %d", c.x, got, c.want)
		}
	}
	if Round(1e305, 6) != 1e305 || Round(math.NaN(), 3) != 0 || Round(1.23456789, 3) != 1.235 {
		t.Error("Round")
	}
}

func TestSubSat(t *testing.T) {
	for _, c := range [][3]int64{{5, 3, 2}, {math.MaxInt64, -1, math.MaxInt64}, {math.MinInt64, 1, math.MinInt64}, {0, math.MinInt64, math.MaxInt64},
		{-1, math.MinInt64, math.MaxInt64}, {-5, math.MinInt64, math.MaxInt64 - 4}, {math.MaxInt64, math.MaxInt64, 0}} {
		if got := SubSat(c[0], c[1]); got != c[2] {
			t.Errorf("SubSat(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
