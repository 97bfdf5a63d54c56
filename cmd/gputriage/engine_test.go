package main

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
)

// Module hands wazero the binary's embedded bytes, not a copy.
func TestModuleNotCopied(t *testing.T) {
	a, err := Module()
	if err != nil {
		fixture.Missing(t, "the embedded module (make build): %v", err)
	}
	b, _ := Module()
	c, err := moduleFS.ReadFile(modulePath)
	if err != nil {
		t.Fatal(err)
	}
	if &a[0] != &b[0] {
		t.Error("Module copies the embedded module on every call")
	}
	if !bytes.Equal(a, c) {
		t.Error("Module's bytes differ from the embedded file's")
	}
	if embedBytes(moduleFS, "module/absent.wasm") != nil {
		t.Error("embedBytes of an absent file is not nil")
	}
}

// Engines of one process share the runtime and the compiled module, and
// each instance is a job of its own: closing one leaves the other working.
func TestEnginesShareRuntime(t *testing.T) {
	wasm, err := Module()
	if err != nil {
		fixture.Missing(t, "the embedded module (make build): %v", err)
	}
	e1, err := newWasmEngine(wasm)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := newWasmEngine(wasm)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	wazeroRT.Lock()
	n := len(wazeroRT.compiled)
	wazeroRT.Unlock()
	if n != 1 {
		t.Errorf("%d compiled modules for one module", n)
	}
	opts, _ := json.Marshal(analyzer.Options{Command: "breakdown"})
	run := func(e *wasmEngine) string {
		if err := e.Begin(opts); err != nil {
			t.Fatal(err)
		}
		if err := push(e, "t.json", bytes.NewReader([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":1,"dur":2}]}`)), nil); err != nil {
			t.Fatal(err)
		}
		r, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return string(r.JSON())
	}
	a := run(e1)
	if err := e1.Close(); err != nil {
		t.Fatal(err)
	}
	if b := run(e2); a != b {
		t.Errorf("two instances gave different results:\n%s\n%s", a, b)
	}
}
