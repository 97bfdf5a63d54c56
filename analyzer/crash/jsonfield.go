package crash

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A log shipped through a logging pipeline keeps each line the program wrote
// as a JSON string: Docker's json-file driver ({"log":"…\n","stream":"stderr",
// "time":…}), a Google Cloud Logging export ("textPayload": "…"), journald's
// -o json ("MESSAGE": "…"), structured loggers and CloudWatch ("message",
// "msg"). The parsers must read the line inside, not the JSON around it: a
// dmesg OOM kill inside "textPayload" is still a dmesg line.
var jsonLogKeys = []string{"textPayload", "log", "MESSAGE", "message", "msg"}

// unwrapJSONField returns the text of a log line's JSON text field when the
// line starts with one (after spaces and an opening '{' or '['), decoded; a
// string cut by the end of the line is closed first. It is an extractor: the
// text goes back through the line path, prefixes and all.
func unwrapJSONField(b []byte) (string, bool) {
	start := skipBlank(b, 0)
	if start >= len(b) {
		return "", false
	}
	brace := b[start] == '{'
	i := start
	if brace || b[i] == '[' {
		i = skipBlank(b, i+1)
	}
	if i < len(b) && b[i] == '"' {
		if s, ok := fieldAt(b[i+1:]); ok {
			return s, true
		}
	}
	if brace {
		return objectField(b[start:])
	}
	return "", false
}

// fieldAt reads `key": "text"` (t follows the key's opening quote) when key
// is a log text key.
func fieldAt(t []byte) (string, bool) {
	key := ""
	for _, k := range jsonLogKeys {
		if len(t) > len(k) && t[len(k)] == '"' && string(t[:len(k)]) == k {
			key = k
			break
		}
	}
	if key == "" {
		return "", false
	}
	j := skipBlank(t, len(key)+1)
	if j >= len(t) || t[j] != ':' {
		return "", false
	}
	j = skipBlank(t, j+1)
	if j >= len(t) || t[j] != '"' {
		return "", false
	}
	lit := t[j:]
	end := 1
	for end < len(lit) && lit[end] != '"' {
		if lit[end] == '\\' {
			end++
		}
		end++
	}
	var buf []byte
	if end < len(lit) {
		buf = lit[:end+1]
	} else { // cut mid-string (a long line, a paste): close it
		buf = append(bytes.TrimRight(append([]byte(nil), lit...), `\`), '"')
	}
	var s string
	if json.Unmarshal(buf, &s) != nil {
		return "", false
	}
	return s, true
}

// objectField reads a one-line JSON object whose log text key is not its
// first (journalctl -o json puts "MESSAGE" after __CURSOR and the
// timestamps).
func objectField(b []byte) (string, bool) {
	b = bytes.TrimRight(b, " \t")
	if len(b) < 2 || b[len(b)-1] != '}' {
		return "", false
	}
	has := false
	for _, k := range jsonLogKeys {
		if bytes.Contains(b, []byte(`"`+k+`"`)) {
			has = true
			break
		}
	}
	if !has {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return "", false
	}
	for _, k := range jsonLogKeys {
		var s string
		if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil {
			return s, true
		}
	}
	return "", false
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// unwrappedLines splits a JSON text field into the lines it holds. An export
// that escaped the text once more ("is_text_escaped": "true") leaves literal
// \r\n at its end, which are dropped.
func unwrappedLines(s string) []string {
	s = strings.TrimRight(s, "\r\n")
	for strings.HasSuffix(s, `\n`) || strings.HasSuffix(s, `\r`) {
		s = s[:len(s)-2]
	}
	return strings.Split(s, "\n")
}

// WrappedLog reports whether the first lines of a JSON document that is no
// trace hold a logging pipeline's text fields: such a file is read as a log
// even when the paste cut it short of valid JSON.
func WrappedLog(head []byte) bool {
	for _, k := range traceKeys {
		if bytes.Contains(head, []byte(k)) {
			return false
		}
	}
	for n := 0; len(head) > 0 && n < 64; n++ {
		ln := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			ln, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if _, ok := unwrapJSONField(ln); ok {
			return true
		}
	}
	return false
}
