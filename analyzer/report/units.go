// Package report writes the artifacts of a trace analysis: the JSON files a
// dashboard or a script reads and the Markdown summary a human reads first.
// Every writer is deterministic: the same input gives the same bytes on every
// host (native or WebAssembly).
package report

import (
	"strconv"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// US is a duration in nanoseconds written as microseconds with three decimals.
type US = units.US

// Ratio is a share in [0,1] written with 6 decimals.
type Ratio = units.Ratio

func round(x float64, d int) float64 { return units.Round(x, d) }

// pct formats a share as a percentage with one decimal.
func pct(x float64) string { return units.Pct(x) }

// ms formats ns as milliseconds with 3 decimals.
func ms(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }

// encode writes v as indented JSON with a trailing newline, HTML-unescaped.
func encode(v any) []byte { return units.JSON(v) }
