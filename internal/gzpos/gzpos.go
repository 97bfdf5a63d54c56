// Package gzpos tells how far into a gzip file compress/gzip got: the
// compressed bytes it consumed, not the bytes a buffer under it read ahead.
// A damaged stream's message names that offset, which is then the input's
// own (the end of the last good member, the corrupt symbol) and the same on
// every host whatever chunks the host pushes: the CLI reads 1 MiB blocks,
// the page 2 MiB File chunks, the Worker its request body (issue 24: the
// page said 2097152 where the CLI said 4096 for one file).
package gzpos

import (
	"bufio"
	"io"
)

// Reader hands compress/gzip its bytes one at a time through ReadByte (it
// then adds no buffer of its own) and counts them.
type Reader struct {
	r *bufio.Reader
	n int64
}

// New reads r (through a buffer unless r is one already).
func New(r io.Reader) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Reader{r: br}
}

func (c *Reader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *Reader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// N is the compressed bytes consumed so far. Read it from the goroutine
// that reads, or after a channel receive that follows the read.
func (c *Reader) N() int64 { return c.n }
