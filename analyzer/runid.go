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

// last returns the input's last digestEdge bytes (fewer if it is shorter).
func (d *digest) last() []byte {
	return append(append([]byte(nil), d.tail[d.pos:]...), d.tail[:d.pos]...)
}

// skip counts n bytes of input whose last bytes are tail (the rest of them
// read elsewhere, by a BlockParser). The head must be full already.
func (d *digest) skip(n int64, tail []byte) {
	d.n += n - int64(len(tail))
	d.write(tail)
}

// cut makes the digest that of the input's first n bytes (reading stopped
// there; what a host pushed past it depends on its chunks): size n, the
// head up to n, no tail.
func (d *digest) cut(n int64) {
	d.n = n
	if int64(len(d.head)) > n {
		d.head = d.head[:n]
	}
	d.tail, d.pos = d.tail[:0], 0
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

// stamp puts the contract fields every JSON artifact carries (tool,
// schema_version, run_id, partial) at the top of an artifact written by
// units.JSON (two-space indent), keeping every other key and its bytes. An
// artifact's own partial flag is kept when set; otherwise the run's.
func stamp(text, runID string, partial bool) string {
	if out, ok := stampIndented(text, runID, partial); ok {
		return out
	}
	return stampDecoded(text, runID, partial)
}

// stampIndented is stamp for the text units.JSON writes, without decoding
// it: top-level members are exactly the lines that start with two spaces
// and a quote (deeper lines have four or more; a newline inside a string is
// escaped), so each member's bytes are copied as they stand. It answers
// false for anything else (odd keys, other layouts), and stampDecoded, the
// reference it is tested against, does the work. Decoding every artifact
// was a visible share of finish() in the page's cold start. Like units.JSON's
// output, the text is taken to be valid JSON.
func stampIndented(text, runID string, partial bool) (string, bool) {
	const open, close = "{\n  \"", "\n}\n"
	if !strings.HasPrefix(text, open) || !strings.HasSuffix(text, close) {
		return "", false
	}
	body := text[len("{\n") : len(text)-len(close)] // `  "k": v,\n  "k2": v2`
	var keep []string                               // members other than the contract fields, as written
	for len(body) > 0 {
		// One member: from `  "` up to the next top-level member or the end.
		member := body
		if end := strings.Index(body, ",\n  \""); end >= 0 {
			member, body = body[:end], body[end+2:]
		} else {
			body = ""
		}
		if !strings.HasPrefix(member, `  "`) {
			return "", false
		}
		q := strings.IndexByte(member[3:], '"')
		if q < 0 || !plainKey(member[3:3+q]) || !strings.HasPrefix(member[3+q+1:], ": ") || len(member) == 3+q+3 {
			return "", false
		}
		switch k, v := member[3:3+q], member[3+q+3:]; k {
		case "partial":
			partial = partial || v == "true"
		case "tool", "schema_version", "run_id":
		default:
			keep = append(keep, member)
		}
	}
	var b strings.Builder
	b.Grow(len(text) + 128)
	b.WriteString(stampHead(runID, partial))
	for _, m := range keep {
		b.WriteString(",\n")
		b.WriteString(m)
	}
	b.WriteString(close)
	return b.String(), true
}

// stampHead opens a stamped artifact: the contract fields, in order.
func stampHead(runID string, partial bool) string {
	return "{\n" +
		`  "tool": ` + strconv.Quote(report.Tool) + ",\n" +
		`  "schema_version": ` + strconv.Quote(report.Version) + ",\n" +
		`  "run_id": ` + strconv.Quote(runID) + ",\n" +
		`  "partial": ` + strconv.FormatBool(partial)
}

// plainKey: a key json.Marshal writes back unchanged (no escapes, no HTML
// characters), so copying its bytes equals decoding and re-encoding it.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// stampDecoded is stamp through encoding/json: its RawMessage keeps each
// value's bytes as written. Any JSON object works.
func stampDecoded(text, runID string, partial bool) string {
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
	b.WriteString(stampHead(runID, partial))
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
	res.streams = j.streams
	partial := false
	for _, f := range res.Files {
		partial = partial || f.Partial
	}
	for i := range res.Artifacts {
		a := &res.Artifacts[i]
		switch st := res.streams[a.Name]; {
		case st != nil:
			st.head = stampHead(id, partial)
		case strings.HasSuffix(a.Name, ".json"):
			a.Text = stamp(a.Text, id, partial)
		}
	}
	addCSVs(res)
}
