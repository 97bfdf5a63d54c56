package crash

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// py-spy's JSON dump (py-spy dump --json) as the same stack facts as its
// text dump (extractor → the hang parser's py-spy facts). Shapes:
//   - py-spy's own output, an array of thread objects {"pid", "thread_id",
//     "thread_name", "os_thread_id", "active", "owns_gil", "frames":
//     [{"name", "filename", "module", "short_filename", "line", "locals"}]}
//     (benfred/py-spy#740 quotes its "active" / "owns_gil" fields);
//   - the same traces wrapped by a tool that calls py-spy as a library,
//     {"Ok": {"pid", "stack_traces": [ … ]}}, or served with the frames
//     renamed, {"pid", "source": "py-spy", "threads": [{…, "frames":
//     [{"function", "file", "line"}]}]} (public repositories' test data).
// The dump is rewritten as py-spy's text ("Process N:", "Thread T
// (idle): \"name\"", "    fn (file:line)") and read by the text reader, so
// both forms give one set of facts.

type pyspyJSONFrame struct {
	Name          string `json:"name"`
	Function      string `json:"function"`
	Filename      string `json:"filename"`
	ShortFilename string `json:"short_filename"`
	File          string `json:"file"`
	Line          int    `json:"line"`
}

type pyspyJSONThread struct {
	PID        int              `json:"pid"`
	ThreadID   json.Number      `json:"thread_id"`
	ThreadName *string          `json:"thread_name"`
	OSThreadID *json.Number     `json:"os_thread_id"`
	Active     bool             `json:"active"`
	OwnsGIL    bool             `json:"owns_gil"`
	Frames     []pyspyJSONFrame `json:"frames"`
}

// PySpyJSON reports whether the head of a file is a py-spy JSON dump (the
// router sends it to the crash session as a log, not to the trace reader).
func PySpyJSON(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(t) == 0 || (t[0] != '[' && t[0] != '{') {
		return false
	}
	return bytes.Contains(head, []byte(`"thread_id"`)) && bytes.Contains(head, []byte(`"frames"`)) &&
		(bytes.Contains(head, []byte(`"owns_gil"`)) || bytes.Contains(head, []byte(`"os_thread_id"`)))
}

// extractPySpyJSON reads the threads of one decoded document.
func extractPySpyJSON(doc []byte) ([]pyspyJSONThread, bool) {
	t := bytes.TrimLeft(doc, " \t\r\n")
	if len(t) == 0 {
		return nil, false
	}
	var ths []pyspyJSONThread
	if t[0] == '{' {
		var w struct {
			Ok *struct {
				StackTraces []pyspyJSONThread `json:"stack_traces"`
			} `json:"Ok"`
			PID     int               `json:"pid"`
			Threads []pyspyJSONThread `json:"threads"`
		}
		if json.Unmarshal(doc, &w) != nil {
			return nil, false
		}
		switch {
		case w.Ok != nil:
			ths = w.Ok.StackTraces
		default:
			ths = w.Threads
			for i := range ths {
				if ths[i].PID == 0 {
					ths[i].PID = w.PID
				}
			}
		}
	} else if json.Unmarshal(doc, &ths) != nil {
		return nil, false
	}
	if len(ths) == 0 {
		return nil, false
	}
	for _, th := range ths {
		if th.ThreadID == "" || th.Frames == nil {
			return nil, false
		}
	}
	return ths, true
}

// pyspyJSONText writes the threads as py-spy's text dump.
func pyspyJSONText(ths []pyspyJSONThread) string {
	var b strings.Builder
	pid := -1
	for _, th := range ths {
		if th.PID != pid && th.PID > 0 {
			pid = th.PID
			b.WriteString("Process " + strconv.Itoa(pid) + ": (py-spy dump --json)\n")
		}
		id := string(th.ThreadID)
		if th.OSThreadID != nil && *th.OSThreadID != "" {
			id = string(*th.OSThreadID)
		} else if v, err := strconv.ParseUint(id, 10, 64); err == nil {
			id = "0x" + strings.ToUpper(strconv.FormatUint(v, 16))
		}
		status := "idle"
		switch {
		case th.Active && th.OwnsGIL:
			status = "active+gil"
		case th.Active:
			status = "active"
		case th.OwnsGIL:
			status = "gil"
		}
		b.WriteString("Thread " + id + " (" + status + ")")
		if th.ThreadName != nil && *th.ThreadName != "" {
			b.WriteString(`: "` + strings.ReplaceAll(*th.ThreadName, "\n", " ") + `"`)
		}
		b.WriteByte('\n')
		for i, f := range th.Frames {
			if i >= 64 {
				break
			}
			name := firstNonEmpty(f.Name, f.Function)
			file := firstNonEmpty(f.ShortFilename, f.Filename, f.File)
			if name == "" {
				continue
			}
			b.WriteString("    " + strings.ReplaceAll(name, "\n", " ") + " (" + strings.ReplaceAll(file, "\n", " ") + ":" + strconv.Itoa(f.Line) + ")\n")
		}
	}
	return b.String()
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
