package crash

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

const maxSideDoc = 1 << 20

// sideDoc buffers a small JSON file (seed 000's crash_diagnostics.json, a
// kernel-API dump's metadata.json) so it can be decoded whole at EndFile.
type sideDoc struct {
	buf     []byte
	decided bool
	json    bool
	over    bool
}

func newSideDoc() *sideDoc { return &sideDoc{} }

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
		d.json = t[0] == '{' || IsPickle(t) // pickle: flight recorder (flightrecorder.go)
		if !d.json {
			return
		}
	}
	if len(d.buf)+len(p) > maxSideDoc {
		d.over = true
		d.buf = nil
		return
	}
	d.buf = append(d.buf, p...)
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
	ExecutionStatus string `json:"execution_status"`
	ProcessID       any    `json:"process_id"`
	Exception       *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"exception"`
}

func (d *sideDoc) finish(s *Session) {
	if !d.json || d.over || len(d.buf) == 0 {
		return
	}
	buf := d.buf
	d.buf = nil
	if IsPickle(buf) {
		frPickle(s, buf)
		return
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(buf, &keys) != nil {
		return
	}
	lineOf := func(key string) int {
		i := bytes.Index(buf, []byte(`"`+key+`"`))
		if i < 0 {
			return 1
		}
		return bytes.Count(buf[:i], []byte("\n")) + 1
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
			if i >= 5 {
				break
			}
			s.b.facts.notes = appendCap(s.b.facts.notes, "crash dump: "+clip(p, 200), 8)
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
		if md.Exception != nil {
			s.feedVirtual(md.Exception.Type+": "+md.Exception.Message, lineOf("exception"))
		}
	}
}
