package overlap

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveSweep is the sweep as it was before issue 24: every segment visits
// every active op (and, per hidden op, every other active op). It is the
// reference the O(n log n) sweep must agree with, figure for figure.
func naiveSweep(a *analyzer) (excl, hid []int64, hidBy [][5]int64, credit map[[2]int32]int64, stageBusy []int64, sum Summary) {
	type point struct {
		t     int64
		start bool
		op    int32
	}
	var pts []point
	for k := range a.ops {
		if a.ops[k].end > a.ops[k].ts {
			pts = append(pts, point{a.ops[k].ts, true, int32(k)}, point{a.ops[k].end, false, int32(k)})
		}
	}
	slices.SortFunc(pts, func(x, y point) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		if x.start != y.start {
			if x.start {
				return 1
			}
			return -1
		}
		return cmp.Compare(x.op, y.op)
	})
	excl, hid, hidBy = make([]int64, len(a.ops)), make([]int64, len(a.ops)), make([][5]int64, len(a.ops))
	cnt := make([]int, len(a.streams))
	where := make([]int32, len(a.ops))
	var act []int32
	stageBusy = make([]int64, len(a.stages))
	credit = map[[2]int32]int64{}
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
			sum.BusyUS += us(seg)
			if streams >= 2 {
				sum.OverlapUS += us(seg)
			}
			sum.PeakStreams = max(sum.PeakStreams, streams)
			if anyCommK && anyOtherK {
				sum.CommComputeUS += us(seg)
			}
			for st := range stageBusy {
				if stages&(1<<st) != 0 {
					stageBusy[st] += seg
				}
			}
			for _, k := range act {
				o := &a.ops[k]
				if len(act) == cnt[o.stream] {
					excl[k] += seg
					continue
				}
				hid[k] += seg
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
				hidBy[k][a.ops[best].bucket] += seg
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
	return
}

// randomAnalyzer lays out n ops on a few streams with clustered times, so
// that ties (equal starts, ends, durations) and nesting are common.
func randomAnalyzer(rng *rand.Rand, n, streams, canons, stages int) *analyzer {
	a := &analyzer{}
	for s := range streams {
		a.streams = append(a.streams, int64(7+s))
		a.byStream = append(a.byStream, nil)
	}
	for c := range canons {
		a.canons = append(a.canons, fmt.Sprint("k", c))
	}
	for s := range stages {
		a.stages = append(a.stages, fmt.Sprint("stage", s))
	}
	for i := range n {
		ts := int64(rng.IntN(4*n+1)) * 5
		dur := int64(rng.IntN(8)) * int64(rng.IntN(30))
		a.ops = append(a.ops, op{i: int32(i), ts: ts, end: ts + dur, stream: int32(rng.IntN(streams)), canon: int32(rng.IntN(canons)),
			bucket: bucket(rng.IntN(5)), kernel: rng.IntN(4) != 0, stage: uint8(rng.IntN(stages))})
	}
	return a
}

func TestSweepMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	for trial := range 400 {
		n := 1 + rng.IntN(120)
		a := randomAnalyzer(rng, n, 1+rng.IntN(5), 1+rng.IntN(6), 1+rng.IntN(3))
		var res Result
		a.sweep(&res)
		excl, hid, hidBy, credit, stageBusy, sum := naiveSweep(a)
		for k := range a.ops {
			o := &a.ops[k]
			if o.excl != excl[k] || o.hid != hid[k] || o.hidBy != hidBy[k] {
				t.Fatalf("trial %d op %d %+v: excl %d hid %d by %v, want %d %d %v", trial, k, *o, o.excl, o.hid, o.hidBy, excl[k], hid[k], hidBy[k])
			}
		}
		if !slices.Equal(a.stageBusy, stageBusy) || res.Summary.BusyUS != sum.BusyUS || res.Summary.OverlapUS != sum.OverlapUS ||
			res.Summary.PeakStreams != sum.PeakStreams || res.Summary.CommComputeUS != sum.CommComputeUS {
			t.Fatalf("trial %d: stages %v busy %v overlap %v peak %d cc %v, want %v %v %v %d %v", trial, a.stageBusy,
				res.Summary.BusyUS, res.Summary.OverlapUS, res.Summary.PeakStreams, res.Summary.CommComputeUS,
				stageBusy, sum.BusyUS, sum.OverlapUS, sum.PeakStreams, sum.CommComputeUS)
		}
		for r := range a.acc {
			wantC, wantT := int32(-1), int64(0)
			for k, v := range credit {
				if k[0] == int32(r) && (v > wantT || v == wantT && wantC >= 0 && k[1] < wantC) {
					wantC, wantT = k[1], v
				}
			}
			if c, v := a.overlapWith(int32(r)); c != wantC || v != wantT {
				t.Fatalf("trial %d row %d: overlaps %d for %d ns, want %d for %d", trial, r, c, v, wantC, wantT)
			}
		}
	}
}

// crossing lays out n kernels that all overlap one another (kernel i runs
// from i to n+i µs), alternating over streams.
func crossing(n, streams int) *analyzer {
	a := &analyzer{stages: []string{"all"}}
	for s := range streams {
		a.streams = append(a.streams, int64(s))
		a.byStream = append(a.byStream, nil)
	}
	for c := range 97 {
		a.canons = append(a.canons, fmt.Sprint("k", c))
	}
	for i := range n {
		a.ops = append(a.ops, op{i: int32(i), ts: int64(i) * 1000, end: int64(n+i) * 1000, stream: int32(i % streams),
			canon: int32(i % 97), bucket: bucket(i % 5), kernel: true})
	}
	return a
}

// 100 k mutually crossing kernels on two streams: every op's figures follow
// from the layout. Each segment between two consecutive points lasts 1 µs.
func TestSweepCrossing(t *testing.T) {
	const n = 100000
	a := crossing(n, 2)
	var res Result
	a.sweep(&res)
	s := res.Summary
	if s.BusyUS != us(2*n-1)*1000 || s.OverlapUS != us(2*n-3)*1000 || s.PeakStreams != 2 {
		t.Fatalf("busy %v overlap %v peak %d", s.BusyUS, s.OverlapUS, s.PeakStreams)
	}
	// The first kernel runs alone for 1 µs, the last one too; everything
	// else is hidden.
	for k, o := range a.ops {
		want := int64(0)
		if k == 0 || k == n-1 {
			want = 1000
		}
		if o.excl != want || o.hid != int64(n)*1000-want {
			t.Fatalf("op %d: excl %d hid %d", k, o.excl, o.hid)
		}
	}
	if c, v := a.overlapWith(a.ops[n/2].row); c < 0 || v <= 0 {
		t.Errorf("row of op %d: no overlapping kernel", n/2)
	}
}

// BenchmarkSweepCrossing: 100 k mutually crossing kernels on two streams
// (the naive sweep was quadratic in them: 72 s in triage).
func BenchmarkSweepCrossing(b *testing.B) {
	for b.Loop() {
		a := crossing(100000, 2)
		var res Result
		a.sweep(&res)
		a.overlapWith(a.ops[0].row)
	}
}
