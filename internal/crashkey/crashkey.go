// Package crashkey checks a crash_diagnosis.json document against one entry
// of an answers.json answer key (testdata/crash/answers.json format):
//
//	{"entries": [{"file": "…", "classes": [...], "must": {...}, "must_not_classes": [...]}]}
//
// It depends only on the JSON bytes so the same checks run natively and
// through the WebAssembly module.
//
// Semantics:
//   - every class of "classes" must be the class of some finding;
//   - no finding may have a class of "must_not_classes";
//   - every key of "must" must be met by at least one finding whose class is
//     one of "classes" (any finding when "classes" is empty).
//
// Key kinds of "must" (both visible answer keys use these):
//
//	node, pid, seq_num, exit_code   integer equality with the finding field
//	address                         hex address equality after normalisation
//	                                (lowercase, no leading zeros, "(nil)" = 0x0);
//	                                also matches an entry of "addresses"
//	reason                          case-insensitive substring of "reason" or
//	                                of an entry of "reasons"
//	hsa_status, hip_error, op_type, case-insensitive substring of the field of
//	requested_bytes_text            that name (hip_error also matches cuda_error)
//	kernel_contains                 case-insensitive substring of "kernel",
//	                                "kernel_mangled" or an entry of "kernels"
//	ranks                           set equality with "ranks"
//
// Any other key K is resolved generically: "K_contains" is a substring test on
// field K (string or list of strings); otherwise field K (top level or in
// "details") is compared by type (number equality, string case-insensitive
// substring, list: every expected element present).
package crashkey

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

type answers struct {
	Entries []entry `json:"entries"`
}

type entry struct {
	File           string                     `json:"file"`
	Classes        []string                   `json:"classes"`
	Must           map[string]json.RawMessage `json:"must"`
	MustNotClasses []string                   `json:"must_not_classes"`
}

type diagnosis struct {
	Findings []map[string]json.RawMessage `json:"findings"`
}

// Entries lists the file names of an answers.json document, in file order.
func Entries(answersJSON []byte) []string {
	var a answers
	if json.Unmarshal(answersJSON, &a) != nil {
		return nil
	}
	out := make([]string, 0, len(a.Entries))
	for _, e := range a.Entries {
		out = append(out, e.File)
	}
	return out
}

// Check verifies the diagnosis against the answers.json entry of file.
func Check(answersJSON []byte, file string, diagnosisJSON []byte) error {
	var a answers
	if err := json.Unmarshal(answersJSON, &a); err != nil {
		return fmt.Errorf("crashkey: answers: %v", err)
	}
	var e *entry
	for i := range a.Entries {
		if a.Entries[i].File == file {
			e = &a.Entries[i]
			break
		}
	}
	if e == nil {
		return fmt.Errorf("crashkey: no answers entry for %q", file)
	}
	var d diagnosis
	if err := json.Unmarshal(diagnosisJSON, &d); err != nil {
		return fmt.Errorf("crashkey: diagnosis: %v", err)
	}
	classes := map[string]int{}
	var got []string
	for _, f := range d.Findings {
		c := str(f["class"])
		classes[c]++
		got = append(got, c)
	}
	var errs []string
	for _, c := range e.Classes {
		if classes[c] == 0 {
			errs = append(errs, fmt.Sprintf("expected class %s not found (got %v)", c, got))
		}
	}
	for _, c := range e.MustNotClasses {
		if classes[c] > 0 {
			errs = append(errs, fmt.Sprintf("class %s must not be reported", c))
		}
	}
	var cands []map[string]json.RawMessage
	for _, f := range d.Findings {
		if len(e.Classes) == 0 || contains(e.Classes, str(f["class"])) {
			cands = append(cands, f)
		}
	}
	keys := make([]string, 0, len(e.Must))
	for k := range e.Must {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := e.Must[k]
		ok := false
		var seen []string
		for _, f := range cands {
			m, have := meets(k, want, f)
			if m {
				ok = true
				break
			}
			if have != "" {
				seen = append(seen, str(f["class"])+"="+have)
			}
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("must %s=%s not met (findings have: %s)", k, compact(want), strings.Join(seen, "; ")))
		}
	}
	if len(errs) > 0 {
		return errors.New(file + ": " + strings.Join(errs, "; "))
	}
	return nil
}

// meets reports whether finding f satisfies must key k, and what f has.
func meets(k string, want json.RawMessage, f map[string]json.RawMessage) (bool, string) {
	switch k {
	case "node", "pid", "seq_num", "exit_code":
		w, ok := num(want)
		if !ok {
			return false, ""
		}
		g, ok := num(field(f, k))
		return ok && g == w, compact(field(f, k))
	case "address":
		w := normAddr(str(want))
		have := []string{str(f["address"])}
		have = append(have, strs(f["addresses"])...)
		for _, h := range have {
			if h != "" && normAddr(h) == w {
				return true, ""
			}
		}
		return false, strings.Join(have, ",")
	case "reason":
		have := append([]string{str(f["reason"])}, strs(f["reasons"])...)
		return anySub(have, str(want)), strings.Join(have, " | ")
	case "kernel_contains":
		have := append([]string{str(f["kernel"]), str(f["kernel_mangled"])}, strs(f["kernels"])...)
		return anySub(have, str(want)), clip(str(f["kernel"]))
	case "hip_error":
		have := []string{str(f["hip_error"]), str(f["cuda_error"])}
		return anySub(have, str(want)), strings.Join(have, ",")
	case "ranks":
		var w []int
		if json.Unmarshal(want, &w) != nil {
			return false, ""
		}
		var g []int
		_ = json.Unmarshal(f["ranks"], &g)
		return sameSet(w, g), compact(f["ranks"])
	}
	if strings.HasSuffix(k, "_contains") {
		name := strings.TrimSuffix(k, "_contains")
		v := field(f, name)
		have := append([]string{str(v)}, strs(v)...)
		return anySub(have, str(want)), compact(v)
	}
	return generic(want, field(f, k))
}

// field finds a top-level field or a "details" entry.
func field(f map[string]json.RawMessage, k string) json.RawMessage {
	if v, ok := f[k]; ok && string(v) != "null" {
		return v
	}
	var det map[string]json.RawMessage
	if json.Unmarshal(f["details"], &det) == nil {
		if v, ok := det[k]; ok {
			return v
		}
	}
	return nil
}

func generic(want, got json.RawMessage) (bool, string) {
	if got == nil {
		return false, ""
	}
	var w any
	if json.Unmarshal(want, &w) != nil {
		return false, ""
	}
	switch wv := w.(type) {
	case float64:
		g, ok := num(got)
		return ok && math.Abs(g-wv) < 1e-9, compact(got)
	case string:
		if strings.HasPrefix(strings.ToLower(wv), "0x") {
			if normAddr(wv) == normAddr(str(got)) {
				return true, ""
			}
		}
		have := append([]string{str(got)}, strs(got)...)
		return anySub(have, wv), compact(got)
	case bool:
		var g bool
		return json.Unmarshal(got, &g) == nil && g == wv, compact(got)
	case []any:
		var g []any
		if json.Unmarshal(got, &g) != nil {
			return false, compact(got)
		}
		for _, x := range wv {
			found := false
			for _, y := range g {
				if fmt.Sprint(x) == fmt.Sprint(y) {
					found = true
					break
				}
			}
			if !found {
				return false, compact(got)
			}
		}
		return true, ""
	}
	return false, compact(got)
}

func num(r json.RawMessage) (float64, bool) {
	if r == nil {
		return 0, false
	}
	var v float64
	if json.Unmarshal(r, &v) == nil {
		return v, true
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return x, true
		}
	}
	return 0, false
}

func str(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return ""
}

func strs(r json.RawMessage) []string {
	var ss []string
	if json.Unmarshal(r, &ss) == nil {
		return ss
	}
	return nil
}

func anySub(have []string, want string) bool {
	w := strings.ToLower(want)
	for _, h := range have {
		if h != "" && strings.Contains(strings.ToLower(h), w) {
			return true
		}
	}
	return false
}

func sameSet(a, b []int) bool {
	m := map[int]bool{}
	for _, x := range a {
		m[x] = true
	}
	n := map[int]bool{}
	for _, x := range b {
		if !m[x] {
			return false
		}
		n[x] = true
	}
	return len(n) == len(m)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// normAddr renders a hex address as lowercase without leading zeros.
func normAddr(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "(nil)" || s == "nil" || s == "null" {
		return "0x0"
	}
	t := strings.TrimPrefix(s, "0x")
	v, err := strconv.ParseUint(t, 16, 64)
	if err != nil {
		return s
	}
	return "0x" + strconv.FormatUint(v, 16)
}

func compact(r json.RawMessage) string {
	if r == nil {
		return "<none>"
	}
	var b bytes.Buffer
	if json.Compact(&b, r) != nil {
		return string(r)
	}
	return clip(b.String())
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
