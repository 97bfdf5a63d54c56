package roofline

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// A graph-replayed kernel has no launching op of its own: its launch is the
// graph. Its op and shapes come from the mapping trace, by kernel name:
// every kernel the mapping trace launched (executed eagerly, or only
// queued while a graph was being captured — ROCm launch calls name their
// kernel) is attributed there as above, and the replayed kernel takes its
// name's dominant signature there, with that signature's FLOPs and bytes
// per launch of the name. An op's FLOPs ride on its first kernel launch,
// so a GEMM's split-K reduce or workspace fill adds time, not FLOPs.

// mapped is what one kernel name stands for in the mapping trace.
type mapped struct {
	op, dims, types, conc string  // top-level op signature
	cpuOp                 string  // op whose formula applied, else the launching op
	loc                   string  // Python call site
	c                     cost    // per launch of the name (FLOPs/bytes averaged)
	inst                  float64 // top-level instances per launch of the name
	modelled              bool
	note                  string
}

// hasCaptures reports whether a store records a graph capture (a
// StreamBeginCapture call): only then can a trace map its own replays.
func hasCaptures(m *trace.Store) bool {
	seen := map[uint32]bool{}
	for i := range m.CPU {
		c := &m.CPU[i]
		if c.Kind != trace.KindRuntime && c.Kind != trace.KindDriver || seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		if strings.Contains(m.Name(c.Name), "StreamBeginCapture") {
			return true
		}
	}
	return false
}

type launchItem struct {
	name string // kernel name
	op   int32  // launching cpu_op
	ts   int64  // launch time (orders an op's launches)
	l    int32
}

// buildMapping indexes the mapping store by kernel name (and canonical
// name, for names that differ only in their template arguments). With
// self true (the formal trace maps itself), only captured launches are
// used: an eager run of a kernel name may have had other shapes.
func buildMapping(m *trace.Store, mj *callsite.Joins, self bool, cfg *ModelConfig, world int) (byName, byCanon map[string]*mapped) {
	if self && !hasCaptures(m) {
		return nil, nil
	}
	if mj == nil {
		mj = callsite.NewJoins(m)
	}
	a := newAnalysis(m, mj)
	a.cfg, a.world = cfg, world
	// (file, correlation) of executed ops, sorted: a slice, not a map, so
	// a large mapping trace adds no hash-table garbage to a wasm heap.
	executed := make([][2]int64, 0, len(m.GPU))
	var items []launchItem
	callsite.Chunks(len(m.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &m.GPU[i]
			if !o.Kind.IsGPUWork() {
				continue
			}
			l := mj.Launch(o.File, o.Corr)
			if l >= 0 {
				executed = append(executed, [2]int64{int64(o.File), o.Corr})
			}
			if self || l >= 0 && mj.IsGraphLaunch(&m.CPU[l]) || o.Kind != trace.KindKernel {
				continue
			}
			if op := a.launchingOp(o, l); op >= 0 {
				ts := o.TS
				if l >= 0 {
					ts = m.CPU[l].TS
				}
				items = append(items, launchItem{m.Name(o.Name), op, ts, l})
			}
		}
	})
	slices.SortFunc(executed, func(x, y [2]int64) int {
		if c := cmp.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return cmp.Compare(x[1], y[1])
	})
	callsite.Chunks(len(m.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			l := &m.CPU[i]
			if l.Kernel == 0 || l.Kind != trace.KindRuntime && l.Kind != trace.KindDriver {
				continue
			}
			if _, ran := slices.BinarySearchFunc(executed, [2]int64{int64(l.File), l.Corr}, func(x, y [2]int64) int {
				if c := cmp.Compare(x[0], y[0]); c != 0 {
					return c
				}
				return cmp.Compare(x[1], y[1])
			}); ran {
				continue
			}
			op := mj.ByExt(l.File, l.Ext)
			if op < 0 || m.CPU[op].Kind != trace.KindCPUOp {
				op = mj.Enclosing(callsite.Thread{File: l.File, Track: l.Track}, l.TS, trace.KindCPUOp)
			}
			if op >= 0 {
				items = append(items, launchItem{m.Name(l.Kernel), op, l.TS, int32(i)})
			}
		}
	})
	// The first kernel launch of each modelled op span bears its cost.
	slices.SortStableFunc(items, func(x, y launchItem) int { return cmp.Compare(x.ts, y.ts) })
	bearer := map[int32]bool{} // modelled span → cost assigned
	topSeen := map[int32]bool{}
	type acc struct {
		m      mapped
		n      int64
		tops   int64
		locT   map[string]int64
		sigKey string
	}
	bySig := map[[2]string]*acc{} // (kernel name, signature) → sums
	counts := map[string]map[string]int64{}
	for _, it := range items {
		info := a.resolve(it.op)
		var sh trace.Shapes
		if p := a.shapesOf(info.top); p != nil {
			sh = *p
		}
		top := m.Name(m.CPU[info.top].Name)
		sk := top + "\x00" + m.Name(sh.Dims) + "\x00" + m.Name(sh.Types) + "\x00" + m.Name(sh.Concrete)
		k := [2]string{it.name, sk}
		x := bySig[k]
		if x == nil {
			x = &acc{m: mapped{op: top, dims: m.Name(sh.Dims), types: m.Name(sh.Types), conc: m.Name(sh.Concrete)}, locT: map[string]int64{}, sigKey: sk}
			bySig[k] = x
		}
		if counts[it.name] == nil {
			counts[it.name] = map[string]int64{}
		}
		counts[it.name][sk]++
		x.n++
		if !topSeen[info.top] {
			topSeen[info.top] = true
			x.tops++
		}
		if loc := a.python(it.op, it.l); loc != 0 {
			x.locT[m.Name(loc)]++
		}
		if info.modelled >= 0 {
			x.m.modelled = true
			x.m.cpuOp = m.Name(m.CPU[info.modelled].Name)
			x.m.c.dtype, x.m.c.model, x.m.c.source = info.c.dtype, info.c.model, info.c.source
			x.m.c.seq, x.m.c.rows = info.c.seq, info.c.rows
			if !bearer[info.modelled] {
				bearer[info.modelled] = true
				x.m.c.flops += info.c.flops
				x.m.c.bytes += info.c.bytes
				x.m.c.perPair += info.c.perPair
				x.m.c.perQ += info.c.perQ
				x.m.c.perK += info.c.perK
			}
		} else {
			x.m.cpuOp, x.m.note = m.Name(info.launcher), info.note
		}
	}
	byName, byCanon = map[string]*mapped{}, map[string]*mapped{}
	canonN := map[string]int64{}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		best, bn := "", int64(-1)
		var total int64
		for sk, c := range counts[n] {
			total += c
			if c > bn || c == bn && sk < best {
				best, bn = sk, c
			}
		}
		x := bySig[[2]string{n, best}]
		e := x.m
		e.c.flops /= float64(x.n)
		e.c.bytes /= float64(x.n)
		e.c.perPair /= float64(x.n)
		e.c.perQ /= float64(x.n)
		e.c.perK /= float64(x.n)
		e.inst = float64(x.tops) / float64(x.n)
		bl, bt := "", int64(-1)
		for l, c := range x.locT {
			if c > bt || c == bt && l < bl {
				bl, bt = l, c
			}
		}
		e.loc = bl
		byName[n] = &e
		cn := kernels.Canonical(n)
		if total > canonN[cn] {
			canonN[cn], byCanon[cn] = total, &e
		}
	}
	return byName, byCanon
}
