// Package launch answers "is the host keeping up": launch delay (runtime
// call → GPU start) per kernel category, short kernels, and a CPU-bound
// verdict built from those numbers and the idle attribution.
package launch

import (
	"cmp"
	"math"
	"slices"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// ShortKernel is the duration under which a kernel counts as short: about
// what launching one costs the host, so a stream of them cannot keep the
// GPU busy.
const ShortKernel = 10_000 // ns

// GraphRow is the row of graph replays: one delay sample per replay (graph
// launch call → its first op's start).
const GraphRow = "graph replay"

// Options select what to analyse.
type Options struct {
	Stage      string
	Joins      *callsite.Joins
	StageOf    []uint8
	StageNames []string
	Idle       *idle.Result // for the verdict; nil leaves it unknown
	// Classes are kernel classes already computed (breakdown.Result.Classes);
	// names missing from it are classified here.
	Classes map[uint32]kernels.Class
}

// Dist is a distribution of ns values (nearest-rank percentiles).
type Dist struct {
	N                  int
	P50, P90, P99, Max int64
}

// Row is the launch statistics of one kernel category (or of graph replays).
type Row struct {
	Category   string
	Ops        int64 // GPU ops (kernels, copies, fills)
	GPUTime    int64
	Kernels    int64 // of which kernels
	KernelTime int64
	Short      int64 // kernels shorter than ShortKernel
	ShortTime  int64
	Graph      int64 // ops replayed by a graph launch (no launch delay of their own)
	// Launch delay: from the launch call's start / end to the op's start.
	FromStart, FromEnd Dist
	CallDur            Dist // launch call durations
}

// Bucket is one bin of the kernel duration histogram.
type Bucket struct {
	Below   int64 // ns, upper bound (exclusive); 0 = no bound
	Kernels int64
	GPUTime int64
}

// Result is the launch statistics of one job.
type Result struct {
	All       Row
	Rows      []Row
	Histogram []Bucket
	Verdict   Verdict
	// FiguresRank is, for a rank folder's top level, the rank these
	// figures are (never a sum over the ranks); nil otherwise.
	FiguresRank *int
}

// Verdict says whether the host is the bottleneck, with the numbers behind.
type Verdict struct {
	Verdict        string // cpu-bound | gpu-bound | device-waits | unknown
	Rule           string
	IdleShare      float64 // GPU idle / window (idle.json total)
	HostBoundShare float64 // host-bound share of classified idle
	ShortShare     float64 // short kernels / kernels
	ShortTimeShare float64 // their share of kernel time
	KernelP50      int64   // median kernel duration, ns
	CallP50        int64   // median eager launch call duration, ns
}

// Rule is the verdict's rule, as written into launch_stats.json.
const Rule = "idle = gpu_idle_us / window_us and host = host_bound_share of the total window in idle.json; " +
	"gpu-bound if idle < 0.2; else cpu-bound if host >= 0.5; else device-waits if classified idle exists; else unknown"

var buckets = []int64{2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000, 0}

type opRec struct {
	start  int32 // ns, clamped
	end    int32
	call   int32
	cat    uint8 // after the int32s: 16 bytes a record, not 20
	launch bool
}

// Analyze computes the launch statistics of every trace file in st.
func Analyze(st *trace.Store, opt Options) *Result {
	j := opt.Joins
	if j == nil {
		j = callsite.NewJoins(st)
	}
	cats := []string{GraphRow}
	catID := map[string]uint8{GraphRow: 0}
	classOf := make([]uint8, len(st.Names)) // name id → 1 + category id, 0 = not yet
	rows := []*Row{{Category: GraphRow}}
	res := &Result{All: Row{Category: "all"}}
	for _, b := range buckets {
		res.Histogram = append(res.Histogram, Bucket{Below: b})
	}
	// The first op of each graph replay (by start) carries its delay.
	type replay struct {
		op int32
		ts int64
	}
	first := map[int64]replay{} // file<<48 | corr
	var recs []opRec
	var kernelDur []int32
	n, nk := 0, 0
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if o := &st.GPU[i]; o.Kind.IsGPUWork() {
				n++
				if o.Kind == trace.KindKernel {
					nk++
				}
			}
		}
	})
	recs = make([]opRec, 0, n)
	kernelDur = make([]int32, 0, nk)
	var graphOps, graphTime int64 // what the graph row counts besides its category's ops
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if !o.Kind.IsGPUWork() || opt.Stage != "" && opt.StageOf != nil && opt.StageNames[opt.StageOf[i]] != opt.Stage {
				continue
			}
			for int(o.Name) >= len(classOf) {
				classOf = append(classOf, make([]uint8, len(classOf)+1)...)
			}
			c := classOf[o.Name] - 1
			if classOf[o.Name] == 0 {
				cl, ok := opt.Classes[o.Name]
				if !ok {
					cl = kernels.Classify(st.Name(o.Name), o.Kind.String())
				}
				name := cl.Category
				if c, ok = catID[name]; !ok && len(cats) < 255 {
					c = uint8(len(cats))
					catID[name] = c
					cats = append(cats, name)
					rows = append(rows, &Row{Category: name})
				}
				classOf[o.Name] = c + 1
			}
			r := rows[c]
			r.Ops++
			r.GPUTime += o.Dur
			if o.Kind == trace.KindKernel {
				r.Kernels++
				r.KernelTime += o.Dur
				if o.Dur < ShortKernel {
					r.Short++
					r.ShortTime += o.Dur
				}
			}
			if o.Kind == trace.KindKernel {
				kernelDur = append(kernelDur, clamp(o.Dur))
				for b := range res.Histogram {
					if h := &res.Histogram[b]; h.Below == 0 || o.Dur < h.Below {
						h.Kernels++
						h.GPUTime += o.Dur
						break
					}
				}
			}
			l := j.Launch(o.File, o.Corr)
			if l < 0 {
				continue
			}
			call := &st.CPU[l]
			if j.IsGraphLaunch(call) {
				r.Graph++
				res.All.Graph++
				rows[0].Ops++
				rows[0].GPUTime += o.Dur
				graphOps++
				graphTime += o.Dur
				k := int64(o.File)<<48 | o.Corr
				if f, ok := first[k]; !ok || o.TS < f.ts {
					first[k] = replay{int32(i), o.TS}
				}
				continue
			}
			recs = append(recs, opRec{cat: c, start: clamp(o.TS - call.TS), end: clamp(o.TS - call.End()), call: clamp(call.Dur), launch: true})
		}
	})
	// All is the sum of the categories (each op counts in one).
	for _, r := range rows {
		x := &res.All
		x.Ops += r.Ops
		x.GPUTime += r.GPUTime
		x.Kernels += r.Kernels
		x.KernelTime += r.KernelTime
		x.Short += r.Short
		x.ShortTime += r.ShortTime
	}
	res.All.Ops -= graphOps
	res.All.GPUTime -= graphTime
	for _, f := range first {
		o := &st.GPU[f.op]
		call := &st.CPU[j.Launch(o.File, o.Corr)]
		recs = append(recs, opRec{cat: 0, start: clamp(o.TS - call.TS), end: clamp(o.TS - call.End()), call: clamp(call.Dur)})
	}
	// Per category: sort the samples by category; one scratch column serves
	// every distribution (4 B per sample, not one copy per field).
	sortByCat(recs)
	scratch := make([]int32, len(recs))
	for lo := 0; lo < len(recs); {
		hi := lo
		for hi < len(recs) && recs[hi].cat == recs[lo].cat {
			hi++
		}
		r := rows[recs[lo].cat]
		r.FromStart, r.FromEnd, r.CallDur = dists(recs[lo:hi], scratch)
		lo = hi
	}
	// All: the eager samples only, moved to the front.
	eager := 0
	callsite.Chunks(len(recs), func(lo, hi int) {
		for _, x := range recs[lo:hi] {
			if x.launch {
				recs[eager] = x
				eager++
			}
		}
	})
	res.All.FromStart, res.All.FromEnd, res.All.CallDur = dists(recs[:eager], scratch)
	for _, r := range rows {
		if r.Ops > 0 {
			res.Rows = append(res.Rows, *r)
		}
	}
	slices.SortStableFunc(res.Rows, func(x, y Row) int {
		if (x.Category == GraphRow) != (y.Category == GraphRow) {
			if x.Category == GraphRow {
				return 1
			}
			return -1
		}
		if x.GPUTime != y.GPUTime {
			return cmp.Compare(y.GPUTime, x.GPUTime)
		}
		return cmp.Compare(x.Category, y.Category)
	})
	res.Verdict = verdict(res, kernelDur, opt.Idle)
	return res
}

// sortByCat orders recs by category in place (a counting sort: one pass
// to count, one to swap each record into its category's range; no
// comparison calls, which wasm pays per step). Order within a category is
// left arbitrary: only each category's distributions are read.
func sortByCat(recs []opRec) {
	var next, end [256]int
	for _, r := range recs {
		end[r.cat]++
	}
	at := 0
	for c := range end {
		next[c] = at
		at += end[c]
		end[c] = at
	}
	for c := range next {
		for i := next[c]; i < end[c]; i = next[c] {
			r := recs[i]
			if int(r.cat) == c {
				next[c]++
				continue
			}
			// Swap r into its category's range; what comes back is
			// looked at again.
			j := next[r.cat]
			next[r.cat]++
			recs[i], recs[j] = recs[j], r
		}
	}
}

func clamp(v int64) int32 {
	return int32(max(min(v, math.MaxInt32), math.MinInt32))
}

// dists returns the three delay distributions of recs, using scratch.
func dists(recs []opRec, scratch []int32) (start, end, call Dist) {
	v := scratch[:len(recs)]
	for i, r := range recs {
		v[i] = r.start
	}
	start = distOf(v)
	for i, r := range recs {
		v[i] = r.end
	}
	end = distOf(v)
	for i, r := range recs {
		v[i] = r.call
	}
	return start, end, distOf(v)
}

func distOf(v []int32) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	slices.Sort(v)
	at := func(p float64) int64 { return int64(v[max(int(math.Ceil(p*float64(len(v))))-1, 0)]) }
	return Dist{N: len(v), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: int64(v[len(v)-1])}
}

func verdict(res *Result, kernelDur []int32, id *idle.Result) Verdict {
	v := Verdict{Verdict: "unknown", Rule: Rule, CallP50: res.All.CallDur.P50}
	if k := res.All.Kernels; k > 0 {
		v.ShortShare = float64(res.All.Short) / float64(k)
	}
	if res.All.KernelTime > 0 {
		v.ShortTimeShare = float64(res.All.ShortTime) / float64(res.All.KernelTime)
	}
	v.KernelP50 = distOf(kernelDur).P50
	if id == nil || id.Total.Window <= 0 {
		return v
	}
	w := id.Total
	v.IdleShare = float64(w.Idle) / float64(w.Window)
	v.HostBoundShare = w.HostBoundShare()
	switch {
	case v.IdleShare < 0.2:
		v.Verdict = "gpu-bound"
	case w.HostBound+w.DeviceSide == 0:
		v.Verdict = "unknown"
	case v.HostBoundShare >= 0.5:
		v.Verdict = "cpu-bound"
	default:
		v.Verdict = "device-waits"
	}
	return v
}
