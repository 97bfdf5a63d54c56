package units

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
)

// listChunk is how many rows JSONObject encodes between yields.
const listChunk = 4096

// Member is one member of the object JSONObject writes: Value is encoded
// whole, or row by row when it is Rows(…).
type Member struct {
	Key   string // a constant the caller names (not escaped)
	Value any
}

// rowList is a Rows value: its rows are encoded one at a time.
type rowList interface {
	writeRows(b *chunks, enc *json.Encoder, row *bytes.Buffer) error
}

type rows[T any] []T

// Rows marks a member's list to be encoded row by row (JSONObject).
func Rows[T any](v []T) any { return rows[T](v) }

func (rs rows[T]) writeRows(b *chunks, enc *json.Encoder, row *bytes.Buffer) error {
	if rs == nil {
		b.WriteString("null")
		return nil
	}
	if len(rs) == 0 {
		b.WriteString("[]")
		return nil
	}
	b.writeByte('[')
	enc.SetIndent("    ", "  ")
	for i := range rs {
		if i > 0 {
			b.writeByte(',')
			if i%listChunk == 0 {
				runtime.Gosched()
			}
		}
		row.Reset()
		if err := enc.Encode(rs[i]); err != nil {
			return err
		}
		b.WriteString("\n    ")
		b.Write(bytes.TrimSuffix(row.Bytes(), []byte("\n")))
	}
	b.WriteString("\n  ]")
	return nil
}

// JSONObject writes what JSON writes for a struct of these members in this
// order (no omitempty), as a string: the same bytes, but a Rows member is
// encoded row by row, yielding every listChunk rows, and the text is built
// in blocks copied once into the string: the allocations are about twice
// the text (a growing builder reallocated it to five times). The module is one thread that
// never preempts, so a collection started inside one encoding call of a
// 25 MB artifact could not end before it did; and JSON's encoder holds the
// compact text, its indented copy and the buffer it is written to at once
// (about four times the artifact).
func JSONObject(members ...Member) string {
	var b chunks
	var row bytes.Buffer
	enc := json.NewEncoder(&row)
	enc.SetEscapeHTML(false)
	b.WriteString("{")
	for i, m := range members {
		if i > 0 {
			b.writeByte(',')
		}
		b.WriteString("\n  \"" + m.Key + "\": ")
		if rl, ok := m.Value.(rowList); ok {
			if err := rl.writeRows(&b, enc, &row); err != nil {
				return string(JSON(err))
			}
			continue
		}
		row.Reset()
		enc.SetIndent("  ", "  ")
		if err := enc.Encode(m.Value); err != nil {
			return string(JSON(err)) // as JSON does for a value it cannot encode
		}
		b.Write(bytes.TrimSuffix(row.Bytes(), []byte("\n")))
	}
	if len(members) == 0 {
		return "{}\n"
	}
	b.WriteString("\n}\n")
	return b.String()
}

// chunkSize is the size of chunks' blocks.
const chunkSize = 1 << 20

// chunks collects text in fixed blocks, never copying what it holds until
// String copies it once.
type chunks struct {
	bufs [][]byte
	n    int
}

// room is the last block, a new one when it is full.
func (c *chunks) room() *[]byte {
	if len(c.bufs) == 0 || len(c.bufs[len(c.bufs)-1]) == chunkSize {
		c.bufs = append(c.bufs, make([]byte, 0, chunkSize))
	}
	return &c.bufs[len(c.bufs)-1]
}

func (c *chunks) Write(p []byte) {
	for len(p) > 0 {
		last := c.room()
		k := min(len(p), chunkSize-len(*last))
		*last = append(*last, p[:k]...)
		p, c.n = p[k:], c.n+k
	}
}

func (c *chunks) WriteString(s string) {
	for len(s) > 0 {
		last := c.room()
		k := min(len(s), chunkSize-len(*last))
		*last = append(*last, s[:k]...)
		s, c.n = s[k:], c.n+k
	}
}

func (c *chunks) writeByte(x byte) {
	last := c.room()
	*last = append(*last, x)
	c.n++
}

func (c *chunks) String() string {
	var b strings.Builder
	b.Grow(c.n)
	for _, p := range c.bufs {
		b.Write(p)
	}
	return b.String()
}
