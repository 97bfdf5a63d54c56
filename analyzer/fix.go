package analyzer

import (
	"bytes"
	"fmt"
	"strings"

	"encoding/json"

	"github.com/gputriage/gputriage/analyzer/perfetto"
)

// fixJob runs perfetto-fix over the push ABI: the host pushes the trace
// twice (the first pass plans the lane moves, the second rewrites) and
// drains the rewritten bytes with TakeOutput after each push, so a trace of
// any size streams through a bounded buffer.
type fixJob struct {
	name    string
	pass    int
	fixer   *perfetto.Fixer
	rw      *perfetto.Rewriter
	stats   *perfetto.Stats
	out     bytes.Buffer
	hostErr string
	err     error
}

func (j *Job) fixBegin(name string) {
	if j.fix == nil {
		j.fix = &fixJob{name: name, fixer: perfetto.NewFixer()}
		return
	}
	f := j.fix
	f.pass = 2
	if name != f.name {
		f.err = fmt.Errorf("perfetto-fix: the second pass must push %s again, got %s", f.name, name)
		return
	}
	f.rw = f.fixer.Output(&f.out)
}

func (f *fixJob) write(p []byte) (int, error) {
	if f.err != nil {
		return len(p), nil
	}
	if f.pass == 2 {
		if _, err := f.rw.Write(p); err != nil {
			f.err = err
		}
		return len(p), nil
	}
	f.fixer.Write(p)
	return len(p), nil
}

func (j *Job) fixEnd() {
	f := j.fix
	if f.pass == 0 {
		f.stats = f.fixer.Plan()
		f.pass = 1
	}
}

// TakeOutput returns the bytes written since the last call (perfetto-fix).
// The slice is valid until the next call into the job.
func (j *Job) TakeOutput() []byte {
	if j.fix == nil {
		return nil
	}
	b := append([]byte(nil), j.fix.out.Bytes()...)
	j.fix.out.Reset()
	return b
}

func (j *Job) fixFinish() *Result {
	res := &Result{Files: j.files, Artifacts: []Artifact{}}
	f := j.fix
	switch {
	case f == nil:
		res.ExitCode, res.Error = ExitUsage, "perfetto-fix: no input"
		return res
	case f.err == nil && f.rw != nil:
		f.err = f.rw.Close()
	case f.err == nil:
		f.err = fmt.Errorf("perfetto-fix: %s was pushed once; push it a second time to rewrite it", f.name)
	}
	if f.err != nil {
		res.ExitCode, res.Error = ExitUsage, f.err.Error()
		return res
	}
	partial := !f.stats.Complete || f.hostErr != "" || f.rw.Closed
	if partial {
		res.ExitCode = ExitPartial
		res.Files[0].Partial = true
		res.Files[0].Problem = f.hostErr
		if f.rw.Closed {
			closed := fmt.Sprintf("the trace ends inside traceEvents (truncated): the output is a valid trace closed after the last complete event (%d events); anything after the cut is lost", f.stats.Events)
			res.Files[0].Problem = strings.TrimPrefix(res.Files[0].Problem+"; "+closed, "; ")
		}
	}
	rep := struct {
		Tool    string `json:"tool"`
		Source  string `json:"source_trace_path"`
		Partial bool   `json:"partial"`
		*perfetto.Stats
	}{"gputriage", f.name, partial, f.stats}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
	// The report is derived from the trace's content (its counts): its
	// digest names the run.
	h := digest{}
	h.write(buf.Bytes())
	text := stamp(buf.String(), runID([]string{h.sum()}, j.identity()), partial)
	res.Artifacts = append(res.Artifacts, Artifact{"perfetto_fix_report.json", text})
	return res
}
