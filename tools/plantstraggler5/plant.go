package main

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// A plant moves one rank's time with a monotone map and settles the instance: every map here is
// non-decreasing, so no stream's ops reorder or overlap, a kernel stays after its launch (both
// move by the same map, or the kernel by more) and host events keep their nesting.
//
// tmap is f(t) = t before a, t+d1 on [a, s), linear from s+d1 to e+d2 on [s, e], t+d2 after e.
// With a == s == e it is a plain jump of d2 at a (events spanning a last d2 longer).
type tmap struct {
	a, s, e   float64
	d1, d2    float64
	exclusive bool // the jump at a leaves t == a where it is (an op that ends at a keeps its end)
}

func (m tmap) at(t float64) float64 {
	switch {
	case t < m.a || (m.exclusive && t == m.a):
		return t
	case t < m.s:
		return t + m.d1
	case t <= m.e:
		if m.e == m.s {
			return t + m.d2
		}
		return m.s + m.d1 + (t-m.s)*(m.e+m.d2-m.s-m.d1)/(m.e-m.s)
	}
	return t + m.d2
}

func jump(at, d float64) tmap { return tmap{a: at, s: at, e: at, d1: d, d2: d} }

func apply(t *rankTrace, host, gpu tmap) {
	for _, e := range t.evs {
		if !e.hasTS {
			continue
		}
		m := host
		if e.gpu {
			m = gpu
		}
		ts, end := m.at(e.ts), m.at(e.end)
		e.ts, e.end = ts, max(end, ts)
	}
}

var errSpan = errors.New("a collective spans the plant's point")

// Plant is one planted cause.
type Plant struct {
	Method string  `json:"method"` // host | longer | extra | slowlink
	Rank   int     `json:"rank"`   // -1: every rank of the group
	PG     string  `json:"pg"`
	Kind   string  `json:"kind"`
	Index  int     `json:"index"`
	Delta  float64 `json:"delta_us,omitempty"`
	Factor float64 `json:"factor,omitempty"`
	Copies int     `json:"copies,omitempty"` // extra: how many copies of the kernel before run
	Jitter bool    `json:"-"`                // a base's natural jitter, not a cause

	// Filled by the planter, from the planted trace.
	Step        string   `json:"step,omitempty"`
	Lateness    float64  `json:"lateness_us"` // its start − the latest other start (< 0: not last)
	SkewBase    float64  `json:"skew_base_us"`
	Skew        float64  `json:"skew_us"`
	Expect      string   `json:"expect"`            // named | secondary | not_named
	Kernels     []string `json:"kernels,omitempty"` // GPU-bound: the kernels that ran longer or more
	Site        []string `json:"site,omitempty"`    // host ops around the launch of the kernel before
	KernelFirst string   `json:"kernel_before,omitempty"`
}

// plant applies one cause to the job and settles its instance.
func (j *job) plant(p *Plant) error {
	tails := j.tails()
	defer j.settle(tails)
	ref := j.find(p.PG, p.Kind, p.Index)
	L, _ := ref.latest()
	if p.Method == "slowlink" {
		minEnd := math.Inf(1)
		for _, o := range ref.ops {
			minEnd = min(minEnd, o.k.end)
		}
		x := (p.Factor - 1) * (minEnd - L)
		for r, o := range ref.ops {
			m := jump(o.k.end, x)
			apply(j.ranks[r], m, m)
		}
		j.rebuild()
		return nil
	}
	o := ref.ops[p.Rank]
	if o == nil {
		return fmt.Errorf("rank %d has no %s", p.Rank, ref.id())
	}
	t := j.ranks[p.Rank]
	s, e := o.k.ts, o.k.end
	D := max(0, s+p.Delta-L)
	var host, gpu tmap
	switch p.Method {
	case "host":
		// The process pauses right at the collective's launch call: the call and everything after
		// it on host and GPU start Δ later; GPU work launched before is not held.
		T := o.issue
		gpuA := T // GPU ops in flight at the pause finish on time
		for _, g := range t.evs {
			if g.gpu && g.hasDur && g.ts < T && g.end > T && g != o.k && isGPUOp(g) {
				gpuA = max(gpuA, g.end)
			}
		}
		if gpuA > s {
			return fmt.Errorf("host plant at %s: GPU busy past the collective's start", ref.id())
		}
		host = tmap{a: T, s: s, e: e, d1: p.Delta, d2: D}
		gpu = tmap{a: gpuA, s: s, e: e, d1: p.Delta, d2: D}
	case "longer", "extra":
		k := kernelBefore(t, o)
		if k == nil {
			return fmt.Errorf("no kernel before %s on rank %d", ref.id(), p.Rank)
		}
		p.Kernels = []string{k.name()}
		// A collective kernel of the rank running across the point would end later with it,
		// though its data, not this GPU's compute, decides its end: no such plant.
		for _, c := range j.ops[p.Rank] {
			if c.k != o.k && c.k.ts < k.end && c.k.end > k.end {
				return fmt.Errorf("%w: %s on rank %d runs across the end of the kernel before %s", errSpan, c.kind, p.Rank, ref.id())
			}
		}
		gpu = tmap{a: k.end, s: s, e: e, d1: p.Delta, d2: D, exclusive: p.Method == "extra"}
		host = jump(e, D)
		if p.Method == "extra" {
			defer func(k *ev, at float64) {
				n := max(1, p.Copies)
				d := p.Delta / float64(n)
				for i := 0; i < n; i++ {
					c := &ev{m: cloneMap(k.m), gpu: true, ts: at + float64(i)*d, end: at + float64(i+1)*d, hasTS: true, hasDur: true}
					if a, ok := c.m["args"].(map[string]any); ok {
						delete(a, "correlation")
						delete(a, "External id")
					}
					t.evs = append(t.evs, c)
				}
				j.rebuild()
			}(k, k.end)
		}
	default:
		return fmt.Errorf("unknown method %q", p.Method)
	}
	apply(t, host, gpu)
	for r, po := range ref.ops {
		if r != p.Rank && D > 0 {
			m := jump(po.k.end, D)
			apply(j.ranks[r], m, m)
		}
	}
	j.rebuild()
	return nil
}

// kernelBefore is the last non-collective kernel to end before the collective starts on its rank.
func kernelBefore(t *rankTrace, o *collOp) *ev {
	var best *ev
	for _, e := range t.evs {
		if e.cat() != "kernel" || e == o.k || strings.Contains(strings.ToLower(e.name()), "nccl") {
			continue
		}
		if e.end <= o.k.ts && (best == nil || e.end > best.end) {
			best = e
		}
	}
	return best
}

// siteOf names the host ops around the launch of kernel k (innermost last).
func siteOf(t *rankTrace, k *ev) []string {
	c, ok := k.argNum("correlation")
	if !ok {
		return nil
	}
	var l *ev
	for _, e := range t.evs {
		if !e.gpu && (e.cat() == "cuda_runtime" || e.cat() == "cuda_driver") {
			if x, ok := e.argNum("correlation"); ok && x == c {
				l = e
				break
			}
		}
	}
	if l == nil {
		return nil
	}
	var out []string
	for _, e := range t.evs {
		if e.gpu || !e.hasDur || e == l {
			continue
		}
		switch e.cat() {
		case "cpu_op", "user_annotation", "python_function":
		default:
			continue
		}
		if e.ts <= l.ts && l.end <= e.end && !strings.HasPrefix(e.name(), "ProfilerStep#") {
			out = append(out, e.name())
		}
	}
	return out
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if mm, ok := v.(map[string]any); ok {
			v = cloneMap(mm)
		}
		c[k] = v
	}
	return c
}

// tails is every rank's kernel end past its instance's latest start.
func (j *job) tails() map[string]map[int]float64 {
	out := map[string]map[int]float64{}
	for _, ref := range j.inst {
		L, _ := ref.latest()
		m := map[int]float64{}
		for r, o := range ref.ops {
			m[r] = max(0, o.k.end-L)
		}
		out[ref.id()] = m
	}
	return out
}

// settle carries a plant's delay on through the job: at every later instance a rank whose kernel
// would end sooner after the latest start than it did before the plant waits for the late one (its
// kernel ends that much later, and so does everything of its rank after it), earliest instance first.
func (j *job) settle(tails map[string]map[int]float64) {
	for {
		var fix *instRef
		fixL := math.Inf(1)
		for _, ref := range j.inst {
			L, _ := ref.latest()
			for r, o := range ref.ops {
				if o.k.end < L+tails[ref.id()][r]-1e-6 && L < fixL {
					fix, fixL = ref, L
				}
			}
		}
		if fix == nil {
			break
		}
		for r, o := range fix.ops {
			if d := fixL + tails[fix.id()][r] - o.k.end; d > 1e-6 {
				m := jump(o.k.end, d)
				apply(j.ranks[r], m, m)
			}
		}
	}
	j.rebuild()
}

func isGPUOp(e *ev) bool {
	switch e.cat() {
	case "kernel", "gpu_memcpy", "gpu_memset":
		return true
	}
	return false
}
