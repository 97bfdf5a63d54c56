package main

import (
	"bytes"
	"encoding/json"
	"github.com/gputriage/gputriage/internal/fixture"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// standIn is a stand-in for a serving framework's profiling API, following
// the real request bodies (see profile.go for the upstream functions) and
// file naming, and writing each trace slowly (half, a pause, the rest) so
// that a gzip is seen while it is still being written.
type standIn struct {
	t       *testing.T
	kind    string   // sglang | vllm
	traces  []string // fixture files, one per rank
	tp      int
	vllmDir string // vLLM: its VLLM_TORCH_PROFILER_DIR
	// misbehaviour
	busy      bool // profiling already running
	noWrite   bool // accept, write nothing (but create the folder)
	elsewhere bool // write somewhere this machine cannot see

	mu       sync.Mutex
	starts   []map[string]any
	generate int
	stops    int
	writers  sync.WaitGroup
}

func (s *standIn) writeTraces(dir string, names []string) {
	if s.noWrite {
		os.MkdirAll(dir, 0o755)
		return
	}
	if s.elsewhere {
		dir = s.t.TempDir() // the server's own filesystem
	}
	os.MkdirAll(dir, 0o755)
	for i, src := range s.traces {
		b, err := os.ReadFile(src)
		if err != nil {
			s.t.Errorf("fixture: %v", err)
			return
		}
		p := filepath.Join(dir, names[i])
		s.writers.Add(1)
		go func() {
			defer s.writers.Done()
			f, _ := os.Create(p)
			f.Write(b[:len(b)/2])
			time.Sleep(400 * time.Millisecond)
			f.Write(b[len(b)/2:])
			f.Close()
		}()
	}
}

func (s *standIn) handler() http.Handler {
	mux := http.NewServeMux()
	running := false
	if s.kind == "sglang" {
		mux.HandleFunc("GET /get_server_info", func(w http.ResponseWriter, r *http.Request) {
			json.NewEncoder(w).Encode(map[string]any{"model_path": "Qwen/Qwen3-8B", "served_model_name": "Qwen/Qwen3-8B",
				"tp_size": s.tp, "port": 30000, "host": "0.0.0.0", "attention_backend": "aiter", "version": "0.5.5"})
		})
		mux.HandleFunc("POST /generate", func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.generate++
			s.mu.Unlock()
			w.Write([]byte(`{"text":" Paris"}`))
		})
		// python/sglang/srt/entrypoints/http_server.py start_profile_async: a ProfileReqInput.
		mux.HandleFunc("POST /start_profile", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				OutputDir      *string  `json:"output_dir"`
				StartStep      *int     `json:"start_step"`
				NumSteps       *int     `json:"num_steps"`
				Activities     []string `json:"activities"`
				WithStack      *bool    `json:"with_stack"`
				RecordShapes   *bool    `json:"record_shapes"`
				ProfileByStage bool     `json:"profile_by_stage"`
				MergeProfiles  bool     `json:"merge_profiles"`
				ProfilePrefix  *string  `json:"profile_prefix"`
			}
			dec := json.NewDecoder(r.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&req); err != nil {
				http.Error(w, `{"detail":"`+err.Error()+`"}`, http.StatusUnprocessableEntity)
				return
			}
			var raw map[string]any
			b, _ := json.Marshal(req)
			json.Unmarshal(b, &raw)
			s.mu.Lock()
			s.starts = append(s.starts, raw)
			s.mu.Unlock()
			if s.busy || running {
				http.Error(w, "Profiling is already in progress. Call /stop_profile first.", http.StatusInternalServerError)
				return
			}
			if req.OutputDir == nil || !filepath.IsAbs(*req.OutputDir) {
				http.Error(w, "output_dir must be absolute", http.StatusBadRequest)
				return
			}
			names := []string{}
			for r := range s.traces {
				stage := ""
				if req.ProfileByStage {
					stage = "-DECODE"
				}
				names = append(names, "1732000000.5-TP-"+string(rune('0'+r))+stage+".trace.json.gz")
			}
			if req.NumSteps != nil && *req.NumSteps > 0 {
				s.writeTraces(*req.OutputDir, names)
			} else {
				running = true
			}
			w.Write([]byte("Start profiling.\n"))
		})
		mux.HandleFunc("POST /stop_profile", func(w http.ResponseWriter, r *http.Request) {
			s.stops++
			w.Write([]byte("Stop profiling. This will take some time.\n"))
		})
		return mux
	}
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"version":"0.11.0"}`)) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model","root":"/models/llama","max_model_len":8192}]}`))
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.generate++
		s.mu.Unlock()
		w.Write([]byte(`{"choices":[{"text":" Paris"}]}`))
	})
	// vllm/entrypoints/serve/profile/api_router.py: an optional StartProfileRequest.
	mux.HandleFunc("POST /start_profile", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			NumSteps   *int `json:"num_steps"`
			DelaySteps *int `json:"delay_steps"`
		}
		if r.ContentLength > 0 {
			dec := json.NewDecoder(r.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusUnprocessableEntity)
				return
			}
		}
		s.mu.Lock()
		s.starts = append(s.starts, map[string]any{"num_steps": req.NumSteps})
		s.mu.Unlock()
		if s.busy || running {
			http.Error(w, `{"error":"Profiler is already running"}`, http.StatusInternalServerError)
			return
		}
		running = true
	})
	mux.HandleFunc("POST /stop_profile", func(w http.ResponseWriter, r *http.Request) {
		s.stops++
		running = false
		s.writeTraces(s.vllmDir, []string{"node1_12345.1732000000123.pt.trace.json.gz"})
	})
	return mux
}

func profileRun(t *testing.T, s *standIn, args ...string) (int, string, string) {
	t.Helper()
	old := pollEvery
	pollEvery = 50 * time.Millisecond
	defer func() { pollEvery = old }()
	srv := httptest.NewServer(s.handler())
	defer srv.Close()
	var so, se bytes.Buffer
	code := runProfile(append([]string{"--url", srv.URL}, args...), &so, &se, &se)
	s.writers.Wait()
	return code, so.String(), se.String()
}

func readMeta(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "profile_metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func TestProfileSGLang(t *testing.T) {
	r0 := filepath.Join(shared, "gpu/traces/tp_rank0.trace.json.gz")
	r1 := filepath.Join(shared, "gpu/traces/tp_rank1.trace.json.gz")
	if _, err := os.Stat(r0); err != nil {
		fixture.Missing(t, "shared test data not available")
	}
	s := &standIn{t: t, kind: "sglang", traces: []string{r0, r1}, tp: 2}
	base, out := t.TempDir(), t.TempDir()
	code, _, se := profileRun(t, s, "--num-steps", "3", "--probe", "2", "--output-dir", base, "--engine", "native", "-q", "-o", out,
		"--experiment-id", "exp-1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	st := s.starts[0]
	if st["num_steps"] != 3.0 || !strings.HasPrefix(st["output_dir"].(string), base) || len(st["activities"].([]any)) != 2 || s.generate == 0 {
		t.Errorf("start_profile body %v, %d generate requests", st, s.generate)
	}
	if s.stops != 0 {
		t.Error("stop_profile called although SGLang stops after num_steps")
	}
	m := readMeta(t, out)
	if m["model_name"] != "Qwen/Qwen3-8B" || m["tp_size"] != 2.0 || m["experiment_id"] != "exp-1" || m["partial"] != false {
		t.Errorf("metadata: model %v tp %v exp %v partial %v", m["model_name"], m["tp_size"], m["experiment_id"], m["partial"])
	}
	if flags, _ := m["server_flags"].(string); !strings.Contains(flags, `"attention_backend":"aiter"`) {
		t.Errorf("server_flags %v", m["server_flags"])
	}
	// Triage analyses rank 0; rank 1 is the same run, never its mapping
	// trace, and the user is told.
	if paths := m["source_trace_paths"].([]any); len(paths) != 1 || !strings.Contains(paths[0].(string), "-TP-0") || m["mapping_trace_path"] != nil {
		t.Errorf("formal %v mapping %v", paths, m["mapping_trace_path"])
	}
	if !strings.Contains(se, "TP-1.trace.json.gz: another rank") {
		t.Errorf("TP-1 left out silently: %s", se)
	}
	// Without --num-steps SGLang profiles until /stop_profile.
	s2 := &standIn{t: t, kind: "sglang", traces: []string{r0, r1}, tp: 2}
	code, _, se = profileRun(t, s2, "--num-steps", "0", "--output-dir", base, "--engine", "native", "-q", "--timeout", "3s")
	if code == 0 || s2.stops != 1 {
		// The stand-in writes on num_steps only: stop then times out on no files.
		t.Logf("exit %d stops %d: %s", code, s2.stops, se)
	}
	if s2.stops != 1 {
		t.Errorf("stop_profile calls %d, want 1", s2.stops)
	}
}

func TestProfileVLLM(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	vdir := t.TempDir()
	s := &standIn{t: t, kind: "vllm", traces: []string{tr}, vllmDir: vdir}
	out := t.TempDir()
	code, _, se := profileRun(t, s, "--output-dir", vdir, "--probe", "1", "--engine", "native", "-q", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	if s.stops != 1 || s.generate != 1 {
		t.Errorf("stops %d generate %d", s.stops, s.generate)
	}
	if m := readMeta(t, out); m["model_name"] != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("model %v", m["model_name"])
	}
	// vLLM's directory is the server's: without --output-dir, say so.
	code, _, se = profileRun(t, &standIn{t: t, kind: "vllm", vllmDir: vdir}, "-q")
	if code != 2 || !strings.Contains(se, "VLLM_TORCH_PROFILER_DIR") {
		t.Errorf("no --output-dir: exit %d %s", code, se)
	}
}

func TestProfileFailures(t *testing.T) {
	tr := filepath.Join("..", "..", "testdata", "default", "sglang_Qwen3-8B_decode.json.gz")
	// Unreachable: a server that is gone.
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close()
	var so, se bytes.Buffer
	if code := runProfile([]string{"--url", url, "-q"}, &so, &se, &se); code != 2 || !strings.Contains(se.String(), "cannot reach") {
		t.Errorf("unreachable: exit %d %s", code, se.String())
	}
	for _, c := range []struct {
		name string
		s    *standIn
		want string
	}{
		{"already running", &standIn{kind: "sglang", traces: []string{tr}, tp: 1, busy: true}, "already running"},
		{"vllm already running", &standIn{kind: "vllm", traces: []string{tr}, busy: true}, "already running"},
		{"never writes", &standIn{kind: "sglang", traces: []string{tr}, tp: 1, noWrite: true}, "wrote no trace"},
		{"written elsewhere", &standIn{kind: "sglang", traces: []string{tr}, tp: 1, elsewhere: true}, "does not exist on this machine"},
	} {
		c.s.t = t
		c.s.vllmDir = t.TempDir()
		code, _, msg := profileRun(t, c.s, "--output-dir", c.s.vllmDir, "--timeout", "1s", "--num-steps", "2", "--engine", "native", "-q")
		if code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%s: exit %d, %q", c.name, code, msg)
		}
	}
	// A gzip still being written is not complete.
	dir := t.TempDir()
	b, _ := os.ReadFile(tr)
	half := filepath.Join(dir, "x.trace.json.gz")
	os.WriteFile(half, b[:len(b)/2], 0o644)
	if complete(half) {
		t.Error("half a gzip taken as complete")
	}
	os.WriteFile(half, b, 0o644)
	if !complete(half) {
		t.Error("whole gzip not complete")
	}
}
