package main

import (
	"io"
	"os"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/gputriage/gputriage/analyzer"
)

func TestPhases(t *testing.T) {
	if os.Getenv("PHASES") == "" {
		t.Skip()
	}
	data, _ := io.ReadAll(&genTrace{size: 128 << 20})
	for _, kind := range []string{"native", "wasm"} {
		var eng engine = &native{}
		if kind == "wasm" {
			eng = wasmFor(t)
		}
		o, _ := json.Marshal(analyzer.Options{})
		eng.Begin(o)
		eng.FileBegin("x")
		t0 := time.Now()
		for i := 0; i < len(data); i += chunk {
			eng.Feed(data[i:min(len(data), i+chunk)])
		}
		eng.FileEnd()
		t1 := time.Now()
		eng.Finish()
		t.Logf("%s feed %.0f MB/s (%v) finish %v", kind, float64(len(data))/1e6/t1.Sub(t0).Seconds(), t1.Sub(t0), time.Since(t1))
	}
}
