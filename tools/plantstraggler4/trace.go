// Package plantstraggler4 plants stragglers into real multi-rank Kineto traces by a replay of
// every rank's host and GPU timeline, and keys every collective instance of the planted traces
// by issue 19's definitions, computed again from the written files (not from the replay).
//
// It shares no code with analyzer/ or the other planters: it is an independent measurement.
package plantstraggler4

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Trace is one rank's file, decoded loosely so every field it carries is written back.
type Trace struct {
	Path   string
	Top    map[string]any
	Events []map[string]any
}

// LoadTrace reads a Kineto JSON file, gzipped or not.
func LoadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParseTrace(path, raw)
}

// ParseTrace decodes trace bytes (numbers kept as written).
func ParseTrace(path string, raw []byte) (*Trace, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	evs, _ := top["traceEvents"].([]any)
	t := &Trace{Path: path, Top: top}
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok {
			t.Events = append(t.Events, m)
		}
	}
	return t, nil
}

// Marshal writes the trace back as JSON (keys sorted: deterministic bytes).
func (t *Trace) Marshal() ([]byte, error) {
	evs := make([]any, len(t.Events))
	for i, e := range t.Events {
		evs[i] = e
	}
	t.Top["traceEvents"] = evs
	return json.Marshal(t.Top)
}

// Clone deep-copies the trace (events are edited in place by the replay).
func (t *Trace) Clone() *Trace {
	raw, err := t.Marshal()
	if err != nil {
		panic(err) // decoded from JSON, so it encodes
	}
	c, err := ParseTrace(t.Path, raw)
	if err != nil {
		panic(err)
	}
	return c
}

// ns reads a µs timestamp or duration field as integer nanoseconds, exactly for decimals
// with up to 3 fraction digits (Kineto writes ns resolution).
func ns(e map[string]any, key string) (int64, bool) {
	v, ok := e[key]
	if !ok {
		return 0, false
	}
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64:
		return int64(x*1000 + 0.5), true
	case string:
		s = x
	default:
		return 0, false
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		return int64(f*1000 + 0.5), true
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	fp = (fp + "000")[:3]
	i, err1 := strconv.ParseInt(ip, 10, 64)
	f, err2 := strconv.ParseInt(fp, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	r := i*1000 + f
	if neg {
		r = -r
	}
	return r, true
}

// num writes nanoseconds back as a µs decimal with 3 fraction digits.
func num(v int64) json.Number {
	neg := v < 0
	if neg {
		v = -v
	}
	s := fmt.Sprintf("%d.%03d", v/1000, v%1000)
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

func str(e map[string]any, key string) string {
	s, _ := e[key].(string)
	return s
}

func args(e map[string]any) map[string]any {
	a, _ := e["args"].(map[string]any)
	return a
}

func argInt(e map[string]any, key string) (int64, bool) {
	a := args(e)
	if a == nil {
		return 0, false
	}
	switch x := a[key].(type) {
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			f, err := x.Float64()
			return int64(f), err == nil
		}
		return i, true
	case float64:
		return int64(x), true
	}
	return 0, false
}

func anyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	case float64:
		return int64(x), true
	}
	return 0, false
}

// gpuCats are the event categories that run on the device's clock.
var gpuCats = map[string]bool{
	"kernel": true, "gpu_memcpy": true, "gpu_memset": true, "gpu_user_annotation": true,
	"Kernel": true, "Memcpy": true, "Memset": true,
}

func isGPUOp(e map[string]any) bool {
	c := str(e, "cat")
	return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset"
}

// isCollectiveKernel: NCCL/RCCL kernels by name, or a kernel carrying PyTorch's collective args.
func isCollectiveKernel(e map[string]any) bool {
	if c := str(e, "cat"); c != "kernel" && c != "Kernel" {
		return false
	}
	n := strings.ToLower(str(e, "name"))
	if strings.Contains(n, "nccl") || strings.Contains(n, "rccl") {
		return true
	}
	_, ok := args(e)["Collective name"]
	return ok
}

func isRuntime(e map[string]any) bool {
	c := str(e, "cat")
	return c == "cuda_runtime" || c == "hip_runtime" || c == "cuda_driver" || c == "Runtime"
}
