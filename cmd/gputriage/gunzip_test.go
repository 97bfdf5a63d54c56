package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
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
