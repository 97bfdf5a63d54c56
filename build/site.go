package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/gputriage/gputriage/worker/server"

	"github.com/evanw/esbuild/pkg/api"
)

// Content-Security-Policies. No build may open a network connection after
// load except the served build fetching its own module; inline code is
// allowed by hash only, never 'unsafe-inline'.
// The served build's policy is the one the Worker serves the page with.
const (
	servedCSP = server.CSP
	// %[1]s: script hashes, %[2]s: style hash.
	inlineCSP = "default-src 'none'; script-src %[1]s 'wasm-unsafe-eval'; worker-src blob:; " +
		"connect-src 'none'; style-src '%[2]s'; img-src data: blob:; base-uri 'none'; form-action 'none'"
)

// exampleTrace is the page's "Try the example" input: the CLI's default.
const exampleTrace = "testdata/default/sglang_Qwen3-8B_decode.json.gz"

// buildSite bundles site/ and jsbridge/ with esbuild's Go API into dist/
// (served build: index.html, app.js, worker.js, style.css next to
// gputriage.wasm) and dist-inline/ (one index.html carrying everything, the
// module base64-inlined and the worker started from a Blob URL, so it opens
// from file://).
func buildSite(wasm []byte) error {
	css, err := bundleCSS("site/style.css")
	if err != nil {
		return err
	}

	// The parser workers' script (issue 12): the job's worker starts them
	// from a Blob URL of this text, in both builds.
	parser, err := bundle("jsbridge/parser.js", nil)
	if err != nil {
		return err
	}
	parserSource := virtual{contents: parser, loader: api.LoaderText}

	// SQLite for databases dropped on the page (jsbridge/sqlite.js).
	sq, err := sqliteVirtuals()
	if err != nil {
		return err
	}

	// The worker: served (fetches gputriage.wasm) and inline (carries it).
	workerServed, err := bundle("jsbridge/worker.js", sq.with(virtuals{"gputriage-wasm": {file: "jsbridge/wasm-fetch.js"}, "gputriage-parser-source": parserSource}))
	if err != nil {
		return err
	}
	workerInline, err := bundle("jsbridge/worker.js", sq.with(virtuals{"gputriage-wasm": {file: "jsbridge/wasm-inline.js"}, "gputriage-parser-source": parserSource}))
	if err != nil {
		return err
	}

	// The saved-report template: viewer + style + data slot, no module.
	viewer, err := bundle("site/viewer.js", nil)
	if err != nil {
		return err
	}
	report, err := page("site/report.html", css, viewer, true, "")
	if err != nil {
		return err
	}

	// "Try the example": the CLI's embedded default trace (36 KB gzipped),
	// carried by the page's script so it opens with no request.
	example, err := os.ReadFile(exampleTrace)
	if err != nil {
		return err
	}
	app := func(worker virtual) (string, error) {
		return bundle("site/app.js", virtuals{
			"gputriage-example":         {contents: string(example), loader: api.LoaderBinary},
			"gputriage-worker":          worker,
			"gputriage-worker-source":   {contents: workerInline, loader: api.LoaderText},
			"gputriage-report-template": {contents: report, loader: api.LoaderText},
		})
	}
	appServed, err := app(virtual{file: "jsbridge/worker-url.js"})
	if err != nil {
		return err
	}
	appInline, err := app(virtual{file: "jsbridge/worker-blob.js"})
	if err != nil {
		return err
	}

	servedHTML, err := page("site/index.html", css, appServed, false, "")
	if err != nil {
		return err
	}
	// The module goes after the script, gzipped and base64-encoded, in
	// chunks the parser skims: each chunk is a data block followed by one
	// tiny script (the same text every time, so one CSP hash) that hands the
	// chunk to the worker as soon as the parser gets there, so the module
	// decodes, gunzips and compiles while the rest of the page still parses
	// (jsbridge/worker-blob.js, wasm-inline.js).
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	if err := zw.Close(); err != nil {
		return err
	}
	inlineHTML, err := page("site/index.html", css, appInline, true, wasmChunks(gz.Bytes()))
	if err != nil {
		return err
	}
	// Blink keeps a document's text in 8-bit strings only while every
	// character fits: one non-ASCII character made the parser decode the whole
	// multi-megabyte page as UTF-16. Non-ASCII text goes in as escapes.
	for _, p := range []struct{ name, s string }{{"dist-inline/index.html", inlineHTML}, {"dist/index.html", servedHTML}, {"dist/app.js", appServed}, {"dist/worker.js", workerServed}, {"dist/style.css", css}} {
		if i := nonASCII(p.s); i >= 0 {
			return fmt.Errorf("%s: non-ASCII byte at %d (%q): write an escape or an entity", p.name, i, p.s[max(0, i-30):min(len(p.s), i+10)])
		}
	}

	files := map[string]string{
		"dist/index.html":        servedHTML,
		"dist/app.js":            appServed,
		"dist/worker.js":         workerServed,
		"dist/style.css":         css,
		"dist-inline/index.html": inlineHTML,
	}
	for _, d := range []string{"dist", "dist-inline"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, name := range []string{"dist/index.html", "dist/app.js", "dist/worker.js", "dist/style.css", "dist-inline/index.html"} {
		if err := os.WriteFile(name, []byte(files[name]), 0o644); err != nil {
			return err
		}
		fmt.Printf("build: %-24s %8.1f KB\n", name, float64(len(files[name]))/1e3)
	}
	// gputriage.wasm is already in dist/ (build/main.go writes it there).
	return nil
}

// page fills an HTML shell: inline builds carry the style and script in the
// page, allowed by their CSP hashes; the served build links them. tail
// follows the script (data blocks, never executed).
func page(shell, css, js string, inline bool, tail string) (string, error) {
	b, err := os.ReadFile(shell)
	if err != nil {
		return "", err
	}
	if inline {
		// The HTML parser would end a script at "</script" (esbuild already
		// escapes it in string literals; a stray one here is a build bug).
		if strings.Contains(strings.ToLower(js), "</script") {
			return "", fmt.Errorf("%s: bundled script contains </script", shell)
		}
		scripts := "'" + hash(js) + "'"
		if strings.Contains(tail, "<script>"+wasmHook+"</script>") {
			scripts += " '" + hash(wasmHook) + "'"
		}
		return strings.NewReplacer(
			"{{CSP}}", fmt.Sprintf(inlineCSP, scripts, hash(css)),
			"{{STYLE}}", "<style>"+css+"</style>",
			"{{SCRIPT}}", "<script>"+js+"</script>"+tail,
		).Replace(string(b)), nil
	}
	return strings.NewReplacer(
		"{{CSP}}", servedCSP,
		"{{STYLE}}", `<link rel="stylesheet" href="style.css">`,
		"{{SCRIPT}}", `<script src="app.js"></script>`,
	).Replace(string(b)), nil
}

// wasmHook runs after each chunk of the inlined module (worker-blob.js
// defines it before the first chunk).
const wasmHook = "__gputriageWasm(document.currentScript)"

// wasmChunkChars: base64 characters per chunk, a multiple of 4 so each chunk
// decodes on its own.
const wasmChunkChars = 96 << 10

// wasmChunks is the gzipped module as base64 data blocks, each followed by
// the hook; the last block carries data-last.
func wasmChunks(gz []byte) string {
	b64 := base64.StdEncoding.EncodeToString(gz)
	var b strings.Builder
	for i := 0; i < len(b64); i += wasmChunkChars {
		j := min(i+wasmChunkChars, len(b64))
		last := ""
		if j == len(b64) {
			last = " data-last"
		}
		fmt.Fprintf(&b, "<script type=\"application/wasm+gzip+base64\" class=\"gputriage-wasm\"%s>%s</script><script>%s</script>\n", last, b64[i:j], wasmHook)
	}
	return b.String()
}

func nonASCII(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return -1
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// virtual is a bare import resolved by the build: a real file (so each build
// variant picks its own implementation) or generated contents.
type virtual struct {
	file     string
	contents string
	loader   api.Loader
}

type virtuals map[string]virtual

func (vs virtuals) plugin() api.Plugin {
	return api.Plugin{Name: "gputriage-virtual", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `^gputriage-`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			v, ok := vs[a.Path]
			if !ok {
				return api.OnResolveResult{}, fmt.Errorf("%s is not provided to this bundle", a.Path)
			}
			if v.file != "" {
				abs, err := filepath.Abs(v.file)
				return api.OnResolveResult{Path: abs}, err
			}
			return api.OnResolveResult{Path: a.Path, Namespace: "gputriage"}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "gputriage"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			v := vs[a.Path]
			return api.OnLoadResult{Contents: &v.contents, Loader: v.loader}, nil
		})
	}}
}

// GPUTRIAGE_SITE_DEBUG=1 keeps identifiers readable (profiling the page).
var minify = os.Getenv("GPUTRIAGE_SITE_DEBUG") == ""

func bundle(entry string, vs virtuals) (string, error) {
	r := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Write:             false,
		Outfile:           "out.js",
		Format:            api.FormatIIFE,
		Target:            api.ES2022,
		Charset:           api.CharsetASCII,
		LegalComments:     api.LegalCommentsNone,
		MinifyWhitespace:  minify,
		MinifyIdentifiers: minify,
		MinifySyntax:      minify,
		Plugins:           []api.Plugin{vs.plugin()},
		LogLevel:          api.LogLevelSilent,
	})
	if err := buildErr(entry, r.Errors); err != nil {
		return "", err
	}
	if len(r.OutputFiles) != 1 {
		return "", fmt.Errorf("%s: esbuild wrote %d files", entry, len(r.OutputFiles))
	}
	return string(r.OutputFiles[0].Contents), nil
}

func bundleCSS(path string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	r := api.Transform(string(src), api.TransformOptions{Loader: api.LoaderCSS, MinifyWhitespace: true, MinifySyntax: true, Sourcefile: path, Charset: api.CharsetASCII})
	if err := buildErr(path, r.Errors); err != nil {
		return "", err
	}
	return string(r.Code), nil
}

func buildErr(what string, msgs []api.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	lines := api.FormatMessages(msgs, api.FormatMessagesOptions{Kind: api.ErrorMessage})
	return fmt.Errorf("bundling %s:\n%s", what, strings.Join(lines, ""))
}

// serve serves dist/ with Go's file server, with the module's MIME type (so
// compileStreaming works) and the page's CSP also as a header: a worker
// script gets its policy from its own response, not from the page's meta tag.
func serve(addr string) error {
	if _, err := os.Stat("dist/index.html"); err != nil {
		return errors.New("dist/index.html missing: run `go run ./build -site` first")
	}
	if err := mime.AddExtensionType(".wasm", "application/wasm"); err != nil {
		return err
	}
	fs := http.FileServer(http.Dir("dist"))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", servedCSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		fs.ServeHTTP(w, r)
	})
	fmt.Printf("serving dist/ on http://%s/\n", addr)
	return http.ListenAndServe(addr, h)
}
