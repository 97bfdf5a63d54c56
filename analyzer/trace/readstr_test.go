package trace

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
)

// checkLoops compares the loop versions with jsontext's at every offset of b.
func checkLoops(t *testing.T, b []byte) {
	t.Helper()
	for i := 0; i < len(b); i++ {
		v1, j1, ok1 := readStringLoop(b, i)
		v2, j2, ok2 := jsontext.ReadString(b, i)
		if !bytes.Equal(v1, v2) || j1 != j2 || ok1 != ok2 || (v1 == nil) != (v2 == nil) {
			t.Fatalf("readString(%q, %d) = %q %d %v, jsontext %q %d %v", b, i, v1, j1, ok1, v2, j2, ok2)
		}
		v1, j1, ok1 = readTokenLoop(b, i)
		v2, j2, ok2 = jsontext.ReadToken(b, i)
		if !bytes.Equal(v1, v2) || j1 != j2 || ok1 != ok2 || (v1 == nil) != (v2 == nil) {
			t.Fatalf("readToken(%q, %d) = %q %d %v, jsontext %q %d %v", b, i, v1, j1, ok1, v2, j2, ok2)
		}
		k1, o1 := skipValueLoop(b, i)
		k2, o2 := jsontext.SkipValue(b, i)
		if k1 != k2 || o1 != o2 {
			t.Fatalf("skipValue(%q, %d) = %d %v, jsontext %d %v", b, i, k1, o1, k2, o2)
		}
	}
}

func TestLoopsMatchJSONText(t *testing.T) {
	for _, s := range []string{
		`{"ph": "X", "name": "a\"b\\", "args": {"Input Dims": [[1, 2], []], "x": "}]\\\"", "n": -1.5e3}}`,
		`"abc`, `"ab\`, `"ab\"`, `"a\\"`, `[[["x"]]`, `{"a":}`, `]`, `}`, `12`, `tr`, `"" ,`,
	} {
		checkLoops(t, []byte(s))
	}
	r := rand.New(rand.NewSource(1))
	const alphabet = "{}[]\",:\\ \n\tab01.-e"
	for n := 0; n < 20000; n++ {
		b := make([]byte, r.Intn(24))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		checkLoops(t, b)
	}
}

func FuzzLoopsMatchJSONText(f *testing.F) {
	f.Add([]byte(`{"a": ["b\"", {"c": 1}], "d": "e\\"}`))
	f.Add([]byte(`"x\`))
	f.Fuzz(func(t *testing.T, b []byte) { checkLoops(t, b) })
}

// spanOf relies on the readers returning subslices of their input, never
// copies (escapes included): both the loop versions and jsontext's.
func TestReadersReturnSubslices(t *testing.T) {
	for _, in := range []string{`"abc"`, `"a\"b\\c\u00e9"`, `12.5,`, `-3}`, `true]`, `"",`} {
		b := []byte(" " + in + " ")
		for name, read := range map[string]func([]byte, int) ([]byte, int, bool){
			"readTokenLoop": readTokenLoop, "readStringLoop": readStringLoop, "jsontext.ReadToken": jsontext.ReadToken,
		} {
			v, _, ok := read(b, 1)
			if !ok || v == nil {
				continue
			}
			s := spanOf(b, v)
			if got := s.get(b); len(v) > 0 && &got[0] != &v[0] || string(got) != string(v) {
				t.Errorf("%s(%q): %q is not b[%d:%d]", name, in, v, s.lo, s.hi)
			}
		}
	}
}
