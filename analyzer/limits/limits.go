// Package limits holds gputriage's resource budgets: every bound on what one
// input may make the analyzer keep or do, in one place, so that the CLI (both
// engines), the page and the Worker refuse or cut short the same inputs with
// the same words. docs/limits.md documents each one; the CLI overrides them
// with --max-* flags, which travel to the module inside Options.
package limits

import (
	"fmt"
	"strconv"
)

// Limits are the budgets of one job. A zero field means "the default".
type Limits struct {
	// EventBytes bounds one traceEvents element (and one top-level key):
	// the reader keeps an element that straddles chunks until it is whole.
	EventBytes int64 `json:"max_event_bytes,omitempty"`
	// StringBytes bounds one kept string (a kernel or op name); longer
	// names are cut to it and counted.
	StringBytes int64 `json:"max_string_bytes,omitempty"`
	// Depth bounds the nesting of side documents decoded whole
	// (distributedInfo, deviceProperties, crash_diagnostics.json, …).
	Depth int `json:"max_depth,omitempty"`
	// Records bounds the events kept (kernels, ops, spans) over a job.
	Records int64 `json:"max_records,omitempty"`
	// NameBytes bounds the distinct names kept over a job.
	NameBytes int64 `json:"max_name_bytes,omitempty"`
	// Ratio bounds decompressed / compressed bytes once RatioAfter
	// decompressed bytes have been read (real traces compress 5–30×; a
	// deflate stream can reach 1032×).
	Ratio      int64 `json:"max_ratio,omitempty"`
	RatioAfter int64 `json:"ratio_after,omitempty"`
	// HintBytes caps the host's estimate of a file's decompressed size,
	// which only plans memory.
	HintBytes int64 `json:"max_hint_bytes,omitempty"`
	// SideDocBytes bounds a side document decoded whole for the crash
	// analysis (crash_diagnostics.json, a dump's metadata.json, a
	// flight-recorder dump: 2,000 entries with stacks are 2.7 MB).
	SideDocBytes int64 `json:"max_side_doc_bytes,omitempty"`
}

// Defaults. With them one job's peak memory is at most MemoryBound (≈ 1.14
// GiB); docs/limits.md gives the derivation and the measurement.
const (
	DefaultEventBytes  = 8 << 20
	DefaultStringBytes = 64 << 10
	DefaultDepth       = 64
	// DefaultRecords: 8 Mi records hold a 2.7 GB trace (a kernel, its
	// launch and its cpu_op are three records); 16 Mi peaked at 4.1 GB.
	DefaultRecords   = 8 << 20
	DefaultNameBytes = 128 << 20
	DefaultRatio     = 200
	DefaultHintBytes = 16 << 30
	DefaultSideDoc   = 4 << 20
	// DefaultRatioAfter is how many decompressed bytes a file may always
	// have, whatever its ratio (small, very repetitive files are harmless).
	DefaultRatioAfter = 64 << 20
	// DeflateMaxRatio is the format's own bound: one deflate byte expands
	// to at most 1032 bytes, so a gzip file of n bytes holds < n·1032.
	DeflateMaxRatio = 1032
	// MaxArtifactNS bounds the times (in ns) and the counts diff reads back
	// from an artifact folder, each file's sum included, so every sum and
	// delta stays inside int64 whatever the file says (the trace reader's
	// own time range, 0 … 4·10¹⁸ ns).
	MaxArtifactNS = 4e18
)

// RecordPeakBytes is what one kept record costs at the job's peak: its
// 48–64 bytes in the store, the store's doubling growth (the old and the
// new column live together once) and the analyses' transient indexes at
// finish (steps, launch, timeline: 60–70 B per kernel). Measured in
// make bench (BENCHMARKS.md, "Hostile shapes"): 20 M tiny events peaked at
// 809 MiB native and 1008 MiB wasm at 8 Mi records, 2090 MiB at 16 Mi;
// with 64-bit stream and device ids (GPU op 64 B, was 56) 9 M events
// peaked at 953 MiB native and 1049 MiB wasm, under the 1172 MiB bound.
const RecordPeakBytes = 128

// MemoryBound is the peak memory one job may reach under l (normalized):
// every kept record at RecordPeakBytes, every kept name, one event being
// read, the kept header values (8 MiB) and a side document. The native
// CLI makes it its garbage collector's soft limit, so collection slack
// does not double it; a wasm module collects at 25 % growth.
func (l Limits) MemoryBound() int64 {
	return l.Records*RecordPeakBytes + l.NameBytes + l.EventBytes + 8<<20 + l.SideDocBytes
}

// CollectiveOps bounds the collectives matched across ranks over one job
// (the cross-rank view: collectives.json, ranks.json): each rank's first
// CollectiveOps / ranks in issue order are matched, the rest left out and
// counted in the notes (docs/limits.md). Matching costs ~3 KB per op
// natively and ~10 KB under wasm (two ranks of 50 k all-reduces: 300 MB
// native, 1 GiB in the module), so 65,536 ops stay near 650 MB in the module.
const CollectiveOps = 1 << 16

// RankSummaryBytes bounds one rank summary (rank_summary.json) read by
// gputriage ranks: a bigger one is refused by name. A summary holds a rank's
// collectives, and matching keeps at most CollectiveOps of them per job.
const RankSummaryBytes = 256 << 20

// RankSummariesBytes bounds the rank summaries one gputriage ranks job
// reads in all: a summary that would take the bytes read past it is not
// read (the input is a flagged partial naming this bound). Each summary
// costs about three times its bytes once decoded and matched (two of 55 MB:
// 353 MB native, 327 MB under wasm), so 256 MiB stays under 1 GiB.
const RankSummariesBytes = 256 << 20

// Lanes bounds the lanes gpu_lanes.json draws per trace file: beyond, the
// busiest Lanes-1 streams keep their own and the rest share one merged
// lane (one stream per kernel, 80 k streams, took 2.7 GB at 400 bins each).
// Real traces have a few streams per device, under 20 per file.
const Lanes = 128

// StreamRows bounds the per-stream rows of breakdown.json per trace file
// (files[].streams): beyond, the busiest StreamRows-1 streams keep their
// rows and the rest are summed into one last row (device and stream -1;
// the file's merged_streams says how many). Two ranks of 100 k streams
// wrote 24 MB of rows per rank and its merge again.
const StreamRows = Lanes

// RankDirs bounds the ranks of a rank folder that get their own artifacts
// (ranks/<rank>/: summary, breakdown, timeline, lanes, roofline, …): the
// lowest RankDirs ranks do; the others are summarised — their line in the
// summary's Per rank table and their rows in the top-level artifacts stay,
// with no folder (and no roofline) of their own. 2,000 rank traces wrote
// 2,000 artifact sets (175 MB; 121 s CPU under wasm, over its budget).
const RankDirs = 64

// KernelRows bounds the rows of kernel_table.json (and its CSV) per stage:
// a stage with more distinct kernels keeps its KernelRows largest, and the
// rest are summed into "(other kernels)" rows, one per category, that say
// how many kernels they hold. Real traces have tens to a few hundred
// kernels per stage; 500 k distinct names made a 160 MB table.
const KernelRows = 2000

// OpRows bounds the rows of roofline.json per stage (one per launching
// CPU op and its shapes): a stage with more keeps its OpRows-1 largest by
// kernel time and sums the rest into one "(other ops)" row (merged_rows,
// truncated). Real traces have tens to hundreds; 200 k distinct op names
// wrote a 170 MB roofline.json, 5 GB to indent under wasm.
const OpRows = 2000

// Fixed bounds of the flight-recorder pickle decoder (no flag: a real dump
// of 2,000 entries with stacks has about 100 k elements and 1 M opcodes).
const (
	PickleOps   = 4 << 20 // opcodes read
	PickleDepth = 1 << 16 // stack, marks and memo entries
	// PickleElems bounds the list and dict elements of the decoded
	// document, counted per element (a list holding itself 983 k times
	// made 64 levels of a million slots: 1.3 GB from 983 KB).
	PickleElems = 1 << 20
)

// Normalized returns l with every zero field set to its default, and an
// error for negative values.
func (l Limits) Normalized() (Limits, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{{"max-event-bytes", l.EventBytes}, {"max-string-bytes", l.StringBytes}, {"max-depth", int64(l.Depth)},
		{"max-records", l.Records}, {"max-name-bytes", l.NameBytes}, {"max-ratio", l.Ratio}, {"ratio-after", l.RatioAfter},
		{"max-hint-bytes", l.HintBytes}, {"max-side-doc-bytes", l.SideDocBytes}} {
		if f.v < 0 {
			return l, fmt.Errorf("--%s must not be negative", f.name)
		}
	}
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.EventBytes, DefaultEventBytes)
	def(&l.StringBytes, DefaultStringBytes)
	def(&l.Records, DefaultRecords)
	def(&l.NameBytes, DefaultNameBytes)
	def(&l.Ratio, DefaultRatio)
	def(&l.RatioAfter, DefaultRatioAfter)
	def(&l.HintBytes, DefaultHintBytes)
	def(&l.SideDocBytes, DefaultSideDoc)
	if l.Depth == 0 {
		l.Depth = DefaultDepth
	}
	return l, nil
}

// Flag describes one limit for the CLI: its flag name and where it lives.
type Flag struct {
	Name string
	Help string
	Set  func(*Limits, int64)
}

// Flags lists the CLI flags, in the order the usage shows them.
var Flags = []Flag{
	{"max-event-bytes", "bytes of one traceEvents element", func(l *Limits, v int64) { l.EventBytes = v }},
	{"max-string-bytes", "bytes of one kept name (longer ones are cut)", func(l *Limits, v int64) { l.StringBytes = v }},
	{"max-depth", "nesting of a side document (distributedInfo, crash_diagnostics.json)", func(l *Limits, v int64) { l.Depth = int(min(v, 1<<20)) }},
	{"max-records", "events kept over the job", func(l *Limits, v int64) { l.Records = v }},
	{"max-name-bytes", "bytes of distinct names kept over the job", func(l *Limits, v int64) { l.NameBytes = v }},
	{"max-ratio", "decompressed/compressed bytes (once --ratio-after bytes are read)", func(l *Limits, v int64) { l.Ratio = v }},
	{"ratio-after", "decompressed bytes a file may always have, whatever its ratio", func(l *Limits, v int64) { l.RatioAfter = v }},
	{"max-hint-bytes", "cap on a file's expected decompressed size (memory planning)", func(l *Limits, v int64) { l.HintBytes = v }},
	{"max-side-doc-bytes", "bytes of a side document (crash_diagnostics.json, metadata.json, a flight-recorder dump)", func(l *Limits, v int64) { l.SideDocBytes = v }},
}

// ParseSize reads a flag value: a count with an optional k/M/G suffix
// (powers of 1024 with a trailing B or i: 64MiB, 64M, 8k).
func ParseSize(s string) (int64, error) {
	mult := int64(1)
	t := s
	for len(t) > 0 && (t[len(t)-1] == 'B' || t[len(t)-1] == 'i') {
		t = t[:len(t)-1]
	}
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult, t = 1<<10, t[:n-1]
		case 'm', 'M':
			mult, t = 1<<20, t[:n-1]
		case 'g', 'G':
			mult, t = 1<<30, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (a number, optionally with k, M or G)", s)
	}
	return v * mult, nil
}

// ClampHint bounds a host's decompressed-size estimate: to what compressed
// bytes of gzip can hold (compressed ≤ 0: unknown) and to HintBytes.
func (l Limits) ClampHint(hint, compressed int64) int64 {
	if compressed > 0 && hint > compressed*DeflateMaxRatio {
		hint = compressed * DeflateMaxRatio
	}
	return min(hint, l.HintBytes)
}

// RatioExceeded reports whether decompressed bytes from compressed ones
// break the ratio guard (compressed ≤ 0: not compressed or unknown).
func (l Limits) RatioExceeded(decompressed, compressed int64) bool {
	return compressed > 0 && decompressed > l.RatioAfter && decompressed/l.Ratio > compressed
}

// Exceeded is the message of a limit that cut a file short: which limit,
// where, and the flag that raises it.
func Exceeded(what string, flag string, limit int64, at int64) string {
	return fmt.Sprintf("%s at byte %d exceeds the limit of %d (--%s): the rest of the file is not read", what, at, limit, flag)
}

// Depth returns the nesting depth of a JSON text (strings skipped), stopping
// as soon as it passes max; it never fails on malformed input.
func Depth(b []byte, max int) int {
	depth, deepest := 0, 0
	inStr, esc := false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > max {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// SQLiteSteps bounds the work SQLite may do reading one database (rocpd,
// RPD, rocprof-compute) of size bytes that has written rows rows so far, in
// thousands of its virtual-machine steps (SQLite's progress handler runs
// every 1,000): SQLiteStepsBase, one per 256 bytes of the file and 4 per
// row written. The views queried are the database's own and one can run
// for ever (an endless recursive CTE: no row, no end) or for the product of
// its tables' sizes. Real databases take about one per row: the rocpd of
// ../shared/testdata/rocprof (64 MB, 43,927 rows) 45,939, mytrace.rpd
// (4 MB, 47,344 rows) 47,920.
func SQLiteSteps(size, rows int64) int64 {
	return SQLiteStepsBase + size/256 + 4*rows
}

// SQLiteStepsBase is what any database may spend: an endless view stops
// after 1.3·10⁸ steps (3 s natively).
const SQLiteStepsBase = 1 << 17

// SQLiteStepsNote is the error of a database whose reading spent its budget.
func SQLiteStepsNote(size, rows int64) string {
	return fmt.Sprintf("SQLite stopped after %d thousand steps (limits.SQLiteSteps: %d thousand plus one per 256 bytes of the file and 4 per row; %d rows read): a view of the database does not end", SQLiteSteps(size, rows), SQLiteStepsBase, rows)
}
