// Command build makes the Cloudflare Worker bundle in worker/out/:
//
//	go run ./build -site      # the page, dist/ (the Worker serves it as static assets)
//	go run ./worker/build     # → worker/out/{worker.mjs,wasm_exec.js,runtime.mjs,app.wasm,public/}
//
// worker.mjs, wasm_exec.js and runtime.mjs are syumai/workers' own JS shim
// (its cmd/workers-assets-gen, -mode=go, at the pinned version); app.wasm is
// ./worker built with GOOS=js GOARCH=wasm; public/ is a copy of dist/ plus a
// _headers file carrying the page's headers for Cloudflare's asset server.
// Run it from the repository root.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/gputriage/gputriage/worker/server"
)

// Bundle are the files the Worker is made of (what counts toward the size limit).
// entry.mjs is the main module: it loads sqlite.mjs (SQLite for database
// bodies, worker/sqlite.js) and hands everything else to syumai's worker.mjs.
var Bundle = []string{"entry.mjs", "worker.mjs", "wasm_exec.js", "runtime.mjs", "app.wasm", "sqlite.mjs", "sqlite3.wasm", "progress.wasm"}

// sqliteWasm is SQLite's own wasm build from npm (root package-lock.json;
// `go run ./build -site` checks it is the CLI's SQLite version).
const sqliteWasm = "node_modules/@sqlite.org/sqlite-wasm/dist/sqlite3.wasm"

const entry = `// The Worker's main module (worker/build): SQLite first, then syumai/workers' shim.
import "./sqlite.mjs";
export { default } from "./worker.mjs";
`

func main() {
	out := flag.String("o", "worker/out", "output directory (removed first)")
	site := flag.String("site", "dist", "the built page to serve as static assets")
	flag.Parse()
	if err := run(*out, *site); err != nil {
		fmt.Fprintln(os.Stderr, "worker/build:", err)
		os.Exit(1)
	}
}

func run(out, site string) error {
	if _, err := os.Stat(filepath.Join("worker", "main.go")); err != nil {
		return fmt.Errorf("run from the repository root: %v", err)
	}
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	// syumai/workers' generator empties out/ and writes its JS shim there.
	if err := sh(nil, goBin, "run", "github.com/syumai/workers/cmd/workers-assets-gen", "-mode=go", "-o", out); err != nil {
		return err
	}
	if err := sh([]string{"GOOS=js", "GOARCH=wasm"}, goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(out, "app.wasm"), "./worker"); err != nil {
		return err
	}
	if err := sqliteModules(out); err != nil {
		return err
	}
	pub := filepath.Join(out, "public")
	if err := copyDir(site, pub); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(pub, "index.html")); err != nil {
		fmt.Fprintf(os.Stderr, "worker/build: warning: %s/index.html missing (run `go run ./build -site` first); the Worker will serve /analyze only\n", site)
	}
	var h strings.Builder
	h.WriteString("/*\n")
	for _, kv := range server.StaticHeaders {
		fmt.Fprintf(&h, "  %s: %s\n", kv[0], kv[1])
	}
	if err := os.WriteFile(filepath.Join(pub, "_headers"), []byte(h.String()), 0o644); err != nil {
		return err
	}
	return report(out)
}

func sh(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return nil
}

func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(src); err != nil {
		fmt.Fprintf(os.Stderr, "worker/build: warning: %v\n", err)
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// report prints the bundle's size raw and gzipped (Cloudflare's Worker size
// limit is on the compressed upload: 3 MB Free, 10 MB Paid).
func report(out string) error {
	var raw, gz int64
	for _, f := range Bundle {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			return err
		}
		n := gzipSize(b)
		raw += int64(len(b))
		gz += n
		fmt.Printf("%-14s %10d bytes  gzip %9d\n", f, len(b), n)
	}
	fmt.Printf("%-14s %10d bytes  gzip %9d  (%.2f MiB / gzip %.2f MiB; Worker size limit, compressed: Free 3 MB, Paid 10 MB)\n",
		"worker total", raw, gz, float64(raw)/(1<<20), float64(gz)/(1<<20))
	return nil
}

func gzipSize(b []byte) int64 {
	var c countWriter
	zw, _ := gzip.NewWriterLevel(&c, gzip.BestCompression)
	io.Copy(zw, bytes.NewReader(b))
	zw.Close()
	return int64(c)
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// progressWasm is jsbridge/sqlite.js's PROGRESS_WASM (SQLite's progress
// handler trampoline), compiled by workerd as an imported module.
var progressWasm = []byte{0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f,
	2, 7, 1, 1, 0x65, 1, 0x66, 0, 0, 7, 5, 1, 1, 0x66, 0, 0}

// sqliteModules writes entry.mjs, sqlite.mjs (worker/sqlite.js bundled by
// esbuild, sqlite3.wasm left as an import of the compiled module) and
// sqlite3.wasm.
func sqliteModules(out string) error {
	wasm, err := os.ReadFile(sqliteWasm)
	if err != nil {
		return fmt.Errorf("SQLite's wasm build is missing (run `npm ci` at the repository root): %v", err)
	}
	r := api.Build(api.BuildOptions{
		EntryPoints:       []string{"worker/sqlite.js"},
		Bundle:            true,
		Write:             false,
		Outfile:           "sqlite.mjs",
		Format:            api.FormatESModule,
		Target:            api.ES2022,
		Charset:           api.CharsetASCII,
		External:          []string{"./sqlite3.wasm", "./progress.wasm"},
		LegalComments:     api.LegalCommentsNone,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LogLevel:          api.LogLevelSilent,
	})
	if len(r.Errors) > 0 {
		return fmt.Errorf("bundling worker/sqlite.js: %s", strings.Join(api.FormatMessages(r.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}), ""))
	}
	for name, b := range map[string][]byte{"entry.mjs": []byte(entry), "sqlite.mjs": r.OutputFiles[0].Contents, "sqlite3.wasm": wasm, "progress.wasm": progressWasm} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
