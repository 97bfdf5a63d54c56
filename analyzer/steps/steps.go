// Package steps answers "how long is a step, and how steady?": per stage,
// the distribution of the step windows' wall time, GPU busy time, idle
// time and the host-bound part of it over the steady steps (after the
// warm-up ones), tokens per second where the step says its batch, and
// per-kernel duration statistics with a histogram of short kernels.
//
// A step is a window of the idle analysis (idle.Result.Every): its
// annotation's span on the GPU timeline (a gpu_user_annotation such as
// ProfilerStep#N, decode_step, step[DECODE bs=32]), else the GPU range of
// the ops launched inside such a CPU-side annotation.
package steps

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Dist is a distribution of one figure (µs, or tokens/s) over steps.
// Percentiles interpolate linearly between the two nearest ranks
// (numpy's default); Std is the population standard deviation.
type Dist struct {
	Count                              int
	Min, P50, P90, P99, Max, Mean, Std float64
}

// NewDist summarizes xs (any order; not modified).
func NewDist(xs []float64) Dist {
	d := Dist{Count: len(xs)}
	if len(xs) == 0 {
		return d
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	d.Mean = sum / float64(len(s))
	var ss float64
	for _, x := range s {
		ss += (x - d.Mean) * (x - d.Mean)
	}
	d.Std = math.Sqrt(ss / float64(len(s)))
	d.Min, d.Max = s[0], s[len(s)-1]
	d.P50, d.P90, d.P99 = Percentile(s, 50), Percentile(s, 90), Percentile(s, 99)
	return d
}

// Percentile of sorted s: rank p/100·(n−1), interpolated.
func Percentile(s []float64, p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	r := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(r))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (r-float64(lo))*(s[lo+1]-s[lo])
}

// Stage is the step statistics of one stage.
type Stage struct {
	Stage string
	Name  string // the dominant step annotation name (first seen)
	Steps int    // step windows in the stage
	// SteadyFrom is the index (0-based, in time order) of the first
	// steady step: the leading steps whose wall time exceeds warmFactor ×
	// the stage's median are warm-up (compilation, graph capture,
	// allocator growth); the figures below cover the steady steps.
	SteadyFrom             int
	Wall, Busy, Idle, Host Dist // µs; Host = the host-bound part of the idle time
	// Tokens per step when the step's annotation says it (step[DECODE
	// bs=32]: 32 decode tokens; execute_<tokens>_…), TokensSource says
	// which; TokensPerS is over the steady steps (tokens ÷ wall).
	Tokens       float64
	TokensSource string
	TokensPerS   Dist
	Kernels      []Kernel // by total time, the first maxKernels
	KernelsTotal int      // distinct kernel names in the stage
	Short        []Bucket
}

// Kernel is one kernel name's duration statistics in a stage (µs).
type Kernel struct {
	Name  string
	Total float64
	Dist  Dist
}

// Bucket counts the stage's GPU ops shorter than UpTo µs (and not shorter
// than the previous bucket's bound); UpTo 0 is the open last bucket.
type Bucket struct {
	UpTo  float64
	Count int
	Time  float64 // µs
}

// bounds of the short-kernel histogram, µs: launch overhead is ~5 µs, so
// kernels under 10 µs are where launch cost rivals the work.
var bounds = []float64{2, 5, 10, 20, 50, 100}

const (
	warmFactor = 1.5
	maxKernels = 50
)

// Result is the step statistics of one job.
type Result struct {
	Stages []Stage
	// FiguresRank is, for a rank folder's top level, the rank these
	// steps are (never the ranks' steps summed); nil otherwise.
	FiguresRank *int
}

// Options say which stage every GPU op is in.
type Options struct {
	OpStage    []uint8 // stage of every GPU op (index into StageNames); nil = one stage "all"
	StageNames []string
	Stage      string // keep only this stage
}

// Analyze computes the step statistics from the idle analysis' step
// windows and the store's GPU ops.
func Analyze(st *trace.Store, id *idle.Result, opt Options) *Result {
	res := &Result{}
	byStage := map[string]*Stage{}
	var order []string
	get := func(name string) *Stage {
		s := byStage[name]
		if s == nil {
			s = &Stage{Stage: name}
			byStage[name] = s
			order = append(order, name)
		}
		return s
	}
	// Steps by stage, in time order.
	steps := map[string][]idle.Window{}
	if id != nil {
		for _, w := range id.Every {
			sn := w.Stage
			if sn == "" {
				sn = "all"
			}
			if opt.Stage != "" && sn != opt.Stage {
				continue
			}
			steps[sn] = append(steps[sn], w)
			get(sn)
		}
	}
	// Kernel durations by stage and name.
	type kacc struct {
		durs []float64
		sum  float64
	}
	kern := map[string]map[uint32]*kacc{}
	hist := map[string][]Bucket{}
	// In chunks that yield (callsite.Chunks): each kernel appends to its
	// name's durations, and the module cannot end a collection inside one
	// long loop.
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if o.Kind != trace.KindKernel {
				continue
			}
			sn := "all"
			if opt.OpStage != nil && i < len(opt.OpStage) && int(opt.OpStage[i]) < len(opt.StageNames) {
				sn = opt.StageNames[opt.OpStage[i]]
			}
			if opt.Stage != "" && sn != opt.Stage {
				continue
			}
			get(sn)
			m := kern[sn]
			if m == nil {
				m = map[uint32]*kacc{}
				kern[sn] = m
				b := make([]Bucket, len(bounds)+1)
				for k, x := range bounds {
					b[k].UpTo = x
				}
				hist[sn] = b
			}
			us := float64(o.Dur) / 1e3
			k := m[o.Name]
			if k == nil {
				k = &kacc{}
				m[o.Name] = k
			}
			k.durs = append(k.durs, us)
			k.sum += us
			h := hist[sn]
			b := len(bounds)
			for n, x := range bounds {
				if us < x {
					b = n
					break
				}
			}
			h[b].Count++
			h[b].Time += us
		}
	})
	for _, sn := range order {
		s := byStage[sn]
		ws := steps[sn]
		s.Steps = len(ws)
		if len(ws) > 0 {
			s.Name = ws[0].Name
			walls := make([]float64, len(ws))
			for n, w := range ws {
				walls[n] = float64(w.Window) / 1e3
			}
			med := NewDist(walls).P50
			for s.SteadyFrom < len(ws)-1 && walls[s.SteadyFrom] > warmFactor*med {
				s.SteadyFrom++
			}
			var wall, busy, idl, host, tps []float64
			s.Tokens, s.TokensSource = tokens(ws[0].Name)
			for _, w := range ws[s.SteadyFrom:] {
				wall = append(wall, float64(w.Window)/1e3)
				busy = append(busy, float64(w.Busy)/1e3)
				idl = append(idl, float64(w.Idle)/1e3)
				host = append(host, float64(w.HostBound)/1e3)
				if t, _ := tokens(w.Name); t > 0 && t == s.Tokens && w.Window > 0 {
					tps = append(tps, t/(float64(w.Window)/1e9))
				}
			}
			s.Wall, s.Busy, s.Idle, s.Host = NewDist(wall), NewDist(busy), NewDist(idl), NewDist(host)
			if len(tps) == len(wall) {
				s.TokensPerS = NewDist(tps)
			} else {
				s.Tokens, s.TokensSource = 0, "" // steps of different sizes
			}
		}
		m := kern[sn]
		s.KernelsTotal = len(m)
		// Rank every name, then summarize only the maxKernels shown: a
		// distribution per name (a sorted copy of its durations) for 500 k
		// distinct names was most of this analysis' memory.
		type ranked struct {
			name string
			k    *kacc
		}
		all := make([]ranked, 0, len(m))
		for name, k := range m {
			all = append(all, ranked{st.Name(name), k})
		}
		slices.SortFunc(all, func(x, y ranked) int {
			if x.k.sum != y.k.sum {
				return cmp.Compare(y.k.sum, x.k.sum)
			}
			return strings.Compare(x.name, y.name)
		})
		for _, r := range all[:min(len(all), maxKernels)] {
			s.Kernels = append(s.Kernels, Kernel{Name: r.name, Total: r.k.sum, Dist: NewDist(r.k.durs)})
		}
		s.Short = hist[sn]
		res.Stages = append(res.Stages, *s)
	}
	return res
}

// tokens reads the tokens a step processes from its annotation:
// SGLang's step[DECODE bs=N] (N decode tokens), vLLM's execute_<tokens>_….
func tokens(name string) (float64, string) {
	if rest, ok := strings.CutPrefix(name, "execute_"); ok {
		end := strings.IndexByte(rest, '_')
		if end < 0 {
			end = len(rest)
		}
		if n, err := strconv.ParseInt(rest[:end], 10, 64); err == nil && n > 0 {
			return float64(n), "step annotation execute_<tokens>"
		}
	}
	if i := strings.Index(name, "DECODE bs="); i >= 0 {
		rest := name[i+len("DECODE bs="):]
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if n, err := strconv.ParseInt(rest[:end], 10, 64); err == nil && n > 0 {
			return float64(n), "step annotation DECODE bs=<n>: one token per sequence"
		}
	}
	return 0, ""
}
