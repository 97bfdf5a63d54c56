// Package schemas holds the JSON Schema (2020-12) of every JSON artifact
// gputriage writes, schemas/<artifact>.schema.json, and a validator for the
// subset of 2020-12 those schemas use: type (one or a list), properties,
// required, additionalProperties (boolean or schema), items, enum, const,
// minimum, minItems, pattern-free strings. No library: the one standard Go
// implementation (santhosh-tekuri/jsonschema) is not on this project's
// module proxy, and the subset is small.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

//go:embed *.schema.json
var files embed.FS

// For returns the schema of an artifact ("kernel_table.json" →
// kernel_table.schema.json).
func For(artifact string) ([]byte, error) {
	name := strings.TrimSuffix(artifact, ".json") + ".schema.json"
	return files.ReadFile(name)
}

// Names lists the artifacts that have a schema.
func Names() []string {
	ents, _ := files.ReadDir(".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".schema.json")+".json")
	}
	return out
}

// Validate checks an artifact against its schema; an artifact without a
// schema is an error.
func Validate(artifact string, doc []byte) error {
	sb, err := For(artifact)
	if err != nil {
		return fmt.Errorf("%s: no schema (add schemas/%s.schema.json)", artifact, strings.TrimSuffix(artifact, ".json"))
	}
	var s map[string]any
	if err := json.Unmarshal(sb, &s); err != nil {
		return fmt.Errorf("%s: schema: %v", artifact, err)
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("%s: not JSON: %v", artifact, err)
	}
	var errs []string
	check(s, v, "$", &errs)
	if len(errs) > 0 {
		if len(errs) > 20 {
			errs = append(errs[:20], fmt.Sprintf("… %d more", len(errs)-20))
		}
		return fmt.Errorf("%s: %s", artifact, strings.Join(errs, "; "))
	}
	return nil
}

// known are the keywords the validator implements; a schema using another
// one is reported rather than silently not enforced.
var known = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true, "type": true,
	"properties": true, "required": true, "additionalProperties": true, "items": true, "enum": true,
	"const": true, "minimum": true, "minItems": true}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := x.Int64(); err == nil && !strings.ContainsAny(x.String(), ".eE") {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func check(s map[string]any, v any, at string, errs *[]string) {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			*errs = append(*errs, fmt.Sprintf("%s: schema keyword %q not supported by the validator", at, k))
		}
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch x := t.(type) {
		case string:
			types = []string{x}
		case []any:
			for _, y := range x {
				types = append(types, fmt.Sprint(y))
			}
		}
		got := typeOf(v)
		if !slices.Contains(types, got) && !(got == "integer" && slices.Contains(types, "number")) {
			*errs = append(*errs, fmt.Sprintf("%s: %s, want %s", at, got, strings.Join(types, " or ")))
			return
		}
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if fmt.Sprint(x) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			*errs = append(*errs, fmt.Sprintf("%s: %v not one of %v", at, v, e))
		}
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		*errs = append(*errs, fmt.Sprintf("%s: %v, want %v", at, v, c))
	}
	if m, ok := s["minimum"].(float64); ok {
		if n, isNum := v.(json.Number); isNum {
			if f, _ := n.Float64(); f < m {
				*errs = append(*errs, fmt.Sprintf("%s: %v below %v", at, n, m))
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[r.(string)]; !ok {
					*errs = append(*errs, fmt.Sprintf("%s: missing %q", at, r))
				}
			}
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if ps, ok := props[k].(map[string]any); ok {
				check(ps, x[k], at+"."+k, errs)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					*errs = append(*errs, fmt.Sprintf("%s: unexpected key %q", at, k))
				}
			case map[string]any:
				check(ap, x[k], at+"."+k, errs)
			}
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			*errs = append(*errs, fmt.Sprintf("%s: %d items, want at least %v", at, len(x), n))
		}
		if is, ok := s["items"].(map[string]any); ok {
			for i, y := range x {
				check(is, y, fmt.Sprintf("%s[%d]", at, i), errs)
			}
		}
	}
}
