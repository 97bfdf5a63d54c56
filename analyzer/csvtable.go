package analyzer

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/internal/escape"
)

// tables are the JSON artifacts that hold a table, and the key of its rows:
// each gets a CSV twin (kernel_table.json → kernel_table.csv) for
// spreadsheet users.
var tables = []struct{ artifact, rows string }{
	{"kernel_table.json", "rows"},
	{"steps.json", "rows"},
	{"overlap_opportunities.json", "rows"},
	{"fuse_opportunities.json", "rows"},
	{"diff.json", "kernels"},
	{"collectives.json", "rows"},
	{"ranks.json", "ranks"},
}

// addCSVs appends the CSV twin of every table artifact of res.
func addCSVs(res *Result) {
	n := len(res.Artifacts)
	for _, t := range tables {
		// a rank folder's ranks/<rank>/ tables get theirs beside them
		for _, a := range res.Artifacts[:n] {
			if path.Base(a.Name) != t.artifact {
				continue
			}
			if c, ok := tableCSV(a.Text, t.rows); ok {
				res.Artifacts = append(res.Artifacts, Artifact{strings.TrimSuffix(a.Name, ".json") + ".csv", c})
			}
		}
	}
}

// tableCSV writes the rows array under key as CSV: one column per key of
// the first row, in its order; nested values as compact JSON, null as empty.
// It walks the artifact's text (written by encoding/json, so valid JSON of
// valid UTF-8) without decoding it: decoding every row through
// encoding/json was a third of finish() for a table of 100 k kernels.
// Text it cannot walk goes through tableCSVDecoded, the reference.
func tableCSV(text, key string) (string, bool) {
	p := &walker{s: text}
	if !p.open('{') {
		return tableCSVDecoded(text, key)
	}
	var rows string // the raw array under key (the last one, as a decoder keeps)
	found := false
	for !p.close('}') {
		k, ok := p.key()
		if !ok {
			return tableCSVDecoded(text, key)
		}
		v, ok := p.value()
		if !ok || !p.sep('}') {
			return tableCSVDecoded(text, key)
		}
		if k == key {
			rows, found = v, true
		}
	}
	if !found {
		return "", false
	}
	p = &walker{s: rows}
	if !p.open('[') {
		return "", false
	}
	var cols, keys, vals []string
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var rec []string
	for !p.close(']') {
		if !p.open('{') {
			return tableCSVDecoded(text, key)
		}
		keys, vals = keys[:0], vals[:0]
		for !p.close('}') {
			k, ok := p.key()
			if !ok {
				return tableCSVDecoded(text, key)
			}
			v, ok := p.value()
			if !ok || !p.sep('}') {
				return tableCSVDecoded(text, key)
			}
			keys, vals = append(keys, k), append(vals, v)
		}
		if !p.sep(']') {
			return tableCSVDecoded(text, key)
		}
		if cols == nil {
			if len(keys) > 0 {
				cols = slices.Clone(keys)
			}
			w.Write(cols)
			rec = make([]string, len(cols))
		}
		for i, c := range cols {
			v := ""
			if i < len(keys) && keys[i] == c { // rows share their keys' order
				v = vals[i]
			} else if k := lastIndex(keys, c); k >= 0 {
				v = vals[k]
			}
			rec[i] = cell(v)
		}
		w.Write(rec)
	}
	if cols == nil {
		return "", false
	}
	w.Flush()
	return buf.String(), true
}

// lastIndex is the last position of s in keys (a decoder keeps a repeated
// key's last value), -1 when absent.
func lastIndex(keys []string, s string) int {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == s {
			return i
		}
	}
	return -1
}

// walker steps through JSON text value by value, returning raw spans;
// each step is linear in the bytes it passes.
type walker struct {
	s string
	i int
}

func (p *walker) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\n', '\t', '\r':
			p.i++
		default:
			return
		}
	}
}

// open consumes c ('{' or '[').
func (p *walker) open(c byte) bool {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// close consumes c ('}' or ']') when it comes next.
func (p *walker) close(c byte) bool { return p.open(c) }

// sep consumes the comma after a member, or sees the closing c.
func (p *walker) sep(c byte) bool {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		return true
	}
	return p.i < len(p.s) && p.s[p.i] == c
}

// key reads a member's name and its colon.
func (p *walker) key() (string, bool) {
	p.ws()
	from := p.i
	if p.i >= len(p.s) || p.s[p.i] != '"' || !p.str() {
		return "", false
	}
	raw := p.s[from:p.i]
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != ':' {
		return "", false
	}
	p.i++
	if !strings.Contains(raw, `\`) {
		return raw[1 : len(raw)-1], true
	}
	var k string
	return k, json.Unmarshal([]byte(raw), &k) == nil
}

// str passes the string starting at p.i.
func (p *walker) str() bool {
	p.i++
	for {
		n := strings.IndexAny(p.s[p.i:], `"\`)
		if n < 0 {
			return false
		}
		p.i += n
		if p.s[p.i] == '"' {
			p.i++
			return true
		}
		p.i += 2 // a backslash and the byte it escapes
		if p.i > len(p.s) {
			return false
		}
	}
}

// value passes one value and returns its text.
func (p *walker) value() (string, bool) {
	p.ws()
	from := p.i
	if p.i >= len(p.s) {
		return "", false
	}
	switch p.s[p.i] {
	case '"':
		if !p.str() {
			return "", false
		}
	case '{', '[':
		depth := 0
		for p.i < len(p.s) {
			switch p.s[p.i] {
			case '"':
				if !p.str() {
					return "", false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			p.i++
			if depth == 0 {
				break
			}
		}
		if depth != 0 {
			return "", false
		}
	default:
		for p.i < len(p.s) && !strings.ContainsRune(",}] \n\t\r", rune(p.s[p.i])) {
			p.i++
		}
		if p.i == from {
			return "", false
		}
	}
	return p.s[from:p.i], true
}

// tableCSVDecoded is tableCSV through encoding/json: the reference the
// walker is tested against, and its fallback.
func tableCSVDecoded(text, key string) (string, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &top) != nil || top[key] == nil {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(top[key]))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return "", false
	}
	var cols []string
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for dec.More() {
		keys, vals, err := orderedObject(dec)
		if err != nil {
			return "", false
		}
		if cols == nil {
			cols = keys
			w.Write(cols)
		}
		rec := make([]string, len(cols))
		for i, c := range cols {
			rec[i] = cell(string(vals[c]))
		}
		w.Write(rec)
	}
	if cols == nil {
		return "", false
	}
	w.Flush()
	return buf.String(), true
}

func orderedObject(dec *json.Decoder) ([]string, map[string]json.RawMessage, error) {
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals[k] = v
	}
	_, err := dec.Token()
	return keys, vals, err
}

// cell renders one value. A string that a spreadsheet would run as a
// formula (starting with = + - @, tab or CR) gets a leading apostrophe;
// numbers are written as numbers (they cannot carry a formula).
func cell(raw string) string {
	raw = strings.TrimSpace(raw)
	switch {
	case len(raw) == 0 || raw == "null":
		return ""
	case raw[0] == '"':
		var s string
		if len(raw) >= 2 && !strings.Contains(raw, `\`) {
			s = raw[1 : len(raw)-1] // nothing to unescape (encoding/json wrote valid UTF-8)
		} else {
			json.Unmarshal([]byte(raw), &s)
		}
		s = escape.Visible(s) // ESC, BEL, bidi overrides shown, not written
		if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
			s = "'" + s
		}
		return s
	case raw[0] == '{' || raw[0] == '[':
		var b bytes.Buffer
		json.Compact(&b, []byte(raw))
		return escape.Visible(b.String())
	}
	return raw
}
