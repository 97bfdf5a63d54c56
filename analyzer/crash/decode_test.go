package crash

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16Bytes(s string, le, bom bool) []byte {
	var out []byte
	if bom {
		if le {
			out = append(out, 0xff, 0xfe)
		} else {
			out = append(out, 0xfe, 0xff)
		}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if le {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	return out
}

// findingsOnly drops the inputs block (it names the decoding) so the
// findings of a re-encoded log can be compared with the original's.
func findingsOnly(t *testing.T, d *Diagnosis) string {
	t.Helper()
	b, err := json.Marshal(struct {
		R string
		F []Finding
	}{d.FailureReason, d.Findings})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 13 item 10: UTF-16 logs, NUL runs (logrotate copytruncate) and
// CR-only line ends keep the fault inside, whatever the chunking.
func TestDecodedLogsKeepTheFault(t *testing.T) {
	name, data := readInput(t, "shared:s02_rocr_fault_tqdm_remnant_plus_dmesg_rocm3452.log")
	want := findingsOnly(t, diagnoseWhole(name, data))
	if !strings.Contains(want, "gpu_memory_fault") {
		t.Fatalf("baseline lost the fault: %s", want)
	}
	text := string(data)
	crOnly := strings.ReplaceAll(strings.ReplaceAll(text, "\r", ""), "\n", "\r")
	cases := []struct {
		name    string
		data    []byte
		quality string
	}{
		{"utf16le_bom", utf16Bytes(text, true, true), "decoded_utf16le"},
		{"utf16be_bom", utf16Bytes(text, false, true), "decoded_utf16be"},
		{"utf16le_nobom", utf16Bytes(text, true, false), "decoded_utf16le"},
		{"nul_prefix", append(bytes.Repeat([]byte{0}, 9000), data...), "nul_bytes_skipped"},
		{"nul_odd_prefix_utf16", append(bytes.Repeat([]byte{0}, 7), utf16Bytes(text, true, false)...), "decoded_utf16"},
		{"cr_only", []byte(crOnly), "cr_line_ends"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if head := bytes.TrimLeft(c.data, "\x00"); !LooksText(head[:min(512, len(head))]) {
				t.Errorf("LooksText refuses the head")
			}
			whole := diagnoseWhole(name, c.data)
			got := findingsOnly(t, whole)
			if c.name != "cr_only" && got != want {
				t.Errorf("findings differ from the UTF-8 log\n got %s\nwant %s", got, want)
			}
			if f := hasClass(whole, ClassGPUMemoryFault); f == nil || f.Address != "0x7f9587e00000" {
				t.Errorf("fault lost: %s", whole.JSON())
			}
			if q := strings.Join(whole.Inputs[0].Quality, ","); !strings.Contains(q, c.quality) {
				t.Errorf("quality %q lacks %s", q, c.quality)
			}
			for seed := int64(1); seed <= 3; seed++ {
				if got := diagnoseChunked(name, c.data, seed).JSON(); !bytes.Equal(got, whole.JSON()) {
					t.Fatalf("chunking (seed %d) changes the result", seed)
				}
			}
		})
	}
}

func TestLooksText(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want bool
	}{
		{[]byte("plain log line\n"), true},
		{utf16Bytes("Memory access fault by GPU node-2\r\n", true, false), true},
		{[]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00\x01\x00\x00\x00\x10\x10\x00\x00\x00\x00\x00\x00\x40\x00"), false},
		{[]byte{0x80, 0x02, 0x7d, 0x71, 0x00, 0x28, 0x58, 0x05, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0e, 0x0f}, false},
		{bytes.Repeat([]byte{0}, 512), false},
		{append(bytes.Repeat([]byte{0}, 100), "Memory access fault by GPU node-2\n"...), true},
	} {
		if got := LooksText(c.head); got != c.want {
			t.Errorf("LooksText(%q) = %v, want %v", c.head[:min(20, len(c.head))], got, c.want)
		}
	}
}

func FuzzLogDecoder(f *testing.F) {
	f.Add([]byte("a\r\nb\n"), 1)
	f.Add(utf16Bytes("Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x0. Reason: Unknown.\n", true, true), 7)
	f.Add(append(bytes.Repeat([]byte{0}, 100), "x\ry\rz\r"...), 50)
	f.Add(utf16Bytes("\U0001F600 surrogate\n", false, false), 3)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		decodeAll := func(chunks ...[]byte) []byte {
			var d logDecoder
			var out []byte
			emit := func(p []byte) { out = append(out, p...) }
			for _, c := range chunks {
				d.write(c, emit)
			}
			d.flush(emit)
			return out
		}
		whole := decodeAll(data)
		cut = int(uint(cut) % uint(len(data)+1))
		if split := decodeAll(data[:cut], data[cut:]); !bytes.Equal(whole, split) {
			t.Fatalf("split at %d changes the decoded text", cut)
		}
		if bytes.IndexByte(whole, 0) >= 0 {
			t.Fatalf("NUL byte survived decoding")
		}
		fuzzParser(t, newParsers, data, cut)
	})
}
