package main

// gputriage profile: live capture from a running SGLang or vLLM server, then
// the usual analysis of what it wrote. The HTTP client lives here, in the
// host: the analyzer never does I/O.
//
// The request shapes follow the servers' own code:
//   - SGLang: python/sglang/srt/entrypoints/http_server.py, start_profile_async
//     (POST /start_profile with a ProfileReqInput: output_dir, num_steps,
//     activities, with_stack, record_shapes, profile_by_stage) and
//     stop_profile_async (POST /stop_profile); python/sglang/profiler.py,
//     run_profile (GET /get_server_info saved as server_args.json beside the
//     traces; with num_steps the server stops by itself and "replies when all
//     steps are processed and files are generated"). Files are
//     <id>-TP-<rank>[-EXTEND|-DECODE].trace.json.gz.
//   - vLLM: vllm/entrypoints/serve/profile/api_router.py, start_profile
//     (POST /start_profile, optional body StartProfileRequest{num_steps,
//     delay_steps}) and stop_profile (POST /stop_profile, which returns when
//     the workers have flushed); traces land in the server's
//     VLLM_TORCH_PROFILER_DIR (set at server launch, not per request).
//     Model from GET /v1/models, version from GET /version.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/quote"
)

const profileUsage = `gputriage profile --url URL [flags] [analysis flags]

Triggers profiling on a running SGLang or vLLM server (detected from its own
endpoints), waits until every trace file is completely written, then runs
triage (or --command) on them with model_name, server_flags and the TP size
from the server's info endpoint.

  --url URL            the server (e.g. http://127.0.0.1:30000)
  --num-steps N        forward steps to profile (SGLang stops by itself; default 5)
  --by-stage           SGLang: separate EXTEND and DECODE files
  --activities LIST    SGLang: CPU,GPU (default), MEM, RPD
  --with-stack         SGLang: record Python stacks
  --record-shapes      SGLang: record tensor shapes
  --output-dir DIR     where the server writes, as this machine sees it (SGLang: a
                       new folder under DIR; default a temporary folder; vLLM: its
                       VLLM_TORCH_PROFILER_DIR, required)
  --probe N            send N short generation requests while profiling
  --timeout D          how long to wait for the traces (default 5m)
  --command CMD        analysis to run (default triage; breakdown)
Every other flag (-o, --format, --engine, the run identity flags, …) goes to the analysis.
Requests go to --url only: a redirect is an error, never followed. Only regular
files are read from the trace folder (a named pipe or a device there is refused).
`

type profileOpts struct {
	url, outDir, activities, command string
	numSteps, probe                  int
	byStage, withStack, shapes       bool
	timeout                          time.Duration
}

// profileFlagSet is profile's own flags and triage's (the analysis), so a
// misspelt flag is refused before the server is touched.
func profileFlagSet(o *profileOpts, f *flags) *flag.FlagSet {
	fs := flagSet("triage", f)
	fs.Init("profile", flag.ContinueOnError)
	fs.StringVar(&o.url, "url", "", "the server `URL` (e.g. http://127.0.0.1:30000)")
	fs.IntVar(&o.numSteps, "num-steps", -1, "forward `N` steps to profile (SGLang stops by itself; default 5)")
	fs.BoolVar(&o.byStage, "by-stage", false, "SGLang: separate EXTEND and DECODE files")
	fs.StringVar(&o.activities, "activities", "CPU,GPU", "SGLang: `LIST` of CPU, GPU, MEM, RPD")
	fs.BoolVar(&o.withStack, "with-stack", false, "SGLang: record Python stacks")
	fs.BoolVar(&o.shapes, "record-shapes", false, "SGLang: record tensor shapes")
	fs.StringVar(&o.outDir, "output-dir", "", "where the server writes, as this machine sees it (`DIR`)")
	fs.IntVar(&o.probe, "probe", 0, "send `N` short generation requests while profiling")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long to wait for the traces")
	fs.StringVar(&o.command, "command", "triage", "analysis to run: triage or breakdown")
	return fs
}

func parseProfile(args []string) (profileOpts, flags, error) {
	var o profileOpts
	f := newFlags()
	fs := profileFlagSet(&o, f)
	err := parseInterleaved(fs, args, func(a string) { f.inputs = append(f.inputs, a) })
	if err != nil {
		return o, *f, explainFlagErr("profile", err)
	}
	var extra []string
	for _, in := range f.inputs {
		if !slices.Contains(f.mapping, in) && !slices.Contains(f.formal, in) {
			extra = append(extra, in)
		}
	}
	switch {
	case len(extra) > 0:
		return o, *f, fmt.Errorf("unexpected argument %q: profile takes its traces from the server", extra[0])
	case o.url == "":
		return o, *f, fmt.Errorf("give --url of the running SGLang or vLLM server")
	case o.numSteps < -1 || o.probe < 0:
		return o, *f, fmt.Errorf("--num-steps and --probe must be 0 or more")
	case o.timeout <= 0:
		return o, *f, fmt.Errorf("--timeout must be positive (e.g. 90s, 5m)")
	case o.command != "triage" && o.command != "breakdown":
		return o, *f, fmt.Errorf("--command must be triage or breakdown, not %q", o.command)
	case o.command == "breakdown" && len(f.mapping)+len(f.formal) > 0:
		return o, *f, fmt.Errorf("--mapping and --formal apply to triage, not --command breakdown")
	}
	u, err := url.Parse(o.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, *f, fmt.Errorf("--url %q: give the scheme and host, e.g. http://127.0.0.1:30000", o.url)
	}
	o.url = strings.TrimRight(o.url, "/")
	return o, *f, f.check()
}

// server is what the server says about itself.
type server struct {
	kind    string          // sglang | vllm
	model   string          // served model
	tp      int             // tensor-parallel size (0 unknown)
	info    json.RawMessage // saved as server_args.json
	version string
}

type profiler struct {
	o      profileOpts
	client *http.Client
	stderr io.Writer
}

func (p *profiler) get(path string) ([]byte, int, error) {
	resp, err := p.client.Get(p.o.url + path)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return b, resp.StatusCode, err
}

func (p *profiler) post(ctx context.Context, path string, body any) ([]byte, int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.o.url+path, rd)
	if err != nil {
		return nil, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return b, resp.StatusCode, err
}

// detect tells SGLang from vLLM by their own endpoints: SGLang answers
// /get_server_info with its ServerArgs; vLLM answers /version and
// /v1/models (and, in dev mode, /server_info).
func (p *profiler) detect() (*server, error) {
	b, code, err := p.get("/get_server_info")
	if err != nil {
		return nil, fmt.Errorf("cannot reach %s: %v (is the server running, and is the URL right?)", p.o.url, unwrapNetErr(err))
	}
	if code == http.StatusOK {
		var m map[string]any
		if json.Unmarshal(b, &m) == nil && (m["model_path"] != nil || m["tp_size"] != nil) {
			s := &server{kind: "sglang", info: b}
			s.model, _ = m["served_model_name"].(string)
			if s.model == "" {
				s.model, _ = m["model_path"].(string)
			}
			// a tp_size outside int's range (1e30) converts differently per
			// platform: such a size is no size (docs/limits.md, "Values")
			if tp, ok := m["tp_size"].(float64); ok && tp >= 1 && tp <= 1<<20 && tp == math.Trunc(tp) {
				s.tp = int(tp)
			}
			s.version, _ = m["version"].(string)
			return s, nil
		}
	}
	vb, vcode, _ := p.get("/version")
	mb, mcode, _ := p.get("/v1/models")
	if vcode != http.StatusOK || mcode != http.StatusOK {
		return nil, fmt.Errorf("%s is neither SGLang (no /get_server_info) nor vLLM (no /version and /v1/models): HTTP %d, %d, %d", p.o.url, code, vcode, mcode)
	}
	var ver struct {
		Version string `json:"version"`
	}
	var models struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	json.Unmarshal(vb, &ver)
	if json.Unmarshal(mb, &models) != nil || len(models.Data) == 0 {
		return nil, fmt.Errorf("%s/v1/models lists no model", p.o.url)
	}
	s := &server{kind: "vllm", model: models.Data[0].ID, version: ver.Version}
	// vLLM's dev-mode /server_info carries the engine config as text.
	if ib, icode, _ := p.get("/server_info"); icode == http.StatusOK {
		var si struct {
			Config string `json:"vllm_config"`
		}
		if json.Unmarshal(ib, &si) == nil {
			if m := vllmTP.FindStringSubmatch(si.Config); m != nil {
				s.tp, _ = strconv.Atoi(m[1])
			}
		}
	}
	info := map[string]any{"model": s.model, "served_model_name": s.model, "version": s.version, "gputriage_source": "vllm /version, /v1/models"}
	if s.tp > 0 {
		info["tensor_parallel_size"] = s.tp
	}
	s.info, _ = json.Marshal(info)
	return s, nil
}

// noRedirect refuses every redirect: the requests (start/stop profiling,
// the probe's prompts) go to --url only, never to a host a response names.
func noRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("the server redirects %s to %s: gputriage profile does not follow redirects (give the final URL with --url)",
		via[len(via)-1].URL.Path, req.URL.Redacted())
}

func unwrapNetErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

var vllmTP = regexp.MustCompile(`tensor_parallel_size=(\d+)`)

// probe sends n short generation requests, one after another.
func (p *profiler) probe(ctx context.Context, s *server, n int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		var err error
		var code int
		if s.kind == "sglang" {
			_, code, err = p.post(ctx, "/generate", map[string]any{"text": "The capital of France is",
				"sampling_params": map[string]any{"max_new_tokens": 32, "temperature": 0}})
		} else {
			_, code, err = p.post(ctx, "/v1/completions", map[string]any{"model": s.model, "prompt": "The capital of France is",
				"max_tokens": 32, "temperature": 0})
		}
		if err != nil || code != http.StatusOK {
			if ctx.Err() == nil {
				fmt.Fprintf(p.stderr, "gputriage profile: probe request %d: HTTP %d %v\n", i+1, code, err)
			}
			return
		}
	}
}

func startError(code int, body []byte) error {
	msg := strings.TrimSpace(string(body))
	if strings.Contains(strings.ToLower(msg), "already") {
		return fmt.Errorf("profiling is already running on the server (%s): stop it first (POST /stop_profile) or wait for it to finish", msg)
	}
	return fmt.Errorf("the server refused to start profiling: HTTP %d %s", code, msg)
}

// runProfile is the profile command: capture, wait, analyse.
func runProfile(args []string, stdout, stderr, rawStderr io.Writer) int {
	o, f, err := parseProfile(args)
	if err == errHelp {
		fmt.Fprint(stdout, profileUsage)
		help(stdout, "Flags of profile and of its analysis:", profileFlagSet(&profileOpts{}, newFlags()))
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "gputriage profile: %v\n", err)
		return analyzer.ExitUsage
	}
	p := &profiler{o: o, client: &http.Client{Timeout: o.timeout + 30*time.Second, CheckRedirect: noRedirect}, stderr: stderr}
	p.client.Transport = &http.Transport{DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}
	s, err := p.detect()
	if err != nil {
		fmt.Fprintf(stderr, "gputriage profile: %v\n", err)
		return analyzer.ExitUsage
	}
	dir, err := p.capture(s)
	if err != nil {
		fmt.Fprintf(stderr, "gputriage profile: %v\n", err)
		return analyzer.ExitUsage
	}
	fmt.Fprintf(stderr, "gputriage profile: %s (%s) traces complete in %s\n", s.kind, s.model, dir)
	// server_args.json beside the traces: the analysis takes model_name,
	// server_flags and tp_size from it (python/sglang/profiler.py does the same).
	if _, err := os.Stat(filepath.Join(dir, "server_args.json")); err != nil {
		os.WriteFile(filepath.Join(dir, "server_args.json"), s.info, 0o644)
	}
	f.inputs = append(f.inputs, dir)
	return runCommand(o.command, f, nil, stdout, stderr, rawStderr)
}

// capture runs one profiling session and returns the folder holding its
// complete trace files.
func (p *profiler) capture(s *server) (string, error) {
	o := p.o
	var dir string
	switch {
	case s.kind == "vllm" && o.outDir == "":
		return "", fmt.Errorf("vLLM writes its traces to the VLLM_TORCH_PROFILER_DIR it was launched with: give that directory with --output-dir (as this machine sees it)")
	case s.kind == "vllm":
		dir = o.outDir
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("--output-dir %s does not exist on this machine: the server writes on its own node; run gputriage profile there or share the directory", dir)
		}
	default:
		base := o.outDir
		if base == "" {
			base = os.TempDir()
		}
		abs, err := filepath.Abs(base)
		if err != nil {
			return "", err
		}
		// A fresh folder per session, as run_profile does; the server
		// creates it (so its absence later means the server wrote elsewhere).
		dir = filepath.Join(abs, "gputriage-profile-"+strconv.FormatInt(time.Now().UnixNano(), 10))
	}
	before := listTraces(dir)
	steps := o.numSteps
	if steps < 0 && s.kind == "sglang" {
		steps = 5
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	var wg sync.WaitGroup
	probeCtx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	if o.probe > 0 {
		wg.Add(1)
		go p.probe(probeCtx, s, o.probe, &wg)
	}
	var body any
	if s.kind == "sglang" {
		req := map[string]any{"output_dir": dir, "activities": splitList(o.activities), "with_stack": o.withStack,
			"record_shapes": o.shapes, "profile_by_stage": o.byStage}
		if steps > 0 {
			req["num_steps"] = steps
		}
		body = req
	} else if steps > 0 {
		body = map[string]any{"num_steps": steps}
	}
	b, code, err := p.post(ctx, "/start_profile", body)
	if err != nil {
		return "", fmt.Errorf("start_profile: %v", unwrapNetErr(err))
	}
	if code != http.StatusOK {
		return "", startError(code, b)
	}
	wg.Wait()
	// SGLang with num_steps stops by itself; otherwise stop it.
	if s.kind == "vllm" || steps <= 0 {
		b, code, err := p.post(ctx, "/stop_profile", nil)
		if err != nil {
			return "", fmt.Errorf("stop_profile: %v", unwrapNetErr(err))
		}
		if code != http.StatusOK {
			return "", fmt.Errorf("stop_profile: HTTP %d %s", code, strings.TrimSpace(string(b)))
		}
	}
	want := 1
	if s.tp > 1 {
		want = s.tp
	}
	if s.kind == "sglang" && o.byStage {
		want *= 2
	}
	return dir, p.waitComplete(ctx, s, dir, before, want)
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, strings.ToUpper(x))
		}
	}
	return out
}

// listTraces maps every trace file under dir to its size.
func listTraces(dir string) map[string]int64 {
	out := map[string]int64{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n := d.Name()
		if strings.HasSuffix(n, ".json.gz") || strings.HasSuffix(n, ".trace.json") || strings.HasSuffix(n, ".pt.trace.json") {
			// only regular files: opening a named pipe waits for a writer
			// for ever (the analysis then refuses it by name)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
				out[p] = info.Size()
			}
		}
		return nil
	})
	return out
}

// pollEvery is how often the trace folder is looked at.
var pollEvery = 250 * time.Millisecond

// waitComplete waits until the session's trace files (new since before)
// number at least want and each is complete: its size unchanged since the
// last look and, for gzip, a stream that decodes to its end (trailer CRC
// and length included) — a gzip still being written is not finished.
func (p *profiler) waitComplete(ctx context.Context, s *server, dir string, before map[string]int64, want int) error {
	last := map[string]int64{}
	for {
		now := listTraces(dir)
		var fresh []string
		for f, n := range now {
			if old, ok := before[f]; !ok || old != n {
				fresh = append(fresh, f)
			}
		}
		slices.Sort(fresh)
		done := len(fresh) >= want
		for _, f := range fresh {
			if last[f] != now[f] || now[f] == 0 || !completeBy(ctx, f) {
				done = false
			}
		}
		if done {
			return nil
		}
		last = now
		select {
		case <-ctx.Done():
			if _, err := os.Stat(dir); err != nil {
				return fmt.Errorf("the server reported profiling done but %s does not exist on this machine: it wrote its traces on its own node; run gputriage profile on the server's node or share the directory (e.g. NFS) and pass --output-dir as both see it", dir)
			}
			if len(fresh) == 0 {
				hint := ""
				if s.kind == "vllm" {
					if w, ok := quote.Env("VLLM_TORCH_PROFILER_DIR", dir); ok {
						hint = " (was the server launched with " + w + "?)"
					}
				} else if p.o.probe == 0 {
					hint = " (SGLang profiles forward steps: send requests while profiling, e.g. --probe 8)"
				}
				return fmt.Errorf("the server wrote no trace into %s within %s%s", dir, p.o.timeout, hint)
			}
			return fmt.Errorf("after %s, %d of the %d expected trace files in %s are complete (%s): the server is still writing or stopped; a larger --timeout may help",
				p.o.timeout, countComplete(fresh), want, dir, strings.Join(fresh, ", "))
		case <-time.After(pollEvery):
		}
	}
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func countComplete(files []string) int {
	n := 0
	for _, f := range files {
		if complete(f) {
			n++
		}
	}
	return n
}

// complete reports a trace file that is whole: a gzip stream read to its
// end without error, or JSON ending in '}' or ']'.
func complete(path string) bool { return completeBy(context.Background(), path) }

// completeBy is complete, giving up (false) once ctx is done: a gzip
// that decompresses for minutes does not outlast --timeout.
func completeBy(ctx context.Context, path string) bool {
	if regular(path) != nil {
		return false
	}
	// O_NONBLOCK: a file swapped for a named pipe since it was listed
	// opens at once instead of waiting for a writer, and fails the check
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(ctxReader{ctx, f})
		if err != nil {
			return false
		}
		_, err = io.Copy(io.Discard, z)
		return err == nil
	}
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	tail := make([]byte, min(st.Size(), 64))
	if _, err := f.ReadAt(tail, st.Size()-int64(len(tail))); err != nil {
		return false
	}
	t := bytes.TrimRight(tail, " \t\r\n")
	return len(t) > 0 && (t[len(t)-1] == '}' || t[len(t)-1] == ']')
}
