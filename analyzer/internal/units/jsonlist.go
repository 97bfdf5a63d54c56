package units

import (
	"bytes"
	"encoding/json"
	"runtime"
)

// listChunk is how many rows JSONList encodes between yields.
const listChunk = 4096

// JSONList writes what JSON writes for the object head with one more
// field, key, holding rows, last: the same bytes, but each row encoded on
// its own, yielding (runtime.Gosched) every listChunk rows. The module is
// one thread that never preempts, so a collection started inside one
// encoding call of a 25 MB artifact could not end before it did, and every
// buffer it outgrew meanwhile counted as live. head must encode as a
// non-empty object; key is a constant the caller names (not escaped).
func JSONList[T any](head any, key string, rows []T) []byte {
	h := JSON(head)
	if !bytes.HasSuffix(h, []byte("\n}\n")) {
		return h // an encoding failure's own readable artifact
	}
	var buf bytes.Buffer
	buf.Write(h[:len(h)-3])
	buf.WriteString(",\n  \"" + key + "\": ")
	if rows == nil {
		buf.WriteString("null\n}\n")
		return buf.Bytes()
	}
	buf.WriteByte('[')
	if len(rows) == 0 {
		buf.WriteString("]\n}\n")
		return buf.Bytes()
	}
	var row bytes.Buffer
	enc := json.NewEncoder(&row)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	for i := range rows {
		if i > 0 {
			buf.WriteByte(',')
			if i%listChunk == 0 {
				runtime.Gosched()
			}
		}
		row.Reset()
		if err := enc.Encode(rows[i]); err != nil {
			return JSON(err) // as JSON does for a value it cannot encode
		}
		buf.WriteString("\n    ")
		buf.Write(bytes.TrimSuffix(row.Bytes(), []byte("\n")))
	}
	buf.WriteString("\n  ]\n}\n")
	return buf.Bytes()
}
