package jsontext

import (
	"math"
	"strings"
	"testing"
)

func TestParseNS(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1": 1000, "1.5": 1500, "1712195495527376.234": 1712195495527376234,
		"-2.25": -2250, "3.0004": 3000, "3.0005": 3001, `"7.125"`: 7125, "1e3": 1000000,
	} {
		if got, ok := ParseNS([]byte(in)); !ok || got != want {
			t.Errorf("ParseNS(%s) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "x", "1.2.3", "null", `"a"`} {
		if _, ok := ParseNS([]byte(bad)); ok {
			t.Errorf("ParseNS(%q) accepted", bad)
		}
	}
}

func TestTracker(t *testing.T) {
	doc := []byte(`{"a":"x\\\"}","b":[1,{"c":"]"}]} tail`)
	for split := 1; split < len(doc); split++ {
		v := NewTracker(doc[0])
		end, done := v.Advance(doc[:split], 0)
		if !done {
			end, done = v.Advance(doc[split:], 0)
			end += split
		}
		if !done || string(doc[:end]) != `{"a":"x\\\"}","b":[1,{"c":"]"}]}` {
			t.Fatalf("split %d: end %d done %v", split, end, done)
		}
	}
}

// A string of n escapes is scanned in O(n) work: the bytes searched stay
// under a small multiple of the input (each escape used to search on to the
// closing quote again, 10¹² bytes for a million escapes).
func TestTrackerLinearInEscapes(t *testing.T) {
	const n = 1 << 20
	for _, esc := range []string{`\\`, `\"`, `\n`, `\u0041`} {
		doc := make([]byte, 0, 2+n*len(esc)+8)
		doc = append(doc, `{"a":"`...)
		for range n {
			doc = append(doc, esc...)
		}
		doc = append(doc, `"} tail`...)
		work := 0
		scanHook = func(k int) { work += k }
		v := NewTracker(doc[0])
		end, done := v.Advance(doc, 0)
		scanHook = nil
		if !done || end != len(doc)-len(" tail") {
			t.Fatalf("%s: end %d done %v, want %d", esc, end, done, len(doc)-5)
		}
		if work > 4*len(doc) {
			t.Errorf("%s: searched %d bytes for a %d-byte value: not linear", esc, work, len(doc))
		}
	}
}

func BenchmarkTrackerEscapes(b *testing.B) {
	doc := []byte(`"` + strings.Repeat(`\\`, 1<<20) + `"`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		v := NewTracker(doc[0])
		v.InStr = true
		if _, done := v.Advance(doc, 1); !done {
			b.Fatal("not done")
		}
	}
}

// Integers are exact over all of int64 and refused beyond it, never wrapped
// (2^64+7 read as 7 put a hostile stream onto stream 7).
func TestParseIntRange(t *testing.T) {
	for _, c := range []struct {
		in       string
		v        int64
		ok, over bool
	}{
		{"7", 7, true, false},
		{`"12.0"`, 12, true, false},
		{"1099511627783", 1099511627783, true, false},
		{"9223372036854775807", math.MaxInt64, true, false},
		{"-9223372036854775808", math.MinInt64, true, false},
		{"9223372036854775808", 0, false, true},
		{"-9223372036854775809", 0, false, true},
		{"18446744073709551623", 0, false, true},
		{"99999999999999999999999999999", 0, false, true},
		{"1e30", 0, false, false},
		{"12.5", 0, false, false},
		{"-", 0, false, false},
	} {
		v, ok, over := ParseIntRange([]byte(c.in))
		if v != c.v || ok != c.ok || over != c.over {
			t.Errorf("ParseIntRange(%s) = %d, %v, %v; want %d, %v, %v", c.in, v, ok, over, c.v, c.ok, c.over)
		}
	}
	if v, ok := TrailingInt([]byte("stream 18446744073709551623")); ok || v != -1 {
		t.Errorf("TrailingInt beyond int64: %d %v", v, ok)
	}
	if _, _, over := TrailingIntRange([]byte("GPU 18446744073709551623")); !over {
		t.Error("TrailingIntRange: not over")
	}
}
