package trace

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
)

// Plausible time values, in ns. Outside them a value is not a profiler's
// (ts 1e308, dur ≥ 1e19 overflow int64 and differ between native and wasm
// float conversion); the event is skipped and counted, the file partial.
const (
	MaxTS  = 4e18 // epoch ns of year 2096: room for ts + dur in int64
	MaxDur = 1e12 // 1000 s for one kernel, op or span
)

// Numbers counts the time values of kept categories that could not be used.
type Numbers struct {
	TSMissing  int64 // no ts (the event is skipped)
	TSInvalid  int64 // ts not a number (string, null, NaN, …): skipped
	TSRange    int64 // ts negative or beyond MaxTS: skipped
	DurInvalid int64 // dur present but not a number: skipped
	DurRange   int64 // dur beyond MaxDur: skipped
	// IDRange counts GPU events whose device or stream id is an integer
	// outside int64: skipped rather than wrapped onto another stream's
	// lane (2^64+7 is not stream 7). Ids inside int64 are kept whole.
	IDRange int64
}

// Any reports whether any value was counted.
func (n *Numbers) Any() bool {
	return n.TSMissing+n.TSInvalid+n.TSRange+n.DurInvalid+n.DurRange+n.IDRange > 0
}

// Count is one kind of problem and how often it occurred.
type Count struct {
	What  string `json:"what"`
	Count int64  `json:"count"`
}

// Problems lists what was wrong with a file's events, in a fixed order.
func (f *File) Problems() []Count {
	var out []Count
	if f.BadEvents > 0 {
		out = append(out, Count{"traceEvents elements that are not JSON objects (skipped)", f.BadEvents})
	}
	return append(out, f.valueProblems()...)
}

// valueProblems are the counts of unusable values and names.
func (f *File) valueProblems() []Count {
	var out []Count
	add := func(n int64, what string) {
		if n > 0 {
			out = append(out, Count{what, n})
		}
	}
	n := &f.Numbers
	add(n.TSMissing, "events without ts (skipped)")
	add(n.TSInvalid, "events whose ts is not a number (skipped)")
	add(n.TSRange, fmt.Sprintf("events whose ts is negative or beyond %.0e ns (skipped)", float64(MaxTS)))
	add(n.DurInvalid, "events whose dur is not a number (skipped)")
	add(n.DurRange, fmt.Sprintf("events whose dur is beyond %.0e ns (skipped)", float64(MaxDur)))
	add(n.IDRange, "GPU events whose device or stream id is outside -2^63 … 2^63-1 (skipped)")
	add(f.NegDur, "events with a negative dur (counted as 0)")
	add(f.LongNames, "names longer than the string limit, --max-string-bytes (cut)")
	return out
}

// times converts an event's ts and dur, counting what cannot be used.
func (f *File) times(ts, dur []byte) (int64, int64, bool) {
	n := &f.Numbers
	bad := func(c *int64) (int64, int64, bool) {
		*c++
		return 0, 0, false
	}
	if ts == nil {
		return bad(&n.TSMissing)
	}
	t, ok := jsontext.ParseNS(ts)
	switch {
	case !ok && huge(ts):
		return bad(&n.TSRange)
	case !ok:
		return bad(&n.TSInvalid)
	case t < 0 || t > MaxTS:
		return bad(&n.TSRange)
	}
	if dur == nil { // instant-like complete event: no duration
		return t, 0, true
	}
	d, ok := jsontext.ParseNS(dur)
	switch {
	case !ok && huge(dur):
		return bad(&n.DurRange)
	case !ok:
		return bad(&n.DurInvalid)
	case d > MaxDur:
		return bad(&n.DurRange)
	case d < 0:
		f.NegDur++
		d = 0
	}
	return t, d, true
}

// huge reports a number too large for int64 ns (1e19, 1e308, 1e400): out
// of range rather than not a number.
func huge(b []byte) bool {
	f, err := strconv.ParseFloat(string(bytes.Trim(b, `"`)), 64)
	return (err == nil || errors.Is(err, strconv.ErrRange)) && !math.IsNaN(f)
}
