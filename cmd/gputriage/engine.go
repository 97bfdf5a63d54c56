package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"unsafe"

	json "github.com/goccy/go-json"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/gputriage/gputriage/analyzer"
)

//go:embed module
var moduleFS embed.FS

const modulePath = "module/gputriage.wasm"

var errNoModule = errors.New("--engine wasm: this binary was built without gputriage.wasm (go install does not run the module build); build it with `make build` from a checkout, or use the default native engine")

// Module returns the embedded gputriage.wasm. The bytes are the binary's
// own read-only data, not a copy (embedBytes): wazero only reads them, and
// a 10 MB copy cost page faults and resident memory on every start.
func Module() ([]byte, error) {
	if b := embedBytes(moduleFS, modulePath); b != nil {
		return b, nil
	}
	b, err := moduleFS.ReadFile(modulePath)
	if err != nil {
		return nil, errNoModule
	}
	return b, nil
}

// embedBytes returns the content of an embedded file in place, or nil when
// the file is absent, empty or embed's layout is not the one expected (then
// callers copy it with ReadFile). embed.FS has no such call: the data string
// sits in the unexported file struct behind an opened file, read here
// through reflect, which checks every field's kind on the way.
func embedBytes(fsys embed.FS, name string) []byte {
	f, err := fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	fp := v.Elem().FieldByName("f")
	if fp.Kind() != reflect.Pointer || fp.IsNil() || fp.Elem().Kind() != reflect.Struct {
		return nil
	}
	data := fp.Elem().FieldByName("data")
	st, err := f.Stat()
	if data.Kind() != reflect.String || err != nil || int64(data.Len()) != st.Size() || data.Len() == 0 {
		return nil
	}
	s := data.String()
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// engine is one way of running the analyzer: the wasm module under wazero or
// the same Go code linked natively. Both see the same calls.
type engine interface {
	Begin(opts []byte) error
	FileBegin(name string) error
	Feed(p []byte) error
	FileSize(n int64) error
	// ExpectBytes: the estimated decompressed size of all the inputs
	// (memory planning for a folder read into one store).
	ExpectBytes(n int64) error
	FileRead(n int64) error // compressed bytes read so far (gzip input)
	FileError(msg string) error
	FileEnd() error
	Finish() (*analyzer.Result, error)
	// TakeOutput drains what a streaming command (perfetto-fix) has written.
	TakeOutput() ([]byte, error)
	Close() error
}

// native runs the analyzer linked into this binary.
type native struct {
	job     *analyzer.Job
	opts    analyzer.Options
	parsers int // block parsers for a big file (blocks.go); < 2: none
	// autoParsers: parsers is the default, not asked for (blocks.go)
	autoParsers bool
}

func (n *native) Begin(opts []byte) error {
	o, err := analyzer.ParseOptions(opts)
	if err != nil {
		return err
	}
	n.opts = o
	n.job, err = analyzer.New(o)
	return err
}
func (n *native) FileBegin(name string) error { n.job.BeginFile(name); return nil }
func (n *native) Feed(p []byte) error         { _, err := n.job.Write(p); return err }
func (n *native) FileRead(r int64) error      { n.job.FileRead(r); return nil }
func (n *native) FileError(msg string) error  { n.job.FileError(msg); return nil }
func (n *native) FileSize(size int64) error   { n.job.FileSize(size); return nil }
func (n *native) ExpectBytes(b int64) error   { n.job.ExpectBytes(b); return nil }
func (n *native) FileEnd() error              { n.job.EndFile(); return nil }
func (n *native) Finish() (*analyzer.Result, error) {
	return n.job.Finish(), nil
}
func (n *native) TakeOutput() ([]byte, error) { return n.job.TakeOutput(), nil }

// Close lets the job's store go: a job whose blocks did not merge runs
// again with one reader while the deferred Close of the first engine
// still holds it (20 M tiny events: the first attempt's records stayed
// live through the second).
func (n *native) Close() error { n.job = nil; return nil }

// wasmEngine runs gputriage.wasm under wazero's compiler, with a compilation
// cache so that only the first run pays the compile (seconds → ~0.2 s).
// Every engine of a process is an instance on one runtime, which decodes,
// validates and loads the module once (wazeroModule).
type wasmEngine struct {
	ctx     context.Context
	mod     api.Module
	fn      map[string]api.Function
	wasm    []byte // the module, for block parsers' instances
	opts    []byte // the job's options (Begin), for block parsers
	parsers int    // block parsers for a big file (blocks.go); < 2: none
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

// The process's wazero runtime and its compiled modules, by the address of
// their bytes (Module's bytes never move).
var wazeroRT struct {
	sync.Mutex
	rt       wazero.Runtime
	compiled map[*byte]wazero.CompiledModule
}

// newRuntime is a wazero runtime with the compiler, the compilation cache
// and WASI.
func newRuntime(ctx context.Context) wazero.Runtime {
	cfg := wazero.NewRuntimeConfigCompiler()
	if cache, err := wazero.NewCompilationCacheWithDir(cacheDir()); err == nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	return rt
}

// wazeroModule returns wasm compiled on the process's runtime.
func wazeroModule(ctx context.Context, wasm []byte) (wazero.Runtime, wazero.CompiledModule, error) {
	if len(wasm) == 0 {
		return nil, nil, errors.New("compile gputriage.wasm: empty module")
	}
	w := &wazeroRT
	w.Lock()
	defer w.Unlock()
	if w.rt == nil {
		w.rt = newRuntime(ctx)
		w.compiled = map[*byte]wazero.CompiledModule{}
	}
	if c := w.compiled[&wasm[0]]; c != nil {
		return w.rt, c, nil
	}
	c, err := w.rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, nil, fmt.Errorf("compile gputriage.wasm: %w", err)
	}
	pruneCache(cacheDir(), keepCompiled)
	w.compiled[&wasm[0]] = c
	return w.rt, c, nil
}

func newWasmEngine(wasm []byte) (*wasmEngine, error) {
	ctx := context.Background()
	rt, compiled, err := wazeroModule(ctx, wasm)
	if err != nil {
		return nil, err
	}
	e, err := instantiate(ctx, rt, compiled)
	if err != nil {
		return nil, err
	}
	e.wasm = wasm
	return e, nil
}

// instantiate starts an instance of compiled: the Go runtime inside starts
// and the packages' init run (_initialize).
func instantiate(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule) (*wasmEngine, error) {
	// Real clocks: wazero's default fake clock advances 1 ms per reading and
	// never sleeps, which skews the Go runtime's GC pacing and timers inside.
	// No name: instances of one runtime need distinct names or none.
	mc := wazero.NewModuleConfig().WithStartFunctions("_initialize").WithStderr(os.Stderr).WithName("").
		WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	mod, err := rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, memoryAllocator()), compiled, mc)
	if err != nil {
		return nil, fmt.Errorf("instantiate gputriage.wasm: %w", err)
	}
	e := &wasmEngine{ctx: ctx, mod: mod, fn: map[string]api.Function{}}
	for _, name := range []string{"alloc", "begin", "file_begin", "feed", "file_size", "expect_bytes", "file_read", "file_error", "file_end", "finish", "result_ptr", "result_len", "take_output", "output_ptr",
		"block_ready", "block_begin", "block_end", "block_merge"} {
		f := mod.ExportedFunction(name)
		if f == nil {
			mod.Close(ctx)
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

// resultBytes returns the module's result buffer in place (valid until
// the next call).
func (e *wasmEngine) resultBytes() ([]byte, error) {
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
	return b, nil
}

func (e *wasmEngine) result() (*analyzer.Result, error) {
	b, err := e.resultBytes()
	if err != nil {
		return nil, err
	}
	var r analyzer.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("gputriage.wasm: bad result: %w", err)
	}
	return &r, nil
}

func (e *wasmEngine) Begin(opts []byte) error {
	e.opts = append(e.opts[:0], opts...)
	return e.callBytes("begin", opts)
}
func (e *wasmEngine) FileBegin(name string) error { return e.callBytes("file_begin", []byte(name)) }
func (e *wasmEngine) Feed(p []byte) error         { return e.pushBytes("feed", p, 1, analyzer.ErrStop) }

// pushBytes passes p to an export taking (ptr, len): status 0 is nil, code
// is codeErr, any other the result's error.
func (e *wasmEngine) pushBytes(name string, p []byte, code uint64, codeErr error) error {
	ptr, err := e.put(p)
	if err != nil {
		return err
	}
	switch rc, err := e.call(name, ptr, uint64(len(p))); {
	case err != nil:
		return err
	case rc == code:
		return codeErr
	case rc != 0:
		r, err := e.result()
		if err != nil {
			return err
		}
		return errors.New(r.Error)
	}
	return nil
}
func (e *wasmEngine) FileRead(n int64) error {
	_, err := e.call("file_read", uint64(uint32(n)), uint64(uint32(n>>32)))
	return err
}
func (e *wasmEngine) FileError(msg string) error { return e.callBytes("file_error", []byte(msg)) }
func (e *wasmEngine) FileSize(n int64) error {
	_, err := e.call("file_size", uint64(uint32(n)), uint64(uint32(n>>32)))
	return err
}
func (e *wasmEngine) ExpectBytes(n int64) error {
	_, err := e.call("expect_bytes", uint64(uint32(n)), uint64(uint32(n>>32)))
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

// Close frees the instance (its linear memory); the runtime stays for the
// process's other engines.
func (e *wasmEngine) Close() error { return e.mod.Close(e.ctx) }

// MemoryBytes reports the module's current linear memory size.
func (e *wasmEngine) MemoryBytes() uint64 { return uint64(e.mod.Memory().Size()) }
