package rocprof

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// rocprofv3 writes one CSV file per domain (<pid>_kernel_trace.csv,
// <pid>_hip_api_trace.csv, <pid>_memory_copy_trace.csv, <pid>_agent_info.csv,
// …; no file for a domain without records). Files are told apart by their
// header's column names, never by file name: the 6.x and 7.x column sets
// differ, so every column is found by name. Strings are written in "…"
// without escaping (csv.hpp); kernel names hold commas, so a quoted field
// ends only at a quote followed by a comma or the line's end.

// Table kinds of rocprofv3 CSV files.
const (
	csvUnknown = iota
	csvKernels
	csvAPI
	csvCopies
	csvAgents
	csvOther // a rocprofv3 table the analyses do not read (counters, …)
)

// CSVKind names the rocprofv3 table a CSV header line is, or "" if it is
// not one.
func CSVKind(head []byte) string {
	switch kindOf(columns(firstLine(head))) {
	case csvKernels:
		return "kernel trace"
	case csvAPI:
		return "API trace"
	case csvCopies:
		return "memory copy trace"
	case csvAgents:
		return "agent info"
	case csvOther:
		return "rocprofv3 table"
	}
	return ""
}

func firstLine(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimRight(b, "\r")
}

func kindOf(cols map[string]int) int {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := cols[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("Kernel_Name", "Start_Timestamp", "End_Timestamp", "Agent_Id"):
		return csvKernels
	case has("Function", "Start_Timestamp", "End_Timestamp", "Thread_Id"):
		return csvAPI
	case has("Direction", "Start_Timestamp", "End_Timestamp"):
		return csvCopies
	case has("Logical_Node_Id", "Agent_Type"):
		return csvAgents
	case has("Correlation_Id", "Start_Timestamp") || has("Counter_Name", "Dispatch_Id"):
		return csvOther
	}
	return csvUnknown
}

// columns maps the names of a header line to their positions; nil if the
// line is not a header of quoted identifiers.
func columns(line []byte) map[string]int {
	fs := splitCSV(line, nil)
	if len(fs) < 2 {
		return nil
	}
	m := map[string]int{}
	for i, f := range fs {
		n := string(f)
		if n == "" || strings.ContainsAny(n, " \t") {
			return nil
		}
		m[n] = i
	}
	return m
}

// splitCSV splits one line into fields, unquoting "…" fields (a quote
// ends a field only before a comma or the end; "" inside is one quote).
func splitCSV(line []byte, out [][]byte) [][]byte {
	out = out[:0]
	for i := 0; ; {
		if i < len(line) && line[i] == '"' {
			j := i + 1
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					j = len(line) // unterminated: take the rest
					out = append(out, line[i+1:])
					return out
				}
				j += k
				if j+1 == len(line) || line[j+1] == ',' {
					break
				}
				j++
			}
			f := line[i+1 : j]
			if bytes.Contains(f, []byte(`""`)) {
				f = bytes.ReplaceAll(f, []byte(`""`), []byte(`"`))
			}
			out = append(out, f)
			i = j + 1
		} else {
			k := bytes.IndexByte(line[i:], ',')
			if k < 0 {
				out = append(out, line[i:])
				return out
			}
			out = append(out, line[i:i+k])
			i += k
		}
		if i >= len(line) {
			return out
		}
		i++ // the comma
		if i == len(line) {
			return append(out, nil)
		}
	}
}

// CSVRun gathers the CSV files of one rocprofv3 run (one process) and adds
// them to the store as one trace file once all are read: the agents of
// agent_info.csv number the devices of the other tables, in any order.
type CSVRun struct {
	im      *trace.Importer
	b       *builder
	agents  []trace.Agent
	gpu     []trace.GPUOp // Device = the Agent_Id's number until Flush
	cpu     []trace.Span
	anyRows bool
}

// NewCSVRun starts a run as a file named name in st.
func NewCSVRun(st *trace.Store, name string) *CSVRun {
	im := st.NewImport(name)
	return &CSVRun{im: im, b: newBuilder(im, "rocprofv3 CSV")}
}

// CSVFile reads one CSV file of a run, line by line as bytes arrive.
type CSVFile struct {
	run     *CSVRun
	kind    int
	col     map[string]int
	ncol    int // fields in the header (names may repeat)
	carry   []byte
	fields  [][]byte
	line    int64
	bad     int64
	maxLine int
	err     string
}

// File starts reading a file of the run.
func (r *CSVRun) File(maxLine int64) *CSVFile {
	return &CSVFile{run: r, maxLine: int(min(maxLine, 1<<30))}
}

// Write pushes the next chunk of the file.
func (f *CSVFile) Write(p []byte) {
	f.run.im.File().Bytes += int64(len(p))
	if f.err != "" {
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.carry = append(f.carry, p...)
			if len(f.carry) > f.maxLine {
				f.err = fmt.Sprintf("line %d is longer than %d bytes (--max-event-bytes): the rest of the file is not read", f.line+1, f.maxLine)
				f.carry = nil
			}
			return
		}
		if len(f.carry) > 0 {
			f.carry = append(f.carry, p[:i]...)
			f.lineDone(f.carry)
			f.carry = f.carry[:0]
		} else {
			f.lineDone(p[:i])
		}
		p = p[i+1:]
	}
}

// Close ends the file; it returns the table's kind and a problem, if any.
func (f *CSVFile) Close() (string, string) {
	if len(f.carry) > 0 && f.err == "" {
		f.lineDone(f.carry)
	}
	kind := ""
	switch f.kind {
	case csvKernels:
		kind = "kernel trace"
	case csvAPI:
		kind = "API trace"
	case csvCopies:
		kind = "memory copy trace"
	case csvAgents:
		kind = "agent info"
	case csvOther:
		kind = "rocprofv3 table (not read)"
	}
	if f.err == "" && f.bad > 0 {
		f.err = fmt.Sprintf("%d rows could not be read (wrong field count or numbers): skipped", f.bad)
	}
	return kind, f.err
}

func (f *CSVFile) lineDone(line []byte) {
	f.line++
	line = bytes.TrimRight(line, "\r")
	if f.line == 1 {
		head := bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		f.col, f.ncol = columns(head), len(splitCSV(head, nil))
		f.kind = kindOf(f.col)
		return
	}
	if len(line) == 0 || f.kind == csvOther || f.kind == csvUnknown {
		return
	}
	f.fields = splitCSV(line, f.fields)
	if len(f.fields) != f.ncol {
		f.bad++
		return
	}
	if !f.row() {
		f.bad++
	}
}

// str returns a column's field, "" when the header lacks it.
func (f *CSVFile) str(name string) string {
	if i, ok := f.col[name]; ok {
		return string(f.fields[i])
	}
	return ""
}

// num returns a column's integer (a trailing number: "Agent 2" is 2);
// ok is false when the column is missing or holds no number.
func (f *CSVFile) num(name string) (int64, bool) {
	i, ok := f.col[name]
	if !ok {
		return 0, false
	}
	v := f.fields[i]
	j := len(v)
	for j > 0 && v[j-1] >= '0' && v[j-1] <= '9' {
		j--
	}
	if j == len(v) {
		return 0, false
	}
	if j > 0 && v[j-1] == '-' && j == 1 {
		j--
	}
	n, err := strconv.ParseInt(string(v[j:]), 10, 64)
	return n, err == nil
}

func (f *CSVFile) times() (int64, int64, bool) {
	s, ok1 := f.num("Start_Timestamp")
	e, ok2 := f.num("End_Timestamp")
	return s, e, ok1 && ok2
}

func (f *CSVFile) row() bool {
	r := f.run
	r.anyRows = true
	switch f.kind {
	case csvAgents:
		node, _ := f.num("Node_Id")
		logical, ok := f.num("Logical_Node_Id")
		if !ok {
			return false
		}
		if f.str("Agent_Type") != "GPU" {
			return true
		}
		a := trace.Agent{Node: node, Logical: logical, Arch: f.str("Name"), Product: f.str("Product_Name")}
		a.CUs, _ = f.num("Cu_Count")
		a.Wave, _ = f.num("Wave_Front_Size")
		r.agents = append(r.agents, a)
	case csvKernels:
		s, e, ok := f.times()
		agent, ok2 := f.num("Agent_Id")
		if !ok || !ok2 {
			return false
		}
		corr, ok := f.num("Correlation_Id")
		if !ok {
			corr = trace.None
		}
		q, ok := f.num("Queue_Id")
		if !ok && f.str("Queue_Id") != "" {
			return false // a queue id beyond int64 is no queue 0
		}
		r.gpu = append(r.gpu, trace.GPUOp{TS: s, Dur: e - s, Corr: corr, Ext: trace.None, Name: r.im.Name(f.str("Kernel_Name")),
			Device: agent, Stream: q, Kind: trace.KindKernel})
	case csvCopies:
		s, e, ok := f.times()
		if !ok {
			return false
		}
		corr, ok := f.num("Correlation_Id")
		if !ok {
			corr = trace.None
		}
		agent, ok := f.num("Destination_Agent_Id")
		if !ok {
			agent, _ = f.num("Source_Agent_Id")
		}
		r.gpu = append(r.gpu, trace.GPUOp{TS: s, Dur: e - s, Corr: corr, Ext: trace.None, Name: r.im.Name(f.str("Direction")),
			Device: agent, Stream: -1, Kind: trace.KindMemcpy})
		if n, ok := f.num("Bytes"); ok { // not in the 7.x layout
			r.b.src.CopiesWithSize++
			r.b.src.CopyBytes += n
		}
	case csvAPI:
		s, e, ok := f.times()
		if !ok {
			return false
		}
		corr, ok := f.num("Correlation_Id")
		if !ok {
			corr = trace.None
		}
		pid, _ := f.num("Process_Id")
		tid, _ := f.num("Thread_Id")
		r.cpu = append(r.cpu, trace.Span{TS: s, Dur: e - s, Corr: corr, Ext: trace.None, Name: r.im.Name(f.str("Function")),
			Track: r.im.Track(pid, tid), Kind: trace.KindRuntime})
		if r.b.src.Pid == 0 {
			r.b.src.Pid = pid
		}
	}
	return true
}

// Flush adds the run's records to the store: its agents number the
// devices (Agent_Id is the logical node id, rocprofv3's default).
func (r *CSVRun) Flush() {
	gpuOrdinals(r.agents)
	for _, a := range r.agents {
		r.b.gpu[a.Logical] = a.Device
	}
	r.b.agents(r.agents)
	for _, sp := range r.cpu {
		if !r.im.CPU(sp) {
			return
		}
	}
	for _, o := range r.gpu {
		o.Device = r.b.device(o.Device)
		o.Track = r.im.Track(o.Device, o.Stream)
		if !r.im.GPU(o) {
			return
		}
	}
	r.gpu, r.cpu = nil, nil
}
