package analyzer

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path"
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
func tableCSV(text, key string) (string, bool) {
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
			rec[i] = cell(vals[c])
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
func cell(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		json.Unmarshal(raw, &s)
		s = escape.Visible(s) // ESC, BEL, bidi overrides shown, not written
		if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
			s = "'" + s
		}
		return s
	case raw[0] == '{' || raw[0] == '[':
		var b bytes.Buffer
		json.Compact(&b, raw)
		return escape.Visible(b.String())
	}
	return string(raw)
}
