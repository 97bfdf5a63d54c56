package roofline

import (
	"strconv"
	"strings"

	"encoding/json"
)

// sig is one cpu_op's record_shapes arguments, parsed.
type sig struct {
	dims     [][]int64 // per argument; nil for a non-tensor or a tensor list
	rawDims  json.RawMessage
	types    []string
	concrete []string
	ok       bool // Input Dims parsed
}

// parseSig decodes the raw JSON of Input Dims, Input type and Concrete
// Inputs. A tensor list argument ([[…],[…]]) keeps no dims: no formula
// reads one.
func parseSig(dims, types, concrete string) sig {
	var s sig
	var raw []json.RawMessage
	if dims != "" && json.Unmarshal([]byte(dims), &raw) == nil {
		s.ok = true
		s.dims = make([][]int64, len(raw))
		for i, r := range raw {
			var d []int64
			if json.Unmarshal(r, &d) == nil {
				s.dims[i] = d
			}
		}
		s.rawDims = compact(dims)
	}
	if types != "" {
		_ = json.Unmarshal([]byte(types), &s.types)
	}
	if concrete != "" {
		var c []any
		if json.Unmarshal([]byte(concrete), &c) == nil {
			s.concrete = make([]string, len(c))
			for i, v := range c {
				if str, ok := v.(string); ok {
					s.concrete[i] = str
				}
			}
		}
	}
	return s
}

// compact drops the whitespace of a pretty-printed JSON array, so the
// artifact's input_dims do not depend on how the trace was written.
func compact(s string) json.RawMessage {
	var b strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' && i+1 < len(s) {
				b.WriteByte(c)
				i++
				c = s[i]
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			continue
		}
		b.WriteByte(c)
	}
	return json.RawMessage(b.String())
}

// typ returns argument i's Input type, "" if absent.
func (s *sig) typ(i int) string {
	if i < len(s.types) {
		return s.types[i]
	}
	return ""
}

// conc returns argument i's Concrete Input, "" if absent.
func (s *sig) conc(i int) string {
	if i < len(s.concrete) {
		return s.concrete[i]
	}
	return ""
}

// tensor returns the dims of argument i when it is a tensor of a known
// element type.
func (s *sig) tensor(i int) ([]int64, bool) {
	if i >= len(s.dims) || s.dims[i] == nil || elemBytes(s.typ(i)) == 0 {
		return nil, false
	}
	return s.dims[i], true
}

// tensors lists the arguments that are tensors of a known element type.
func (s *sig) tensors() []int {
	var out []int
	for i := range s.dims {
		if _, ok := s.tensor(i); ok {
			out = append(out, i)
		}
	}
	return out
}

// bytesOf is the size of argument i (0 when it is not a tensor).
func (s *sig) bytesOf(i int) float64 {
	d, ok := s.tensor(i)
	if !ok {
		return 0
	}
	return float64(numel(d)) * elemBytes(s.typ(i))
}

func numel(d []int64) int64 {
	n := int64(1)
	for _, x := range d {
		n *= x
	}
	return n
}

// elemBytes is the storage size of one element of a profiler type name;
// packed FP4 (two values per byte) counts half a byte per value, as its
// dims count bytes. 0 = not a tensor type we know.
func elemBytes(t string) float64 {
	switch t {
	case "double", "long int", "c10::complex<float>", "unsigned long int":
		return 8
	case "float", "int", "unsigned int", "c10::complex<c10::Half>":
		return 4
	case "c10::BFloat16", "c10::Half", "short int", "unsigned short":
		return 2
	case "bool", "signed char", "unsigned char", "c10::Float8_e4m3fn", "c10::Float8_e4m3fnuz",
		"c10::Float8_e5m2", "c10::Float8_e5m2fnuz", "c10::Float8_e8m0fnu", "c10::Float4_e2m1fn_x2",
		"c10::quint8", "c10::qint8":
		return 1
	}
	return 0
}

// dtypeOf maps a profiler type name to a peak key of the device table.
func dtypeOf(t string) string {
	switch {
	case t == "double":
		return "fp64"
	case t == "float":
		return "fp32"
	case t == "c10::BFloat16":
		return "bf16"
	case t == "c10::Half":
		return "fp16"
	case strings.HasPrefix(t, "c10::Float8_"):
		return "fp8"
	case strings.HasPrefix(t, "c10::Float4_"):
		return "fp4"
	case t == "signed char" || t == "unsigned char" || t == "c10::qint8":
		return "int8"
	}
	return ""
}

// scalarTypeNames maps the ScalarType codes a Concrete Input holds for a
// dtype argument (c10/core/ScalarType.h order) to profiler type names.
var scalarTypeNames = map[string]string{
	"0": "unsigned char", "1": "signed char", "2": "short int", "3": "int", "4": "long int",
	"5": "c10::Half", "6": "float", "7": "double", "11": "bool", "15": "c10::BFloat16",
	"23": "c10::Float8_e5m2", "24": "c10::Float8_e4m3fn", "25": "c10::Float8_e5m2fnuz", "26": "c10::Float8_e4m3fnuz",
}

// boolArg reads a Concrete Input that holds a Python bool.
func boolArg(v string) (bool, bool) {
	switch v {
	case "True", "true", "1":
		return true, true
	case "False", "false", "0":
		return false, true
	}
	return false, false
}

// intList reads a Concrete Input that holds an int list ("[1, 1]") or a
// single int ("2").
func intList(v string) ([]int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, false
	}
	if !strings.HasPrefix(v, "[") {
		n, err := strconv.ParseInt(v, 10, 64)
		return []int64{n}, err == nil
	}
	var out []int64
	if json.Unmarshal([]byte(v), &out) != nil {
		return nil, false
	}
	return out, true
}
