package main

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
)

const shared = "../../../shared/testdata"

var (
	wasmOnce sync.Once
	wasmEng  *wasmEngine
	wasmErr  error
)

// wasmFor returns the one module instance the tests share; every job starts
// with begin(), which drops the previous one, as in the page's worker.
func wasmFor(t testing.TB) *wasmEngine {
	t.Helper()
	wasmOnce.Do(func() {
		var b []byte
		if b, wasmErr = Module(); wasmErr == nil {
			wasmEng, wasmErr = newWasmEngine(b)
		}
	})
	if wasmErr != nil {
		t.Fatalf("the wasm engine is required (run `make build` first): %v", wasmErr)
	}
	return wasmEng
}

// freshWasm is a new instance of the compiled module, closed with the test:
// its linear memory measures this test's inputs alone.
func freshWasm(t testing.TB) *wasmEngine {
	t.Helper()
	e, err := newWasmEngine(wasmFor(t).wasm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// analyze runs one job on an engine ("wasm" or "native") over real files.
func analyze(t testing.TB, kind string, opts analyzer.Options, files ...string) *analyzer.Result {
	t.Helper()
	var eng engine = &native{}
	if kind == "wasm" {
		eng = wasmFor(t)
	}
	o, _ := json.Marshal(opts)
	if err := eng.Begin(o); err != nil {
		t.Fatalf("begin: %v", err)
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		err = push(eng, f, fh, nil)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	res, err := eng.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// analyzeBytes runs one job over in-memory files (name → content).
func analyzeBytes(t testing.TB, kind string, opts analyzer.Options, names []string, data [][]byte) *analyzer.Result {
	t.Helper()
	var eng engine = &native{}
	if kind == "wasm" {
		eng = wasmFor(t)
	}
	o, _ := json.Marshal(opts)
	if err := eng.Begin(o); err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if err := push(eng, n, bytes.NewReader(data[i]), nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err := eng.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func artifact(t testing.TB, r *analyzer.Result, name string, v any) string {
	t.Helper()
	s, ok := r.Artifact(name)
	if !ok {
		t.Fatalf("no artifact %s (have %d, error %q)", name, len(r.Artifacts), r.Error)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(s), v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return s
}

// sharedTraces lists every Kineto trace in the shared test data.
func sharedTraces(t testing.TB) []string {
	var out []string
	for _, root := range []string{filepath.Join(shared, "traces"), filepath.Join(shared, "gpu", "traces")} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".json.gz") || strings.HasSuffix(p, "_trace.json")) {
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	if len(out) < 35 {
		fixture.Missing(t, "shared test data not found at %s", shared)
	}
	return out
}

type breakdownJSON struct {
	Partial bool `json:"partial"`
	Stages  []struct {
		Stage       string  `json:"stage"`
		KernelCount int64   `json:"kernel_count"`
		KernelTime  float64 `json:"kernel_time_us"`
		Categories  []struct {
			Category string  `json:"category"`
			GPUTime  float64 `json:"gpu_time_us"`
		} `json:"categories"`
	} `json:"stages"`
	Files []struct {
		Kernels         int64           `json:"kernels"`
		KernelTime      json.RawMessage `json:"kernel_time_us"`
		DistinctKernels int             `json:"distinct_kernel_names"`
		Streams         []struct {
			Device     int             `json:"device"`
			Stream     int             `json:"stream"`
			Kernels    int64           `json:"kernels"`
			KernelTime json.RawMessage `json:"kernel_time_us"`
			Memcpys    int64           `json:"memcpys"`
			MemcpyTime json.RawMessage `json:"memcpy_time_us"`
			Memsets    int64           `json:"memsets"`
			MemsetTime json.RawMessage `json:"memset_time_us"`
		} `json:"streams"`
		TopKernels []struct {
			Name    string          `json:"name"`
			Count   int64           `json:"count"`
			GPUTime json.RawMessage `json:"gpu_time_us"`
		} `json:"top_kernels"`
		GraphLaunches      int64           `json:"graph_launches"`
		GraphKernels       int64           `json:"graph_launched_kernels"`
		NCCLKernels        int64           `json:"nccl_kernels"`
		NCCLTime           json.RawMessage `json:"nccl_time_us"`
		NCCLComputeOverlap json.RawMessage `json:"nccl_compute_overlap_us"`
		GPUBusy            json.RawMessage `json:"gpu_busy_us"`
		GPUSpan            json.RawMessage `json:"gpu_span_us"`
	} `json:"files"`
}
