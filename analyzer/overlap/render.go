package overlap

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/internal/escape"
)

// Units as every artifact writes them (analyzer/internal/units).
type (
	us    = units.US
	ratio = units.Ratio
)

func cell(s string) string         { return units.Cell(s) }
func short(s string, n int) string { return units.Short(s, n) }

func pct(r ratio) string { return units.Pct(float64(r)) }

// Result is the overlap analysis of one formal (and mapping) trace.
type Result struct {
	Rows      []Row      `json:"rows"`
	Summary   Summary    `json:"summary"`
	Timelines []Timeline `json:"timelines,omitempty"`
	opt       Options
	locate    map[string]string
	kmap      []MapRow
}

// MapRow is one canonical kernel of the formal trace with the CPU-side
// source that covers most of its GPU time (the kernel map of the upstream
// skill's --export-kernel-map).
type MapRow struct {
	Kernel         string `json:"kernel"`
	Category       string `json:"category"`
	Launches       int64  `json:"launches"`
	GPUTimeUS      us     `json:"gpu_time_us"`
	PythonScope    string `json:"python_scope"`
	CallChain      string `json:"call_chain"`
	LaunchOp       string `json:"launch_op"`
	OpChain        string `json:"op_chain"`
	AnnotationPath string `json:"annotation_path"`
	SourceShare    ratio  `json:"source_share"` // share of the kernel's time with this source
	MappedBy       string `json:"mapped_by"`    // direct | capture | sequence | name | none
}

// KernelMap returns every canonical kernel of the analysed GPU with its
// dominant source, by GPU time (descending).
func (r *Result) KernelMap() []MapRow { return r.kmap }

// Summary holds the formal trace's totals and the mapping coverage.
type Summary struct {
	FormalFile    string  `json:"formal_file"`
	Device        int64   `json:"device"`
	Ops           int     `json:"ops"` // kernels, copies and fills on the analysed GPU
	Streams       []int64 `json:"streams"`
	BusyUS        us      `json:"busy_us"`    // union of all ops
	OverlapUS     us      `json:"overlap_us"` // time with ≥ 2 streams busy
	OverlapShare  ratio   `json:"overlap_share"`
	PeakStreams   int     `json:"peak_streams"`
	CommComputeUS us      `json:"comm_compute_overlap_us"` // communication kernels ∩ other kernels (unions)
	GraphReplays  int     `json:"graph_replays"`
	GraphKernels  int     `json:"graph_kernels"`

	MappingFile      string `json:"mapping_file,omitempty"`
	MappingKernels   int    `json:"mapping_kernels"` // executed, eagerly launched ops of the mapping trace
	MappingSteps     int    `json:"mapping_steps"`
	MappingCaptures  int    `json:"mapping_captures"`   // graphs captured in the mapping trace (capture trace)
	ReplaysAligned   int    `json:"replays_aligned"`    // graph replays whose kernel sequence equals their mapping step's, or their captured graph's, exactly
	ReplaysByCapture int    `json:"replays_by_capture"` // graph replays aligned with a captured graph
	MappingCoverage  ratio  `json:"mapping_coverage"`   // share of formal GPU time with a CPU op or Python scope
	PythonCoverage   ratio  `json:"python_coverage"`    // … with a Python scope
	Direct           ratio  `json:"mapped_direct"`      // … from the formal trace's own joins
	BySequence       ratio  `json:"mapped_by_sequence"`
	ByName           ratio  `json:"mapped_by_name"`
	ByCapture        ratio  `json:"mapped_by_capture"` // … from the launch of the same node in a captured graph
	MappedVia        string `json:"mapped_via"`        // how most of the mapped time was mapped: direct | capture | sequence | name | none

	Stages []StageSummary `json:"stages"`
	Note   string         `json:"note,omitempty"`
}

// StageSummary is one stage's GPU time and busy time on the analysed GPU.
type StageSummary struct {
	Stage     string `json:"stage"`
	GPUTimeUS us     `json:"gpu_time_us"`
	BusyUS    us     `json:"busy_us"`
}

// Row is one line of the Overlap Opportunity Table.
type Row struct {
	Stage    string `json:"stage"`
	Priority string `json:"priority"`
	Verdict  string `json:"verdict"` // headroom | low-roi-hidden | dominant
	Kernel   string `json:"kernel"`
	// Category is the overlap class of the kernel (compute |
	// communication | elementwise | memory | other), the vocabulary of
	// hidden_by; KernelCategory is the project's one kernel category
	// (kernel_table.json, breakdown.json), written as "category".
	Category       string `json:"overlap_class"`
	PythonScope    string `json:"python_scope"`
	TotalUS        us     `json:"total_us"`
	Share          ratio  `json:"share"` // of the stage's busy time
	ExclusiveRatio ratio  `json:"exclusive_ratio"`
	HiddenRatio    ratio  `json:"hidden_ratio"`
	HiddenBy       string `json:"hidden_by"` // bucket that hid it most: compute | communication | memory | elementwise | other | ""
	DepRisk        string `json:"dep_risk"`  // low | high | unclear
	Recommendation string `json:"recommendation"`

	KernelCategory       string `json:"category"`
	Launches             int64  `json:"launches"`
	LaunchOp             string `json:"launch_op"`
	OpChain              string `json:"op_chain"`
	CallChain            string `json:"call_chain"`
	AnnotationPath       string `json:"annotation_path"` // record_function ranges around the launch op, outer → inner
	MappedBy             string `json:"mapped_by"`       // direct | sequence | name | capture | none
	MappingRatio         ratio  `json:"mapping_ratio"`
	HiddenByComputeRatio ratio  `json:"hidden_by_compute_ratio"`
	HiddenByCommRatio    ratio  `json:"hidden_by_comm_ratio"`
	OverlapWith          string `json:"overlap_with"`
	OverlapWithUS        us     `json:"overlap_with_us"`
	DepSignal            string `json:"dep_signal"`
	PrevNeighbor         string `json:"prev_neighbor"`
	NextNeighbor         string `json:"next_neighbor"`
	Suggestion           string `json:"suggestion"`
	// OverlapGainUS bounds what overlap could save: a headroom or hidden
	// row's exclusive time less collective wait, at most the stage's work
	// on other streams (ConcurrentWorkUS: 0 on a single stream); for a
	// dominant kernel the stage's exposed non-compute time that could
	// move under it (0 on a single stream).
	OverlapGainUS us `json:"overlap_gain_us"`
	// CollectiveWaitUS is the row's exclusive time spent waiting for a
	// late rank (several ranks analysed): left out of the gain.
	CollectiveWaitUS us `json:"collective_wait_us"`
	// ConcurrentWorkUS is the stage's GPU time on streams other than the
	// row's: the work that could run beside it, which bounds the gain
	// (0 on a single-stream stage).
	ConcurrentWorkUS us  `json:"concurrent_work_us"`
	StageStreams     int `json:"stage_streams,omitempty"` // streams with work in the stage (dominant rows)
	rep              int32
}

// Timeline is an ASCII picture of the streams around one representative
// kernel.
type Timeline struct {
	Kernel  string `json:"kernel"`
	StartUS us     `json:"start_us"` // relative to the first op of the analysed GPU
	EndUS   us     `json:"end_us"`
	Text    string `json:"text"`
}

// JSON returns overlap_opportunities.json.
func (r *Result) JSON() []byte {
	v := struct {
		Rows    []Row   `json:"rows"`
		Summary Summary `json:"summary"`
	}{r.Rows, r.Summary}
	if v.Rows == nil {
		v.Rows = []Row{}
	}
	return units.JSON(v)
}

// Markdown returns the Overlap Opportunity Table, the formal summary and
// the ASCII timelines.
func (r *Result) Markdown() []byte {
	var b strings.Builder
	s := &r.Summary
	b.WriteString("## Overlap opportunities\n\n")
	if s.Note != "" {
		b.WriteString(s.Note + ".\n")
		return []byte(b.String())
	}
	streams := make([]string, len(s.Streams))
	for i, x := range s.Streams {
		streams[i] = strconv.FormatInt(x, 10)
	}
	b.WriteString("Formal trace: " + strconv.Itoa(s.Ops) + " GPU ops on device " + strconv.FormatInt(s.Device, 10) +
		", streams " + strings.Join(streams, ", ") + "; busy " + s.BusyUS.String() + " us, ≥ 2 streams " +
		s.OverlapUS.String() + " us (" + pct(s.OverlapShare) + "), peak " + strconv.Itoa(s.PeakStreams) +
		" concurrent streams; communication ∩ compute " + s.CommComputeUS.String() + " us.")
	if s.GraphReplays > 0 {
		b.WriteString(" " + strconv.Itoa(s.GraphKernels) + " kernels replayed by " + strconv.Itoa(s.GraphReplays) + " graph launches.")
	}
	b.WriteString("\n\n")
	if s.MappingFile != "" {
		b.WriteString("Mapping trace: " + strconv.Itoa(s.MappingKernels) + " kernels in " + strconv.Itoa(s.MappingSteps) + " steps")
		if s.MappingCaptures > 0 {
			b.WriteString(", " + strconv.Itoa(s.MappingCaptures) + " captured graphs")
		}
		if s.GraphReplays > 0 {
			if s.ReplaysByCapture > 0 {
				b.WriteString("; " + strconv.Itoa(s.ReplaysByCapture) + " of " + strconv.Itoa(s.GraphReplays) + " graph replays aligned with a captured graph")
			}
			b.WriteString("; " + strconv.Itoa(s.ReplaysAligned) + " of " + strconv.Itoa(s.GraphReplays) + " graph replays match a step's or a capture's kernel sequence exactly")
		}
		b.WriteString(". ")
	} else {
		b.WriteString("No mapping trace. ")
	}
	b.WriteString("Source-map coverage: " + pct(s.MappingCoverage) + " of formal GPU time has a CPU op or Python scope (" +
		pct(s.PythonCoverage) + " a Python scope; direct " + pct(s.Direct) + ", by capture " + pct(s.ByCapture) +
		", by sequence " + pct(s.BySequence) + ", by name " + pct(s.ByName) + ").\n\n")
	b.WriteString("| Stage | Priority | Verdict | Kernel | Python scope | Formal signal (us, share, excl/hid; overlap gain) | Dep risk | Recommendation |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	if len(r.Rows) == 0 {
		b.WriteString("| - | - | no actionable overlap row stood out | - | - | - | - | - |\n")
	}
	for _, row := range r.Rows {
		scope := row.PythonScope
		if scope == "" && row.LaunchOp != "" {
			scope = "op: " + row.LaunchOp
		}
		if scope == "" {
			scope = "unmapped"
		}
		signal := row.TotalUS.String() + " us, " + pct(row.Share) + ", " + pct(row.ExclusiveRatio) + " / " + pct(row.HiddenRatio) +
			"; overlap gain ≤ " + row.OverlapGainUS.String() + " us"
		b.WriteString("| " + strings.Join([]string{units.Text(row.Stage), units.Text(row.Priority), units.Text(row.Verdict), "`" + cell(short(row.Kernel, 90)) + "`",
			units.Text(scope), signal, units.Text(row.DepRisk), units.Text(row.Recommendation)}, " | ") + " |\n")
	}
	for _, t := range r.Timelines {
		b.WriteString("\n" + escape.CodeSpan(short(t.Kernel, 90)) + " (" + t.StartUS.String() + " → " + t.EndUS.String() + " us)\n\n" + escape.Fence("text", t.Text))
	}
	return []byte(b.String())
}

// timelines draws the streams around the representative ops of the first
// rows: window max(40 µs, 6 × dur), 35 % before and 65 % after.
func (a *analyzer) timelines(res *Result) {
	if a.opt.Timelines < 0 || len(a.ops) == 0 {
		return
	}
	// Times are relative to the first op of the representative op's file
	// (files of a stage-split profile may have been laid end to end).
	origin := map[uint16]int64{}
	for k := range a.ops {
		f := a.formal.GPU[a.ops[k].i].File
		if t, ok := origin[f]; !ok || a.ops[k].ts < t {
			origin[f] = a.ops[k].ts
		}
	}
	var done []int32
	for _, row := range res.Rows {
		if len(done) >= a.opt.Timelines {
			break
		}
		if slices.Contains(done, row.rep) {
			continue
		}
		done = append(done, row.rep)
		c := &a.ops[row.rep]
		span := max(int64(40000), 6*(c.end-c.ts))
		start := c.ts - span*35/100
		end := c.end + span*65/100
		o := origin[a.formal.GPU[c.i].File]
		res.Timelines = append(res.Timelines, Timeline{Kernel: row.Kernel, StartUS: us(start - o), EndUS: us(end - o),
			Text: a.draw(start, end, o, a.formal.GPU[c.i].File)})
	}
}

func (a *analyzer) draw(start, end, origin int64, file uint16) string {
	w := a.opt.Width
	var in []int32
	streams := map[int32]bool{}
	for k := range a.ops {
		o := &a.ops[k]
		if o.end >= start && o.ts <= end && a.formal.GPU[o.i].File == file {
			in = append(in, int32(k))
			streams[o.stream] = true
		}
	}
	// Legend: the 8 longest ops get letters, others their bucket's mark.
	legend := slices.Clone(in)
	slices.SortStableFunc(legend, func(x, y int32) int {
		dx, dy := a.ops[x].end-a.ops[x].ts, a.ops[y].end-a.ops[y].ts
		if dx != dy {
			if dx > dy {
				return -1
			}
			return 1
		}
		return int(x - y)
	})
	legend = legend[:min(8, len(legend))]
	sym := map[int32]byte{}
	for i, k := range legend {
		sym[k] = byte('A' + i)
	}
	ids := make([]int32, 0, len(streams))
	for s := range streams {
		ids = append(ids, s)
	}
	slices.SortFunc(ids, func(x, y int32) int { return cmp.Compare(a.streams[x], a.streams[y]) })
	label := 0
	for _, s := range ids {
		label = max(label, len("stream "+strconv.FormatInt(a.streams[s], 10)))
	}
	var b strings.Builder
	pos := func(t int64) int { return int((t - start) * int64(w-1) / max(end-start, 1)) }
	ruler := []byte(strings.Repeat(" ", w))
	for _, m := range []int{0, w / 4, w / 2, 3 * w / 4, w - 1} {
		ruler[m] = '|'
	}
	b.WriteString(strings.Repeat(" ", label+1) + string(ruler) + "\n")
	times := []byte(strings.Repeat(" ", w+16))
	for _, m := range []int{0, w / 2, w - 1} {
		t := us(start + (end-start)*int64(m)/int64(max(w-1, 1)) - origin).String()
		p := max(0, min(m-len(t)/2, w-len(t)))
		copy(times[p:], t)
	}
	b.WriteString(strings.Repeat(" ", label+1) + strings.TrimRight(string(times), " ") + "  (us)\n")
	for _, s := range ids {
		row := []byte(strings.Repeat(".", w))
		for _, k := range in {
			o := &a.ops[k]
			if o.stream != s {
				continue
			}
			ch, ok := sym[k]
			if !ok {
				ch = o.bucket.char()
			}
			l := max(pos(o.ts), 0)
			r := min(max(pos(o.end), l), w-1)
			for x := l; x <= r; x++ {
				row[x] = ch
			}
		}
		name := "stream " + strconv.FormatInt(a.streams[s], 10)
		b.WriteString(name + strings.Repeat(" ", label-len(name)+1) + string(row) + "\n")
	}
	b.WriteString("legend: # compute, = communication, ~ elementwise, + memory, * other\n")
	for i, k := range legend {
		o := &a.ops[k]
		b.WriteString("  " + string(rune('A'+i)) + " [" + o.bucket.String()[:4] + "] " + short(a.canons[o.canon], 72) +
			" (" + us(o.end-o.ts).String() + " us)\n")
	}
	return b.String()
}

// Locate returns the dominant Python scope (else the launching CPU op, as
// "op: name") of a canonical kernel over the whole formal trace, or "".
// It lets other tables (fuse) reuse the formal→mapping attribution.
func (r *Result) Locate(kernel string) string {
	return r.locate[kernel]
}
