package report

import (
	"slices"

	"github.com/gputriage/gputriage/analyzer/callsite"
)

// LaneBins is the resolution of the per-stream activity view.
const LaneBins = 400

// Lanes writes gpu_lanes.json: per trace file and GPU stream, the busy
// fraction of each of LaneBins equal time bins over the file's GPU span —
// enough to draw a lane view of any size of trace in a fixed few KB.
func Lanes(a *Analysis) []byte {
	type lane struct {
		Device  int32     `json:"device"`
		Stream  int32     `json:"stream"`
		Kernels int64     `json:"ops"`
		Busy    []float64 `json:"busy"`
	}
	type file struct {
		File  string `json:"file"`
		Start US     `json:"start_us"`
		Span  US     `json:"span_us"`
		Bins  int    `json:"bins"`
		Lanes []lane `json:"lanes"`
	}
	out := struct {
		Tool  string `json:"tool"`
		Files []file `json:"files"`
	}{Tool: Tool, Files: []file{}}
	st := a.Store
	for _, fi := range a.TraceFiles {
		first, last := int64(1<<62), int64(-1<<62)
		for i := range st.GPU {
			o := &st.GPU[i]
			if int(o.File) == fi && o.Kind.IsGPUWork() {
				first, last = min(first, o.TS), max(last, o.End())
			}
		}
		f := file{File: st.Files[fi].Name, Bins: LaneBins, Lanes: []lane{}}
		if last <= first {
			out.Files = append(out.Files, f)
			continue
		}
		f.Start, f.Span = US(0), US(last-first)
		span := last - first
		// Lanes in the order first seen, found through the last one used
		// (consecutive ops mostly share a stream) before a map lookup;
		// the loop runs in chunks so V8's optimized code takes over
		// (callsite.Chunks).
		type sk struct{ d, s int32 }
		type acc struct {
			k    sk
			n    int64
			bins []int64
		}
		var lanes []acc
		index := map[sk]int{}
		cur := -1
		callsite.Chunks(len(st.GPU), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				o := &st.GPU[i]
				if int(o.File) != fi || !o.Kind.IsGPUWork() {
					continue
				}
				k := sk{o.Device, o.Stream}
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
			for bi, v := range a.bins {
				w := (int64(bi)+1)*span/LaneBins - int64(bi)*span/LaneBins
				if w > 0 {
					l.Busy[bi] = round(min(float64(v)/float64(w), 1), 3)
				}
			}
			f.Lanes = append(f.Lanes, l)
		}
		slices.SortFunc(f.Lanes, func(x, y lane) int {
			if x.Device != y.Device {
				return int(x.Device - y.Device)
			}
			return int(x.Stream - y.Stream)
		})
		out.Files = append(out.Files, f)
	}
	return encode(out)
}
