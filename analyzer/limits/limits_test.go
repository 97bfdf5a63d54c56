package limits

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`: 0, `{}`: 1, `[[{"a":[1]}]]`: 4, `{"a":"[[[["}`: 1, `"\"[["`: 0, `[` + strings.Repeat("{", 500): 65,
	} {
		if got := Depth([]byte(in), 64); got != want {
			t.Errorf("Depth(%.40q) = %d, want %d", in, got, want)
		}
	}
}

func TestClampHint(t *testing.T) {
	l, _ := Limits{}.Normalized()
	if got := l.ClampHint(4<<30, 21<<10); got != 21<<10*DeflateMaxRatio {
		t.Errorf("a forged ISIZE on a 21 KB file plans %d bytes", got)
	}
	if got := l.ClampHint(1<<50, 0); got != DefaultHintBytes {
		t.Errorf("hint not capped: %d", got)
	}
	if !l.RatioExceeded(DefaultRatioAfter+1, 1<<10) || l.RatioExceeded(DefaultRatioAfter+1, 1<<20) || l.RatioExceeded(1<<20, 1) {
		t.Error("ratio guard")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"8": 8, "64k": 64 << 10, "16MiB": 16 << 20, "2G": 2 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-1", "x", "1T", "99999999999G"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// FuzzDepth: Depth agrees with encoding/json on what valid JSON nests to.
func FuzzDepth(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"]"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := Depth(b, 1<<30)
		if !json.Valid(b) {
			return
		}
		var v any
		json.Unmarshal(b, &v)
		if ref := depthOf(v); ref != d {
			t.Fatalf("Depth %d, decoded %d: %s", d, ref, b)
		}
	})
}

func depthOf(v any) int {
	m := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			m = max(m, depthOf(e))
		}
		return m + 1
	case []any:
		for _, e := range x {
			m = max(m, depthOf(e))
		}
		return m + 1
	}
	return 0
}
