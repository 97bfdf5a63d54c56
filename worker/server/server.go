// Package server is the gputriage Cloudflare Worker's HTTP handler: the
// static page and POST /analyze, which streams one trace or log through the
// analyzer and answers like `gputriage --format json` (or a zip of the
// artifacts). It is plain net/http so that it builds and is tested on any
// platform; worker/main.go runs it under syumai/workers (GOOS=js).
//
// Nothing is stored: the body is pushed into the job as it arrives and the
// response is built from the job's result.
package server

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/roofline"
	"github.com/gputriage/gputriage/internal/gzpos"
)

// Limits. Cloudflare rejects request bodies over 100 MB on the Free and Pro
// plans before a Worker sees them, and a Worker has 128 MB of memory and a
// CPU-time budget per request: MaxBody stays under the smallest body limit,
// MaxDecompressed bounds what a small gzip body may expand to. Traces beyond
// these belong in the page, which analyses them in the browser.
const (
	MaxBody         = 90 << 20 // bytes on the wire, gzip or raw
	MaxDecompressed = 1 << 30  // bytes after gunzip
	DefaultName     = "input"  // file name when ?name= is not given
	chunk           = 1 << 20  // bytes pushed per job.Write, as the CLI
)

// CSP is the served page's policy (build/site.go embeds it in dist/), sent
// as a header because a web worker script takes its policy from its own
// response. No network connection but to the page's own origin.
const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
	"connect-src 'self'; style-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'"

// StaticHeaders are set on every static response (and written to the
// bundle's _headers file for Cloudflare's asset server).
var StaticHeaders = [][2]string{
	{"Content-Security-Policy", CSP},
	{"X-Content-Type-Options", "nosniff"},
	{"Cache-Control", "no-cache"},
}

// Server routes /analyze to the analyzer and everything else to Static.
type Server struct {
	// Static serves the page (dist/); nil answers 404 for everything but /analyze.
	Static http.Handler
	// Now stamps zip entries; nil means time.Now.
	Now func() time.Time
	// SQL runs the row-stream queries on a SQLite database (rocpd, RPD,
	// rocprof-compute; docs/rocprof.md) and returns the row stream: the
	// CLI's internal/sqlrows natively, SQLite's wasm build in the Worker
	// (worker/main.go). A read error from it is the database's problem,
	// reported with its text after the rows read so far. nil refuses
	// databases with a clear message.
	SQL func(db []byte) (io.ReadCloser, error)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/analyze" || r.URL.Path == "/analyze/" {
		s.analyze(w, r)
		return
	}
	if s.Static == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		if s.Static != nil {
			w.Header().Set("Allow", "GET, HEAD")
			fail(w, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": the page is GET only; analyses are POST /analyze")
			return
		}
		fail(w, http.StatusNotFound, "not found: POST a trace or log to /analyze?cmd=breakdown|triage|diagnose")
		return
	}
	if r.URL.Path == "/_headers" || r.URL.Path == "/_redirects" { // asset-server config, not content
		fail(w, http.StatusNotFound, "not found")
		return
	}
	for _, h := range StaticHeaders {
		w.Header().Set(h[0], h[1])
	}
	if ct := mime.TypeByExtension(path.Ext(IndexPath(r.URL.Path))); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	s.Static.ServeHTTP(w, r)
}

// IndexPath maps a directory path to its index.html.
func IndexPath(p string) string {
	if p == "" || strings.HasSuffix(p, "/") {
		return p + "index.html"
	}
	return p
}

// params are /analyze's query parameters.
var params = map[string]bool{"cmd": true, "target_arch": true, "stage": true, "name": true, "model_config": true,
	"experiment_id": true, "trial_id": true}

func (s *Server) analyze(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		fail(w, http.StatusMethodNotAllowed, r.Method+" /analyze: POST the trace (.json, .json.gz) or log as the request body")
		return
	}
	q := r.URL.Query()
	for k := range q {
		if !params[k] {
			fail(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter %q (want cmd, target_arch, stage, name, model_config, experiment_id, trial_id)", k))
			return
		}
	}
	cmd := q.Get("cmd")
	if cmd == "" {
		cmd = "auto"
	}
	// model_config: a model's config.json (URL-encoded) for the roofline's
	// ops whose dimensions the trace lacks (the CLI's --model-config).
	var cfg []byte
	if v := q.Get("model_config"); v != "" {
		if _, err := roofline.ParseModelConfig([]byte(v)); err != nil {
			fail(w, http.StatusBadRequest, "model_config: "+err.Error())
			return
		}
		cfg = []byte(v)
	}
	// experiment_id / trial_id: the run's identity, as the CLI's flags of
	// the same names (stamped in every artifact and in its run id).
	run := analyzer.RunIdentity{ExperimentID: q.Get("experiment_id"), TrialID: q.Get("trial_id")}
	job, err := analyzer.New(analyzer.Options{Command: cmd, TargetArch: q.Get("target_arch"), Stage: q.Get("stage"), ModelConfig: cfg, Run: run})
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	name := q.Get("name")
	if name == "" {
		name = DefaultName
	}
	if len(name) > 1024 || !utf8.ValidString(name) || strings.ContainsAny(name, "\x00\r\n") {
		fail(w, http.StatusBadRequest, "name: at most 1024 bytes of UTF-8 on one line")
		return
	}
	if r.ContentLength > MaxBody {
		tooLarge(w, r.ContentLength)
		return
	}
	if r.Body == nil {
		fail(w, http.StatusBadRequest, emptyBody)
		return
	}
	defer r.Body.Close()
	lim := &limitReader{r: r.Body, left: MaxBody}
	stop, err := s.push(job, name, lim)
	switch {
	case lim.over:
		tooLarge(w, -1)
		return
	case stop == stopEmpty:
		fail(w, http.StatusBadRequest, emptyBody)
		return
	case stop == stopBomb:
		w.Header().Set("Connection", "close")
		fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body decompresses to more than %s; open large traces in the page instead, which analyses them in your browser", mb(MaxDecompressed)))
		return
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	res := job.Finish()
	res.Materialize() // the zip and the JSON answer hold every artifact whole
	w.Header().Set("X-Gputriage-Exit-Code", strconv.Itoa(res.ExitCode))
	if res.ExitCode == analyzer.ExitUsage {
		send(w, http.StatusUnprocessableEntity, "application/json; charset=utf-8", ResultJSON(res))
		return
	}
	if wantsZip(r.Header.Get("Accept")) {
		w.Header().Set("Content-Disposition", `attachment; filename="gputriage-`+cmd+`.zip"`)
		now := time.Now
		if s.Now != nil {
			now = s.Now
		}
		send(w, http.StatusOK, "application/zip", Zip(res.Artifacts, now()))
		return
	}
	send(w, http.StatusOK, "application/json; charset=utf-8", ResultJSON(res))
}

const emptyBody = "empty body: POST the trace (.json, .json.gz) or log as the request body, e.g. curl --data-binary @trace.json.gz"

type stopReason int

const (
	stopNone stopReason = iota
	stopEmpty
	stopBomb
)

// push streams one body into the job as the CLI does (cmd/gputriage
// input.go): gunzip when it starts with the gzip magic, 1 MiB per Write, a
// damaged stream kept so far and reported as a file error with the CLI's
// wording.
func (s *Server) push(job *analyzer.Job, name string, body io.Reader) (stopReason, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	magic, _ := br.Peek(2)
	if len(magic) == 0 {
		return stopEmpty, nil
	}
	job.BeginFile(name)
	counted := &countingReader{r: br}
	var src io.Reader = counted
	var pos *gzpos.Reader
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		// the damage is reported at the compressed byte gzip stopped at
		// (gzpos), the same on every host, not at what was read ahead
		pos = gzpos.New(counted)
		zr, err := gzip.NewReader(pos)
		if err != nil {
			job.FileError(fmt.Sprintf("gzip header unreadable: %v", err))
			job.EndFile()
			return stopNone, nil
		}
		src = zr
	}
	gz := src != io.Reader(counted)
	// A SQLite database is queried and its rows are pushed instead of its
	// bytes, as the CLI does (cmd/gputriage/input.go).
	db := false
	if peek := bufio.NewReaderSize(src, 64<<10); true {
		src = peek
		if magic, _ := peek.Peek(len(sqliteMagic)); string(magic) == sqliteMagic {
			rows, stop, err := s.database(peek)
			if stop != stopNone {
				return stop, nil
			}
			if err != nil {
				job.FileError(err.Error())
				job.EndFile()
				return stopNone, nil
			}
			defer rows.Close()
			src, db = rows, true
		}
	}
	buf := make([]byte, chunk)
	var total int64
	for {
		n, err := fill(src, buf)
		if n > 0 {
			total += int64(n)
			if total > MaxDecompressed {
				return stopBomb, nil
			}
			if gz {
				job.FileRead(counted.n)
			}
			if _, werr := job.Write(buf[:n]); werr != nil {
				if werr == analyzer.ErrStop {
					break // a limit was reached: the job has what it will read
				}
				return stopNone, werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			msg := fmt.Sprintf("read error after %d bytes: %v", total, err)
			switch {
			case db:
				msg = err.Error() // SQLite's own words, as the CLI's
			case gz:
				msg = fmt.Sprintf("gzip stream damaged or truncated after %d decompressed bytes (%d compressed): %v", total, pos.N(), err)
			}
			job.FileError(msg)
			break
		}
	}
	job.EndFile()
	return stopNone, nil
}

const sqliteMagic = "SQLite format 3\x00"

// database reads a whole database body (SQLite reads a file, not a stream;
// within MaxDecompressed) and returns its row stream.
func (s *Server) database(r io.Reader) (io.ReadCloser, stopReason, error) {
	if s.SQL == nil {
		return nil, stopNone, fmt.Errorf("a SQLite database (rocpd, RPD or rocprof-compute): this server was built without SQLite; " +
			"give it to the gputriage CLI or the page, which query it")
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxDecompressed+1))
	if int64(len(b)) > MaxDecompressed {
		return nil, stopBomb, nil
	}
	if err != nil {
		return nil, stopNone, fmt.Errorf("the database could not be read whole (%d bytes read): %v", len(b), err)
	}
	rows, err := s.SQL(b)
	return rows, stopNone, err
}

// fill reads until buf is full or the reader fails (io.EOF: a clean end).
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// limitReader fails once more than left bytes arrive (the body may come
// without Content-Length, chunked).
type limitReader struct {
	r    io.Reader
	left int64
	over bool
}

var errTooLarge = fmt.Errorf("request body over %s", mb(MaxBody))

func (l *limitReader) Read(p []byte) (int, error) {
	if l.over {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		l.over = true
		return 0, errTooLarge
	}
	return n, err
}

// ResultJSON is the response body, byte for byte what `gputriage --format
// json` prints (cmd/gputriage printResult): .json artifacts inline as JSON,
// the others as strings.
func ResultJSON(res *analyzer.Result) []byte {
	out := struct {
		ExitCode  int                        `json:"exit_code"`
		Error     string                     `json:"error,omitempty"`
		Files     []analyzer.FileResult      `json:"files"`
		Artifacts map[string]json.RawMessage `json:"artifacts"`
	}{res.ExitCode, res.Error, res.Files, map[string]json.RawMessage{}}
	for _, a := range res.Artifacts {
		if strings.HasSuffix(a.Name, ".json") {
			out.Artifacts[a.Name] = json.RawMessage(a.Text)
		} else {
			b, _ := json.Marshal(a.Text)
			out.Artifacts[a.Name] = b
		}
	}
	return encode(out)
}

func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return buf.Bytes()
}

// Zip packs the artifacts uncompressed (STORE), named as the CLI's files.
func Zip(arts []analyzer.Artifact, mod time.Time) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, a := range arts {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: a.Name, Method: zip.Store, Modified: mod.UTC()})
		if err == nil {
			_, err = io.WriteString(f, a.Text)
		}
		if err != nil { // only on a bad name; the analyzer's are fixed
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// wantsZip reports an Accept header that names application/zip (q>0).
func wantsZip(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "application/zip" {
			continue
		}
		if q, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v <= 0 {
				continue
			}
		}
		return true
	}
	return false
}

func tooLarge(w http.ResponseWriter, size int64) {
	what := "the request body is over"
	if size > 0 {
		what = fmt.Sprintf("the request body (%d bytes) is over", size)
	}
	w.Header().Set("Connection", "close")
	fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%s this endpoint's limit of %s (%d bytes); open large traces in the page instead, which analyses them in your browser without uploading", what, mb(MaxBody), MaxBody))
}

func mb(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// fail answers {"error": msg, "status": code}.
func fail(w http.ResponseWriter, code int, msg string) {
	send(w, code, "application/json; charset=utf-8", encode(struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}{msg, code}))
}

func send(w http.ResponseWriter, code int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(body)
}
