package analyzer

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// MergedTraceName is --merge-ranks' artifact.
const MergedTraceName = "ranks_merged_trace.json"

// traceEvent is one Chrome trace event of the merged trace.
type traceEvent struct {
	Name string    `json:"name"`
	Ph   string    `json:"ph"`
	Cat  string    `json:"cat,omitempty"`
	PID  int       `json:"pid"`
	TID  int64     `json:"tid"`
	TS   *units.US `json:"ts,omitempty"`
	Dur  *units.US `json:"dur,omitempty"`
	Args any       `json:"args,omitempty"`
}

// collArgs are a collective slice's args.
type collArgs struct {
	PG       string   `json:"pg"`
	Kind     string   `json:"kind"`
	Index    int      `json:"index"`
	Wait     units.US `json:"wait_us"`
	Skew     units.US `json:"skew_us"`
	LastRank int      `json:"last_rank"`
}

// mergedTrace is ranks_merged_trace.json: every rank's GPU work from the
// job's store (parts) and its matched collectives on the common clock of
// res, one process per rank, one thread per stream, the collectives on a
// thread of their own. Ranks without collectives keep their own clock.
// Streamed (stream.go): written event by event from the store when the
// result is written, so its size never sits in memory; the store stays
// alive until then.
func (j *Job) mergedTrace(parts []rankPart, sums []*collectives.Summary, res *collectives.Result) Artifact {
	shift := collectives.Shifts(sums, res)
	ranks := map[int]rankPart{}
	var order []int
	for _, p := range parts {
		r, _ := rankOf(&p.st.Files[p.fi])
		ranks[r] = p
		order = append(order, r)
	}
	slices.Sort(order)
	return j.stream(MergedTraceName, func(w io.Writer) error {
		ew := &eventWriter{w: w}
		ew.enc = json.NewEncoder(&ew.buf)
		ew.enc.SetEscapeHTML(false)
		io.WriteString(w, ",\n  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": [")
		meta := func(name string, pid int, tid int64, args any) {
			ew.event(&traceEvent{Name: name, Ph: "M", PID: pid, TID: tid, Args: args})
		}
		collTID := map[int]int64{}
		for _, r := range order {
			p := ranks[r]
			file := uint16(p.fi)
			meta("process_name", r, 0, map[string]string{"name": "rank " + strconv.Itoa(r)})
			meta("process_sort_index", r, 0, map[string]int{"sort_index": r})
			// the streams first (their names lead the rank's events), then its work
			streams := map[int64]bool{}
			for i := range p.st.GPU {
				if o := &p.st.GPU[i]; o.File == file && o.Kind.IsGPUWork() {
					streams[o.Stream] = true
				}
			}
			top := int64(0)
			for _, s := range slices.Sorted(maps.Keys(streams)) {
				meta("thread_name", r, s, map[string]string{"name": "stream " + strconv.FormatInt(s, 10)})
				top = max(top, s)
			}
			collTID[r] = top + 1
			meta("thread_name", r, top+1, map[string]string{"name": "collectives"})
			for i := range p.st.GPU {
				o := &p.st.GPU[i]
				if o.File != file || !o.Kind.IsGPUWork() {
					continue
				}
				ts, dur := units.US(o.TS+shift[r]), units.US(o.Dur)
				ew.event(&traceEvent{Name: p.st.Name(o.Name), Ph: "X", Cat: o.Kind.String(), PID: r, TID: o.Stream, TS: &ts, Dur: &dur})
			}
		}
		for k := range res.Instances {
			in := &res.Instances[k]
			for _, rt := range in.Ranks {
				tid, ok := collTID[rt.Rank]
				if !ok {
					continue
				}
				ts, dur := rt.Start, rt.End-rt.Start
				ew.event(&traceEvent{Name: in.Label(), Ph: "X", Cat: "collective", PID: rt.Rank, TID: tid, TS: &ts, Dur: &dur,
					Args: collArgs{PG: in.PG, Kind: in.Kind, Index: in.Index, Wait: rt.Wait, Skew: in.Skew, LastRank: in.LastRank}})
			}
		}
		io.WriteString(w, "\n]\n}\n")
		return ew.err
	})
}

// eventWriter writes the trace events of one array, one per line, each
// through a small buffer; the first write error sticks.
type eventWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	n   int
	err error
}

func (e *eventWriter) event(ev *traceEvent) {
	e.buf.Reset()
	if e.n > 0 {
		e.buf.WriteByte(',')
	}
	e.n++
	e.buf.WriteByte('\n')
	e.enc.Encode(ev)                // plain values: cannot fail
	e.buf.Truncate(e.buf.Len() - 1) // Encode's newline
	if e.err == nil {
		_, e.err = e.w.Write(e.buf.Bytes())
	}
}
