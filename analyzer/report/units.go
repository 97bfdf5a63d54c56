// Package report writes the artifacts of a trace analysis: the JSON files a
// dashboard or a script reads and the Markdown summary a human reads first.
// Every writer is deterministic: the same input gives the same bytes on every
// host (native or WebAssembly).
package report

import (
	"math"
	"strconv"
)

// US is a duration in nanoseconds written as microseconds with exactly three
// decimals (the precision of Kineto's timestamps), never through float64.
type US int64

// MarshalJSON writes the exact decimal value.
func (u US) MarshalJSON() ([]byte, error) { return []byte(u.String()), nil }

func (u US) String() string {
	n := int64(u)
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n/1000, 10) + "." + pad3(n%1000)
	if neg {
		s = "-" + s
	}
	return s
}

func pad3(v int64) string {
	s := strconv.FormatInt(v, 10)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// Ratio is a share in [0,1] written with 6 decimals.
type Ratio float64

// MarshalJSON writes the value rounded to 6 decimals.
func (r Ratio) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(round(float64(r), 6), 'f', -1, 64)), nil
}

func round(x float64, d int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	p := math.Pow10(d)
	return math.Round(x*p) / p
}

// pct formats a share as a percentage with one decimal.
func pct(x float64) string { return strconv.FormatFloat(round(x*100, 1), 'f', 1, 64) + " %" }

// ms formats ns as milliseconds with 3 decimals.
func ms(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }
