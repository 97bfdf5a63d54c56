package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/fixture"
)

// The page's gzip path (jsbridge/gunzip.js → file_gzip): after
// DecompressionStream fails having handed over `fed` bytes, the module
// gunzips the file itself. It must end with the CLI's bytes and verdict for
// multi-member gzip, a bad CRC, a bad ISIZE and trailing junk, in both
// engines.

func gz(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&b)
		io.WriteString(zw, p)
		zw.Close()
	}
	return b.Bytes()
}

// pageLike pushes as the page does when DecompressionStream failed after
// fed bytes of the first member.
func pageLike(t *testing.T, eng engine, name string, data []byte, fed int) {
	t.Helper()
	eng.FileBegin(name)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err == nil {
		zr.Multistream(false)
		first, _ := io.ReadAll(zr)
		eng.Feed(first[:min(fed, len(first))])
	}
	callGzip(t, eng, int64(fed))
	for i := 0; i < len(data); i += 1000 {
		if err := eng.Feed(data[i:min(i+1000, len(data))]); errors.Is(err, analyzer.ErrStop) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	eng.FileEnd()
}

func callGzip(t *testing.T, eng engine, fed int64) {
	switch e := eng.(type) {
	case *native:
		e.job.FileGzip(fed)
	case *wasmEngine:
		if _, err := e.mod.ExportedFunction("file_gzip").Call(e.ctx, uint64(uint32(fed)), uint64(uint32(fed>>32))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPageGzipFallback(t *testing.T) {
	ev := `{"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk_MT64","pid":1,"tid":7,"ts":%d,"dur":1.25},`
	var body bytes.Buffer
	body.WriteString(`{"traceEvents":[`)
	for i := range 3000 {
		body.WriteString(string(bytes.ReplaceAll([]byte(ev), []byte("%d"), []byte{byte('1' + i%9)})))
	}
	body.WriteString(`{}]}`)
	doc := body.String()
	half := len(doc) / 2
	good := gz(doc)
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-8] ^= 0xff
	badSize := append([]byte(nil), good...)
	badSize[len(badSize)-1] ^= 0x01
	cases := map[string][]byte{
		"multi-member": gz(doc[:half], doc[half:]),
		"bad-crc":      badCRC,
		"bad-isize":    badSize,
		"junk":         append(append([]byte(nil), good...), "trailing junk\n"...),
		"truncated":    good[:len(good)*2/3],
	}
	for name, data := range cases {
		for _, kind := range []string{"native", "wasm"} {
			var eng engine = &native{}
			if kind == "wasm" {
				eng = wasmFor(t)
			}
			opts, _ := json.Marshal(analyzer.Options{Command: "breakdown"})
			eng.Begin(opts)
			if err := push(eng, name+".json.gz", bytes.NewReader(data), nil); err != nil {
				t.Fatal(err)
			}
			cli, _ := eng.Finish()
			for _, fed := range []int{0, 1, 4096, half - 7} {
				eng.Begin(opts)
				pageLike(t, eng, name+".json.gz", data, fed)
				page, _ := eng.Finish()
				if !bytes.Equal(page.JSON(), cli.JSON()) {
					t.Errorf("%s %s fed %d: page differs from CLI:\npage %.400s\ncli  %.400s", name, kind, fed, page.JSON(), cli.JSON())
				}
			}
			if name == "multi-member" && cli.ExitCode != 0 || name != "multi-member" && cli.ExitCode != 1 {
				t.Errorf("%s %s: exit %d %+v", name, kind, cli.ExitCode, cli.Files)
			}
		}
	}
}

// gunzipped is what push makes of a gzip stream: the bytes (hashed), their
// count, the compressed count and the error it reports.
type gunzipped struct {
	sum          [32]byte
	total, count int64
	err          string
}

func gunzipAll(data []byte, seekable bool) gunzipped {
	var reopen func() (io.Reader, error)
	if seekable {
		reopen = func() (io.Reader, error) { return bytes.NewReader(data), nil }
	}
	counted := &countingReader{r: bufio.NewReaderSize(bytes.NewReader(data), chunk)}
	zr, err := newGunzip(counted, reopen)
	if err != nil {
		return gunzipped{err: "header: " + err.Error()}
	}
	h := sha256.New()
	buf := make([]byte, chunk)
	var g gunzipped
	for {
		n, err := fill(zr, buf)
		g.total += int64(n)
		h.Write(buf[:n])
		if err != nil {
			if err != io.EOF {
				g.err = err.Error()
			}
			g.count = zr.n()
			copy(g.sum[:], h.Sum(nil))
			return g
		}
	}
}

// The fast inflater (klauspost/compress) must leave every gzip stream,
// clean or damaged, exactly as compress/gzip alone does — the page's and
// the Worker's gunzip — bytes, counts and message: truncated anywhere,
// bits flipped in block headers and data, a bad CRC or ISIZE, trailing
// junk, several members, a bad header.
func TestGunzipMatchesStdlib(t *testing.T) {
	var inputs [][]byte
	for _, p := range []string{"gpu/traces/compiled.trace.json.gz", "gpu/traces/fp8_scaled_mm.trace.json.gz"} {
		b, err := os.ReadFile(filepath.Join(fixture.Shared(), p))
		if err != nil {
			fixture.Missing(t, "%s: %v", p, err)
		}
		inputs = append(inputs, b)
	}
	// every block kind: stored (level 0), fixed and dynamic Huffman, Huffman only
	var plain bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&plain, `{"ph":"X","cat":"kernel","name":"k%d","ts":%d,"dur":%d},`, i*7919%301, i*7, i*31%53)
	}
	for _, lvl := range []int{gzip.NoCompression, gzip.BestSpeed, gzip.DefaultCompression, gzip.HuffmanOnly} {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, lvl)
		zw.Write(plain.Bytes())
		zw.Close()
		inputs = append(inputs, b.Bytes())
	}
	rng := rand.New(rand.NewPCG(19, 5))
	check := func(what string, d []byte) {
		t.Helper()
		if fast, std := gunzipAll(d, true), gunzipAll(d, false); fast != std {
			t.Errorf("%s: fast inflater %+v, compress/gzip %+v", what, fast, std)
		}
	}
	for i, in := range inputs {
		check(fmt.Sprintf("input %d clean", i), in)
		check(fmt.Sprintf("input %d two members", i), append(append([]byte(nil), in...), in...))
		check(fmt.Sprintf("input %d junk", i), append(append([]byte(nil), in...), "trailing junk\n"...))
		check(fmt.Sprintf("input %d one zero byte after", i), append(append([]byte(nil), in...), 0))
		for k := range 8 {
			d := append([]byte(nil), in...)
			d[len(d)-1-k] ^= 0x10 // CRC (k ≥ 4) or ISIZE
			check(fmt.Sprintf("input %d trailer byte %d", i, k), d)
		}
		for range 12 {
			cut := rng.IntN(len(in))
			check(fmt.Sprintf("input %d truncated at %d", i, cut), in[:cut])
		}
		for range 12 {
			// early flips hit the dynamic blocks' code tables
			pos := 10 + rng.IntN(len(in)-10)
			if rng.IntN(2) == 0 {
				pos = 10 + rng.IntN(min(3000, len(in)-10))
			}
			d := append([]byte(nil), in...)
			d[pos] ^= 1 << rng.IntN(8)
			check(fmt.Sprintf("input %d bit flipped at %d", i, pos), d)
		}
		for _, n := range []int{2, 3, 9} {
			check(fmt.Sprintf("input %d header cut to %d", i, n), in[:n])
		}
		d := append([]byte(nil), in...)
		d[3] = 0xe0 // reserved flag bits
		check(fmt.Sprintf("input %d reserved flags", i), d)
	}
}
