package analyzer

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// Result.JSON writes encoding/json's bytes for the result (HTML characters
// unescaped) whatever the artifacts hold: every byte value, invalid UTF-8,
// U+2028/U+2029, nil and empty lists, an error and runs.
func TestResultJSONSameBytes(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c), 'a')
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"\u2028", "\u2029", "\xe2\x80", "é", "\U0001F600", "<>&", `"\`, "\n\r\t\b\f\x00\x1f\x7f", "\xff", "\ufffd"}
	var mixed []byte
	for range 2000 {
		if rng.IntN(3) == 0 {
			mixed = append(mixed, pieces[rng.IntN(len(pieces))]...)
		} else {
			mixed = append(mixed, byte(rng.IntN(256)))
		}
	}
	for _, r := range []Result{
		{Files: []FileResult{}, Artifacts: []Artifact{}},
		{ExitCode: 2, Error: "bad <input> \"x\"\n", Files: nil, Artifacts: nil},
		{Files: []FileResult{{Name: "a\u2028<b>.json", Kind: "trace", Problem: "\x1b[2J"}}, Artifacts: []Artifact{{"x.json", string(all)}, {"m\xff.md", string(mixed)}, {"", ""}},
			Runs: []RunGroup{{Device: "MI300X", Files: []string{"a", "b"}}}},
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
		if got := r.JSON(); !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("got  %.300q\nwant %.300q", got, buf.Bytes())
		}
		if got := r.JSON(); cap(got) != len(got) {
			t.Errorf("buffer of %d bytes for %d: not sized exactly", cap(got), len(got))
		}
	}
}

// The module's result is built in one buffer: the bytes Result.JSON
// allocates are the result's own (through json.Encoder, the encoder's
// growing buffer and the copy written out came to more than twice it).
func TestResultJSONAllocatesOnce(t *testing.T) {
	text := strings.Repeat("{\n  \"k\": \"v\\n<b>\"\n}\n", 1<<18) // 5 MB, escapes on every line
	r := Result{Files: []FileResult{{Name: "a.json"}}, Artifacts: []Artifact{{"a.json", text}, {"b.json", text}, {"c.md", text}}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := r.JSON()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(b))+64<<10 {
		t.Errorf("allocated %d bytes for a %d-byte result", got, len(b))
	}
}
