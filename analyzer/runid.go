package analyzer

import (
	"bytes"
	encbin "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/identity"
	"github.com/gputriage/gputriage/analyzer/report"
)

// digestEdge is how much of each end of an input the digest reads: enough
// to tell traces apart (a trace's tail carries its last timestamps and
// ids), cheap at any size (hashing every byte would cost a third of the
// wasm parser's throughput).
const digestEdge = 64 << 10

// digest fingerprints one input's decompressed bytes: its size, first and
// last 64 KiB.
type digest struct {
	n    int64
	head []byte
	tail []byte // ring of the last digestEdge bytes
	pos  int
}

func (d *digest) write(p []byte) {
	d.n += int64(len(p))
	if len(d.head) < digestEdge {
		k := min(digestEdge-len(d.head), len(p))
		d.head = append(d.head, p[:k]...)
	}
	if len(p) >= digestEdge {
		d.tail = append(d.tail[:0], p[len(p)-digestEdge:]...)
		d.pos = 0
		return
	}
	for len(p) > 0 {
		if len(d.tail) < digestEdge {
			k := min(digestEdge-len(d.tail), len(p))
			d.tail = append(d.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(d.tail[d.pos:], p)
		d.pos = (d.pos + k) % digestEdge
		p = p[k:]
	}
}

func (d *digest) sum() string {
	h := fnv.New64a()
	var n [8]byte
	encbin.LittleEndian.PutUint64(n[:], uint64(d.n))
	h.Write(n[:])
	h.Write(d.head)
	h.Write(d.tail[d.pos:])
	h.Write(d.tail[:d.pos])
	d.head, d.tail = nil, nil
	return hex.EncodeToString(h.Sum(nil))
}

// runID names a run: the same inputs (by content, in any order, under any
// name) with the same identity give the same id.
func runID(digests []string, id identity.Identity) string {
	ds := slices.Clone(digests)
	slices.Sort(ds)
	h := fnv.New64a()
	h.Write([]byte(strings.Join(ds, ",")))
	h.Write([]byte{0})
	h.Write([]byte(id.Key()))
	return "run-" + hex.EncodeToString(h.Sum(nil))
}

// stampFields lead every JSON artifact, in this order.
var stampFields = []string{"tool", "schema_version", "run_id", "partial"}

// stamp uses encoding/json: its RawMessage keeps each value's bytes as written.
//
// stamp puts the contract fields every JSON artifact carries (tool,
// schema_version, run_id, partial) at the top of an artifact written by
// units.JSON (two-space indent), keeping every other key and its bytes. An
// artifact's own partial flag is kept when set; otherwise the run's.
func stamp(text, runID string, partial bool) string {
	dec := json.NewDecoder(strings.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return text
	}
	type kv struct {
		k string
		v json.RawMessage
	}
	var kvs []kv
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return text
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return text
		}
		switch k {
		case "partial":
			partial = partial || string(v) == "true"
		case "tool", "schema_version", "run_id":
		default:
			kvs = append(kvs, kv{k, v})
		}
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	b.WriteString(`  "tool": ` + strconv.Quote(report.Tool) + ",\n")
	b.WriteString(`  "schema_version": ` + strconv.Quote(report.Version) + ",\n")
	b.WriteString(`  "run_id": ` + strconv.Quote(runID) + ",\n")
	b.WriteString(`  "partial": ` + strconv.FormatBool(partial))
	for _, x := range kvs {
		kb, _ := json.Marshal(x.k)
		b.WriteString(",\n  ")
		b.Write(kb)
		b.WriteString(": ")
		b.Write(x.v)
	}
	b.WriteString("\n}\n")
	return b.String()
}

// identity is the run's identity: the user's values, completed from the
// sidecars read beside the traces.
func (j *Job) identity() identity.Identity {
	id := j.opts.Run
	id.Fill(j.sidecar)
	return id
}

// stampAll stamps every JSON artifact of a result.
func (j *Job) stampAll(res *Result) {
	id := runID(j.digests, j.identity())
	partial := false
	for _, f := range res.Files {
		partial = partial || f.Partial
	}
	for i := range res.Artifacts {
		a := &res.Artifacts[i]
		if strings.HasSuffix(a.Name, ".json") {
			a.Text = stamp(a.Text, id, partial)
		}
	}
	addCSVs(res)
}
