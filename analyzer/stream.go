package analyzer

import (
	"bufio"
	"io"
	"strings"
)

// streamed is a JSON artifact too large to hold as one string (the merged
// rank trace grows with every rank's GPU op count): its contract fields
// (head, stampHead's, set when the result is stamped) and a body that
// writes every other member — `,\n  "k": v` … — and the closing "\n}\n",
// the bytes stamp would give for the same text. Its Artifact's Text stays
// empty; the result writes it (WriteArtifact) or builds it (Text).
type streamed struct {
	head string
	body func(w io.Writer) error
}

// stream registers a streamed artifact of the job's result and returns its
// placeholder.
func (j *Job) stream(name string, body func(io.Writer) error) Artifact {
	if j.streams == nil {
		j.streams = map[string]*streamed{}
	}
	j.streams[name] = &streamed{head: stampHead("", false), body: body}
	return Artifact{Name: name}
}

// WriteArtifact writes a to w: a streamed artifact straight from its source
// through a buffer, never whole in memory; any other its Text.
func (r *Result) WriteArtifact(w io.Writer, a Artifact) error {
	st := r.streams[a.Name]
	if st == nil {
		_, err := io.WriteString(w, a.Text)
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(st.head); err != nil {
		return err
	}
	if err := st.body(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// Text is a's text; a streamed artifact is written out to build it.
func (r *Result) Text(a Artifact) string {
	if r.streams[a.Name] == nil {
		return a.Text
	}
	var b strings.Builder
	r.WriteArtifact(&b, a) // a strings.Builder never fails
	return b.String()
}

// Materialize puts every streamed artifact's text in place, for a host
// that hands the artifacts on whole (the Worker's zip and JSON).
func (r *Result) Materialize() {
	for i, a := range r.Artifacts {
		r.Artifacts[i].Text = r.Text(a)
	}
	r.streams = nil
}

// materialized is r with every streamed artifact's text in place (the
// wasm module hands its result over as one JSON document).
func (r *Result) materialized() *Result {
	if len(r.streams) == 0 {
		return r
	}
	c := *r
	c.Artifacts = make([]Artifact, len(r.Artifacts))
	for i, a := range r.Artifacts {
		c.Artifacts[i] = Artifact{a.Name, r.Text(a)}
	}
	c.streams = nil
	return &c
}
