package overlap

import (
	"cmp"
	"slices"
)

// sweep walks the starts and ends of every formal op in time order. In each
// segment between two consecutive points an active op is hidden if an op
// on another stream is active too, otherwise exclusive; hidden time is
// charged to the highest-priority bucket active on the other streams
// (compute, then communication, memory, elementwise, other), so "hidden by
// compute" is the upstream definition. It also
// totals busy time, ≥ 2-stream overlap, peak concurrent streams, the
// communication ∩ compute-kernel overlap and per-stage busy time, and
// credits each row's dominant overlapping kernel.
func (a *analyzer) sweep(res *Result) {
	type point struct {
		t     int64
		start bool
		op    int32
	}
	pts := make([]point, 0, 2*len(a.ops))
	for k := range a.ops {
		if a.ops[k].end > a.ops[k].ts { // empty ops take no time
			pts = append(pts, point{a.ops[k].ts, true, int32(k)}, point{a.ops[k].end, false, int32(k)})
		}
	}
	slices.SortFunc(pts, func(x, y point) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		if x.start != y.start { // ends first
			if x.start {
				return 1
			}
			return -1
		}
		return cmp.Compare(x.op, y.op)
	})
	// Row ids must exist before the sweep credits overlaps.
	a.assignRows()
	nS := len(a.streams)
	cnt := make([]int, nS)
	where := make([]int32, len(a.ops))
	var act []int32
	stageBusy := make([]int64, len(a.stages))
	credit := map[[2]int32]int64{} // (row, other canon) → ns
	s := &res.Summary
	var prev int64
	for _, p := range pts {
		if seg := p.t - prev; seg > 0 && len(act) > 0 {
			clear(cnt)
			var streams int
			anyCommK, anyOtherK := false, false
			var stages uint64
			for _, k := range act {
				o := &a.ops[k]
				if cnt[o.stream] == 0 {
					streams++
				}
				cnt[o.stream]++
				if o.kernel {
					if o.bucket == bComm {
						anyCommK = true
					} else {
						anyOtherK = true
					}
				}
				stages |= 1 << (o.stage & 63)
			}
			s.BusyUS += us(seg)
			if streams >= 2 {
				s.OverlapUS += us(seg)
			}
			s.PeakStreams = max(s.PeakStreams, streams)
			if anyCommK && anyOtherK {
				s.CommComputeUS += us(seg)
			}
			for st := range stageBusy {
				if stages&(1<<st) != 0 {
					stageBusy[st] += seg
				}
			}
			for _, k := range act {
				o := &a.ops[k]
				if len(act) == cnt[o.stream] {
					o.excl += seg
					continue
				}
				o.hid += seg
				// Dominant overlapping kernel: highest bucket, then longest.
				best := int32(-1)
				for _, q := range act {
					x := &a.ops[q]
					if x.stream == o.stream {
						continue
					}
					if best < 0 {
						best = q
						continue
					}
					b := &a.ops[best]
					if x.bucket > b.bucket || x.bucket == b.bucket && (x.end-x.ts > b.end-b.ts || x.end-x.ts == b.end-b.ts && q < best) {
						best = q
					}
				}
				o.hidBy[a.ops[best].bucket] += seg
				credit[[2]int32{o.row, a.ops[best].canon}] += seg
			}
		}
		prev = p.t
		if p.start {
			where[p.op] = int32(len(act))
			act = append(act, p.op)
		} else {
			w := where[p.op]
			last := act[len(act)-1]
			act[w] = last
			where[last] = w
			act = act[:len(act)-1]
		}
	}
	a.stageBusy = stageBusy
	a.credit = credit
}
