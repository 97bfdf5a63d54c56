package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// ev is one trace event with its times pulled out; the map is written back on save.
type ev struct {
	m      map[string]any
	gpu    bool // on the device's side of the trace (its pid is a kernel's pid)
	ts     float64
	end    float64
	hasTS  bool
	hasDur bool
}

func (e *ev) name() string { s, _ := e.m["name"].(string); return s }
func (e *ev) cat() string  { s, _ := e.m["cat"].(string); return s }
func (e *ev) args() map[string]any {
	a, _ := e.m["args"].(map[string]any)
	return a
}
func (e *ev) argNum(k string) (float64, bool) {
	a := e.args()
	if a == nil {
		return 0, false
	}
	switch v := a[k].(type) {
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}
func (e *ev) argStr(k string) string {
	a := e.args()
	if a == nil {
		return ""
	}
	s, _ := a[k].(string)
	return s
}

// rankTrace is one rank's file.
type rankTrace struct {
	doc     map[string]any
	evs     []*ev
	integer bool // every timestamp was a whole µs: written back rounded to 1 µs, else to 1 ns
}

func readTrace(path string) (*rankTrace, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r io.Reader = bytes.NewReader(raw)
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	list, _ := doc["traceEvents"].([]any)
	t := &rankTrace{doc: doc, integer: true}
	gpuPids := map[string]bool{}
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		e := &ev{m: m}
		if n, ok := m["ts"].(json.Number); ok {
			e.ts, _ = n.Float64()
			e.hasTS = true
			if strings.ContainsAny(n.String(), ".eE") && e.ts != math.Trunc(e.ts) {
				t.integer = false
			}
		}
		e.end = e.ts
		if n, ok := m["dur"].(json.Number); ok {
			d, _ := n.Float64()
			e.end = e.ts + d
			e.hasDur = true
			if d != math.Trunc(d) {
				t.integer = false
			}
		}
		if e.cat() == "kernel" {
			gpuPids[fmt.Sprint(m["pid"])] = true
		}
		t.evs = append(t.evs, e)
	}
	for _, e := range t.evs {
		e.gpu = gpuPids[fmt.Sprint(e.m["pid"])]
	}
	return t, nil
}

// round keeps the file's own precision.
func (t *rankTrace) round(x float64) float64 {
	if t.integer {
		return math.Round(x)
	}
	return math.Round(x*1000) / 1000
}

func (t *rankTrace) write(path string) error {
	list := make([]any, 0, len(t.evs))
	for _, e := range t.evs {
		if e.hasTS {
			ts := t.round(e.ts)
			e.m["ts"] = json.Number(fmtNum(ts))
			if e.hasDur {
				e.m["dur"] = json.Number(fmtNum(t.round(t.round(e.end) - ts)))
			}
		}
		list = append(list, e.m)
	}
	t.doc["traceEvents"] = list
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.ModTime = time.Time{}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t.doc); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e18 {
		return fmt.Sprintf("%.0f", x)
	}
	s := fmt.Sprintf("%.3f", x)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// rank of the trace (distributedInfo.rank).
func (t *rankTrace) rank() int {
	di, _ := t.doc["distributedInfo"].(map[string]any)
	if n, ok := di["rank"].(json.Number); ok {
		i, _ := n.Int64()
		return int(i)
	}
	return -1
}
