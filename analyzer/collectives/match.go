package collectives

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// US is a duration (ns) written as µs with three decimals.
type US = units.US

// Instance is one collective matched across the ranks of its group.
type Instance struct {
	PG        string     `json:"pg"`
	PGDesc    string     `json:"pg_desc"`
	Kind      string     `json:"kind"`
	Index     int        `json:"index"` // issue order within (pg, kind)
	Seq       *int64     `json:"seq"`
	MatchedBy string     `json:"matched_by"` // seq | order
	Bytes     *int64     `json:"bytes"`
	Dtype     string     `json:"dtype"`
	GroupSize int        `json:"group_size"`
	Step      string     `json:"step"`
	Ranks     []RankTime `json:"ranks"`
	Skew      US         `json:"skew_us"`
	FirstRank int        `json:"first_rank"`
	LastRank  int        `json:"last_rank"`
	Transfer  US         `json:"transfer_us"`
	AlgBW     *float64   `json:"algbw_gbps"`
	BusBW     *float64   `json:"busbw_gbps"`
	PeakGBPS  *float64   `json:"link_peak_gbps"`
	OfPeak    *float64   `json:"busbw_of_peak"`
	// Usual is the last rank's usual arrival offset (median over the
	// neighbouring instances of its start minus the earliest peer's),
	// Excess how much later than that it came; null with too few
	// neighbours. Stall: Excess is far past how the offsets vary.
	Usual  *US   `json:"last_rank_usual_offset_us"`
	Excess *US   `json:"excess_us"`
	Stall  bool  `json:"stall"`
	weight US    // a stall's size (Stall.weight)
	stallX *US   // a stall's Stall.Excess
	last   *Op   // the last rank's op
	peers  []*Op // every rank's op, in Ranks order
}

// RankTime is one rank's kernel in an instance.
type RankTime struct {
	Rank  int `json:"rank"`
	Start US  `json:"start_us"`
	End   US  `json:"end_us"`
	Wait  US  `json:"wait_us"`
}

// Label names an instance in prose: "allreduce #12 (pg 0)".
func (in *Instance) Label() string {
	s := fmt.Sprintf("%s #%d", in.Kind, in.Index)
	if in.PG != "" {
		s += " (pg " + in.PG
		if in.PGDesc != "" {
			s += " " + in.PGDesc
		}
		s += ")"
	}
	return s
}

// Result is the cross-rank view.
type Result struct {
	Instances []Instance
	Ranks     []RankRow
	Steps     []StepRow
	Straggler *Culprit
	// Stalls are the instances where a rank came far later than it
	// usually does, largest excess first.
	Stalls []Stall
	// Notes say how matching went (fallbacks, unmatched ops).
	Notes   []string
	Link    *Link
	Partial bool
	// gap is each op's issue time minus that of the rank's previous
	// collective (any group or kind): how long its host (or GPU, without
	// launches) took to reach it.
	gap map[*Op]int64
	// prev is each instance's previous instance of the same ranks (any
	// process group or kind), by earliest start.
	prev map[*Instance]*Instance
	// prevOf is each instance's previous instance per rank (carried.go).
	prevOf map[*Instance]map[int]*Instance
	// host is each op's launch time past both its rank's previous
	// collective's launch and its end: the host's own time to reach it
	// where it waited for that collective (a host-bound job), 0 where it
	// ran ahead. Ops without a launch (or after one) have none.
	host map[*Op]int64
	// typSkew is the median of the positive skews of the instances of each
	// group of ranks (rankKey): how far apart they usually arrive
	// (lateranks.go).
	typSkew map[string]US
}

// RankRow is one rank's totals.
type RankRow struct {
	Rank        int    `json:"rank"`
	File        string `json:"file"`
	Kernel      US     `json:"kernel_us"`
	Collective  US     `json:"collective_us"`
	ExposedComm US     `json:"exposed_comm_us"`
	Wait        US     `json:"wait_us"`
	Lateness    US     `json:"lateness_caused_us"`
	LastAt      int    `json:"last_at"` // instances it arrived last at (skew > 0)
	Collectives int    `json:"collectives"`
	Partial     bool   `json:"partial"`
	// Busy and Window are the rank's GPU busy time (union of its kernels)
	// and its first-to-last kernel window; IdleShare = 1 − Busy/Window.
	Busy      US          `json:"busy_us"`
	Window    US          `json:"window_us"`
	IdleShare units.Ratio `json:"idle_share"`
	// ClockOffset is how far the rank's clock reads ahead of its peers'
	// (clockOffsets), null when too few collectives tell; ClockAligned:
	// its times were moved back by it before matching.
	ClockOffset  *US  `json:"clock_offset_us"`
	ClockAligned bool `json:"clock_aligned"`
	// LateAt is how many instances it was a late rank of without being
	// the last (lateranks.go), Late its summed lateness there (start −
	// earliest start): waits it caused that another rank's lateness hid.
	LateAt int `json:"late_rank_at"`
	Late   US  `json:"late_rank_us"`
}

// StepRow is one step's straggler.
type StepRow struct {
	Step          string `json:"step"`
	StragglerRank int    `json:"straggler_rank"`
	Lateness      US     `json:"lateness_us"`
	Collective    string `json:"collective"`
	Instances     int    `json:"instances"`
	// Skew is the summed arrival skew of the step's instances, whoever was last.
	Skew US `json:"skew_us"`
	// ByRank is the lateness each rank caused in the step, in rank_ids
	// order (a rank × step heatmap's row).
	ByRank []US `json:"lateness_by_rank_us"`
	// Worst is the step's largest single arrival skew and the rank last
	// there: one stall (a late launch, extra work before one layer's
	// collective) can stand out while a rank that is a little late at
	// every collective causes more lateness in sum.
	WorstRank       int    `json:"worst_rank"`
	WorstCollective string `json:"worst_collective"`
	WorstSkew       US     `json:"worst_skew_us"`
	// Stall is the step's largest stall (a rank far later than it usually
	// is, see Stall); when there is one it is also the step's straggler.
	StallRank       *int   `json:"stall_rank"`
	StallCollective string `json:"stall_collective"`
	StallExcess     *US    `json:"stall_excess_us"`
	// Reason says why the straggler was late at the step's collective
	// when the trace can tell (see explain), else "".
	Reason string `json:"reason"`
	// LateRanks are the other ranks that made their peers wait at the
	// step's collective, though less than the straggler did (lateranks.go).
	LateRanks []LateRank `json:"late_ranks"`
}

// Culprit is the straggler in diagnose's culprit shape.
type Culprit struct {
	Rank     *int       `json:"rank"`
	Reason   string     `json:"reason"`
	Method   string     `json:"method"`
	Evidence []Evidence `json:"evidence"`
}

// Evidence is one fact behind the culprit.
type Evidence struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Match matches the summaries' collectives across ranks and computes every
// instance's timing, the per-rank totals and the straggler, on the ranks'
// common clock: a rank whose clock is off (see clockOffsets) is moved back
// by its offset and the ranks are matched again.
func Match(sums []*Summary) *Result {
	sums, cut := bound(sums)
	res := match(sums)
	off := clockOffsets(res.Instances)
	if moved := off.apply(sums); moved != nil {
		res = match(moved)
		res.Notes = append([]string{off.note()}, res.Notes...)
	}
	off.report(res)
	if cut != "" {
		res.Notes = append([]string{cut}, res.Notes...)
	}
	return res
}

// match is Match on the clocks as they stand.
func match(sums []*Summary) *Result {
	res := &Result{Instances: []Instance{}, Ranks: []RankRow{}, Steps: []StepRow{}}
	sums = onClock(sums, res)
	slices.SortStableFunc(sums, func(a, b *Summary) int { return cmp.Compare(a.Rank, b.Rank) })
	for _, s := range sums {
		res.Partial = res.Partial || s.Partial
		if res.Link == nil {
			res.Link = LinkOf(s.Device)
		}
	}
	type gkey struct{ pg, kind string }
	type side struct {
		s   *Summary
		ops []*Op
	}
	groups := map[gkey][]side{}
	var keys []gkey
	p2p := map[string][2][]p2pSide{} // by pg: sends, recvs
	for _, s := range sums {
		by := map[gkey][]*Op{}
		for i := range s.Ops {
			op := &s.Ops[i]
			if op.Dir != "" {
				sr := p2p[op.PG]
				if op.Dir == "send" {
					sr[0] = append(sr[0], p2pSide{s.Rank, op})
				} else {
					sr[1] = append(sr[1], p2pSide{s.Rank, op})
				}
				p2p[op.PG] = sr
				continue
			}
			k := gkey{op.PG, op.Kind}
			if by[k] == nil && groups[k] == nil {
				keys = append(keys, k)
			}
			by[k] = append(by[k], op)
		}
		for k, ops := range by {
			sortIssue(ops)
			groups[k] = append(groups[k], side{s, ops})
		}
	}
	slices.SortFunc(keys, func(a, b gkey) int { return cmp.Or(cmp.Compare(a.pg, b.pg), cmp.Compare(a.kind, b.kind)) })
	keys = slices.Compact(keys)
	orderFallback := false
	for _, k := range keys {
		sides := groups[k]
		slices.SortFunc(sides, func(a, b side) int { return cmp.Compare(a.s.Rank, b.s.Rank) })
		if len(sides) < 2 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s on rank %d only: nothing to match", groupName(k.pg, k.kind), sides[0].s.Rank))
			continue
		}
		bySeq := true
		for _, sd := range sides {
			for _, op := range sd.ops {
				bySeq = bySeq && op.Seq >= 0
			}
		}
		// rows[i] holds instance i's op on every side
		var rows [][]*Op
		var seqs []int64
		var idxs []int // instance index per row when alignment skipped some
		if bySeq {
			common := map[int64]int{}
			for _, sd := range sides {
				for _, op := range sd.ops {
					common[op.Seq]++
				}
			}
			at := make([]map[int64]*Op, len(sides))
			for i, sd := range sides {
				at[i] = map[int64]*Op{}
				for _, op := range sd.ops {
					at[i][op.Seq] = op
				}
			}
			for q, n := range common {
				if n == len(sides) {
					seqs = append(seqs, q)
				}
			}
			slices.Sort(seqs)
			for _, q := range seqs {
				row := make([]*Op, len(sides))
				for i := range sides {
					row[i] = at[i][q]
				}
				rows = append(rows, row)
			}
		} else {
			orderFallback = true
			lists := make([][]*Op, len(sides))
			rks := make([]int, len(sides))
			for r, sd := range sides {
				lists[r], rks[r] = sd.ops, sd.s.Rank
			}
			var missing []string
			rows, idxs, missing = alignByOrder(lists, rks)
			for _, m := range missing {
				res.Notes = append(res.Notes, groupName(k.pg, k.kind)+": "+m)
			}
		}
		for _, sd := range sides {
			if len(sd.ops) > len(rows) {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: rank %d has %d unmatched of %d", groupName(k.pg, k.kind), sd.s.Rank, len(sd.ops)-len(rows), len(sd.ops)))
			}
		}
		negative, mixed := 0, 0
		ss := make([]*Summary, len(sides))
		for r, sd := range sides {
			ss[r] = sd.s
		}
		callsite.Chunks(len(rows), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := rows[i]
				index := i
				if idxs != nil {
					index = idxs[i]
				}
				var seq *int64
				if bySeq {
					q := seqs[i]
					seq = &q
				}
				in := res.instance(k.pg, k.kind, index, seq, row, ss)
				res.Instances = append(res.Instances, in)
				if in.Transfer < 0 {
					negative++
				}
				if k.pg == "" && in.GroupSize > 0 && in.GroupSize < len(row) {
					mixed = in.GroupSize
				}
			}
		})
		if negative > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: at %d of %d instances a rank's kernel ended before another rank's started (transfer < 0), which one clock cannot show: the ranks' clocks are taken as one (one host, or hosts kept in sync); a clock offset between hosts, or ranks matched to different instances, would read so",
				groupName(k.pg, k.kind), negative, len(rows)))
		}
		if mixed > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: Group size %d but %d ranks matched: without a Process Group Name, ranks of different process groups may be matched together", groupName(k.pg, k.kind), mixed, len(sides)))
		}
	}
	if orderFallback {
		res.Notes = append(res.Notes, "matched by issue order within each process group and kind: the traces carry no Seq argument")
	}
	bySum := map[int]*Summary{}
	for _, s := range sums {
		bySum[s.Rank] = s
	}
	var pgs []string
	for pg := range p2p {
		pgs = append(pgs, pg)
	}
	slices.Sort(pgs)
	for _, pg := range pgs {
		sr := p2p[pg]
		rows, note := matchP2P(pg, sr[0], sr[1])
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		for i, pr := range rows {
			// ranks in rank order, as every instance lists them
			a, b := pr[0], pr[1]
			if b.rank < a.rank {
				a, b = b, a
			}
			in := res.instance(pg, "sendrecv", i, nil, []*Op{a.op, b.op}, []*Summary{bySum[a.rank], bySum[b.rank]})
			in.MatchedBy = "peer"
			res.Instances = append(res.Instances, in)
		}
		if len(rows) > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %d point-to-point sends paired with their peers' recvs by kernel overlap (the traces name no peer)", groupName(pg, "sendrecv"), len(rows)))
		}
	}
	res.gap, res.host = map[*Op]int64{}, map[*Op]int64{}
	for _, s := range sums {
		ops := make([]*Op, len(s.Ops))
		for i := range s.Ops {
			ops[i] = &s.Ops[i]
		}
		slices.SortStableFunc(ops, func(a, b *Op) int { return cmp.Compare(issue(a), issue(b)) })
		callsite.Chunks(len(ops), func(lo, hi int) {
			for i := max(lo, 1); i < hi; i++ {
				o, p := ops[i], ops[i-1]
				res.gap[o] = issue(o) - issue(p)
				if o.Launch >= 0 && p.Launch >= 0 {
					res.host[o] = max(0, o.Launch-max(p.Launch, p.End))
				}
			}
		})
	}
	res.prevs()
	res.typicalSkews()
	res.usual()
	res.byWork()
	res.sortStalls()
	res.ranks(sums)
	res.steps()
	res.straggler(sums)
	return res
}

// prevs links every instance to the previous one of its ranks.
func (res *Result) prevs() {
	res.prev = map[*Instance]*Instance{}
	by := map[string][]*Instance{}
	for i := range res.Instances {
		in := &res.Instances[i]
		k := rankKey(in)
		by[k] = append(by[k], in)
	}
	for _, ins := range by {
		slices.SortStableFunc(ins, func(a, b *Instance) int {
			return cmp.Compare(a.Ranks[a.firstAt()].Start, b.Ranks[b.firstAt()].Start)
		})
		for i := 1; i < len(ins); i++ {
			res.prev[ins[i]] = ins[i-1]
		}
	}
	res.prevsByRank()
}

// instance computes one matched instance: row[r] is summary ss[r]'s op.
func (res *Result) instance(pg, kind string, index int, seq *int64, row []*Op, ss []*Summary) Instance {
	in := Instance{PG: pg, Kind: kind, Index: index, MatchedBy: "order", Ranks: make([]RankTime, len(row)), peers: row}
	if seq != nil {
		in.Seq, in.MatchedBy = seq, "seq"
	}
	first, last := 0, 0
	for r, op := range row {
		if op.Start < row[first].Start {
			first = r
		}
		if op.Start > row[last].Start {
			last = r
		}
	}
	latest, earliestEnd := row[last].Start, row[0].End
	for r, op := range row {
		earliestEnd = min(earliestEnd, op.End)
		in.Ranks[r] = RankTime{Rank: ss[r].Rank, Start: US(op.Start), End: US(op.End), Wait: US(latest - op.Start)}
		if in.PGDesc == "" {
			in.PGDesc = op.PGDesc
		}
		if in.Dtype == "" {
			in.Dtype = op.Dtype
		}
		if in.Bytes == nil && op.Bytes >= 0 {
			b := op.Bytes
			in.Bytes = &b
		}
		in.GroupSize = max(in.GroupSize, op.Group)
	}
	if in.GroupSize == 0 || kind == "sendrecv" && row[0].Dir != "" {
		in.GroupSize = len(row)
	}
	in.FirstRank, in.LastRank = ss[first].Rank, ss[last].Rank
	in.Skew = US(latest - row[first].Start)
	in.Transfer = US(earliestEnd - latest)
	in.last = row[last]
	if lo := ss[last]; row[last].Step >= 0 && row[last].Step < len(lo.Steps) {
		in.Step = lo.Steps[row[last].Step].Name
	}
	if in.Bytes != nil && in.Transfer > 0 {
		alg := float64(*in.Bytes) / float64(in.Transfer) // bytes/ns = GB/s
		bus := alg * BusFactor(in.Kind, in.GroupSize)
		a, b := gbps(alg), gbps(bus)
		in.AlgBW, in.BusBW = &a, &b
		if res.Link != nil {
			p := res.Link.Peak(in.GroupSize)
			of := units.Round(bus/p, 6)
			in.PeakGBPS, in.OfPeak = &p, &of
		}
	}
	return in
}

// onClock puts the ranks on one clock: Kineto writes times relative to
// each trace's baseTimeNanoseconds, so a rank whose base differs is shifted
// by the difference (onto the earliest base's clock). Summaries are copied
// when shifted, never changed.
func onClock(sums []*Summary, res *Result) []*Summary {
	out := slices.Clone(sums)
	lo, have := int64(0), 0
	for _, s := range sums {
		if s.ClockBase != 0 {
			if have == 0 || s.ClockBase < lo {
				lo = s.ClockBase
			}
			have++
		}
	}
	if have != len(sums) {
		if have > 0 {
			res.Notes = append(res.Notes, "some traces carry no baseTimeNanoseconds: their times are taken as they stand")
		}
		return out
	}
	for i, s := range sums {
		d := s.ClockBase - lo
		if d == 0 {
			continue
		}
		c := *s
		c.Ops = slices.Clone(s.Ops)
		for k := range c.Ops {
			o := &c.Ops[k]
			o.Start += d
			o.End += d
			if o.Launch >= 0 {
				o.Launch += d
			}
		}
		c.Steps = slices.Clone(s.Steps)
		for k := range c.Steps {
			c.Steps[k].Start += d
			c.Steps[k].End += d
		}
		out[i] = &c
	}
	return out
}

// addUS is a + b saturating at int64's ends: sums over instances of times
// up to 8·10¹⁸ ns (ParseSummary's range, on the common clock) can pass it.
func addUS(a, b US) US { return US(units.AddSat(int64(a), int64(b))) }

func groupName(pg, kind string) string {
	if pg == "" {
		return kind
	}
	return kind + " (pg " + pg + ")"
}

func issue(o *Op) int64 {
	if o.Launch >= 0 {
		return o.Launch
	}
	return o.Start
}

func (res *Result) ranks(sums []*Summary) {
	idx := map[int]int{}
	for _, s := range sums {
		idx[s.Rank] = len(res.Ranks)
		row := RankRow{Rank: s.Rank, File: s.File, Kernel: US(s.KernelNS), Collective: US(s.CommNS),
			ExposedComm: US(s.ExposedNS), Collectives: len(s.Ops), Partial: s.Partial, Busy: US(s.BusyNS), Window: US(s.WindowNS)}
		if s.WindowNS > 0 {
			row.IdleShare = units.Ratio(1 - float64(s.BusyNS)/float64(s.WindowNS))
		}
		res.Ranks = append(res.Ranks, row)
	}
	for i := range res.Instances {
		in := &res.Instances[i]
		for _, r := range in.Ranks {
			w := &res.Ranks[idx[r.Rank]].Wait
			*w = addUS(*w, r.Wait)
		}
		if in.Skew > 0 {
			row := &res.Ranks[idx[in.LastRank]]
			row.Lateness = addUS(row.Lateness, in.Skew)
			row.LastAt++
		}
		for _, l := range res.lateOf(in) {
			row := &res.Ranks[idx[l.Rank]]
			row.Late = addUS(row.Late, l.Lateness)
			row.LateAt++
		}
	}
}

// steps names each step's straggler: the rank that came later than it
// usually does where that delay arose in the step (see arose), else,
// without a usual to judge by, the rank whose late arrivals cost the most
// skew in it.
func (res *Result) steps() {
	type acc struct {
		late  map[int]US
		worst map[int]*Instance
		max   *Instance
		stall *Instance
		// unusual: the instances whose last rank came later than usual
		unusual []*Instance
		// first: the step's first instance of each group of ranks
		first map[string]*Instance
		all   []*Instance
		n     int
		skew  US
	}
	by := map[string]*acc{}
	var order []string
	for i := range res.Instances {
		in := &res.Instances[i]
		if in.Step == "" {
			continue
		}
		a := by[in.Step]
		if a == nil {
			a = &acc{late: map[int]US{}, worst: map[int]*Instance{}, first: map[string]*Instance{}}
			by[in.Step] = a
			order = append(order, in.Step)
		}
		a.n++
		a.all = append(a.all, in)
		a.skew = addUS(a.skew, in.Skew)
		a.late[in.LastRank] = addUS(a.late[in.LastRank], in.Skew)
		if a.max == nil || in.Skew > a.max.Skew {
			a.max = in
		}
		if w := a.worst[in.LastRank]; w == nil || in.Skew > w.Skew {
			a.worst[in.LastRank] = in
		}
		if in.Stall && (a.stall == nil || in.weight > a.stall.weight) {
			a.stall = in
		}
		if e := in.beyond(); e > 0 {
			a.unusual = append(a.unusual, in)
		}
		k := rankKey(in)
		if f := a.first[k]; f == nil || in.Ranks[in.firstAt()].Start < f.Ranks[f.firstAt()].Start {
			a.first[k] = in
		}
	}
	// steps in time order of their first instance on the rank that names them
	first := map[string]int64{}
	for i := range res.Instances {
		in := &res.Instances[i]
		if t, ok := first[in.Step]; in.Step != "" && (!ok || in.last.Start < t) {
			first[in.Step] = in.last.Start
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(first[a], first[b]) })
	for _, s := range order {
		a := by[s]
		best, bestLate := -1, US(-1)
		for r, l := range a.late {
			if l > bestLate || l == bestLate && r < best {
				best, bestLate = r, l
			}
		}
		row := StepRow{Step: s, StragglerRank: best, Lateness: bestLate, Instances: a.n, Skew: a.skew, ByRank: make([]US, len(res.Ranks)), LateRanks: []LateRank{}}
		for i, r := range res.Ranks {
			row.ByRank[i] = a.late[r.Rank]
		}
		at := a.worst[best]
		if at != nil {
			row.Collective = at.Label()
		}
		row.WorstRank, row.WorstCollective, row.WorstSkew = a.max.LastRank, a.max.Label(), a.max.Skew
		if st := a.stall; st != nil {
			r := st.LastRank
			row.StallRank, row.StallCollective, row.StallExcess = &r, st.Label(), st.stallX
		}
		if u := res.arose(a.unusual, a.first); u != nil {
			// an unusual arrival outweighs a rank that is late by habit
			r := u.LastRank
			row.StragglerRank, row.Lateness, row.Collective = r, a.late[r], u.Label()
			at = u
		} else if r, w, l := res.notCarried(a.all, a.first); w != nil && r != best && 2*l >= bestLate {
			// without a usual, lateness carried into the step counts last
			// (see arose; DLRM's one step opens with rank 7 7.6 ms late at
			// send/recv #0, its host's entry into the step) when what arose
			// in the step is at least half as much (as arose's half)
			row.StragglerRank, row.Lateness, row.Collective = r, a.late[r], w.Label()
			at = w
		}
		if at != nil {
			row.Reason = explain(at, row.StragglerRank)
			if at.LastRank == row.StragglerRank {
				row.LateRanks = res.lateOf(at)
			}
		}
		res.Steps = append(res.Steps, row)
	}
}

// beyond is how much later than usual the last rank came: a stall's
// excess, else the instance's excess over the last rank's usual offset
// (0 without one).
func (in *Instance) beyond() US {
	switch {
	case in.stallX != nil:
		return *in.stallX
	case in.Excess != nil:
		return *in.Excess
	}
	return 0
}

// arose picks a step's straggler instance among its unusual ones (a rank
// that came later than usual). A delay carries: a host that fell behind
// stays behind until the next synchronisation and shows at the next step's
// first collective, where the ranks also arrive apart for reasons of the
// step boundary (loading data, a host sync: DLRM's first send/recv of a
// step is 7.6 ms apart unplanted). So a delay at the step's first
// collective that the rank's own time to reach it does not explain (see
// own: less than half its excess) is carried, and among the instances at
// least half as far past usual as the step's largest, one that is not
// carried is named first, a stall before others, then the largest.
//
// A persistent straggler — a rank a little slow before every collective of
// several steps — is late by less than the natural swings at each, and its
// usual offset (the median of ±16 neighbours, all of them late too) takes
// in most of the shift: its stalls in the step are many and small. So a
// stall also counts when its rank's stalls in the step together reach half
// the step's largest excess (the H200 TP=2 pair: 15 stalls of 0.16–1.5 ms
// by GPU work on rank 1 in one step against rank 0's natural 3 ms). A
// constant clock offset between hosts gives no stall — it moves every
// instance alike, so the usual offset takes it in whole, and the GPU work
// is unchanged — and so is never summed here.
func (res *Result) arose(unusual []*Instance, first map[string]*Instance) *Instance {
	var top US
	stalled := map[int]US{}
	for _, in := range unusual {
		top = max(top, in.beyond())
		if in.Stall {
			stalled[in.LastRank] = addUS(stalled[in.LastRank], in.beyond())
		}
	}
	cand := map[*Instance]bool{}
	for _, in := range unusual {
		if in.beyond() >= top/2 || in.Stall && stalled[in.LastRank] >= top/2 {
			cand[in] = true
		}
	}
	// within is the candidate (or instance without a usual to judge by)
	// of the same step that in's lateness carried from
	within := func(in *Instance) *Instance {
		if p := res.carriedFrom(in); p != nil && p.Step == in.Step && (p.Excess == nil || cand[p]) {
			return p
		}
		return nil
	}
	var best *Instance
	bestCarried := false
	for _, in := range unusual {
		e := in.beyond()
		if !cand[in] {
			continue
		}
		// carried into the step, or within it from another candidate (or
		// from an instance without a usual to judge by)
		carried := first[rankKey(in)] == in && res.own(in) < int64(e)/2 || within(in) != nil
		switch {
		case best == nil,
			!carried && bestCarried,
			carried == bestCarried && in.Stall && !best.Stall,
			carried == bestCarried && in.Stall == best.Stall && e > best.beyond():
			best, bestCarried = in, carried
		}
	}
	// every candidate carried: name the delay where it arose in the step
	for n := 0; bestCarried && n < len(res.Instances); n++ {
		p := within(best)
		if p == nil {
			break
		}
		best = p
	}
	return best
}

// carriedFrom is the instance in's lateness carried from: the previous
// instance of its ranks (any group or kind), when its last rank was last
// there too, already behind its earliest peer by at least three quarters
// of its skew here (it grew by less than a quarter), no earlier than usual there (a rank late by habit — the H200 TP=2
// pair's rank 0, last at 86 % of collectives — carries nothing), and its
// own time to reach in (own) explains less than half of it.
// A host that fell behind and never waits on its GPU again (a launch-bound
// host) stays as late at every later collective; the delay arose where its
// lateness jumped, not at the largest of its copies. nil when not carried.
func (res *Result) carriedFrom(in *Instance) *Instance {
	if q := res.acrossGroups(in); q != nil {
		return q
	}
	p := res.prev[in]
	if p == nil || p.LastRank != in.LastRank || 4*(in.Skew-p.Skew) >= in.Skew || 2*res.own(in) >= int64(in.Skew) ||
		p.Excess != nil && p.beyond() <= 0 {
		return nil
	}
	return p
}

// notCarried is the rank whose late arrivals cost the most skew in a step
// once the delays carried into it are left out — at the step's first
// collective (of its ranks), where the rank's own time to reach it (own)
// explains less than half its skew — its worst such instance and that
// lateness; nil when every late arrival was carried.
func (res *Result) notCarried(all []*Instance, first map[string]*Instance) (int, *Instance, US) {
	late := map[int]US{}
	worst := map[int]*Instance{}
	for _, in := range all {
		if in.Skew <= 0 || first[rankKey(in)] == in && res.own(in) < int64(in.Skew)/2 {
			continue
		}
		r := in.LastRank
		late[r] = addUS(late[r], in.Skew)
		if w := worst[r]; w == nil || in.Skew > w.Skew {
			worst[r] = in
		}
	}
	best := -1
	for r, l := range late {
		if best < 0 || l > late[best] || l == late[best] && r < best {
			best = r
		}
	}
	return best, worst[best], late[best]
}

// rankKey is an instance's ranks as text ("0,1,"): its group of ranks.
func rankKey(in *Instance) string {
	var rs []byte
	for _, r := range in.Ranks {
		rs = append(rs, itoa(r.Rank)...)
		rs = append(rs, ',')
	}
	return string(rs)
}

// own is how much more time the last rank took to reach the instance than
// its peers' median: the larger of its extra host gap (issue time since its
// previous collective) and its extra GPU work since its previous
// collective.
func (res *Result) own(in *Instance) int64 {
	var busy, gap []int64
	lastGap, haveGap := res.gap[in.last]
	for _, op := range in.peers {
		if op == in.last {
			continue
		}
		busy = append(busy, op.Busy)
		if g, ok := res.gap[op]; ok {
			gap = append(gap, g)
		}
	}
	x := units.SubSat(in.last.Busy, median(busy))
	if haveGap && len(gap) == len(in.peers)-1 {
		x = max(x, units.SubSat(lastGap, median(gap)))
	}
	return x
}

// straggler names the rank that made the others wait the most and why.
func (res *Result) straggler(sums []*Summary) {
	best := -1
	for i, r := range res.Ranks {
		if r.Lateness > 0 && (best < 0 || r.Lateness > res.Ranks[best].Lateness) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	row := res.Ranks[best]
	rank := row.Rank
	var total US
	for _, r := range res.Ranks {
		total = addUS(total, r.Lateness)
	}
	// its worst instance
	var worst *Instance
	for i := range res.Instances {
		in := &res.Instances[i]
		if in.LastRank == rank && (worst == nil || in.Skew > worst.Skew) {
			worst = in
		}
	}
	c := &Culprit{Rank: &rank, Method: "collectives matched across ranks per process group and kind (" + matchMethod(res.Instances) +
		"); a rank's lateness = the summed arrival skew (latest start − earliest start) of the instances it reached last; the straggler causes the most"}
	file := row.File
	c.Reason = fmt.Sprintf("rank %d arrived last at %d of %d collectives and made its peers wait %s ms in total (%s of all arrival skew)",
		rank, row.LastAt, len(res.Instances), ms(row.Lateness), units.Pct(float64(row.Lateness)/float64(max(total, 1))))
	var steps []string
	for _, s := range res.Steps {
		if s.StragglerRank == rank {
			steps = append(steps, s.Step)
		}
	}
	if len(steps) > 0 {
		c.Reason += fmt.Sprintf("; straggler in %d of %d steps", len(steps), len(res.Steps))
	}
	if worst != nil {
		where := worst.Label()
		if worst.Step != "" {
			where += " in " + worst.Step
		}
		ev := fmt.Sprintf("worst: %s, arrival skew %s ms", where, ms(worst.Skew))
		if b := worst.last.Before.String(); b != "" {
			ev += "; on rank " + itoa(rank) + " it followed " + b
		}
		c.Evidence = append(c.Evidence, Evidence{File: file, Text: ev})
		if why := explain(worst, rank); why != "" {
			c.Reason += "; " + why
			c.Evidence = append(c.Evidence, Evidence{File: file, Text: "at " + worst.Label() + ": " + why})
		}
	}
	if len(steps) > 0 {
		c.Evidence = append(c.Evidence, Evidence{File: file, Text: "straggler steps: " + strings.Join(firstN(steps, 8), ", ")})
	}
	for i := range res.Stalls {
		if i == 8 {
			c.Evidence = append(c.Evidence, Evidence{Text: fmt.Sprintf("… %d more stalls in ranks.json", len(res.Stalls)-8)})
			break
		}
		st := &res.Stalls[i]
		c.Evidence = append(c.Evidence, Evidence{File: res.fileOf(st.Rank), Text: "stall: " + st.text()})
	}
	res.Straggler = c
}

func (res *Result) fileOf(rank int) string {
	for _, r := range res.Ranks {
		if r.Rank == rank {
			return r.File
		}
	}
	return ""
}

func matchMethod(ins []Instance) string {
	seq, order := 0, 0
	for i := range ins {
		if ins[i].MatchedBy == "seq" {
			seq++
		} else {
			order++
		}
	}
	switch {
	case order == 0:
		return "by Seq"
	case seq == 0:
		return "in issue order: no Seq in the traces"
	}
	return fmt.Sprintf("by Seq for %d, in issue order for %d", seq, order)
}

// explain tells why the late rank was late at in: its GPU had more work
// before the collective than its peers (naming the kernels it ran more of),
// its GPU held the launched kernel far longer than its peers' with none of
// its traced work running (a delay on the GPU's side the trace does not
// show), or its host launched the collective late (the kernel started
// as soon as it was launched, after the peers had started).
func explain(in *Instance, rank int) string {
	late := in.last
	var peerBusy, peerDelay []int64
	peerTop := map[string][]int64{}
	firstStart := int64(1<<63 - 1)
	for i, op := range in.peers {
		if in.Ranks[i].Rank == rank {
			continue
		}
		peerBusy = append(peerBusy, op.Busy)
		if op.Delay >= 0 {
			peerDelay = append(peerDelay, op.Delay)
		}
		firstStart = min(firstStart, op.Start)
		for _, k := range op.Top {
			peerTop[k.Name] = append(peerTop[k.Name], k.NS)
		}
	}
	if len(peerBusy) == 0 {
		return ""
	}
	med := median(peerBusy)
	lateBy := late.Start - firstStart
	extra := late.Busy - med
	queue := int64(-1)
	if late.Launch >= 0 {
		queue = late.Start - late.Launch
	}
	switch {
	case extra > 0 && 2*extra >= lateBy:
		var names []string
		for _, k := range late.Top {
			peers := peerTop[k.Name]
			for len(peers) < len(peerBusy) {
				peers = append(peers, 0)
			}
			if d := k.NS - median(peers); d > 0 && 10*d >= extra {
				names = append(names, fmt.Sprintf("%s (+%s ms, %d×)", short(k.Name, 70), ms(US(d)), k.N))
			}
		}
		why := fmt.Sprintf("its GPU was busier: %s ms of kernels since the previous collective vs a median %s ms on its peers", ms(US(late.Busy)), ms(US(med)))
		if len(names) > 0 {
			why += "; extra: " + strings.Join(names, ", ")
		}
		return why
	case late.Delay >= 0 && len(peerDelay) == len(peerBusy) && 2*(late.Delay-median(peerDelay)) >= lateBy:
		return fmt.Sprintf("its GPU started it late: %s ms after both its launch and the end of its previous GPU op, with none of its traced work running (its peers: a median %s µs): the delay is on its GPU's side, outside the trace",
			ms(US(late.Delay)), US(median(peerDelay)))
	case queue >= 0 && late.Launch > firstStart && 2*queue < lateBy:
		why := fmt.Sprintf("its host launched late: the launch came %s ms after the first peer's kernel had started, and the kernel ran %s µs after its launch (the GPU had nothing queued)",
			ms(US(late.Launch-firstStart)), US(queue))
		return why
	}
	return ""
}

func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func ms(u US) string { return units.US(int64(u) / 1000).String() }

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
}

// Wait is, for the rank's summary as Extract made it, each collective
// kernel's wait (ns) by its index in the store's GPU slice: the part of it
// no overlap can hide.
func (r *Result) Wait(rank int) map[int32]int64 {
	out := map[int32]int64{}
	for i := range r.Instances {
		in := &r.Instances[i]
		for k, rt := range in.Ranks {
			if rt.Rank == rank && rt.Wait > 0 && in.peers[k].gpu >= 0 {
				out[in.peers[k].gpu] = int64(rt.Wait)
			}
		}
	}
	return out
}

// gbps rounds a bandwidth to 3 decimals, or to 4 significant digits below
// 1 GB/s: a small message over a slow transfer (a planted stall) is tens of
// MB/s, where 3 decimals would be 5 % off.
func gbps(x float64) float64 {
	if x == 0 || math.Abs(x) >= 1 || math.IsNaN(x) || math.IsInf(x, 0) {
		return units.Round(x, 3)
	}
	return units.Round(x, 3+int(math.Ceil(-math.Log10(math.Abs(x)))))
}

// alignByOrder matches ops across ranks in issue order (lists[r]: rank r's
// ops of one group, issue-ordered). With equal counts the i-th ops match.
// A rank with fewer ops misses some instances (a truncated trace, a lost
// event): pairing by position would then misalign every later instance, so
// such a rank is aligned against the ranks holding the most ops by time —
// an instance's kernels overlap on every rank (none can end before the
// last has started), and at each instance the rank either takes it or,
// while it has instances to miss, skips it when its next op fits the next
// instance's window better. Instances some rank misses are left out (their
// index stays the full ranks' issue order); missing says which.
func alignByOrder(lists [][]*Op, ranks []int) (rows [][]*Op, idxs []int, missing []string) {
	n, full := 0, 0
	for _, l := range lists {
		n = max(n, len(l))
	}
	for _, l := range lists {
		if len(l) == n {
			full++
		}
	}
	if full == len(lists) {
		for i := 0; i < n; i++ {
			row := make([]*Op, len(lists))
			for r, l := range lists {
				row[r] = l[i]
			}
			rows = append(rows, row)
		}
		return rows, nil, nil
	}
	// the window every full rank agrees on at each instance: latest start,
	// earliest end
	winS, winE := make([]int64, n), make([]int64, n)
	for j := 0; j < n; j++ {
		first := true
		for _, l := range lists {
			if len(l) != n {
				continue
			}
			if first || l[j].Start > winS[j] {
				winS[j] = l[j].Start
			}
			if first || l[j].End < winE[j] {
				winE[j] = l[j].End
			}
			first = false
		}
	}
	// off is how far op o lies outside instance j's window
	off := func(o *Op, j int) int64 {
		lo, hi := min(winS[j], winE[j]), max(winS[j], winE[j])
		return max(0, o.Start-hi) + max(0, lo-o.End)
	}
	at := make([][]*Op, len(lists)) // at[r][j]: rank r's op of instance j, or nil
	for r, l := range lists {
		at[r] = make([]*Op, n)
		if len(l) == n {
			copy(at[r], l)
			continue
		}
		budget := n - len(l)
		i := 0
		var skipped []int
		for j := 0; j < n && i < len(l); j++ {
			if budget > 0 && j+1 < n && off(l[i], j+1) < off(l[i], j) {
				budget--
				skipped = append(skipped, j)
				continue
			}
			at[r][j] = l[i]
			i++
		}
		for j := n - 1; j >= 0 && at[r][j] == nil && budget > 0; j-- {
			if !slices.Contains(skipped, j) {
				skipped = append(skipped, j)
				budget--
			}
		}
		slices.Sort(skipped)
		missing = append(missing, fmt.Sprintf("rank %d holds %d of the %d instances other ranks hold: aligned by time (an instance's kernels overlap on every rank), it misses #%s; those instances are left out",
			ranks[r], len(l), n, joinInts(firstNInts(skipped, 8))))
	}
	for j := 0; j < n; j++ {
		row := make([]*Op, len(lists))
		ok := true
		for r := range lists {
			row[r] = at[r][j]
			ok = ok && row[r] != nil
		}
		if ok {
			rows = append(rows, row)
			idxs = append(idxs, j)
		}
	}
	return rows, idxs, missing
}

func firstNInts(v []int, n int) []int {
	if len(v) <= n {
		return v
	}
	return v[:n]
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = itoa(x)
	}
	return strings.Join(s, ", #")
}
