package perfetto

import (
	"cmp"
	"errors"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Fixer rewrites a trace in two passes over the same bytes: pass 1 (Write,
// then Plan) finds the crossing slices and decides their lanes, pass 2
// (Output) writes the fixed trace. Memory is one small record per GPU slice
// and flow end; the document itself is never held.
type Fixer struct {
	sc      scanner
	e       event
	tracks  map[string]int32 // pid+"\x00"+tid spelling → track
	tinfo   []trackInfo
	slices  []gslice
	flows   []flowEnd
	used    map[int64]bool // integer tids seen anywhere
	names   map[string][]byte
	planned bool
	stats   Stats
	moves   []move // by event index
	meta    [][]byte
}

type trackInfo struct {
	pid, tid []byte
	gpu      bool
}

type gslice struct {
	idx     int64
	ts, end int64
	corr    int64
	track   int32
	work    bool // kernel, memcpy or memset (not an annotation or sync)
}

type flowEnd struct {
	idx   int64
	ts    int64
	id    int64
	track int32
}

type move struct {
	idx int64
	tid int64
}

// Stats describes what the fixer found and did.
type Stats struct {
	Events     int64 `json:"events"`      // traceEvents elements (objects)
	GPUSlices  int64 `json:"gpu_slices"`  // X slices of GPU categories
	GPUTracks  int   `json:"gpu_tracks"`  // (pid,tid) tracks holding them
	Overlaps   int   `json:"overlaps"`    // kernels/copies/fills starting before the previous one on their track ends
	Crossings  int   `json:"crossings"`   // slices that broke nesting (and were moved)
	MaxOverlap int64 `json:"max_overlap"` // ns: largest overlap of a crossing slice with the slice it started in
	// MaxOverlapUS is MaxOverlap in µs, as every other time of the
	// artifacts (max_overlap stays: fields are never renamed or dropped).
	MaxOverlapUS units.US `json:"max_overlap_us"`
	FlowsMoved   int      `json:"flows_moved"` // flow ends moved with their slice
	Lanes        []Lane   `json:"lanes"`
	Complete     bool     `json:"complete"` // the document ended properly
}

// Lane is one synthetic track added next to a GPU track.
type Lane struct {
	Pid    string `json:"pid"` // JSON spelling
	Tid    string `json:"origin_tid"`
	Lane   int    `json:"lane"` // 1-based
	NewTid int64  `json:"tid"`
	Name   string `json:"name"`
	Slices int    `json:"slices"`
}

// NewFixer returns a Fixer ready for pass 1.
func NewFixer() *Fixer {
	f := &Fixer{tracks: map[string]int32{}, used: map[int64]bool{}, names: map[string][]byte{}}
	f.sc.event = f.pass1
	return f
}

// Write feeds the next chunk of pass 1 (the decompressed trace bytes).
func (f *Fixer) Write(p []byte) (int, error) {
	if f.planned {
		return 0, errors.New("perfetto: Write after Plan")
	}
	f.sc.write(p)
	return len(p), nil
}

// gpuCat reports whether a category is drawn on a GPU stream track.
func gpuCat(cat []byte) bool {
	switch string(cat) {
	case "kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
		"Kernel", "Memcpy", "Memset":
		return true
	}
	return false
}

func (f *Fixer) track(pid, tid []byte) int32 {
	k := string(pid) + "\x00" + string(tid)
	if t, ok := f.tracks[k]; ok {
		return t
	}
	t := int32(len(f.tinfo))
	f.tracks[k] = t
	f.tinfo = append(f.tinfo, trackInfo{pid: []byte(string(pid)), tid: []byte(string(tid))})
	return t
}

func (f *Fixer) pass1(b []byte) {
	idx := f.sc.n - 1
	e := &f.e
	if !parseEvent(b, e) {
		return
	}
	if t, ok := trailingInt(e.tid); ok {
		f.used[t] = true
	}
	switch e.ph {
	case 'X':
		if !gpuCat(e.cat) {
			return
		}
		ts, ok := jsontext.ParseNS(e.ts)
		if !ok {
			return
		}
		dur, _ := jsontext.ParseNS(e.dur)
		dur = max(dur, 0)
		t := f.track(e.pid, e.tid)
		f.tinfo[t].gpu = true
		work := string(e.cat) != "gpu_user_annotation" && string(e.cat) != "cuda_sync"
		f.slices = append(f.slices, gslice{idx: idx, ts: ts, end: ts + dur, corr: e.corr, track: t, work: work})
	case 'f':
		ts, ok := jsontext.ParseNS(e.ts)
		if !ok {
			return
		}
		id, ok := jsontext.ParseInt(e.id)
		if !ok {
			id = none
		}
		f.flows = append(f.flows, flowEnd{idx: idx, ts: ts, id: id, track: f.track(e.pid, e.tid)})
	case 'M':
		if string(e.name) == "thread_name" && e.argName != nil {
			f.names[string(e.pid)+"\x00"+string(e.tid)] = []byte(string(e.argName))
		}
	}
}

// yieldEvery is how many moved slices Plan records between yields: the
// module is one thread that never preempts, so a collection started inside
// one long loop could not end before it did, and the maps it grows
// meanwhile would all count as live (callsite.Chunks does the same).
const yieldEvery = 4096

// Plan ends pass 1 and decides which slices move to which lane.
func (f *Fixer) Plan() *Stats {
	if f.planned {
		return &f.stats
	}
	f.planned = true
	f.sc.close()
	st := &f.stats
	st.Events = f.sc.n
	st.GPUSlices = int64(len(f.slices))
	st.Complete = f.sc.complete()

	byTrack := make([][]int32, len(f.tinfo))
	for i := range f.slices {
		t := f.slices[i].track
		byTrack[t] = append(byTrack[t], int32(i))
	}
	type laneKey struct {
		track int32
		ts    int64
	}
	moved := map[laneKey]*movedAt{} // (track, ts) → moved slices starting there
	sliceTid := map[int32]int64{}
	alloc := map[int64]bool{}
	for t, idx := range byTrack {
		if len(idx) == 0 {
			continue
		}
		st.GPUTracks++
		s := f.slices
		slices.SortFunc(idx, func(a, b int32) int {
			x, y := &s[a], &s[b]
			switch {
			case x.ts != y.ts:
				return cmp.Compare(x.ts, y.ts)
			case x.end != y.end:
				return cmp.Compare(y.end, x.end)
			}
			return cmp.Compare(x.idx, y.idx)
		})
		prev := int32(-1)
		for _, i := range idx {
			if !s[i].work {
				continue
			}
			if prev >= 0 && s[i].ts < s[prev].end {
				st.Overlaps++
			}
			prev = i
		}
		var main []int64   // ends of the open slices on the track
		var lanes *laneSet // synthetic lanes, made at the first crossing
		var laneOf []int32 // per crossing slice: lane (parallel to crossers)
		var crossers []int32
		for _, i := range idx {
			sl := &s[i]
			for len(main) > 0 && main[len(main)-1] <= sl.ts {
				main = main[:len(main)-1]
			}
			if len(main) == 0 || sl.end <= main[len(main)-1] {
				main = append(main, sl.end)
				continue
			}
			st.Crossings++
			st.MaxOverlap = max(st.MaxOverlap, main[len(main)-1]-sl.ts)
			st.MaxOverlapUS = units.US(st.MaxOverlap)
			if lanes == nil {
				lanes = newLaneSet()
			}
			crossers = append(crossers, i)
			laneOf = append(laneOf, lanes.place(sl.ts, sl.end))
		}
		if lanes == nil {
			continue
		}
		ti := &f.tinfo[t]
		base := int64(1 << 30)
		if n, ok := trailingInt(ti.tid); ok && n >= 0 && n < 1<<20 {
			base = n * 1000
		}
		tids := make([]int64, lanes.n)
		for k := range tids {
			// Lane k-1 took the first free tid from base+k, so every tid
			// up to it is taken: start past it (linear in lanes, however
			// many tracks' lanes interleave).
			c := base + int64(k) + 1
			if k > 0 {
				c = max(c, tids[k-1]+1)
			}
			for f.used[c] || alloc[c] {
				c++
			}
			alloc[c] = true
			tids[k] = c
			name := f.laneName(ti, k+1)
			st.Lanes = append(st.Lanes, Lane{Pid: string(ti.pid), Tid: string(ti.tid), Lane: k + 1, NewTid: c, Name: name})
			f.meta = append(f.meta, threadName(ti.pid, c, name))
		}
		first := len(st.Lanes) - lanes.n
		for j, i := range crossers {
			if j%yieldEvery == yieldEvery-1 {
				runtime.Gosched() // the module: see yieldEvery
			}
			k := laneOf[j]
			st.Lanes[first+int(k)].Slices++
			sliceTid[i] = tids[k]
			f.moves = append(f.moves, move{idx: s[i].idx, tid: tids[k]})
			lk := laneKey{int32(t), s[i].ts}
			m := moved[lk]
			if m == nil {
				m = &movedAt{none: -1}
				moved[lk] = m
			}
			m.add(i, s[i].corr)
		}
	}
	// Flow ends bind to the slice enclosing their ts on their track: move
	// each with its slice (same ts; same id as the slice's correlation when
	// both are known).
	for _, fl := range f.flows {
		if m := moved[laneKey{fl.track, fl.ts}]; m != nil {
			if i, ok := m.find(fl.id); ok {
				f.moves = append(f.moves, move{idx: fl.idx, tid: sliceTid[i]})
				st.FlowsMoved++
			}
		}
	}
	slices.SortFunc(f.moves, func(a, b move) int { return cmp.Compare(a.idx, b.idx) })
	f.slices, f.flows = nil, nil
	return st
}

// movedAt holds the moved slices starting at one (track, ts), in order,
// indexed so a flow end finds its slice in O(1) (the first one whose
// correlation is unknown or equals the flow's id; any, for a flow without
// an id) however many slices start there.
type movedAt struct {
	cands []int32
	none  int32           // position of the first slice without a correlation, -1
	corr  map[int64]int32 // correlation → position of its first slice
}

func (m *movedAt) add(i int32, corr int64) {
	pos := int32(len(m.cands))
	m.cands = append(m.cands, i)
	if corr == none {
		if m.none < 0 {
			m.none = pos
		}
		return
	}
	if m.corr == nil {
		m.corr = map[int64]int32{}
	}
	if _, ok := m.corr[corr]; !ok {
		m.corr[corr] = pos
	}
}

func (m *movedAt) find(id int64) (int32, bool) {
	if id == none {
		return m.cands[0], true
	}
	p := m.none
	if q, ok := m.corr[id]; ok && (p < 0 || q < p) {
		p = q
	}
	if p < 0 {
		return 0, false
	}
	return m.cands[p], true
}

// laneSet is the synthetic lanes of one track: a stack of open slice ends
// per lane (a lane's slices nest, so each stack decreases upwards). A
// crossing slice goes to the first lane where it nests: after the ends at
// or before its start are popped, the lane is empty or its top ends no
// earlier than the slice. A heap of every open end pops them in time
// order and a max tree over the lanes' tops finds that first lane, so a
// slice costs O(log n) whatever the number of lanes (100 k mutually
// crossing kernels make 100 k lanes; scanning them all took 12 s).
type laneSet struct {
	n      int       // lanes in use
	stacks [][]int64 // per lane, open ends
	tree   []int64   // max of the lanes' tops (empty lane: MaxInt64; unused: MinInt64)
	size   int
	open   endHeap
}

type laneEnd struct {
	end  int64
	lane int32
}

type endHeap []laneEnd

func newLaneSet() *laneSet {
	return &laneSet{tree: []int64{math.MinInt64, math.MinInt64}, size: 1}
}

// grow doubles the tree's leaves.
func (l *laneSet) grow() {
	old := l.tree[l.size:]
	*l = laneSet{n: l.n, stacks: l.stacks, open: l.open, size: 2 * l.size}
	l.tree = make([]int64, 2*l.size)
	for i := range l.tree {
		l.tree[i] = math.MinInt64
	}
	copy(l.tree[l.size:], old)
	for i := l.size - 1; i >= 1; i-- {
		l.tree[i] = max(l.tree[2*i], l.tree[2*i+1])
	}
}

func (l *laneSet) set(lane int32, v int64) {
	i := l.size + int(lane)
	l.tree[i] = v
	for i /= 2; i >= 1; i /= 2 {
		l.tree[i] = max(l.tree[2*i], l.tree[2*i+1])
	}
}

func (l *laneSet) top(lane int32) int64 {
	if s := l.stacks[lane]; len(s) > 0 {
		return s[len(s)-1]
	}
	return math.MaxInt64
}

// place puts a slice [ts, end) in its lane and returns the lane.
func (l *laneSet) place(ts, end int64) int32 {
	for len(l.open) > 0 && l.open[0].end <= ts {
		e := l.open.pop()
		l.stacks[e.lane] = l.stacks[e.lane][:len(l.stacks[e.lane])-1]
		l.set(e.lane, l.top(e.lane))
	}
	var lane int32
	if l.tree[1] >= end {
		i := 1
		for i < l.size {
			if l.tree[2*i] >= end {
				i = 2 * i
			} else {
				i = 2*i + 1
			}
		}
		lane = int32(i - l.size)
	} else {
		if l.n == l.size {
			l.grow()
		}
		lane = int32(l.n)
		l.n++
		l.stacks = append(l.stacks, nil)
	}
	l.stacks[lane] = append(l.stacks[lane], end)
	l.set(lane, end)
	l.open.push(laneEnd{end, lane})
	return lane
}

func (h *endHeap) push(e laneEnd) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].end <= s[i].end {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *endHeap) pop() laneEnd {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s[l].end < s[m].end {
			m = l
		}
		if l+1 < len(s) && s[l+1].end < s[m].end {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// laneName names lane k of a track after its origin: the track's
// thread_name if the trace has one, else "stream N", else the tid itself.
func (f *Fixer) laneName(ti *trackInfo, k int) string {
	origin := ""
	if n, ok := f.names[string(ti.pid)+"\x00"+string(ti.tid)]; ok {
		origin = string(trimSpace(n))
	} else if n, ok := jsontext.ParseInt(ti.tid); ok {
		origin = "stream " + strconv.FormatInt(n, 10)
	} else if len(ti.tid) > 0 && ti.tid[0] == '"' {
		origin = string(trimSpace(unquoteNum(ti.tid)))
	} else {
		origin = "track"
	}
	return origin + " (overlap " + strconv.Itoa(k) + ")"
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && jsontext.IsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && jsontext.IsSpace(b[0]) {
		b = b[1:]
	}
	return b
}

// threadName writes a thread_name metadata event. name comes from JSON
// string bodies (already escaped) or from digits and ASCII words.
func threadName(pid []byte, tid int64, name string) []byte {
	b := []byte(`{"ph":"M","name":"thread_name",`)
	if len(pid) > 0 {
		b = append(b, `"pid":`...)
		b = append(b, pid...)
		b = append(b, ',')
	}
	b = append(b, `"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"args":{"name":"`...)
	b = append(b, name...)
	return append(b, `"}}`...)
}

// Output starts pass 2: feed the same bytes again to the returned writer;
// the fixed trace goes to w. With nothing to move, the output is the input,
// byte for byte.
func (f *Fixer) Output(w io.Writer) *Rewriter {
	f.Plan()
	r := &Rewriter{f: f, w: w}
	r.sc.raw = r.raw
	r.sc.event = r.event
	r.sc.arrayEnd = r.arrayEnd
	return r
}

// Rewriter is pass 2 of a Fixer.
type Rewriter struct {
	f    *Fixer
	w    io.Writer
	sc   scanner
	next int // cursor in f.moves
	buf  []byte
	err  error
	done bool // metadata written
	// sep holds the separators after the last event, written only when
	// another element follows: a trace cut short is closed after its last
	// complete event without a dangling comma.
	sep     []byte
	lastSig byte // last non-space byte written
	// Closed says how a trace cut short inside traceEvents was ended.
	Closed bool
}

// Write feeds the next chunk of pass 2.
func (r *Rewriter) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.sc.write(p)
	return len(p), r.err
}

func (r *Rewriter) put(p []byte) {
	if r.err == nil && len(p) > 0 {
		_, r.err = r.w.Write(p)
		for i := len(p) - 1; i >= 0; i-- {
			if !jsontext.IsSpace(p[i]) {
				r.lastSig = p[i]
				break
			}
		}
	}
}

// sepMax bounds the separators held back (a hostile run of whitespace).
const sepMax = 1 << 20

func (r *Rewriter) raw(p []byte) {
	if r.sc.st == sArr && len(r.sep)+len(p) <= sepMax {
		r.sep = append(r.sep, p...)
		return
	}
	r.flushSep()
	r.put(p)
}

func (r *Rewriter) flushSep() {
	if len(r.sep) > 0 {
		r.put(r.sep)
		r.sep = r.sep[:0]
	}
}

func (r *Rewriter) event(b []byte) {
	r.flushSep()
	idx := r.sc.n - 1
	m := r.f.moves
	if r.next < len(m) && m[r.next].idx == idx {
		r.buf = replaceTid(r.buf[:0], b, m[r.next].tid)
		r.next++
		r.put(r.buf)
		return
	}
	r.put(b)
}

func (r *Rewriter) arrayEnd() {
	r.flushSep()
	if r.done || len(r.f.meta) == 0 {
		return
	}
	r.done = true
	for _, m := range r.f.meta {
		r.put([]byte(",\n"))
		r.put(m)
	}
	r.put([]byte("\n"))
}

// Close ends pass 2. It fails if the bytes differed from pass 1's. A trace
// cut short inside traceEvents is closed after its last complete event
// (the partial one dropped, the lane names and brackets added: Closed); cut
// short anywhere else, it cannot be closed and Close says so.
func (r *Rewriter) Close() error {
	switch r.sc.st {
	case sArr, sEvent:
		r.sc.buf = r.sc.buf[:0] // the partial event is dropped
		r.sep = r.sep[:0]
		if r.lastSig == ',' {
			return errors.New("perfetto: the trace ends inside traceEvents after a long run of separators; it cannot be closed, no output written")
		}
		r.sc.st = sEnd
		r.arrayEnd()
		if r.sc.bare {
			r.put([]byte("]\n"))
		} else {
			r.put([]byte("]}\n"))
		}
		r.Closed = true
		if r.err != nil {
			return r.err
		}
		if r.next != len(r.f.moves) {
			return errors.New("perfetto: pass 2 input differs from pass 1")
		}
		return nil
	case sEnd:
		r.flushSep()
	case sStart:
		return errors.New("perfetto: empty input: no trace to fix, no output written")
	case sErr:
		return errors.New("perfetto: not a JSON trace (its structure breaks before traceEvents ends); no output written")
	default:
		return errors.New("perfetto: the trace ends outside traceEvents (in a header value, a key or a non-object element) before its JSON document does; it cannot be closed, no output written")
	}
	if r.err != nil {
		return r.err
	}
	if r.sc.n != r.f.stats.Events || r.next != len(r.f.moves) {
		return errors.New("perfetto: pass 2 input differs from pass 1")
	}
	if len(r.f.meta) > 0 && !r.done {
		return errors.New("perfetto: traceEvents never closed; lane names not written")
	}
	return nil
}

// Fix runs both passes over an in-memory trace.
func Fix(in []byte, w io.Writer) (*Stats, error) {
	f := NewFixer()
	f.Write(in)
	st := f.Plan()
	r := f.Output(w)
	r.Write(in)
	return st, r.Close()
}

// Check runs pass 1 only: what Fix would find.
func Check(in []byte) *Stats {
	f := NewFixer()
	f.Write(in)
	return f.Plan()
}
