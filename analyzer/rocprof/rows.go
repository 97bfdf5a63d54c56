package rocprof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// The row stream is how a host hands the module what it queried from a
// SQLite database (docs/rocprof.md):
//
//	gputriage-rows 1
//	@ <query name>
//	<one JSON array per row, SQLite's json_array() text>
//	…
//
// Lines end in "\n". Sections come in the order of Queries(); a query whose
// tables the database lacks has no section.

// RowsMagic starts every row stream.
const RowsMagic = "gputriage-rows 1\n"

// IsRows reports whether a document starts as a row stream.
func IsRows(head []byte) bool { return bytes.HasPrefix(head, []byte(RowsMagic)) }

// Rows reads a row stream, line by line as bytes arrive, into a new file.
type Rows struct {
	st      *trace.Store
	name    string
	b       *builder
	section string
	cols    []string
	carry   []byte
	line    int64
	maxLine int
	vals    [][]byte
	err     string
	bad     int64
	bytes   int64

	// RPD: an op's API call (its correlation) and a copy API's size;
	// the UserMarker calls that are autograd ops (ext_autogradapi).
	opAPI    map[int64]int64
	apiSize  map[int64]int64
	hasSize  map[int64]bool
	autograd map[int64]bool
}

// NewRows starts a row stream named name (the database file) in st.
func NewRows(st *trace.Store, name string, maxLine int64) *Rows {
	return &Rows{st: st, name: name, maxLine: int(min(maxLine, 1<<30))}
}

// Write pushes the next chunk of the stream.
func (r *Rows) Write(p []byte) {
	r.bytes += int64(len(p))
	if r.b != nil {
		r.b.im.File().Bytes = r.bytes
	}
	for len(p) > 0 && r.err == "" {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.carry = append(r.carry, p...)
			if len(r.carry) > r.maxLine {
				r.fail(fmt.Sprintf("row %d is longer than %d bytes (--max-event-bytes): the rest is not read", r.line+1, r.maxLine))
			}
			return
		}
		if len(r.carry) > 0 {
			r.carry = append(r.carry, p[:i]...)
			r.lineDone(r.carry)
			r.carry = r.carry[:0]
		} else {
			r.lineDone(p[:i])
		}
		p = p[i+1:]
	}
}

func (r *Rows) fail(msg string) {
	if r.err == "" {
		r.err = msg
	}
	if r.b != nil {
		r.b.im.Stop(msg)
	}
}

// Close ends the stream; it returns the database's format and a problem.
func (r *Rows) Close() (string, string) {
	if len(r.carry) > 0 {
		r.fail("the row stream ends inside a row (cut short)")
	}
	if r.b == nil {
		if r.err == "" {
			r.err = "the database holds none of the tables gputriage reads (rocpd kernels, RPD rocpd_op, rocprof-compute compute_dispatch)"
		}
		return "", r.err
	}
	if r.bad > 0 {
		msg := fmt.Sprintf("%d rows could not be read: skipped", r.bad)
		r.b.im.Problem(msg)
		r.b.im.File().BadEvents = r.bad
		if r.err == "" {
			r.err = msg
		}
	}
	return r.b.src.Format, r.err
}

func (r *Rows) lineDone(line []byte) {
	r.line++
	if r.line == 1 {
		if string(line)+"\n" != RowsMagic {
			r.fail("not a gputriage row stream")
		}
		return
	}
	if len(line) > 1 && line[0] == '@' && line[1] == ' ' {
		r.startSection(string(line[2:]))
		return
	}
	if r.section == "" {
		r.bad++
		return
	}
	if r.b != nil && r.b.im.Stopped() {
		return
	}
	vals, ok := splitArray(line, r.vals[:0])
	r.vals = vals
	if !ok || len(vals) != len(r.cols) {
		r.bad++
		return
	}
	if !r.row() {
		r.bad++
	}
}

func (r *Rows) startSection(name string) {
	r.section, r.cols = "", nil
	for _, q := range Queries() {
		if q.Name == name {
			r.section, r.cols = name, q.Columns
		}
	}
	if r.section == "" {
		r.fail(fmt.Sprintf("unknown section %q in the row stream", name))
		return
	}
	if r.b != nil || name == "metadata" {
		return
	}
	format := ""
	switch {
	case strings.HasPrefix(name, "rocpd."):
		format = "rocpd"
	case strings.HasPrefix(name, "rpd."):
		format = "RPD"
	case strings.HasPrefix(name, "compute."):
		format = "rocprof-compute"
	}
	r.b = newBuilder(r.st.NewImport(r.name), format)
	r.b.im.File().Bytes = r.bytes
	r.opAPI, r.apiSize, r.hasSize, r.autograd = map[int64]int64{}, map[int64]int64{}, map[int64]bool{}, map[int64]bool{}
}

// splitArray splits a one-line JSON array of scalars into their raw
// tokens (strings keep their quotes; null is "null").
func splitArray(b []byte, out [][]byte) ([][]byte, bool) {
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return out, false
	}
	i = jsontext.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, true
	}
	for i < len(b) {
		start := i
		if b[i] == '"' {
			_, j, ok := jsontext.ReadString(b, i)
			if !ok {
				return out, false
			}
			i = j
		} else {
			j, ok := jsontext.SkipValue(b, i)
			if !ok {
				return out, false
			}
			i = j
		}
		out = append(out, b[start:i])
		i = jsontext.SkipSpace(b, i)
		if i >= len(b) {
			return out, false
		}
		if b[i] == ']' {
			return out, true
		}
		if b[i] != ',' {
			return out, false
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	return out, false
}

// num is an integer value (SQLite writes integers without a fraction).
func (r *Rows) num(i int) (int64, bool) {
	v := r.vals[i]
	if len(v) == 0 || v[0] == 'n' || v[0] == '"' {
		return 0, false
	}
	return jsontext.ParseInt(v)
}

// str is a string value, decoded; "" for null.
func (r *Rows) str(i int) string {
	v := r.vals[i]
	if len(v) < 2 || v[0] != '"' {
		if len(v) > 0 && v[0] != 'n' {
			return string(v) // a number where a name was expected
		}
		return ""
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(body)
	}
	return s
}

// float is a real value, NaN-free; ok false for null.
func (r *Rows) float(i int) (float64, bool) {
	v := r.vals[i]
	if len(v) == 0 || v[0] == 'n' || v[0] == '"' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

func corrOf(v int64, ok bool) int64 {
	if !ok || v <= 0 {
		return trace.None
	}
	return v
}

func (r *Rows) row() bool {
	b := r.b
	switch r.section {
	case "metadata":
		// schema_version etc.: nothing the analyses need yet.
		return true
	case "rocpd.agents":
		abs, ok1 := r.num(0)
		logical, _ := r.num(1)
		ti, ok2 := r.num(2)
		if !ok1 || !ok2 {
			return false
		}
		a := trace.Agent{Device: ti, Node: abs, Logical: logical, Arch: r.str(3), Product: r.str(4)}
		a.CUs, _ = r.num(5)
		a.Wave, _ = r.num(6)
		b.src.Agents = append(b.src.Agents, a)
		b.agents(b.src.Agents)
	case "rocpd.processes":
		pid, ok := r.num(0)
		if !ok {
			return false
		}
		if b.src.Pid == 0 {
			b.src.Pid, b.src.Hostname = pid, r.str(1)
			b.src.InitNS, _ = r.num(2)
			b.src.FiniNS, _ = r.num(3)
		}
	case "rocpd.regions":
		s, ok1 := r.num(0)
		e, ok2 := r.num(1)
		if !ok1 || !ok2 {
			return false
		}
		pid, _ := r.num(5)
		tid, _ := r.num(6)
		c, ok := r.num(2)
		kind := trace.KindRuntime
		if strings.HasPrefix(r.str(4), "MARKER") {
			kind = trace.KindUserAnnotation
		}
		return b.im.CPU(trace.Span{TS: s, Dur: e - s, Corr: corrOf(c, ok), Ext: trace.None,
			Name: b.im.Name(r.str(3)), Track: b.im.Track(pid, tid), Kind: kind}) || true
	case "rocpd.kernels":
		s, ok1 := r.num(0)
		e, ok2 := r.num(1)
		dev, ok3 := r.num(4)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		c, ok := r.num(2)
		q, _ := r.num(5)
		b.kernel(s, e, corrOf(c, ok), r.str(3), dev, q)
	case "rocpd.memory_copies":
		s, ok1 := r.num(0)
		e, ok2 := r.num(1)
		if !ok1 || !ok2 {
			return false
		}
		c, ok := r.num(2)
		dev, okd := r.num(6)
		if r.str(5) != "GPU" || !okd {
			dev, okd = r.num(8)
		}
		if n, ok := r.num(4); ok {
			b.src.CopiesWithSize++
			b.src.CopyBytes += n
		}
		q, _ := r.num(9)
		b.copy(s, e, corrOf(c, ok), r.str(3), dev, q)
	case "rpd.autograd":
		id, ok := r.num(0)
		if !ok {
			return false
		}
		r.autograd[id] = true
	case "rpd.api":
		id, ok1 := r.num(0)
		s, ok2 := r.num(3)
		e, ok3 := r.num(4)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		pid, _ := r.num(1)
		tid, _ := r.num(2)
		if b.src.Pid == 0 {
			b.src.Pid = pid
		}
		name, kind := r.str(5), trace.KindRuntime
		if name == "UserMarker" {
			// roctx ranges: the marker's text is its args string
			if m := r.str(6); m != "" {
				name = m
			}
			kind = trace.KindUserAnnotation
			if r.autograd[id] {
				// rocmProfileData's autograd hook records each PyTorch op
				// as a marker: a CPU op, so kernels launched inside it get
				// it as their CPU op (by time on the thread, as Kineto's).
				kind = trace.KindCPUOp
			}
		}
		b.im.CPU(trace.Span{TS: s, Dur: e - s, Corr: id, Ext: trace.None, Name: b.im.Name(name), Track: b.im.Track(pid, tid), Kind: kind})
	case "rpd.api_ops":
		api, ok1 := r.num(0)
		op, ok2 := r.num(1)
		if !ok1 || !ok2 {
			return false
		}
		r.opAPI[op] = api
	case "rpd.copyapi":
		api, ok1 := r.num(0)
		size, ok2 := r.num(1)
		if !ok1 || !ok2 {
			return ok1
		}
		r.apiSize[api], r.hasSize[api] = size, true
	case "rpd.ops":
		s, ok1 := r.num(1)
		e, ok2 := r.num(2)
		gpu, ok3 := r.num(3)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		id, _ := r.num(0)
		q, _ := r.num(4)
		desc, typ := r.str(5), r.str(6)
		corr := int64(trace.None)
		if api, ok := r.opAPI[id]; ok {
			corr = api
		}
		switch {
		case typ == "KernelExecution" || typ == "Task":
			// graph-launched kernels are Task ops
			b.kernel(s, e, corr, desc, gpu, q)
		case strings.HasPrefix(typ, "Copy"):
			if corr != trace.None && r.hasSize[corr] {
				b.src.CopiesWithSize++
				b.src.CopyBytes += r.apiSize[corr]
			}
			b.copy(s, e, corr, typ, gpu, q)
		default: // FillBuffer, barriers: GPU work that is not a kernel or copy
			name := typ
			if desc != "" {
				name = desc
			}
			b.im.GPU(trace.GPUOp{TS: s, Dur: e - s, Corr: corr, Ext: trace.None, Name: b.im.Name(name),
				Track: b.im.Track(gpu, q), Device: gpu, Stream: q, Kind: trace.KindMemset})
		}
	case "compute.workloads":
		if _, ok := r.num(0); !ok {
			return false
		}
		if len(b.src.Agents) == 0 {
			a := trace.Agent{Product: r.str(1), Arch: r.str(2)}
			a.CUs, _ = r.num(3)
			b.src.Hostname = r.str(4)
			b.agents([]trace.Agent{a})
		}
	case "compute.dispatches":
		s, ok1 := r.num(1)
		e, ok2 := r.num(2)
		gpu, ok3 := r.num(3)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		b.kernel(s, e, trace.None, r.str(4), gpu, 0)
	case "compute.roofline":
		// per-kernel rates and intensities: read by the roofline (later)
	}
	return true
}

// Store is the store the stream's file went to.
func (r *Rows) Store() *trace.Store { return r.st }
