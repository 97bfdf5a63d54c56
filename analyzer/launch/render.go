package launch

import (
	"fmt"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

type (
	us    = units.US
	ratio = units.Ratio
)

type distJSON struct {
	N   int `json:"n"`
	P50 us  `json:"p50_us"`
	P90 us  `json:"p90_us"`
	P99 us  `json:"p99_us"`
	Max us  `json:"max_us"`
}

func toDist(d Dist) distJSON { return distJSON{d.N, us(d.P50), us(d.P90), us(d.P99), us(d.Max)} }

type rowJSON struct {
	Category       string   `json:"category"`
	Ops            int64    `json:"ops"`
	GPUTime        us       `json:"gpu_time_us"`
	Kernels        int64    `json:"kernels"`
	Short          int64    `json:"short_kernels"`
	ShortShare     ratio    `json:"short_kernel_share"`
	ShortTimeShare ratio    `json:"short_kernel_time_share"`
	Graph          int64    `json:"graph_replayed"`
	FromStart      distJSON `json:"delay_from_call_start"`
	FromEnd        distJSON `json:"delay_from_call_end"`
	CallDur        distJSON `json:"launch_call"`
}

func toRow(r Row) rowJSON {
	x := rowJSON{Category: r.Category, Ops: r.Ops, GPUTime: us(r.GPUTime), Kernels: r.Kernels, Short: r.Short, Graph: r.Graph,
		FromStart: toDist(r.FromStart), FromEnd: toDist(r.FromEnd), CallDur: toDist(r.CallDur)}
	if r.Kernels > 0 {
		x.ShortShare = ratio(float64(r.Short) / float64(r.Kernels))
	}
	if r.KernelTime > 0 {
		x.ShortTimeShare = ratio(float64(r.ShortTime) / float64(r.KernelTime))
	}
	return x
}

// JSON writes launch_stats.json.
func (r *Result) JSON(tool, version string, partial bool) []byte {
	type bucket struct {
		Below   *us   `json:"below_us"`
		Kernels int64 `json:"kernels"`
		GPUTime us    `json:"gpu_time_us"`
	}
	type verdict struct {
		Verdict        string `json:"verdict"`
		Rule           string `json:"rule"`
		IdleShare      ratio  `json:"gpu_idle_share"`
		HostBoundShare ratio  `json:"host_bound_share"`
		ShortShare     ratio  `json:"short_kernel_share"`
		ShortTimeShare ratio  `json:"short_kernel_time_share"`
		KernelP50      us     `json:"kernel_p50_us"`
		CallP50        us     `json:"launch_call_p50_us"`
	}
	v := r.Verdict
	out := struct {
		Tool          string    `json:"tool"`
		SchemaVersion string    `json:"schema_version"`
		Partial       bool      `json:"partial"`
		FiguresRank   *int      `json:"figures_rank,omitempty"`
		ShortBelow    us        `json:"short_kernel_below_us"`
		Verdict       verdict   `json:"verdict"`
		All           rowJSON   `json:"all"`
		Rows          []rowJSON `json:"categories"`
		Histogram     []bucket  `json:"kernel_duration_histogram"`
	}{Tool: tool, SchemaVersion: version, Partial: partial, FiguresRank: r.FiguresRank, ShortBelow: us(ShortKernel),
		Verdict: verdict{v.Verdict, v.Rule, ratio(v.IdleShare), ratio(v.HostBoundShare), ratio(v.ShortShare), ratio(v.ShortTimeShare), us(v.KernelP50), us(v.CallP50)},
		All:     toRow(r.All), Rows: []rowJSON{}, Histogram: []bucket{}}
	for _, x := range r.Rows {
		out.Rows = append(out.Rows, toRow(x))
	}
	for _, b := range r.Histogram {
		x := bucket{Kernels: b.Kernels, GPUTime: us(b.GPUTime)}
		if b.Below > 0 {
			u := us(b.Below)
			x.Below = &u
		}
		out.Histogram = append(out.Histogram, x)
	}
	return units.JSON(out)
}

// Takeaway states the verdict with its numbers ("" when there are no kernels).
// ranAhead is the median launch delay from which the host is said to have
// run ahead of the GPU (1 ms: far above any launch latency).
const ranAhead = 1_000_000 // ns

func (r *Result) Takeaway() string {
	v := r.Verdict
	if r.All.Kernels == 0 {
		return ""
	}
	t := fmt.Sprintf("%s of kernels (%s of kernel time) run under %d µs; median kernel %s µs vs median launch call %s µs; launch delay p50 %s µs from the call's end",
		units.Pct(v.ShortShare), units.Pct(v.ShortTimeShare), ShortKernel/1000, us(v.KernelP50), us(v.CallP50), us(r.All.FromEnd.P50))
	if r.All.FromEnd.P50 >= ranAhead {
		// A launch returns once the work is queued: a delay this long is
		// the queue ahead of it, not the cost of launching.
		t += " — the host ran ahead of a busy GPU: kernels waited in the queue behind submitted work, not for their launch"
	}
	switch v.Verdict {
	case "cpu-bound":
		return fmt.Sprintf("CPU-bound (GPU idle %s, %s of it host-bound): %s.", units.Pct(v.IdleShare), units.Pct(v.HostBoundShare), t)
	case "gpu-bound":
		return fmt.Sprintf("GPU-bound (GPU idle only %s): %s.", units.Pct(v.IdleShare), t)
	case "device-waits":
		return fmt.Sprintf("not CPU-bound: GPU idle %s but only %s of it host-bound; the GPU waits on submitted work (events, dependencies): %s.", units.Pct(v.IdleShare), units.Pct(v.HostBoundShare), t)
	}
	return ""
}
