package crashkey

// Score implements the rules of ../shared/tools/score_crash.py (the scorer
// the shared keys crash-seedcases and crash-bugreports are written for), so
// the same verdicts run as Go golden tests; a cmd test runs the Python
// scorer itself and compares the counts.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// ScoreEntry is one entry of an answers.json scored by score_crash.py.
type ScoreEntry struct {
	File           string                     `json:"file"`
	Classes        []string                   `json:"classes"`
	Must           map[string]json.RawMessage `json:"must"`
	MustNotClasses []string                   `json:"must_not_classes"`
	ExpectExit     *int                       `json:"expect_exit"`
}

// ScoreEntries parses an answers.json document.
func ScoreEntries(answersJSON []byte) ([]ScoreEntry, error) {
	var a struct {
		Entries []ScoreEntry `json:"entries"`
	}
	if err := json.Unmarshal(answersJSON, &a); err != nil {
		return nil, fmt.Errorf("crashkey: answers: %v", err)
	}
	return a.Entries, nil
}

// Score lists the ways one diagnose run misses e (nil: met). exit is the
// CLI's exit status; diag is crash_diagnosis.json, nil when none was written.
func Score(e ScoreEntry, exit int, diag []byte) []string {
	if e.ExpectExit != nil && exit != *e.ExpectExit {
		return []string{fmt.Sprintf("exit %d, want %d", exit, *e.ExpectExit)}
	}
	var d struct {
		Findings []map[string]json.RawMessage `json:"findings"`
	}
	if diag == nil || json.Unmarshal(diag, &d) != nil {
		if e.ExpectExit != nil && *e.ExpectExit == 2 && len(e.Classes) == 0 {
			return nil
		}
		return []string{fmt.Sprintf("no crash_diagnosis.json (exit %d)", exit)}
	}
	text := strings.ToLower(pyDumps(diag))
	var classes []string
	var steps []string
	type culprit struct {
		Rank  *json.RawMessage  `json:"rank"`
		Pid   *json.RawMessage  `json:"pid"`
		Ranks []json.RawMessage `json:"ranks"`
		Pids  []json.RawMessage `json:"pids"`
	}
	var culprits []culprit
	addrs := map[string]bool{}
	for _, f := range d.Findings {
		classes = append(classes, str(f["class"]))
		var ns []string
		json.Unmarshal(f["next_steps"], &ns)
		steps = append(steps, strings.Join(ns, " "))
		var c culprit
		json.Unmarshal(f["culprit"], &c)
		culprits = append(culprits, c)
		addrs[pyNormHex(str(f["address"]))] = true
	}
	stepText := strings.ToLower(strings.Join(steps, " "))
	var bad []string
	if len(e.Classes) > 0 && !contains(classes, e.Classes[0]) {
		bad = append(bad, fmt.Sprintf("class %s not in %v", e.Classes[0], classes))
	}
	for _, c := range e.MustNotClasses {
		if contains(classes, c) {
			bad = append(bad, "wrong class "+c)
		}
	}
	keys := make([]string, 0, len(e.Must))
	for k := range e.Must {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := e.Must[k]
		switch k {
		case "primary_class":
			if w := str(raw); len(classes) == 0 || classes[0] != w {
				bad = append(bad, fmt.Sprintf("primary %v != %s", first(classes), w))
			}
		case "culprit_rank", "culprit_pid":
			want, _ := num(raw)
			ok := false
			for _, c := range culprits {
				one, list := c.Rank, c.Ranks
				if k == "culprit_pid" {
					one, list = c.Pid, c.Pids
				}
				if one != nil {
					if g, isNum := num(*one); isNum && g == want {
						ok = true
					}
				}
				for _, v := range list {
					if g, isNum := num(v); isNum && g == want {
						ok = true
					}
				}
			}
			if !ok {
				bad = append(bad, fmt.Sprintf("%s %s not named", k, compact(raw)))
			}
		case "next_steps_contains", "next_steps_not_contains":
			var vals []string
			json.Unmarshal(raw, &vals)
			var hit []string
			for _, v := range vals {
				in := strings.Contains(stepText, strings.ToLower(v))
				if in == (k == "next_steps_not_contains") {
					hit = append(hit, v)
				}
			}
			if len(hit) > 0 && k == "next_steps_contains" {
				bad = append(bad, fmt.Sprintf("next steps lack %q", hit))
			} else if len(hit) > 0 {
				bad = append(bad, fmt.Sprintf("next steps ask for what the input has: %q", hit))
			}
		case "address":
			w := pyNormHex(str(raw))
			if !addrs[w] && !strings.Contains(text, strings.TrimPrefix(w, "0x")) {
				bad = append(bad, "address "+str(raw))
			}
		default:
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) == nil {
				for _, v := range list {
					if !strings.Contains(text, strings.ToLower(pyStr(v))) {
						bad = append(bad, fmt.Sprintf("%s %s", k, compact(raw)))
						break
					}
				}
			} else if !strings.Contains(text, strings.ToLower(pyStr(raw))) {
				bad = append(bad, fmt.Sprintf("%s %s", k, compact(raw)))
			}
		}
	}
	return bad
}

func first(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s[:1]
}

// pyNormHex is score_crash.py's norm_hex: lower case, leading zeros dropped.
func pyNormHex(s string) string {
	s = strings.ToLower(s)
	if strings.HasPrefix(s, "0x") {
		return "0x" + strings.TrimLeft(s[2:], "0")
	}
	return s
}

// pyStr is Python's str() of a JSON scalar (True/False/None as Python
// spells them; numbers as written).
func pyStr(raw json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case json.Number:
		return x.String()
	}
	return pyDumps(raw)
}

// pyDumps re-encodes a JSON document as Python's json.dumps does (key order
// kept, ", " and ": " separators, non-ASCII as \uXXXX), so substring keys
// see the text the Python scorer sees.
func pyDumps(doc []byte) string {
	var b strings.Builder
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if pyValue(d, &b) != nil {
		return strings.ToLower(string(doc))
	}
	return b.String()
}

func pyValue(d *json.Decoder, b *strings.Builder) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	switch x := t.(type) {
	case json.Delim:
		closer := byte('}')
		if x == '[' {
			closer = ']'
		}
		b.WriteByte(byte(x))
		for n := 0; d.More(); n++ {
			if n > 0 {
				b.WriteString(", ")
			}
			if x == '{' {
				k, err := d.Token()
				if err != nil {
					return err
				}
				pyString(b, fmt.Sprint(k))
				b.WriteString(": ")
			}
			if err := pyValue(d, b); err != nil {
				return err
			}
		}
		if _, err := d.Token(); err != nil && err != io.EOF {
			return err
		}
		b.WriteByte(closer)
	case string:
		pyString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	}
	return nil
}

func pyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r > 0x7f && r < 0x10000):
			fmt.Fprintf(b, `\u%04x`, r)
		case r >= 0x10000:
			a, c := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, a, c)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
