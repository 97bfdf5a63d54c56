package plantstraggler4

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// The replay moves every event of every rank to where it would have run under the plants.
//
// Host: one delay per rank (a step function of the old clock): a planted host gap at T adds Δ to
// every host event at or after T (events spanning T last Δ longer: a GIL-holding pause stops
// every Python thread); a blocking call (…Synchronize, a blocking memcpy) ends when both its own
// minimal time (≤ 5 µs) has passed and the GPU work that had finished inside it in the real trace
// is done (+ its old return latency, ≤ 10 µs): a host catches up with a late GPU there, and a
// host that had waited there absorbs a delay it carried.
//
// GPU, each op in old start order, starts at the latest of: its old start; its stream
// predecessor's new end + the old gap (≤ 5 µs; a longer gap was idle time that absorbs a delay);
// its launch's new start + the old launch-to-start latency (≤ 20 µs; a longer one was queueing);
// for a collective, the new end of every op of its rank that had ended before it (the collective
// waits for what it reduces); for any other op, the new end of the latest collective of its rank
// that had ended before it + the old gap (≤ 5 µs) (what consumes the result). A planted op lasts Δ
// longer. A collective instance settles when every rank has started it: each rank's kernel ends
// at the new latest start + its old (end − latest start), the transfer × the planted link factor.
// With no plant the replay returns every timestamp unchanged.

const (
	gapCap    = 5_000  // ns
	launchCap = 20_000 // ns
	syncCap   = 10_000 // ns
	syncMin   = 5_000  // ns
)

type gop struct {
	e          map[string]any
	start, end int64 // old, ns
	stream     string
	launch     map[string]any // runtime call, or nil
	inst       int            // collective instance, or -1
	extend     int64
	ns, ne     int64
	done       bool
}

type hostItem struct {
	t      int64 // old time the item is processed at
	gap    int64 // planted host gap (kind 0)
	sync   bool  // blocking call ending at t (kind 1)
	syncSt int64
}

type rankState struct {
	ops      []*gop
	byEnd    []*gop
	items    []hostItem
	bpT, bpD []int64 // host delay breakpoints: delay bpD[i] from old time bpT[i] on
	oi, ii   int     // cursors
	endPtr   int     // byEnd cursor for the collective rule
	maxEnd   int64   // max new end of ops ended before (old) the current op
	lastColl *gop    // latest collective (by old end) ended before the current op
	collPtr  int
	prev     map[string]*gop
}

func (s *rankState) hd(t int64) int64 {
	i := sort.Search(len(s.bpT), func(i int) bool { return s.bpT[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return s.bpD[i]
}

func (s *rankState) setHD(t, d int64) {
	s.bpT = append(s.bpT, t)
	s.bpD = append(s.bpD, d)
}

// Plants, in the old clock of the traces given to Replay.
type Plants struct {
	HostGap    map[int][][2]int64 // rank → (T ns, Δ ns)
	Extend     map[uintptr]int64  // GPU op event (evID) → extra ns
	LinkFactor map[int]float64    // instance → transfer factor
}

// Replay edits the traces in place. inst lists each instance's kernel per rank.
func Replay(ts []*Trace, inst []Instance, p Plants) error {
	n := len(ts)
	states := make([]*rankState, n)
	instOf := map[uintptr]int{}
	for i, in := range inst {
		for _, e := range in.Kernel {
			if e != nil {
				instOf[evID(e)] = i
			}
		}
	}
	for r, t := range ts {
		s := &rankState{prev: map[string]*gop{}}
		launch := map[int64]map[string]any{}
		for _, e := range t.Events {
			if isRuntime(e) {
				if c, ok := argInt(e, "correlation"); ok {
					launch[c] = e
				}
			}
		}
		for _, e := range t.Events {
			if !isGPUOp(e) || str(e, "ph") != "X" {
				continue
			}
			st, ok1 := ns(e, "ts")
			d, ok2 := ns(e, "dur")
			if !ok1 || !ok2 {
				continue
			}
			o := &gop{e: e, start: st, end: st + d, inst: -1, extend: p.Extend[evID(e)]}
			if sid, ok := argInt(e, "stream"); ok {
				o.stream = fmt.Sprint(sid)
			} else {
				o.stream = fmt.Sprint(e["tid"])
			}
			if c, ok := argInt(e, "correlation"); ok {
				o.launch = launch[c]
			}
			if i, ok := instOf[evID(e)]; ok {
				o.inst = i
			}
			s.ops = append(s.ops, o)
		}
		sort.SliceStable(s.ops, func(i, j int) bool { return s.ops[i].start < s.ops[j].start })
		s.byEnd = append([]*gop(nil), s.ops...)
		sort.SliceStable(s.byEnd, func(i, j int) bool { return s.byEnd[i].end < s.byEnd[j].end })
		for _, g := range p.HostGap[r] {
			s.items = append(s.items, hostItem{t: g[0], gap: g[1]})
		}
		for _, e := range t.Events {
			if !isRuntime(e) || !isBlocking(str(e, "name")) {
				continue
			}
			st, ok1 := ns(e, "ts")
			d, ok2 := ns(e, "dur")
			if ok1 && ok2 {
				s.items = append(s.items, hostItem{t: st + d, sync: true, syncSt: st})
			}
		}
		sort.SliceStable(s.items, func(i, j int) bool { return s.items[i].t < s.items[j].t })
		states[r] = s
	}

	started := make([]int, len(inst))
	settled := make([]bool, len(inst))
	members := make([][]*gop, len(inst))
	for _, s := range states {
		for _, o := range s.ops {
			if o.inst >= 0 {
				members[o.inst] = append(members[o.inst], o)
			}
		}
	}
	settle := func(i int) {
		var oldL, newL int64 = math.MinInt64, math.MinInt64
		oldT := int64(math.MaxInt64)
		for _, o := range members[i] {
			oldL = max(oldL, o.start)
			newL = max(newL, o.ns)
		}
		for _, o := range members[i] {
			oldT = min(oldT, o.end)
		}
		oldT -= oldL
		f := p.LinkFactor[i]
		var extra int64
		if f > 0 && oldT > 0 {
			extra = int64(math.Round(float64(oldT) * (f - 1)))
		}
		for _, o := range members[i] {
			o.ne = max(newL+(o.end-oldL)+extra, o.ns)
			o.done = true
		}
		settled[i] = true
	}

	// step advances one rank as far as it can; false when blocked or finished.
	step := func(r int) (bool, error) {
		s := states[r]
		progressed := false
		for {
			var nextOp, nextItem int64 = math.MaxInt64, math.MaxInt64
			if s.oi < len(s.ops) {
				nextOp = s.ops[s.oi].start
			}
			if s.ii < len(s.items) {
				nextItem = s.items[s.ii].t
			}
			if nextOp == math.MaxInt64 && nextItem == math.MaxInt64 {
				return progressed, nil
			}
			if nextItem <= nextOp {
				it := s.items[s.ii]
				if it.sync {
					// ends once its own minimal call time has passed and the GPU work it had
					// waited for is done: it may now wait less, absorbing a delay its host carried
					need := it.syncSt + s.hd(it.syncSt) + min(it.t-it.syncSt, syncMin)
					for _, o := range s.byEnd {
						if o.end > it.t {
							break
						}
						if o.launch != nil {
							if ls, _ := ns(o.launch, "ts"); ls >= it.syncSt {
								continue
							}
						}
						if o.inst >= 0 && !o.done {
							return progressed, nil // waits for a collective still open
						}
						need = max(need, o.ne+min(it.t-o.end, syncCap))
					}
					s.setHD(it.t, need-it.t)
				} else {
					s.setHD(it.t, s.hd(it.t)+it.gap)
				}
				s.ii++
				progressed = true
				continue
			}
			o := s.ops[s.oi]
			if o.inst >= 0 && settled[o.inst] {
				s.oi++ // started and settled earlier; move on
				progressed = true
				continue
			}
			for s.endPtr < len(s.byEnd) && s.byEnd[s.endPtr].end <= o.start {
				q := s.byEnd[s.endPtr]
				if q.inst >= 0 && !q.done {
					return progressed, nil
				}
				s.maxEnd = max(s.maxEnd, q.ne)
				if q.inst >= 0 {
					s.lastColl = q
				}
				s.endPtr++
			}
			st := o.start
			if pr := s.prev[o.stream]; pr != nil {
				if pr.inst >= 0 && !pr.done {
					return progressed, nil
				}
				st = max(st, pr.ne+min(max(o.start-pr.end, 0), gapCap))
			}
			if o.launch != nil {
				if ls, ok := ns(o.launch, "ts"); ok {
					lat := max(o.start-ls, 0)
					st = max(st, ls+s.hd(ls)+min(lat, launchCap))
				}
			}
			if o.inst >= 0 {
				st = max(st, s.maxEnd)
			} else if c := s.lastColl; c != nil {
				st = max(st, c.ne+min(o.start-c.end, gapCap))
			}
			o.ns = st
			s.prev[o.stream] = o
			if o.inst < 0 {
				o.ne = st + (o.end - o.start) + o.extend
				o.done = true
				s.oi++
				progressed = true
				continue
			}
			started[o.inst]++
			s.oi++
			progressed = true
			if started[o.inst] == len(members[o.inst]) {
				settle(o.inst)
			}
		}
	}
	for {
		any, left := false, false
		for r := range states {
			p, err := step(r)
			if err != nil {
				return err
			}
			any = any || p
			if states[r].oi < len(states[r].ops) || states[r].ii < len(states[r].items) {
				left = true
			}
		}
		if !left {
			break
		}
		if !any {
			return fmt.Errorf("replay deadlocked: collective order differs across ranks")
		}
	}

	// Write the new times back.
	for r, t := range ts {
		s := states[r]
		shift := map[int64]int64{} // correlation → start shift
		oldStart := map[int64]int64{}
		perStream := map[string][]*gop{}
		for _, o := range s.ops {
			if c, ok := argInt(o.e, "correlation"); ok {
				shift[c] = o.ns - o.start
				oldStart[c] = o.start
			}
			perStream[o.stream] = append(perStream[o.stream], o)
		}
		for _, e := range t.Events {
			if isGPUOp(e) {
				continue
			}
			if str(e, "cat") == "gpu_user_annotation" {
				moveAnnotation(e, perStream)
				continue
			}
			tsv, ok := ns(e, "ts")
			if !ok {
				continue
			}
			if str(e, "ph") == "f" {
				if id, ok := anyInt(e["id"]); ok {
					// Kineto binds an ac2g flow's end to its kernel's start
					if d, ok := shift[id]; ok && oldStart[id] == tsv {
						e["ts"] = num(tsv + d)
						continue
					}
				}
			}
			nts := tsv + s.hd(tsv)
			e["ts"] = num(nts)
			if d, ok := ns(e, "dur"); ok {
				end := tsv + d
				e["dur"] = num(max(end+s.hd(end), nts) - nts) // spanning a sync's shortening
			}
		}
		for _, o := range s.ops {
			o.e["ts"] = num(o.ns)
			o.e["dur"] = num(o.ne - o.ns)
		}
	}
	return nil
}

func moveAnnotation(e map[string]any, perStream map[string][]*gop) {
	st, ok1 := ns(e, "ts")
	d, ok2 := ns(e, "dur")
	if !ok1 || !ok2 {
		return
	}
	end := st + d
	ops := perStream[fmt.Sprint(e["tid"])]
	var ds, de int64
	for _, o := range ops {
		if o.start >= st && o.start <= end {
			ds = o.ns - o.start
			break
		}
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if o := ops[i]; o.end <= end && o.end >= st {
			de = o.ne - o.end
			break
		}
	}
	nst := st + ds
	nend := max(end+de, nst)
	e["ts"] = num(nst)
	e["dur"] = num(nend - nst)
}

func isBlocking(name string) bool {
	return strings.Contains(name, "Synchronize") || name == "cudaMemcpy" || name == "hipMemcpy"
}

// evID is an event's identity (events are edited in place, so a map's pointer names it).
func evID(e map[string]any) uintptr { return reflect.ValueOf(e).Pointer() }
