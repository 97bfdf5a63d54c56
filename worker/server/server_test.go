package server

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/gputriage/gputriage/internal/fixture"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/sqlrows"
)

const testTrace = "../../testdata/default/sglang_Qwen3-8B_decode.json.gz"

func newServer() *Server {
	return &Server{
		Static: http.FileServerFS(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>page")}}),
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		SQL:    func(db []byte) (io.ReadCloser, error) { return sqlrows.Stream(bytes.NewReader(db)) },
	}
}

func do(t *testing.T, method, target string, body io.Reader, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	newServer().ServeHTTP(rec, req)
	return rec
}

// native runs the analyzer directly, as the CLI's native engine does.
func native(t *testing.T, cmd, name string, data []byte) *analyzer.Result {
	t.Helper()
	job, err := analyzer.New(analyzer.Options{Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newServer().push(job, name, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return job.Finish()
}

func TestAnalyzeJSONAndZip(t *testing.T) {
	data, err := os.ReadFile(testTrace)
	if err != nil {
		fixture.Missing(t, "%v", err)
	}
	want := native(t, "breakdown", "t.json.gz", data)
	if want.ExitCode != 0 || len(want.Artifacts) == 0 {
		t.Fatalf("native run: exit %d, %d artifacts", want.ExitCode, len(want.Artifacts))
	}

	rec := do(t, "POST", "/analyze?cmd=breakdown&name=t.json.gz", bytes.NewReader(data))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), ResultJSON(want)) {
		t.Fatalf("JSON: status %d, body differs from ResultJSON", rec.Code)
	}
	var got struct {
		ExitCode  int                        `json:"exit_code"`
		Artifacts map[string]json.RawMessage `json:"artifacts"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got.Artifacts) != len(want.Artifacts) {
		t.Fatalf("JSON: %v, %d artifacts", err, len(got.Artifacts))
	}

	rec = do(t, "POST", "/analyze?cmd=breakdown&name=t.json.gz", bytes.NewReader(data), "Accept", "text/html, application/zip;q=0.9")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/zip" {
		t.Fatalf("zip: status %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(want.Artifacts) {
		t.Fatalf("zip has %d entries, want %d", len(zr.File), len(want.Artifacts))
	}
	for i, f := range zr.File {
		a := want.Artifacts[i]
		if f.Name != a.Name || f.Method != zip.Store {
			t.Errorf("entry %d: %s method %d, want %s STORE", i, f.Name, f.Method, a.Name)
		}
		rc, _ := f.Open()
		b, err := io.ReadAll(rc)
		if err != nil || string(b) != a.Text {
			t.Errorf("%s: content differs (%v)", f.Name, err)
		}
	}

	// The same bytes raw, in odd-sized reads, give the same artifacts.
	zr2, _ := gzip.NewReader(bytes.NewReader(data))
	raw, _ := io.ReadAll(zr2)
	res := native(t, "breakdown", "t.json.gz", raw)
	if !bytes.Equal(ResultJSON(res), ResultJSON(want)) {
		t.Error("raw and gzip bodies differ")
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name, method, target string
		body                 []byte
		code                 int
		msg                  string
	}{
		{"unknown cmd", "POST", "/analyze?cmd=explode", []byte("x"), 400, `unknown command "explode"`},
		{"unknown param", "POST", "/analyze?cmd=breakdown&format=zip", []byte("x"), 400, `unknown parameter "format"`},
		{"bad arch", "POST", "/analyze?target_arch=z80", []byte("x"), 400, "not a gfx or sm architecture"},
		{"bad name", "POST", "/analyze?name=a%0Ab", []byte("x"), 400, "name:"},
		{"empty", "POST", "/analyze?cmd=breakdown", nil, 400, "empty body"},
		{"get analyze", "GET", "/analyze", nil, 405, "POST"},
		{"post page", "POST", "/", []byte("x"), 405, "POST /analyze"},
		{"headers file", "GET", "/_headers", nil, 404, "not found"},
		{"unusable", "POST", "/analyze?cmd=breakdown", make([]byte, 64), 422, "unknown format"},
		{"bad gzip", "POST", "/analyze?cmd=breakdown", []byte("\x1f\x8bxx"), 422, "gzip header unreadable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := do(t, c.method, c.target, bytes.NewReader(c.body))
			var b struct{ Error string }
			json.Unmarshal(rec.Body.Bytes(), &b)
			if rec.Code != c.code || !strings.Contains(b.Error, c.msg) {
				t.Errorf("got %d %s, want %d …%s…", rec.Code, rec.Body.String(), c.code, c.msg)
			}
		})
	}
}

type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.n)
	clear(p[:n])
	z.n -= n
	return int(n), nil
}

func TestTooLarge(t *testing.T) {
	// Declared too large: refused before reading.
	req := httptest.NewRequest("POST", "/analyze", &zeros{n: 1})
	req.ContentLength = MaxBody + 1
	rec := httptest.NewRecorder()
	newServer().ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Errorf("Content-Length over the limit: %d", rec.Code)
	}
	// Undeclared (chunked): counted while streaming.
	req = httptest.NewRequest("POST", "/analyze", &zeros{n: MaxBody + 1})
	req.ContentLength = -1
	rec = httptest.NewRecorder()
	newServer().ServeHTTP(rec, req)
	if rec.Code != 413 || !strings.Contains(rec.Body.String(), "90 MiB") {
		t.Errorf("streamed over the limit: %d %s", rec.Code, rec.Body.String())
	}
}

func TestStatic(t *testing.T) {
	rec := do(t, "GET", "/", nil)
	if rec.Code != 200 || rec.Body.String() != "<!doctype html>page" || rec.Header().Get("Content-Security-Policy") != CSP ||
		!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Errorf("GET /: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
	srv := &Server{}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 404 {
		t.Errorf("no static: %d", rec.Code)
	}
}

func TestWantsZip(t *testing.T) {
	for accept, want := range map[string]bool{
		"": false, "application/json": false, "application/zip": true, "*/*": false,
		"application/json, application/zip;q=0.5": true, "application/zip;q=0": false,
	} {
		if got := wantsZip(accept); got != want {
			t.Errorf("wantsZip(%q) = %v", accept, got)
		}
	}
}

// Issue 13's hostile bodies: the Worker gives the CLI's verdict (the job
// enforces the limits, analyzer/limits), never a 500 or a silent log.
func TestHostileBodies(t *testing.T) {
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "server.log", Method: zip.Store})
	io.WriteString(w, strings.Repeat("INFO all good\n", 100))
	zw.Close()
	deep := `{"distributedInfo":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000) +
		`,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":1,"dur":1}]}`
	var bomb bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	gz.Write([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"`))
	gz.Write(bytes.Repeat([]byte("A"), 24<<20)) // one 24 MiB string: past the 8 MiB event limit
	gz.Close()
	for _, c := range []struct {
		name, cmd string
		body      []byte
		status    int
		want      string
	}{
		{"logs.zip", "auto", zipped.Bytes(), http.StatusUnprocessableEntity, "a zip archive"},
		{"deep.json", "breakdown", []byte(deep), http.StatusOK, "distributedInfo nested deeper than 64 levels"},
		{"blank.json", "breakdown", []byte(" \n\t"), http.StatusUnprocessableEntity, "only whitespace"},
		{"huge.json.gz", "breakdown", bomb.Bytes(), http.StatusOK, "--max-event-bytes"},
	} {
		rec := do(t, "POST", "/analyze?cmd="+c.cmd+"&name="+c.name, bytes.NewReader(c.body))
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s: %d %.300s; want %d with %q", c.name, rec.Code, rec.Body.String(), c.status, c.want)
		}
		want := native(t, c.cmd, c.name, c.body)
		if !strings.Contains(rec.Body.String(), strings.TrimSuffix(string(want.Files[0].Problem), "\n")) {
			t.Errorf("%s: the Worker's problem differs from the CLI's %q", c.name, want.Files[0].Problem)
		}
	}
}

// A database body is queried (Server.SQL) and answered as the CLI answers
// it; a damaged one with SQLite's words; a server without SQL refuses it.
func TestAnalyzeDatabase(t *testing.T) {
	rpd := filepath.Join(fixture.Shared(), "rocprof", "matmul_result.rpd.gz")
	data, err := os.ReadFile(rpd)
	if err != nil {
		fixture.Missing(t, "%v", err)
	}
	// The CLI's path: the rows of the gunzipped file, pushed as a trace.
	zr, _ := gzip.NewReader(bytes.NewReader(data))
	raw, _ := io.ReadAll(zr)
	rows, err := sqlrows.Stream(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	stream, _ := io.ReadAll(rows)
	rows.Close()
	job, _ := analyzer.New(analyzer.Options{Command: "breakdown"})
	job.BeginFile("m.rpd.gz")
	job.Write(stream)
	job.EndFile()
	want := job.Finish()
	if want.ExitCode != 0 || len(want.Artifacts) == 0 {
		t.Fatalf("rows run: exit %d %s", want.ExitCode, want.Error)
	}
	// (FileRead only feeds the ratio guard: the answers agree without it.)
	rec := do(t, "POST", "/analyze?cmd=breakdown&name=m.rpd.gz", bytes.NewReader(data))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), ResultJSON(want)) {
		t.Fatalf("status %d; body differs from the rows run: %.300s", rec.Code, rec.Body.String())
	}

	rec = do(t, "POST", "/analyze?cmd=breakdown&name=cut.rpd", bytes.NewReader(raw[:16<<10]))
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), "cut.rpd: not a readable SQLite database: sqlite3: database disk image is malformed") {
		t.Errorf("cut database: status %d %.300s", rec.Code, rec.Body.String())
	}

	rec = httptest.NewRecorder()
	(&Server{}).ServeHTTP(rec, httptest.NewRequest("POST", "/analyze?cmd=breakdown&name=m.rpd", bytes.NewReader(raw)))
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), "built without SQLite") {
		t.Errorf("no SQL: status %d %.300s", rec.Code, rec.Body.String())
	}
}

// model_config carries a config.json (the CLI's --model-config): an MoE
// op whose trace lacks top-k and expert weights is modelled from it, and
// the row says so; a config that is not one is a 400.
func TestModelConfig(t *testing.T) {
	const trace = `{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"vllm::moe_forward","pid":100,"tid":100,"ts":1000,"dur":50,"args":{"External id":1,"Input Dims":[[32,2880],[32,32],[]],"Input type":["c10::BFloat16","c10::BFloat16",""],"Concrete Inputs":["","",""]}},
{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":100,"tid":100,"ts":1010,"dur":5,"args":{"External id":1,"correlation":7}},
{"ph":"X","cat":"kernel","name":"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu","pid":2,"tid":0,"ts":1020,"dur":100,"args":{"External id":1,"device":2,"stream":0,"correlation":7}}]}`
	cfg := `{"hidden_size":2880,"intermediate_size":2880,"num_local_experts":32,"num_experts_per_tok":4,"hidden_act":"silu","quantization_config":{"quant_method":"mxfp4"}}`
	source := func(q string) (int, string) {
		rec := do(t, "POST", "/analyze?cmd=breakdown&name=moe.json"+q, strings.NewReader(trace))
		var got struct {
			Artifacts map[string]json.RawMessage `json:"artifacts"`
		}
		if rec.Code != 200 {
			return rec.Code, rec.Body.String()
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		text := got.Artifacts["roofline.json"]
		var rl struct {
			Rows []struct {
				Source *string `json:"source"`
				Share  float64 `json:"modelled_share"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(text, &rl); err != nil || len(rl.Rows) != 1 || rl.Rows[0].Source == nil {
			return rec.Code, string(text)
		}
		return rec.Code, fmt.Sprintf("%.0f %s", rl.Rows[0].Share, *rl.Rows[0].Source)
	}
	if code, s := source("&model_config=" + url.QueryEscape(cfg)); code != 200 || !strings.HasPrefix(s, "1 ") || !strings.Contains(s, "top_k 4 from the model config") {
		t.Errorf("with model_config: %d %s", code, s)
	}
	if code, s := source(""); code != 200 || strings.HasPrefix(s, "1 ") {
		t.Errorf("without: %d %s", code, s)
	}
	if code, s := source("&model_config=" + url.QueryEscape(`{"vocab_size":1}`)); code != 400 || !strings.Contains(s, "model_config") {
		t.Errorf("bad model_config: %d %s", code, s)
	}
}

// Issue 22 item 13: /analyze takes experiment_id and trial_id, as the CLI
// takes --experiment-id and --trial-id: the artifacts carry them.
func TestAnalyzeRunIdentity(t *testing.T) {
	data, err := os.ReadFile(testTrace)
	if err != nil {
		fixture.Missing(t, "%v", err)
	}
	rec := do(t, "POST", "/analyze?cmd=breakdown&name=t.json.gz&experiment_id=exp-7&trial_id=trial-3", bytes.NewReader(data))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var got struct {
		Artifacts map[string]json.RawMessage `json:"artifacts"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	meta := string(got.Artifacts["profile_metadata.json"])
	if !strings.Contains(meta, "exp-7") || !strings.Contains(meta, "trial-3") {
		t.Errorf("profile_metadata.json lacks the experiment/trial ids: %.400s", meta)
	}
}
