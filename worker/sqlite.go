//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"io"
	"syscall/js"
)

// sqlRows runs the row-stream queries on a database with SQLite's own wasm
// build, which the Worker's JS side provides (worker/sqlite.js, bundled by
// worker/build: globalThis.gputriageSQLRows, the page's jsbridge/sqlite.js
// and the same queries.json). The rows come back whole: a Worker body is at
// most 90 MiB.
func sqlRows(db []byte) (io.ReadCloser, error) {
	f := js.Global().Get("gputriageSQLRows")
	if f.Type() != js.TypeFunction {
		return nil, errors.New("a SQLite database (rocpd, RPD or rocprof-compute): this Worker was deployed without its SQLite module (worker/out/sqlite.mjs); give it to the gputriage CLI or the page")
	}
	u8 := js.Global().Get("Uint8Array").New(len(db))
	js.CopyBytesToJS(u8, db)
	type answer struct {
		v   js.Value
		err error
	}
	ch := make(chan answer, 1)
	ok := js.FuncOf(func(_ js.Value, args []js.Value) any { ch <- answer{v: args[0]}; return nil })
	fail := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- answer{err: errors.New(args[0].Call("toString").String())}
		return nil
	})
	defer ok.Release()
	defer fail.Release()
	f.Invoke(u8).Call("then", ok, fail)
	a := <-ch
	if a.err != nil {
		return nil, a.err
	}
	rows := a.v.Get("rows")
	b := make([]byte, rows.Get("length").Int())
	js.CopyBytesToGo(b, rows)
	r := &rowsReader{Reader: bytes.NewReader(b)}
	if e := a.v.Get("error"); e.Type() == js.TypeString && e.String() != "" {
		r.err = errors.New(e.String()) // after the rows read so far, as the CLI's pipe
	}
	return r, nil
}

// rowsReader yields the rows, then the query's error if one failed half-way.
type rowsReader struct {
	*bytes.Reader
	err error
}

func (r *rowsReader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if err == io.EOF && r.err != nil {
		return n, r.err
	}
	return n, err
}

func (r *rowsReader) Close() error { return nil }
