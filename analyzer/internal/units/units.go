// Package units writes numbers the way every gputriage artifact does, so
// that the same input gives the same bytes from every analysis and host:
// durations as microseconds with exactly three decimals (computed in integer
// nanoseconds, never through float64), shares with six decimals, JSON
// indented and not HTML-escaped (kernel names keep their < > &).
package units

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/internal/escape"
)

// US is a duration in nanoseconds written as microseconds with three decimals.
type US int64

// MarshalJSON writes the exact decimal value.
func (u US) MarshalJSON() ([]byte, error) { return []byte(u.String()), nil }

func (u US) String() string {
	// uint64: -math.MinInt64 is itself negative in int64
	n, sign := uint64(u), ""
	if u < 0 {
		n, sign = -n, "-"
	}
	f := strconv.FormatUint(n%1000, 10)
	return sign + strconv.FormatUint(n/1000, 10) + "." + strings.Repeat("0", 3-len(f)) + f
}

// Signed is String with an explicit + for positive values (deltas).
func (u US) Signed() string {
	if u > 0 {
		return "+" + u.String()
	}
	return u.String()
}

// Ratio is a share in [0,1] written with 6 decimals.
type Ratio float64

// MarshalJSON writes the value rounded to 6 decimals (NaN and ±Inf as 0).
func (r Ratio) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(Round(float64(r), 6), 'f', -1, 64)), nil
}

// Round rounds x to d decimals; NaN and ±Inf become 0, and a value too
// large to scale (x·10^d overflows) is already whole: it stays.
func Round(x float64, d int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	p := math.Pow10(d)
	if math.IsInf(x*p, 0) {
		return x
	}
	return math.Round(x*p) / p
}

// AddSat returns a+b, saturating at int64's ends instead of wrapping:
// sums over files add times of up to 4·10¹⁸ ns each (three files spanning
// 3.9·10¹⁸ ns summed to a window of -6.7·10¹⁵ µs).
func AddSat(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// SubSat returns a-b, saturating at int64's ends instead of wrapping (a
// delta between two saturated sums).
func SubSat(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return AddSat(a, -b)
}

// Trunc converts x to int64 as int64(x) does inside int64's range, and
// saturates outside it (NaN is 0). Go leaves an out-of-range conversion
// to the platform: amd64 gives -2^63 where wasm saturates, so a 10^20 ns
// bound read -9223372036854775.808 µs natively and 9223372036854775.807
// under wasm. Every float → integer conversion of the analyzer goes
// through Trunc or through a range check that refuses the value
// (docs/limits.md, "Values").
func Trunc(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 1<<63:
		return math.MaxInt64
	case x <= -1<<63:
		return math.MinInt64
	}
	return int64(x)
}

// Pct formats a share as a percentage with one decimal ("12.3 %").
func Pct(x float64) string { return strconv.FormatFloat(Round(x*100, 1), 'f', 1, 64) + " %" }

// JSON encodes v indented, HTML-unescaped, with a trailing newline.
func JSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		// Only our own types are encoded; a failure is a programming error
		// that must still leave a readable artifact.
		b, _ := json.Marshal(err.Error())
		return []byte(`{"error":` + string(b) + "}\n")
	}
	return buf.Bytes()
}

// Cell makes s safe inside a one-backtick code span in a Markdown table
// cell.
func Cell(s string) string { return escape.MarkdownCode(s) }

// Text makes s literal Markdown text (prose or a table cell outside code).
func Text(s string) string { return escape.MarkdownText(s) }

// Short cuts s to n runes, ending with an ellipsis when cut.
func Short(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}
