package crash

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// traceKeys mark a profiler trace's JSON (Trace Event Format, Kineto).
var traceKeys = []string{`"traceEvents"`, `"displayTimeUnit"`, `"deviceProperties"`, `"ph":`, `"ph" :`, `"schemaVersion"`}

// Sniff reports whether the first bytes of a (decompressed) file look like
// crash/log evidence rather than something else (a profiler trace, a binary).
// Plain text logs are evidence. It is only a hint.
func Sniff(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return false // gzip: decompress first
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("\x7fELF")) || bytes.HasPrefix(head, []byte("SQLite format")) {
		return false
	}
	t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		for _, k := range traceKeys {
			if bytes.Contains(head, []byte(k)) {
				return false
			}
		}
		return true // small JSON side documents (crash_diagnostics.json, metadata.json)
	}
	// mostly text?
	bad := 0
	n := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		n++
		if r == 0 || (r == utf8.RuneError && size == 1 && len(head)-i >= utf8.UTFMax) || (r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != 0x1b && r != '\f' && r != '\b') {
			bad++
		}
		i += size
	}
	return n > 0 && bad*20 < n
}

// JSONLog reports whether a file that begins like JSON ('{' or '[') is in
// fact a log, judged over the whole sniffed window rather than its first
// byte: a line that is not JSON (HF Trainer's Python-dict lines
// "{'loss': 2.1, …}") or several JSON values one after another (JSON-lines
// logs). A single JSON document, complete or cut by the window, is not.
func JSONLog(window []byte) bool {
	first := window
	if i := bytes.IndexByte(window, '\n'); i >= 0 {
		first = window[:i]
	}
	// a Python repr line ({'loss': …} / ['…']) is never JSON
	t := bytes.TrimLeft(first, " \t\r\xef\xbb\xbf")
	if len(t) > 1 && (t[0] == '{' || t[0] == '[') && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t"), []byte("'")) {
		return true
	}
	// JSON lines: a whole value that ends its line, and more lines after it.
	// A syntax error alone proves nothing: a damaged trace is still a trace
	// (its reader reports the damage), not a log.
	d := json.NewDecoder(bytes.NewReader(window))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return false
	}
	rest := window[d.InputOffset():]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || len(bytes.TrimSpace(rest[:nl])) != 0 {
		return false
	}
	return len(bytes.TrimSpace(rest[nl:])) > 0
}
