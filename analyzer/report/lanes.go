package report

import (
	"cmp"
	"slices"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// LaneBins is the resolution of the per-stream activity view.
const LaneBins = 400

// Lanes writes gpu_lanes.json: per trace file and GPU stream, the busy
// fraction of each of LaneBins equal time bins over the file's GPU span —
// enough to draw a lane view of any size of trace in a fixed few KB.
//
// A file keeps at most limits.Lanes lanes: beyond, the limits.Lanes-1
// busiest streams keep theirs and the rest share one merged lane (device
// and stream -1, "merged_streams" of them; its busy is their busy time per
// bin, capped at 1). One stream per kernel (80 k streams) took 2.7 GB.
func Lanes(a *Analysis) []byte {
	type lane struct {
		Device  int64     `json:"device"`
		Stream  int64     `json:"stream"`
		Kernels int64     `json:"ops"`
		Busy    []float64 `json:"busy"`
		Merged  int       `json:"merged_streams,omitempty"`
	}
	type file struct {
		File  string `json:"file"`
		Start US     `json:"start_us"`
		Span  US     `json:"span_us"`
		Bins  int    `json:"bins"`
		Lanes []lane `json:"lanes"`
		// MergedStreams counts the streams beyond limits.Lanes drawn as
		// one merged lane (0: every stream has its own).
		MergedStreams int `json:"merged_streams,omitempty"`
	}
	out := struct {
		Tool  string `json:"tool"`
		Files []file `json:"files"`
	}{Tool: Tool, Files: []file{}}
	st := a.Store
	type sk struct{ d, s int64 }
	merged := sk{-1, -1}
	for _, fi := range a.TraceFiles {
		// First pass: the streams, their op counts and busy time.
		first, last := int64(1<<62), int64(-1<<62)
		type tot struct {
			k    sk
			n    int64
			busy int64
		}
		var tots []tot
		index := map[sk]int{}
		cur := -1
		callsite.Chunks(len(st.GPU), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				o := &st.GPU[i]
				if int(o.File) != fi || !o.Kind.IsGPUWork() {
					continue
				}
				first, last = min(first, o.TS), max(last, o.End())
				k := sk{o.Device, o.Stream}
				if cur < 0 || tots[cur].k != k {
					j, ok := index[k]
					if !ok {
						j = len(tots)
						index[k] = j
						tots = append(tots, tot{k: k})
					}
					cur = j
				}
				tots[cur].n++
				tots[cur].busy += o.Dur
			}
		})
		f := file{File: st.Files[fi].Name, Bins: LaneBins, Lanes: []lane{}}
		if last <= first {
			out.Files = append(out.Files, f)
			continue
		}
		f.Start, f.Span = US(0), US(last-first)
		span := last - first
		// Which lane each stream draws into: its own, or the merged one.
		own := map[sk]bool{}
		if len(tots) > limits.Lanes {
			byBusy := slices.Clone(tots)
			slices.SortFunc(byBusy, func(x, y tot) int {
				if c := cmp.Compare(y.busy, x.busy); c != 0 {
					return c
				}
				return cmpKey(x.k.d, x.k.s, y.k.d, y.k.s)
			})
			for _, t := range byBusy[:limits.Lanes-1] {
				own[t.k] = true
			}
			f.MergedStreams = len(tots) - (limits.Lanes - 1)
		}
		// Second pass: the bins, in the order lanes are first seen, found
		// through the last one used (consecutive ops mostly share a
		// stream) before a map lookup; the loop runs in chunks so V8's
		// optimized code takes over (callsite.Chunks).
		type acc struct {
			k    sk
			n    int64
			bins []int64
		}
		var lanes []acc
		clear(index)
		cur = -1
		callsite.Chunks(len(st.GPU), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				o := &st.GPU[i]
				if int(o.File) != fi || !o.Kind.IsGPUWork() {
					continue
				}
				k := sk{o.Device, o.Stream}
				if f.MergedStreams > 0 && !own[k] {
					k = merged
				}
				if cur < 0 || lanes[cur].k != k {
					j, ok := index[k]
					if !ok {
						j = len(lanes)
						index[k] = j
						lanes = append(lanes, acc{k: k, bins: make([]int64, LaneBins)})
					}
					cur = j
				}
				l := &lanes[cur]
				l.n++
				b := l.bins
				s, e := o.TS-first, o.End()-first
				for bi := s * LaneBins / span; bi < LaneBins && bi*span/LaneBins < e; bi++ {
					bs, be := bi*span/LaneBins, (bi+1)*span/LaneBins
					if ov := min(e, be) - max(s, bs); ov > 0 {
						b[bi] += ov
					}
				}
			}
		})
		for _, a := range lanes {
			l := lane{Device: a.k.d, Stream: a.k.s, Kernels: a.n, Busy: make([]float64, LaneBins)}
			if a.k == merged && f.MergedStreams > 0 {
				l.Merged = f.MergedStreams
			}
			for bi, v := range a.bins {
				w := (int64(bi)+1)*span/LaneBins - int64(bi)*span/LaneBins
				if w > 0 {
					l.Busy[bi] = round(min(float64(v)/float64(w), 1), 3)
				}
			}
			f.Lanes = append(f.Lanes, l)
		}
		slices.SortFunc(f.Lanes, func(x, y lane) int {
			if (x.Merged > 0) != (y.Merged > 0) { // the merged lane last
				if x.Merged > 0 {
					return 1
				}
				return -1
			}
			return cmpKey(x.Device, x.Stream, y.Device, y.Stream)
		})
		out.Files = append(out.Files, f)
	}
	return encode(out)
}

// cmpKey orders lanes by device, then stream (cmp.Compare: a difference of
// two ids overflows).
func cmpKey(xd, xs, yd, ys int64) int {
	if c := cmp.Compare(xd, yd); c != 0 {
		return c
	}
	return cmp.Compare(xs, ys)
}
