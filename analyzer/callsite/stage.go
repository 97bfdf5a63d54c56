package callsite

import (
	"regexp"
	"strconv"
	"strings"
)

// Stage names. SGLang calls prefill "extend"; both map to prefill.
const (
	StagePrefill = "prefill"
	StageDecode  = "decode"
	StageMixed   = "mixed"
	StageAll     = "all"
	StageOther   = "unstaged"
)

// Rank orders stages in tables.
func Rank(s string) int {
	switch s {
	case StagePrefill:
		return 0
	case StageDecode:
		return 1
	case StageMixed:
		return 2
	case StageAll:
		return 3
	}
	return 4
}

// vLLM names its step ranges execute_<n>_context_<c>(…)_generation_<g>(…).
var vllmStep = regexp.MustCompile(`context_(\d+)\(.*_generation_(\d+)\(`)

// OfAnnotation returns the stage an annotation name announces, or "".
func OfAnnotation(name string) string {
	l := strings.ToLower(name)
	if strings.Contains(l, "profilerstep") {
		return ""
	}
	if m := vllmStep.FindStringSubmatch(l); m != nil {
		c, _ := strconv.Atoi(m[1])
		g, _ := strconv.Atoi(m[2])
		switch {
		case c > 0 && g > 0:
			return StageMixed
		case c > 0:
			return StagePrefill
		case g > 0:
			return StageDecode
		}
		return ""
	}
	switch {
	case strings.Contains(l, "decode"):
		return StageDecode
	case strings.Contains(l, "extend") || strings.Contains(l, "prefill"):
		return StagePrefill
	}
	return ""
}

// OfPath reads the stage from file or directory names the way the SGLang
// profiler writes them (…-TP-0-EXTEND.trace.json.gz, …-DECODE…, a
// decode/ or prefill/ folder): only whole tokens count, so
// "prefilldecode" says nothing.
func OfPath(path string) string {
	parts := strings.FieldsFunc(strings.ToLower(path), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	st := ""
	for _, p := range parts { // the last (innermost) token wins
		switch p {
		case "decode":
			st = StageDecode
		case "extend", "prefill":
			st = StagePrefill
		}
	}
	return st
}
