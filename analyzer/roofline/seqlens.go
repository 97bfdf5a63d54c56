package roofline

import (
	"strconv"
	"strings"
)

// seqSums are one serving step's per-sequence length sums, as vLLM's model
// runner (and SGLang builds that carry the same profiler hook) name the
// step's annotation:
//
//	execute_<tokens>_context_<n>(sq<Σsq>sk<Σsk>sqsq<Σsq²>sqsk<Σsq·sk>)_generation_<n>(…)
//
// sq is a sequence's new (query) tokens this step, sk its key/value length
// (cached prefix + new). The shared traces bear the reading out: Σsq over
// both groups equals <tokens> (8155 + 37 = 8192), a decode sequence has
// sq = 1 (generation_32(sq32…sqsq32…)) and sqsk = sk.
type seqSums struct {
	sq, sk, sqsq, sqsk float64
	label              string // the annotation's name
}

// pairs is the number of (query, key) pairs causal attention scores: a
// sequence's query i (0-based, of sq) sees sk − sq + i + 1 keys, so
// Σ_i = sq·sk − sq(sq−1)/2, summed over sequences.
func (s seqSums) pairs() float64 { return s.sqsk - (s.sqsq-s.sq)/2 }

// parseSeqSums reads a step annotation; ok is false for any other name.
func parseSeqSums(name string) (seqSums, bool) {
	if !strings.HasPrefix(name, "execute_") {
		return seqSums{}, false
	}
	var out seqSums
	groups := 0
	for _, g := range []string{"_context_", "_generation_"} {
		i := strings.Index(name, g)
		if i < 0 {
			continue
		}
		rest := name[i+len(g):]
		open := strings.IndexByte(rest, '(')
		end := strings.IndexByte(rest, ')')
		if open < 0 || end < open {
			return seqSums{}, false
		}
		v, ok := sumFields(rest[open+1 : end])
		if !ok {
			return seqSums{}, false
		}
		out.sq += v[0]
		out.sk += v[1]
		out.sqsq += v[2]
		out.sqsk += v[3]
		groups++
	}
	if groups == 0 {
		return seqSums{}, false
	}
	out.label = name
	return out, true
}

// sumFields reads "sq<a>sk<b>sqsq<c>sqsk<d>" in that order.
func sumFields(s string) ([4]float64, bool) {
	var v [4]float64
	for k, key := range []string{"sq", "sk", "sqsq", "sqsk"} {
		if !strings.HasPrefix(s, key) {
			return v, false
		}
		s = s[len(key):]
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		x, err := strconv.ParseInt(s[:n], 10, 64)
		if err != nil || x < 0 {
			return v, false
		}
		v[k] = float64(x)
		s = s[n:]
	}
	return v, s == ""
}
