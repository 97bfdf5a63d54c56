package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/arch"
	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/identity"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/launch"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/steps"
	"github.com/gputriage/gputriage/analyzer/timeline"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Tool identifies the writer in every artifact.
const Tool = "gputriage"

// Version is the artifact schema version. 0.3.0: kernel_table.json holds
// at most limits.KernelRows rows per stage, the rest summed into
// "(other kernels)" rows (merged_kernels, truncated). 0.4.0: diff.json's
// kernels likewise (kernels_truncated, merged_kernels, status "merged").
const Version = "0.4.0"

// Analysis is everything the trace artifacts are written from.
type Analysis struct {
	Store       *trace.Store
	TraceFiles  []int // indices into Store.Files
	Breakdown   *breakdown.Result
	Idle        *idle.Result        // why the GPU idles (idle.json)
	Steps       *steps.Result       // step statistics (steps.json)
	Launch      *launch.Result      // launch statistics (launch_stats.json)
	Timelines   []timeline.Timeline // one per trace file
	Facts       []timeline.Facts    // one per trace file
	Arch        arch.Relevance
	Target      string
	StageFilter string
	ROCmVersion string
	HIPVersion  string
	// Framework is the serving framework the trace's frames and ops name
	// (SGLang, vLLM, xDiT), "" when none.
	Framework   string
	CUDAVersion string
	DeviceIDs   []int
	Distributed *Distributed
	Ranks       []RankInfo // one per trace file, in TraceFiles order
	// MappingTrace is the graph-off / capture trace a triage mapped kernels
	// through, when it is not the analysed trace itself.
	MappingTrace string
	MappingFile  *trace.File
	// Identity is the run's identity: as given, completed from sidecars.
	Identity identity.Identity
	// Sections are Markdown sections other analyses add to the summary
	// (before the takeaways); Lead are takeaways they put first.
	Sections []string
	Lead     []string
	First    []string // takeaways before all others (the step figures)
	// CrossRanks is the cross-rank section (collectives matched across the
	// ranks, the straggler) when the traces are ranks of one job; it takes
	// the place of the per-file rank table, and CrossVerdict leads the
	// summary.
	CrossRanks   string
	CrossVerdict string
	// PerRank are the ranks' own analyses, one line each, led by the
	// cross-rank verdict in the summary.
	PerRank []RankLine
	// FiguresRank is, for a rank folder, the rank whose own figures the
	// top-level ones are (breakdown, kernels, steps, idle, launch,
	// roofline): never a sum over the ranks. nil for one rank's trace(s).
	FiguresRank *int
}

// RankInfo identifies the rank of one trace file (-1 when unknown).
type RankInfo struct {
	File string
	Rank int
}

// Distributed is the trace's distributedInfo.
type Distributed struct {
	Backend   string `json:"backend"`
	Rank      int    `json:"rank"`
	WorldSize int    `json:"world_size"`
	Version   string `json:"nccl_version"`
}

// Partial reports whether any trace file was damaged or cut short.
func (a *Analysis) Partial() bool {
	for _, fi := range a.TraceFiles {
		if a.Store.Files[fi].Partial() {
			return true
		}
	}
	return false
}

// OtherKernels names the rows of kernel_table.json that sum a stage's
// kernels beyond limits.KernelRows (their merged_kernels says how many).
const OtherKernels = "(other kernels)"

// KernelTable writes kernel_table.json.
func KernelTable(a *Analysis) []byte {
	type row struct {
		Stage          string  `json:"stage"`
		Kernel         string  `json:"kernel"`
		Category       string  `json:"category"`
		Provider       string  `json:"provider"`
		Launches       int64   `json:"launches"`
		GPUTime        US      `json:"gpu_time_us"`
		Share          Ratio   `json:"share"`
		PythonLocation *string `json:"python_location"`
		SiteShare      *Ratio  `json:"site_share"`
		CPUOp          *string `json:"cpu_op"`
		CPUOpShare     *Ratio  `json:"cpu_op_share"`
		GraphReplay    bool    `json:"graph_replay"`
		MergedKernels  int     `json:"merged_kernels"`
		MappedBy       string  `json:"mapped_by,omitempty"`
	}
	out := struct {
		Tool          string `json:"tool"`
		Partial       bool   `json:"partial"`
		FiguresRank   *int   `json:"figures_rank,omitempty"`
		Truncated     bool   `json:"truncated"`
		MergedKernels int    `json:"merged_kernels"`
		Rows          []row  `json:"rows"`
	}{Tool: Tool, Partial: a.Partial(), FiguresRank: a.FiguresRank, Rows: []row{}}
	for _, r := range CapRows(a.Breakdown.Rows, limits.KernelRows) {
		x := row{Stage: r.Stage, Kernel: r.Kernel, Category: r.Category, Provider: r.Provider,
			Launches: r.Launches, GPUTime: US(r.GPUTime), Share: Ratio(r.Share), GraphReplay: r.Graph,
			MergedKernels: r.Merged, MappedBy: r.MappedBy}
		if r.PythonLocation != "" {
			loc, s := r.PythonLocation, Ratio(r.SiteShare)
			x.PythonLocation, x.SiteShare = &loc, &s
		}
		if r.CPUOp != "" {
			op, s := r.CPUOp, Ratio(r.CPUOpShare)
			x.CPUOp, x.CPUOpShare = &op, &s
		}
		out.Truncated = out.Truncated || r.Merged > 0
		out.MergedKernels += r.Merged
		out.Rows = append(out.Rows, x)
	}
	return encode(out)
}

// MergedRow is a kernel table row; Merged > 0 for an OtherKernels row
// (the number of kernels it sums).
type MergedRow struct {
	breakdown.Row
	Merged int
}

// CapRows bounds rows (sorted by stage, then GPU time, as the breakdown
// writes them) to max per stage: the rest of a stage become one OtherKernels
// row per category (launches, time and share summed; the provider and
// graph_replay kept when all agree, else "mixed" and false; no call site),
// placed among the kept rows by their time.
func CapRows(rows []breakdown.Row, max int) []MergedRow {
	out := make([]MergedRow, 0, min(len(rows), max+16))
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Stage == rows[i].Stage {
			j++
		}
		keep := min(j-i, max)
		for _, r := range rows[i : i+keep] {
			out = append(out, MergedRow{Row: r})
		}
		if keep < j-i {
			from := len(out)
			byCat := map[string]int{} // category → index in out
			for _, r := range rows[i+keep : j] {
				k, ok := byCat[r.Category]
				if !ok {
					k = len(out)
					byCat[r.Category] = k
					out = append(out, MergedRow{Row: breakdown.Row{Stage: r.Stage, Kernel: OtherKernels,
						Category: r.Category, Provider: r.Provider, Graph: r.Graph}})
				}
				m := &out[k]
				m.Merged++
				m.Launches = units.AddSat(m.Launches, r.Launches)
				m.GPUTime = units.AddSat(m.GPUTime, r.GPUTime)
				m.Share += r.Share
				if m.Provider != r.Provider {
					m.Provider = "mixed"
				}
				m.Graph = m.Graph && r.Graph
			}
			slices.SortStableFunc(out[from-keep:], func(x, y MergedRow) int {
				if x.GPUTime != y.GPUTime {
					return cmp.Compare(y.GPUTime, x.GPUTime)
				}
				if x.Kernel != y.Kernel {
					return strings.Compare(x.Kernel, y.Kernel)
				}
				return strings.Compare(x.Category, y.Category)
			})
		}
		i = j
	}
	return out
}

type share struct {
	Name    string `json:"-"`
	GPUTime US     `json:"gpu_time_us"`
	Share   Ratio  `json:"share"`
}

// Breakdown writes breakdown.json.
func Breakdown(a *Analysis) []byte {
	type cat struct {
		Category string `json:"category"`
		GPUTime  US     `json:"gpu_time_us"`
		Share    Ratio  `json:"share"`
	}
	type prov struct {
		Provider string `json:"provider"`
		GPUTime  US     `json:"gpu_time_us"`
		Share    Ratio  `json:"share"`
	}
	type stage struct {
		Stage          string `json:"stage"`
		StageSource    string `json:"stage_source"`
		KernelCount    int64  `json:"kernel_count"`
		KernelTime     US     `json:"kernel_time_us"`
		Window         US     `json:"window_us"`
		AvgParallelism Ratio  `json:"avg_parallelism"`
		Categories     []cat  `json:"categories"`
		Providers      []prov `json:"providers"`
	}
	type stream struct {
		Device     int64 `json:"device"`
		Stream     int64 `json:"stream"`
		Kernels    int64 `json:"kernels"`
		KernelTime US    `json:"kernel_time_us"`
		Memcpys    int64 `json:"memcpys"`
		MemcpyTime US    `json:"memcpy_time_us"`
		Memsets    int64 `json:"memsets"`
		MemsetTime US    `json:"memset_time_us"`
	}
	type kstat struct {
		Name    string `json:"name"`
		Count   int64  `json:"count"`
		GPUTime US     `json:"gpu_time_us"`
	}
	type file struct {
		File            string   `json:"file"`
		Kernels         int64    `json:"kernels"`
		KernelTime      US       `json:"kernel_time_us"`
		DistinctKernels int      `json:"distinct_kernel_names"`
		Streams         []stream `json:"streams"`
		// MergedStreams: the streams beyond limits.StreamRows summed
		// into the last row of streams (device and stream -1).
		MergedStreams      int     `json:"merged_streams,omitempty"`
		TopKernels         []kstat `json:"top_kernels"`
		GraphLaunches      int64   `json:"graph_launches"`
		GraphKernels       int64   `json:"graph_launched_kernels"`
		NCCLKernels        int64   `json:"nccl_kernels"`
		NCCLTime           US      `json:"nccl_time_us"`
		NCCLComputeOverlap US      `json:"nccl_compute_overlap_us"`
		GPUBusy            US      `json:"gpu_busy_us"`
		GPUSpan            US      `json:"gpu_span_us"`
	}
	out := struct {
		Tool           string  `json:"tool"`
		Partial        bool    `json:"partial"`
		CPUOpCoverage  Ratio   `json:"cpu_op_coverage"`
		PythonCoverage *Ratio  `json:"python_coverage"`
		Stages         []stage `json:"stages"`
		Files          []file  `json:"files"`
		Ranks          *ranks  `json:"ranks,omitempty"`
		FiguresRank    *int    `json:"figures_rank,omitempty"`
	}{Tool: Tool, Partial: a.Partial(), CPUOpCoverage: Ratio(a.Breakdown.CPUOpCoverage), Stages: []stage{}, Files: []file{}, Ranks: rankSummary(a), FiguresRank: a.FiguresRank}
	if a.Breakdown.HasPython {
		r := Ratio(a.Breakdown.PythonCoverage)
		out.PythonCoverage = &r
	}
	for _, s := range a.Breakdown.Stages {
		x := stage{Stage: s.Stage, StageSource: s.Source, KernelCount: s.KernelCount, KernelTime: US(s.KernelTime),
			Window: US(s.Window), AvgParallelism: Ratio(s.AvgParallelism), Categories: []cat{}, Providers: []prov{}}
		for _, c := range s.Categories {
			x.Categories = append(x.Categories, cat{c.Name, US(c.GPUTime), Ratio(c.Share)})
		}
		for _, c := range s.Providers {
			x.Providers = append(x.Providers, prov{c.Name, US(c.GPUTime), Ratio(c.Share)})
		}
		out.Stages = append(out.Stages, x)
	}
	for _, f := range a.Facts {
		x := file{File: f.File, Kernels: f.Kernels, KernelTime: US(f.KernelTime), DistinctKernels: f.DistinctKernels,
			Streams: []stream{}, TopKernels: []kstat{}, GraphLaunches: f.GraphLaunches, GraphKernels: f.GraphKernels,
			NCCLKernels: f.NCCLKernels, NCCLTime: US(f.NCCLTime), NCCLComputeOverlap: US(f.NCCLComputeOverlap),
			GPUBusy: US(f.Busy), GPUSpan: US(f.Span), MergedStreams: f.MergedStreams}
		for _, s := range f.Streams {
			x.Streams = append(x.Streams, stream{s.Device, s.Stream, s.Kernels, US(s.KernelTime), s.Memcpys, US(s.MemcpyTime), s.Memsets, US(s.MemsetTime)})
		}
		for _, k := range f.TopKernels {
			x.TopKernels = append(x.TopKernels, kstat{k.Name, k.Count, US(k.Time)})
		}
		out.Files = append(out.Files, x)
	}
	return encode(out)
}

type timelineJSON struct {
	File          string `json:"file,omitempty"`
	Stage         string `json:"stage,omitempty"` // the file's stage, when all its GPU work is one stage's
	Window        string `json:"window"`
	Total         US     `json:"total_time_us"`
	Busy          US     `json:"busy_time_us"`
	Idle          US     `json:"idle_time_us"`
	Computation   US     `json:"computation_time_us"`
	ExposedComm   US     `json:"exposed_comm_time_us"`
	ExposedMemcpy US     `json:"exposed_memcpy_time_us"`
	TotalComm     US     `json:"total_comm_time_us"`
	TotalMemcpy   US     `json:"total_memcpy_time_us"`
}

func toTimelineJSON(t timeline.Timeline) timelineJSON {
	return timelineJSON{File: t.File, Stage: t.Stage, Window: t.Window, Total: US(t.Total), Busy: US(t.Busy), Idle: US(t.Idle),
		Computation: US(t.Computation), ExposedComm: US(t.ExposedComm), ExposedMemcpy: US(t.ExposedMemcpy),
		TotalComm: US(t.TotalComm), TotalMemcpy: US(t.TotalMemcpy)}
}

// Timeline writes gpu_timeline.json: the first trace file's timeline at the
// top level and every file's under "files".
func Timeline(a *Analysis) []byte {
	out := struct {
		Tool string `json:"tool"`
		timelineJSON
		Files []timelineJSON `json:"files"`
	}{Tool: Tool, Files: []timelineJSON{}}
	if len(a.Timelines) > 0 {
		out.timelineJSON = toTimelineJSON(a.Timelines[0])
		out.timelineJSON.File, out.timelineJSON.Stage = "", ""
		out.Window = a.Timelines[0].Window
	}
	for _, t := range a.Timelines {
		out.Files = append(out.Files, toTimelineJSON(t))
	}
	return encode(out)
}

type rankRow struct {
	File         string `json:"file"`
	Rank         int    `json:"rank"`
	KernelTime   US     `json:"kernel_time_us"`
	ComputeTime  US     `json:"non_collective_kernel_time_us"`
	Collective   US     `json:"collective_time_us"`
	ExposedComm  US     `json:"exposed_comm_time_us"`
	Busy         US     `json:"busy_time_us"`
	CollectiveOf Ratio  `json:"collective_share"`
}

type ranks struct {
	Rows []rankRow `json:"rows"`
	// The rank that spends the least time inside collectives is the one the
	// others wait for: the slowest to reach each collective.
	SlowestRank int `json:"slowest_rank"`
	// The rank with the most collective time waits the most (rank skew).
	MostWaitingRank int    `json:"most_waiting_rank"`
	CollectiveSkew  US     `json:"collective_skew_us"`
	Note            string `json:"note"`
	// SummarisedRanks: ranks of a rank folder past limits.RankDirs, with
	// their rows here but no ranks/<rank>/ folder of their own.
	SummarisedRanks int `json:"summarised_ranks,omitempty"`
}

// rankSummary compares the ranks of a multi-rank job (one trace file per
// rank): per-rank collective time is a measure of waiting, not bandwidth.
func rankSummary(a *Analysis) *ranks {
	if len(a.Facts) < 2 || len(a.Ranks) != len(a.Facts) {
		return nil
	}
	// Files of one rank (SGLang's per-stage EXTEND/DECODE files) are not
	// ranks to compare with each other: only a set of distinct ranks is.
	seen := map[int]bool{}
	for _, r := range a.Ranks {
		if r.Rank >= 0 && seen[r.Rank] {
			return nil
		}
		seen[r.Rank] = true
	}
	r := &ranks{Note: "collective (NCCL/RCCL) kernel time includes waiting for the other ranks: the rank with the least is the one the others wait for"}
	lo, hi := -1, -1
	for i, f := range a.Facts {
		row := rankRow{File: f.File, Rank: a.Ranks[i].Rank, KernelTime: US(f.KernelTime), ComputeTime: US(f.KernelTime - f.NCCLTime),
			Collective: US(f.NCCLTime), ExposedComm: US(a.Timelines[i].ExposedComm), Busy: US(a.Timelines[i].Busy)}
		if f.KernelTime > 0 {
			row.CollectiveOf = Ratio(float64(f.NCCLTime) / float64(f.KernelTime))
		}
		if row.Rank < 0 {
			row.Rank = i
		}
		r.Rows = append(r.Rows, row)
		if lo < 0 || f.NCCLTime < a.Facts[lo].NCCLTime {
			lo = i
		}
		if hi < 0 || f.NCCLTime > a.Facts[hi].NCCLTime {
			hi = i
		}
	}
	r.SlowestRank, r.MostWaitingRank = r.Rows[lo].Rank, r.Rows[hi].Rank
	for _, l := range a.PerRank {
		if l.Dir == "" {
			r.SummarisedRanks++
		}
	}
	r.CollectiveSkew = US(a.Facts[hi].NCCLTime - a.Facts[lo].NCCLTime)
	return r
}
