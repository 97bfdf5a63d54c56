package analyzer

import (
	"compress/gzip"
	"fmt"
	"io"

	"github.com/gputriage/gputriage/internal/gzpos"
)

// The page gunzips with the browser's DecompressionStream, which stops at
// the first gzip member and, on a bad CRC, ISIZE or trailing junk, drops the
// chunks it had decompressed but not yet handed over. When that happens the
// page pushes the compressed file again after FileGzip: the job gunzips it
// with the same Go code as the CLI (multi-member, every byte up to the
// damage), skips the bytes it already has, and reports the damage in the
// CLI's words — so the page ends with the CLI's bytes and verdict.

// gunzipper decompresses pushed gzip bytes on its own goroutine (flate
// pulls from a reader); pushing blocks until they are consumed, so the job
// is never used from two goroutines at once.
type gunzipper struct {
	pw      *io.PipeWriter
	done    chan struct{}
	skip    int64 // decompressed bytes the job already has
	in, out int64 // compressed bytes pushed, decompressed bytes produced
	err     error // the gzip stream's damage, if any
	header  bool  // the error is in the header: nothing was decompressed
	pos     *gzpos.Reader
}

// FileGzip says the current file's bytes from now on are its gzip stream,
// from the start, of which skip decompressed bytes were pushed already.
func (j *Job) FileGzip(skip int64) {
	c := j.cur
	if c == nil || c.gz != nil {
		return
	}
	pr, pw := io.Pipe()
	g := &gunzipper{pw: pw, done: make(chan struct{}), skip: skip}
	c.gz = g
	go func() {
		defer close(g.done)
		// the damage is reported at the compressed byte gzip stopped at
		// (gzpos), not at g.in, which is however much the page pushed
		g.pos = gzpos.New(pr)
		zr, err := gzip.NewReader(g.pos)
		if err != nil {
			g.err, g.header = err, true
			pr.CloseWithError(err)
			return
		}
		buf := make([]byte, chunkSize)
		for {
			n, err := zr.Read(buf)
			if n > 0 {
				p := buf[:n]
				if g.out < g.skip {
					p = p[min(int64(n), g.skip-g.out):]
				}
				g.out += int64(n)
				if len(p) > 0 {
					// the ratio guard's compressed count is what gzip
					// consumed, as the CLI's: the page pushes the whole
					// file at once, and 1,024 one-MiB members then ran
					// to 206 MiB against its full size where the CLI
					// stopped at 65 MiB (a different run_id)
					c.read = g.pos.N()
					if _, werr := j.write(c, p); werr != nil {
						pr.CloseWithError(werr)
						return
					}
				}
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				g.err = err
				pr.CloseWithError(err)
				return
			}
		}
	}()
}

const chunkSize = 1 << 20 // as the CLI pushes

// writeGzip pushes compressed bytes; ErrStop once the stream is damaged or
// the file takes no more.
func (j *Job) writeGzip(c *current, p []byte) (int, error) {
	g := c.gz
	g.in += int64(len(p))
	if _, err := g.pw.Write(p); err != nil {
		return 0, ErrStop
	}
	return len(p), nil
}

// endGzip waits for the decompressor and reports damage as the CLI does.
func (j *Job) endGzip(c *current) {
	g := c.gz
	g.pw.Close()
	<-g.done
	c.gz = nil
	switch {
	case g.err == nil:
	case g.header:
		c.hostErr = fmt.Sprintf("gzip header unreadable: %v", g.err)
	default:
		c.hostErr = fmt.Sprintf("gzip stream damaged or truncated after %d decompressed bytes (%d compressed): %v", g.out, g.pos.N(), g.err)
	}
}
