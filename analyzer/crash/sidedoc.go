package crash

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// sideDoc buffers a small JSON file (seed 000's crash_diagnostics.json, a
// kernel-API dump's metadata.json) so it can be decoded whole at EndFile.
type sideDoc struct {
	buf     []byte
	max     int64 // limits.SideDocBytes
	decided bool
	json    bool
	over    bool
}

func newSideDoc(max int64) *sideDoc { return &sideDoc{max: max} }

func (d *sideDoc) write(p []byte) {
	if d.over || (d.decided && !d.json) {
		return
	}
	if !d.decided {
		t := bytes.TrimLeft(p, " \t\r\n\xef\xbb\xbf")
		if len(t) == 0 {
			return
		}
		d.decided = true
		d.json = t[0] == '{' || t[0] == '[' || IsPickle(t) // pickle: flight recorder (flightrecorder.go)
		if !d.json {
			return
		}
	}
	if int64(len(d.buf)+len(p)) > d.max {
		// a log whose first byte is '[' (dmesg's "[1234.5] …") or '{' is
		// no side document: only JSON (or a pickle) over the limit is one
		// left unread; the log's lines were read as any log's
		head := append(d.buf, p[:min(int64(len(p)), d.max-int64(len(d.buf))+1)]...)
		d.over = IsPickle(head) || jsonPrefix(head)
		d.json = d.over
		d.buf = nil
		return
	}
	d.buf = append(d.buf, p...)
}

// jsonPrefix reports whether b is the start of JSON values (one document,
// an array or JSON lines) cut anywhere: no syntax error before its end.
func jsonPrefix(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		switch {
		case err == nil:
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return true
		default:
			var se *json.SyntaxError
			// a cut inside a string or number is no error of the document
			return errors.As(err, &se) && se.Offset >= int64(len(b))-1
		}
	}
}

// crashDiagnostics is seed 000's post-failure collector output.
type crashDiagnostics struct {
	KernelAPILog       *string  `json:"kernel_api_log"`
	LastKernelBoundary *string  `json:"last_kernel_boundary"`
	CrashDumps         []string `json:"crash_dumps"`
	GPUArch            *string  `json:"gpu_arch"`
	ExitCode           *int     `json:"exit_code"`
}

type dumpMetadata struct {
	FunctionName    string `json:"function_name"`
	CallSequence    *int   `json:"call_sequence"`
	ExecutionStatus string `json:"execution_status"`
	ProcessID       any    `json:"process_id"`
	Exception       *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"exception"`
}

// finish decodes the buffered document(s) and records their evidence. It
// returns true when the file was one or more complete JSON documents (then
// a missing final newline is no truncation).
func (d *sideDoc) finish(s *Session) bool {
	if !d.json || d.over || len(d.buf) == 0 {
		return false
	}
	buf := d.buf
	d.buf = nil
	if IsPickle(buf) {
		frPickle(s, buf)
		return false
	}
	// one document, a JSON array (docker inspect) or JSON lines
	// (metadata.jsonl / session.jsonl): decode value by value
	dec := json.NewDecoder(bytes.NewReader(buf))
	var docs []json.RawMessage
	for len(docs) < 100000 {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if err != io.EOF {
				return false
			}
			break
		}
		docs = append(docs, v)
	}
	lineOf := func(key string) int {
		i := bytes.Index(buf, []byte(`"`+key+`"`))
		if i < 0 {
			return 1
		}
		return bytes.Count(buf[:i], []byte("\n")) + 1
	}
	if len(docs) == 1 {
		if ths, ok := extractPySpyJSON(docs[0]); ok {
			s.format("pyspy_json")
			s.feedVirtual(pyspyJSONText(ths), lineOf("frames"))
			return true
		}
	}
	for _, doc := range docs {
		t := bytes.TrimLeft(doc, " \t\r\n")
		if len(t) > 0 && t[0] == '[' {
			var arr []json.RawMessage
			if json.Unmarshal(doc, &arr) != nil {
				continue
			}
			for _, e := range arr {
				d.object(s, e, lineOf)
			}
			continue
		}
		d.object(s, doc, lineOf)
	}
	return true
}

// dockerState is the part of `docker inspect` (or podman inspect) output
// that says how the container ended.
type dockerState struct {
	Name  string `json:"Name"`
	State *struct {
		Status    string `json:"Status"`
		OOMKilled *bool  `json:"OOMKilled"`
		ExitCode  *int   `json:"ExitCode"`
		Error     string `json:"Error"`
		Pid       int    `json:"Pid"`
	} `json:"State"`
}

func (d *sideDoc) object(s *Session, buf json.RawMessage, lineOf func(string) int) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(buf, &keys) != nil {
		return
	}
	if _, ok := keys["State"]; ok {
		var ds dockerState
		if json.Unmarshal(buf, &ds) != nil || ds.State == nil {
			return
		}
		s.format("docker_inspect")
		no := lineOf("OOMKilled")
		raw := "State: OOMKilled=" + boolText(ds.State.OOMKilled) + " ExitCode=" + intText(ds.State.ExitCode)
		l := &line{file: s.cur.idx, no: no, raw: raw, text: raw, rank: -1, hipLevel: -1}
		code := 0
		if ds.State.ExitCode != nil {
			code = *ds.State.ExitCode
		}
		s.containerState(l, "docker inspect", code, ds.State.ExitCode != nil, ds.State.OOMKilled != nil && *ds.State.OOMKilled, ds.State.OOMKilled != nil)
		c := &s.b.facts.container
		c.name = strings.TrimPrefix(ds.Name, "/")
		c.errText = clip(ds.State.Error, 300)
		return
	}
	if _, ok := keys["last_kernel_boundary"]; ok || keys["kernel_api_log"] != nil {
		var cd crashDiagnostics
		if json.Unmarshal(buf, &cd) != nil {
			return
		}
		s.format("crash_diagnostics_json")
		if cd.KernelAPILog != nil {
			s.feedVirtual(*cd.KernelAPILog, lineOf("kernel_api_log"))
		}
		if cd.LastKernelBoundary != nil && *cd.LastKernelBoundary != "" {
			k := &s.b.facts.kernelAPI
			if k.lastCall == "" || !strings.Contains(*cd.LastKernelBoundary, k.lastCall) {
				s.feedVirtual(*cd.LastKernelBoundary, lineOf("last_kernel_boundary"))
			}
		}
		if cd.GPUArch != nil {
			s.noteArch(*cd.GPUArch)
		}
		for i, p := range cd.CrashDumps {
			if i >= 64 {
				break
			}
			ev := Evidence{File: s.cur.info.Name, Line: lineOf("crash_dumps"), Text: clip(p, 400)}
			s.noteDump(path.Dir(p), "", "", false, false, ev, true)
		}
		if cd.ExitCode != nil && *cd.ExitCode != 0 {
			l := &line{file: s.cur.idx, no: lineOf("exit_code"), raw: `"exit_code": ` + strconv.Itoa(*cd.ExitCode), rank: -1, hipLevel: -1}
			s.exitCode(l, *cd.ExitCode, -1, 0)
		}
		return
	}
	if keys["pg_status"] != nil && frJSON(s, buf, lineOf("pg_status")) {
		return
	}
	if keys["pg_status"] != nil && frJSON(s, buf, lineOf("pg_status")) {
		return
	}
	if _, ok := keys["function_name"]; ok {
		var md dumpMetadata
		if json.Unmarshal(buf, &md) != nil {
			return
		}
		s.format("kernel_api_dump_metadata")
		k := &s.b.facts.kernelAPI
		k.dumpFunc, k.dumpStatus = md.FunctionName, md.ExecutionStatus
		if md.Exception != nil && k.exceptionMsg == "" {
			k.exceptionMsg = md.Exception.Type + ": " + md.Exception.Message
		}
		// a metadata file of a dump folder: the folder is its directory
		name := s.cur.info.Name
		b := path.Base(strings.ReplaceAll(name, "\\", "/"))
		if strings.HasPrefix(b, "session.json") && md.CallSequence != nil {
			// FlashInfer's session log: one record per call and status
			dir := fmt.Sprintf("%s#%s_call%04d", name, md.FunctionName, *md.CallSequence)
			ev := Evidence{File: name, Line: 1, Text: clip(`"function_name": "`+md.FunctionName+`", "execution_status": "`+md.ExecutionStatus+`"`, 400)}
			s.noteDumpMeta(dir, md.FunctionName, md.ExecutionStatus, ev)
		} else if strings.HasPrefix(b, "metadata.json") {
			dir := path.Dir(strings.ReplaceAll(name, "\\", "/"))
			if dir == "." {
				dir = "<folder of " + name + ">"
			}
			ev := Evidence{File: name, Line: lineOf("execution_status"), Text: clip(`"function_name": "`+md.FunctionName+`", "execution_status": "`+md.ExecutionStatus+`"`, 400)}
			s.noteDumpMeta(dir, md.FunctionName, md.ExecutionStatus, ev)
		}
		if md.Exception != nil {
			s.feedVirtual(md.Exception.Type+": "+md.Exception.Message, lineOf("exception"))
		}
	}
}

func boolText(b *bool) string {
	if b == nil {
		return "?"
	}
	return strconv.FormatBool(*b)
}

func intText(n *int) string {
	if n == nil {
		return "?"
	}
	return strconv.Itoa(*n)
}
