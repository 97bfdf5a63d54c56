package gzpos

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"testing/iotest"
)

func member(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// Whatever the chunks under it, the count at the damage is the input's:
// the good members' length plus the 10 header bytes gzip read of the junk
// (hostile sweep 3's gzip-trailing-junk: 4096 on the CLI, 2097152 on the page).
func TestDamageOffsetIsTheInputs(t *testing.T) {
	good := append(member(`{"traceEvents":[]}`), member("second member")...)
	junk := bytes.Repeat([]byte{0x1f, 0x8b, 0}, 3<<20)
	data := append(append([]byte(nil), good...), junk...)
	want := int64(len(good) + 10)
	for name, src := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"4096":     func() io.Reader { return &chunked{data, 4096} },
		"2 MiB":    func() io.Reader { return &chunked{data, 2 << 20} },
	} {
		c := New(src())
		z, err := gzip.NewReader(c)
		if err != nil {
			t.Fatal(name, err)
		}
		out, err := io.ReadAll(z)
		if err != gzip.ErrHeader {
			t.Fatalf("%s: err %v, want %v", name, err, gzip.ErrHeader)
		}
		if string(out) != `{"traceEvents":[]}second member` {
			t.Fatalf("%s: got %q", name, out)
		}
		if c.N() != want {
			t.Errorf("%s: consumed %d, want %d", name, c.N(), want)
		}
	}
}

// A truncated stream has consumed all of it.
func TestTruncatedConsumesAll(t *testing.T) {
	m := member(string(bytes.Repeat([]byte("abc"), 1000)))
	cut := m[:len(m)-5]
	c := New(&chunked{cut, 7})
	z, _ := gzip.NewReader(c)
	if _, err := io.ReadAll(z); err == nil {
		t.Fatal("no error on a truncated stream")
	}
	if c.N() != int64(len(cut)) {
		t.Errorf("consumed %d of %d", c.N(), len(cut))
	}
}

type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[n:]
	return n, nil
}
