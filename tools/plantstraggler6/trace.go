package plantstraggler6

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// doc is one Kineto trace held as decoded JSON; numbers stay json.Number so
// every field the planter does not touch is written back byte-for-byte in value.
type doc struct {
	top    map[string]any
	events []map[string]any
}

func readDoc(path string) (*doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if len(path) > 3 && path[len(path)-3:] == ".gz" {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		defer gz.Close()
		r = gz
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	raw, _ := top["traceEvents"].([]any)
	d := &doc{top: top}
	for _, e := range raw {
		if m, ok := e.(map[string]any); ok {
			d.events = append(d.events, m)
		}
	}
	return d, nil
}

// clone deep-copies the document (a rank made from another rank's trace).
func (d *doc) clone() *doc {
	d.sync()
	top := deepCopy(d.top).(map[string]any)
	out := &doc{top: top}
	for _, e := range top["traceEvents"].([]any) {
		if m, ok := e.(map[string]any); ok {
			out.events = append(out.events, m)
		}
	}
	return out
}

// deepCopy copies decoded JSON (maps, slices; strings, json.Number and bools are values).
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

func (d *doc) sync() {
	raw := make([]any, len(d.events))
	for i, e := range d.events {
		raw[i] = e
	}
	d.top["traceEvents"] = raw
}

// write stores the document gzipped and returns the SHA-256 of the file.
func (d *doc) write(path string) (string, error) {
	d.sync()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	enc := json.NewEncoder(gz)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d.top); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), os.WriteFile(path, buf.Bytes(), 0o644)
}

func fileSHA(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func numOr(v any, def float64) float64 {
	if f, ok := num(v); ok {
		return f
	}
	return def
}

// jnum renders a time in µs: whole µs stay integers, else ns precision.
func jnum(f float64) json.Number {
	r := math.Round(f*1000) / 1000
	if r == math.Trunc(r) {
		return json.Number(strconv.FormatFloat(r, 'f', 0, 64))
	}
	return json.Number(strconv.FormatFloat(r, 'f', -1, 64))
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func args(e map[string]any) map[string]any {
	a, _ := e["args"].(map[string]any)
	if a == nil {
		a = map[string]any{}
		e["args"] = a
	}
	return a
}

func ts(e map[string]any) float64  { return numOr(e["ts"], math.NaN()) }
func dur(e map[string]any) float64 { return numOr(e["dur"], 0) }

// gpuSide: events on the device timeline (mapped by the GPU clock map).
func gpuSide(e map[string]any) bool {
	switch str(e["cat"]) {
	case "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "gpu_user_annotation":
		return true
	case "ac2g", "async_cpu_to_gpu":
		return str(e["ph"]) == "f"
	}
	return false
}

// rigid GPU ops keep their duration under a shift; annotations stretch.
func rigid(e map[string]any) bool {
	return gpuSide(e) && str(e["cat"]) != "gpu_user_annotation" && str(e["ph"]) == "X"
}
