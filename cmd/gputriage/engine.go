package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	json "github.com/goccy/go-json"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/gputriage/gputriage/analyzer"
)

//go:embed module
var moduleFS embed.FS

// Module returns the embedded gputriage.wasm.
func Module() ([]byte, error) {
	b, err := moduleFS.ReadFile("module/gputriage.wasm")
	if err != nil {
		return nil, errors.New("--engine wasm: this binary was built without gputriage.wasm (go install does not run the module build); build it with `make build` from a checkout, or use the default native engine")
	}
	return b, nil
}

// engine is one way of running the analyzer: the wasm module under wazero or
// the same Go code linked natively. Both see the same calls.
type engine interface {
	Begin(opts []byte) error
	FileBegin(name string) error
	Feed(p []byte) error
	FileSize(n int64) error
	FileError(msg string) error
	FileEnd() error
	Finish() (*analyzer.Result, error)
	// TakeOutput drains what a streaming command (perfetto-fix) has written.
	TakeOutput() ([]byte, error)
	Close() error
}

// native runs the analyzer linked into this binary.
type native struct{ job *analyzer.Job }

func (n *native) Begin(opts []byte) error {
	o, err := analyzer.ParseOptions(opts)
	if err != nil {
		return err
	}
	n.job, err = analyzer.New(o)
	return err
}
func (n *native) FileBegin(name string) error { n.job.BeginFile(name); return nil }
func (n *native) Feed(p []byte) error         { _, err := n.job.Write(p); return err }
func (n *native) FileError(msg string) error  { n.job.FileError(msg); return nil }
func (n *native) FileSize(size int64) error   { n.job.FileSize(size); return nil }
func (n *native) FileEnd() error              { n.job.EndFile(); return nil }
func (n *native) Finish() (*analyzer.Result, error) {
	return n.job.Finish(), nil
}
func (n *native) TakeOutput() ([]byte, error) { return n.job.TakeOutput(), nil }
func (n *native) Close() error                { return nil }

// wasmEngine runs gputriage.wasm under wazero's compiler, with a compilation
// cache so that only the first run pays the compile (seconds → ~0.2 s).
type wasmEngine struct {
	ctx context.Context
	rt  wazero.Runtime
	mod api.Module
	fn  map[string]api.Function
}

func cacheDir() string {
	if d := os.Getenv("GPUTRIAGE_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "gputriage", "wazero")
	}
	return filepath.Join(os.TempDir(), "gputriage-wazero")
}

func newWasmEngine(wasm []byte) (*wasmEngine, error) {
	ctx := context.Background()
	cfg := wazero.NewRuntimeConfigCompiler()
	if cache, err := wazero.NewCompilationCacheWithDir(cacheDir()); err == nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("compile gputriage.wasm: %w", err)
	}
	// Real clocks: wazero's default fake clock advances 1 ms per reading and
	// never sleeps, which skews the Go runtime's GC pacing and timers inside.
	mc := wazero.NewModuleConfig().WithStartFunctions("_initialize").WithStderr(os.Stderr).WithName("gputriage").
		WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	mod, err := rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, memoryAllocator()), compiled, mc)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("instantiate gputriage.wasm: %w", err)
	}
	e := &wasmEngine{ctx: ctx, rt: rt, mod: mod, fn: map[string]api.Function{}}
	for _, name := range []string{"alloc", "begin", "file_begin", "feed", "file_size", "file_error", "file_end", "finish", "result_ptr", "result_len", "take_output", "output_ptr"} {
		f := mod.ExportedFunction(name)
		if f == nil {
			rt.Close(ctx)
			return nil, fmt.Errorf("gputriage.wasm lacks export %q", name)
		}
		e.fn[name] = f
	}
	return e, nil
}

func (e *wasmEngine) call(name string, args ...uint64) (uint64, error) {
	r, err := e.fn[name].Call(e.ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("gputriage.wasm %s: %w", name, err)
	}
	if len(r) == 0 {
		return 0, nil
	}
	return r[0], nil
}

// put copies p into module memory and returns its address.
func (e *wasmEngine) put(p []byte) (uint64, error) {
	ptr, err := e.call("alloc", uint64(len(p)))
	if err != nil {
		return 0, err
	}
	if len(p) > 0 && !e.mod.Memory().Write(uint32(ptr), p) {
		return 0, fmt.Errorf("gputriage.wasm: write of %d bytes at %#x out of range", len(p), ptr)
	}
	return ptr, nil
}

// callBytes passes p to an export taking (ptr, len) and checks its status.
func (e *wasmEngine) callBytes(name string, p []byte) error {
	ptr, err := e.put(p)
	if err != nil {
		return err
	}
	rc, err := e.call(name, ptr, uint64(len(p)))
	if err != nil {
		return err
	}
	if rc != 0 {
		r, err := e.result()
		if err != nil {
			return err
		}
		return errors.New(r.Error)
	}
	return nil
}

func (e *wasmEngine) result() (*analyzer.Result, error) {
	ptr, err := e.call("result_ptr")
	if err != nil {
		return nil, err
	}
	n, err := e.call("result_len")
	if err != nil {
		return nil, err
	}
	b, ok := e.mod.Memory().Read(uint32(ptr), uint32(n))
	if !ok {
		return nil, errors.New("gputriage.wasm: result out of range")
	}
	var r analyzer.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("gputriage.wasm: bad result: %w", err)
	}
	return &r, nil
}

func (e *wasmEngine) Begin(opts []byte) error     { return e.callBytes("begin", opts) }
func (e *wasmEngine) FileBegin(name string) error { return e.callBytes("file_begin", []byte(name)) }
func (e *wasmEngine) Feed(p []byte) error         { return e.callBytes("feed", p) }
func (e *wasmEngine) FileError(msg string) error  { return e.callBytes("file_error", []byte(msg)) }
func (e *wasmEngine) FileSize(n int64) error {
	_, err := e.call("file_size", uint64(uint32(n)), uint64(uint32(n>>32)))
	return err
}
func (e *wasmEngine) FileEnd() error {
	_, err := e.call("file_end")
	return err
}
func (e *wasmEngine) Finish() (*analyzer.Result, error) {
	if _, err := e.call("finish"); err != nil {
		return nil, err
	}
	return e.result()
}
func (e *wasmEngine) TakeOutput() ([]byte, error) {
	n, err := e.call("take_output")
	if err != nil || n == 0 {
		return nil, err
	}
	ptr, err := e.call("output_ptr")
	if err != nil {
		return nil, err
	}
	b, ok := e.mod.Memory().Read(uint32(ptr), uint32(n))
	if !ok {
		return nil, errors.New("gputriage.wasm: output out of range")
	}
	return append([]byte(nil), b...), nil
}

func (e *wasmEngine) Close() error { return e.rt.Close(e.ctx) }

// MemoryBytes reports the module's current linear memory size.
func (e *wasmEngine) MemoryBytes() uint64 { return uint64(e.mod.Memory().Size()) }
