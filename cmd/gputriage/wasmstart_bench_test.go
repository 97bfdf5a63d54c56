package main

import (
	"context"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
)

const smallTrace = "../../testdata/default/sglang_Qwen3-8B_decode.json.gz"

// BenchmarkWasmStartPhases splits one `--engine wasm` run of the small
// default trace into its phases, each iteration on a fresh runtime as in a
// new process (the compilation cache and the OS page cache warm):
//
//   - ms-compile: CompileModule from the cache (wazero decodes and validates
//     the module, hashes it, then loads its machine code from the cache);
//
//   - ms-instantiate: the instance, the Go runtime inside and package init;
//
//   - ms-job: begin, feeding the trace, finish (the analysis).
//
//     go test -run '^$' -bench WasmStartPhases -benchtime 5x ./cmd/gputriage
func BenchmarkWasmStartPhases(b *testing.B) {
	wasm, err := Module()
	if err != nil {
		fixture.Missing(b, "the embedded module (make build): %v", err)
	}
	opts, _ := json.Marshal(analyzer.Options{Command: "breakdown"})
	var comp, inst, job time.Duration
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		rt := newRuntime(ctx)
		t0 := time.Now()
		compiled, err := rt.CompileModule(ctx, wasm)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		e, err := instantiate(ctx, rt, compiled)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		runSmall(b, e, opts)
		t3 := time.Now()
		rt.Close(ctx)
		comp += t1.Sub(t0)
		inst += t2.Sub(t1)
		job += t3.Sub(t2)
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / n / 1000 }
	b.ReportMetric(ms(comp), "ms-compile")
	b.ReportMetric(ms(inst), "ms-instantiate")
	b.ReportMetric(ms(job), "ms-job")
}

// BenchmarkSmallJob runs the small default trace through one engine over and
// over: the steady-state cost of a job once the module is started and every
// lazy table is built (compare with ms-job of BenchmarkWasmStartPhases).
func BenchmarkSmallJob(b *testing.B) {
	for _, kind := range []string{"native", "wasm"} {
		b.Run(kind, func(b *testing.B) {
			var eng engine = &native{}
			if kind == "wasm" {
				eng = wasmFor(b)
			}
			opts, _ := json.Marshal(analyzer.Options{Command: "breakdown"})
			for i := 0; i < b.N; i++ {
				runSmall(b, eng, opts)
			}
		})
	}
}

// runSmall is one job of the small default trace on e.
func runSmall(b *testing.B, e engine, opts []byte) {
	if err := e.Begin(opts); err != nil {
		b.Fatal(err)
	}
	fh, err := os.Open(smallTrace)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	if err := push(e, "t.json.gz", fh, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Finish(); err != nil {
		b.Fatal(err)
	}
}
