package main

import (
	"bufio"
	"compress/gzip"
	"io"
	"sync/atomic"

	"github.com/gputriage/gputriage/internal/gzpos"
	kgzip "github.com/klauspost/compress/gzip"
)

// Gunzip is the serial floor of a native run: klauspost/compress inflates
// about 1.4× faster than compress/gzip on the shared traces (BENCHMARKS.md).
// But the page and the Worker gunzip a damaged stream with compress/gzip
// (analyzer/gunzip.go), and a damaged file must end with the same bytes and
// message on every host — the two inflaters differ there (a truncated
// stream's last byte, the offset in "corrupt input before offset N"). So the
// fast inflater only ever hands over bytes of a stream it decodes cleanly:
// at its first error (header included) the stream is decoded again from its
// start with compress/gzip, whose bytes past those already handed over, and
// whose error and counts, are the ones reported. The fast side keeps its
// last lag bytes back until it has decoded past them, so compress/gzip,
// which stops at the same damaged symbol, has always produced at least as
// many (TestGunzipMatchesStdlib).

const gunzipLag = 64 << 10 // two deflate windows

// gunzipReader decompresses a gzip stream; n() is the compressed bytes read
// of the decoder in use (read from another goroutine).
type gunzipReader struct {
	fast   *kgzip.Reader
	std    *gzip.Reader
	count  atomic.Pointer[countingReader]
	reopen func() (io.Reader, error) // the stream again from its start; nil: compress/gzip only
	buf    []byte                    // fast's output, buf[r:w] not yet handed over
	r, w   int
	out    int64         // bytes handed over
	ended  bool          // fast reached a clean end
	pos    *gzpos.Reader // compress/gzip's source: where it stopped
}

// newGunzip starts decoding the stream read through counted (a counting
// reader of a buffered source, as push reads it). reopen, if not nil,
// returns the same stream from its start. A header error is compress/gzip's.
func newGunzip(counted *countingReader, reopen func() (io.Reader, error)) (*gunzipReader, error) {
	g := &gunzipReader{reopen: reopen}
	g.count.Store(counted)
	if reopen != nil {
		if z, err := kgzip.NewReader(counted); err == nil {
			g.fast = z
			g.buf = make([]byte, 256<<10+gunzipLag)
			return g, nil
		}
		if err := g.fallback(); err != nil {
			return nil, err
		}
		return g, nil
	}
	g.pos = gzpos.New(counted)
	z, err := gzip.NewReader(g.pos)
	if err != nil {
		return nil, err
	}
	g.std = z
	return g, nil
}

func (g *gunzipReader) n() int64 { return g.count.Load().n() }

// damagedAt is the compressed byte compress/gzip stopped at: the damage's
// offset in the input, the same on every host (internal/gzpos); n() is
// how far the buffers read ahead. Read it after the error was received.
func (g *gunzipReader) damagedAt() int64 {
	if g.pos != nil {
		return g.pos.N()
	}
	return g.n()
}

// fallback decodes the stream again from its start with compress/gzip and
// skips the bytes already handed over; an error is compress/gzip's (a
// header error, or the stream's damage before them).
func (g *gunzipReader) fallback() error {
	g.fast = nil
	src, err := g.reopen()
	if err != nil {
		return err
	}
	c := &countingReader{r: bufio.NewReaderSize(src, chunk)}
	g.count.Store(c)
	g.pos = gzpos.New(c)
	z, err := gzip.NewReader(g.pos)
	if err != nil {
		return err
	}
	g.std = z
	if g.out > 0 {
		if _, err := io.CopyN(io.Discard, z, g.out); err != nil {
			return err
		}
	}
	return nil
}

func (g *gunzipReader) Read(p []byte) (int, error) {
	if g.std != nil {
		return g.std.Read(p)
	}
	for !g.ended && g.w-g.r <= gunzipLag {
		if g.r > 0 {
			g.w = copy(g.buf, g.buf[g.r:g.w])
			g.r = 0
		}
		n, err := g.fast.Read(g.buf[g.w:])
		g.w += n
		if err == io.EOF {
			g.ended = true
		} else if err != nil {
			if err := g.fallback(); err != nil {
				return 0, err
			}
			return g.std.Read(p)
		}
	}
	avail := g.w - g.r
	if !g.ended {
		avail -= gunzipLag
	}
	if avail == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf[g.r:g.r+avail])
	g.r += n
	g.out += int64(n)
	return n, nil
}
