package jsontext

import "testing"

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
