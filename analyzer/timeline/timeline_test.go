package timeline

import (
	"github.com/gputriage/gputriage/analyzer/limits"
	"math/rand"
	"slices"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

func mk(v ...[2]int64) ivs {
	var out ivs
	for _, x := range v {
		out.add(x[0], x[1])
	}
	return out
}

func TestUnionOverlap(t *testing.T) {
	u := union(mk([2]int64{5, 10}, [2]int64{0, 3}, [2]int64{2, 4}, [2]int64{10, 12}, [2]int64{20, 21}))
	if u.len() != 3 || length(u) != 4+7+1 {
		t.Fatalf("union %v", u)
	}
	v := union(mk([2]int64{3, 6}, [2]int64{11, 30}))
	if got := overlap(u, v); got != 1+1+1+1 { // [3,4] [5,6] [11,12] [20,21]
		t.Errorf("overlap = %d", got)
	}
	if overlap(ivs{}, v) != 0 || length(ivs{}) != 0 {
		t.Error("empty sets")
	}
	if got := unionLength(u, v, ivs{}); got != 30 { // [0,4] [3,6] [5,12] [11,30]: [0,30]
		t.Errorf("unionLength = %d", got)
	}
}

// unionPairs is the merge of intervals sorted by (start, end) that union
// computed before it sorted starts and ends apart.
func unionPairs(iv [][2]int64) [][2]int64 {
	if len(iv) == 0 {
		return nil
	}
	slices.SortFunc(iv, func(a, b [2]int64) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	out := iv[:1]
	for _, x := range iv[1:] {
		l := &out[len(out)-1]
		if x[0] <= l[1] {
			l[1] = max(l[1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

func TestUnionMatchesPairs(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for range 2000 {
		n := r.Intn(12)
		var pairs [][2]int64
		var v ivs
		for range n {
			s := r.Int63n(30)
			e := s + r.Int63n(6) // zero lengths too
			pairs = append(pairs, [2]int64{s, e})
			v.add(s, e)
		}
		want := unionPairs(slices.Clone(pairs))
		got := union(v)
		if got.len() != len(want) {
			t.Fatalf("%v: union %v, want %v", pairs, got, want)
		}
		for k := range want {
			if got.s[k] != want[k][0] || got.e[k] != want[k][1] {
				t.Fatalf("%v: union %v, want %v", pairs, got, want)
			}
		}
		// unionLength of pieces is the length of the whole union.
		a, b := union(mk(pairs[:n/2]...)), union(mk(pairs[n/2:]...))
		if g, w := unionLength(a, b), length(got); g != w {
			t.Fatalf("%v: unionLength %d, want %d", pairs, g, w)
		}
	}
}

// Per-stream facts are the same whether a few streams are searched in the
// list or many are found through the index (one stream per kernel made the
// list search quadratic): each stream's count is its kernels, in order of
// first appearance, interleaved.
func TestFactsManyStreams(t *testing.T) {
	for _, n := range []int{3, 16, 17, limits.StreamRows} {
		st := trace.NewStore()
		st.Files = append(st.Files, trace.File{Name: "t.json"})
		k := st.Intern("k")
		for i := range 4 * n {
			s := (i*7 + i/n) % n // every stream, out of order, four times
			st.GPU = append(st.GPU, trace.GPUOp{TS: int64(i) * 10, Dur: 5, Name: k, Device: int64(s % 2), Stream: int64(s), Kind: trace.KindKernel, Corr: trace.None, Ext: trace.None})
		}
		f := ComputeFacts(st, 0)
		if len(f.Streams) != n {
			t.Fatalf("%d streams: got %d", n, len(f.Streams))
		}
		seen := map[int64]bool{}
		for _, s := range f.Streams {
			if s.Kernels != 4 || s.KernelTime != 20 || seen[s.Stream] || s.Device != s.Stream%2 {
				t.Fatalf("%d streams: %+v", n, s)
			}
			seen[s.Stream] = true
		}
	}
}

// Beyond limits.StreamRows streams the busiest keep their rows, in device
// and stream order, and the rest are summed into one last row (-1, -1):
// one stream per kernel wrote a row per kernel (two ranks of 100 k streams,
// 24 MB of breakdown.json each).
func TestFactsStreamRowsCap(t *testing.T) {
	n := limits.StreamRows + 372
	st := trace.NewStore()
	st.Files = append(st.Files, trace.File{Name: "t.json"})
	k := st.Intern("k")
	for s := range n {
		// stream s is busy 1+s µs: the last StreamRows-1 are the busiest;
		// a copy on every stream counts towards its busy time
		st.GPU = append(st.GPU, trace.GPUOp{TS: int64(s) * 10, Dur: int64(1 + s), Name: k, Stream: int64(n - s), Kind: trace.KindKernel, Corr: trace.None, Ext: trace.None},
			trace.GPUOp{TS: int64(s)*10 + 5, Dur: 1, Name: k, Stream: int64(n - s), Kind: trace.KindMemcpy, Corr: trace.None, Ext: trace.None})
	}
	f := ComputeFacts(st, 0)
	if len(f.Streams) != limits.StreamRows || f.MergedStreams != n-(limits.StreamRows-1) {
		t.Fatalf("%d rows, %d merged", len(f.Streams), f.MergedStreams)
	}
	var kernels, copies, time int64
	for i, s := range f.Streams {
		kernels, copies, time = kernels+s.Kernels, copies+s.Memcpys, time+s.KernelTime
		if i == len(f.Streams)-1 {
			if s.Device != -1 || s.Stream != -1 || s.Kernels != int64(f.MergedStreams) || s.Memcpys != int64(f.MergedStreams) {
				t.Errorf("merged row %+v", s)
			}
			continue
		}
		// kept: streams 1 … StreamRows-1 (the busiest, 1+s with s = n-stream), in order
		if s.Stream != int64(i+1) || s.KernelTime != int64(1+n-(i+1)) {
			t.Errorf("row %d: %+v", i, s)
		}
	}
	if kernels != int64(n) || copies != int64(n) || time != f.KernelTime {
		t.Errorf("rows hold %d kernels, %d copies, %d µs of %d", kernels, copies, time, f.KernelTime)
	}
}
