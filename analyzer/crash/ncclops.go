package crash

import (
	"sort"
	"strconv"
	"strings"
)

// Collective calls per process and communicator (facts from
// extractNCCLColl) and the rule that reads a divergence from them: at the
// same opCount of corresponding communicators every rank must call the
// same collective. When most call one (AllReduce) and a minority another
// (Broadcast), the minority took another code path — it is the culprit the
// others wait for, though no rank lags in opCount.

const maxOpHistory = 64 // calls kept per stream (the last ones)

type opAt struct {
	count int64
	op    string
	ev    Evidence
}

// opSeq is one process's calls on one communicator.
type opSeq struct {
	host   string
	pid    int
	rank   int // line-prefix rank, -1 when none
	nranks int
	calls  []opAt // ascending opCount, bounded
}

func (inc *incidentFacts) noteColl(c ncclColl, rank int, ev Evidence) {
	if c.comm == "" || c.nranks < 2 || isP2P(c.op) {
		return // p2p Send/Recv pair different calls by design
	}
	key := c.host + ":" + strconv.Itoa(c.pid) + ":" + c.comm
	if inc.opSeqs == nil {
		inc.opSeqs = map[string]*opSeq{}
	}
	q := inc.opSeqs[key]
	if q == nil {
		if len(inc.opSeqs) >= 4*maxRanks {
			return
		}
		q = &opSeq{host: c.host, pid: c.pid, rank: rank, nranks: c.nranks}
		inc.opSeqs[key] = q
	}
	if n := len(q.calls); n > 0 && q.calls[n-1].count >= c.opCount {
		return // a repeated or out-of-order record
	}
	q.calls = append(q.calls, opAt{count: c.opCount, op: c.op, ev: ev})
	if len(q.calls) > maxOpHistory {
		q.calls = q.calls[1:]
	}
}

func isP2P(op string) bool {
	return op == "Send" || op == "Recv" || strings.HasPrefix(op, "SendRecv")
}

// opDivergence is a rule over opSeq facts: among the streams of one
// communicator size, the first opCount that at least three streams reached
// and at which a strict majority called one collective while the others
// called another. Defeated when no majority exists (a 1:1 split names no
// one) or when fewer than three streams reached that opCount.
type opDivergence struct {
	count    int64 // opCount, or the SeqNum when seqNum
	seqNum   bool
	majority string
	odd      []*opSeq
	oddOps   []string
	evs      []Evidence
}

func (inc *incidentFacts) opDivergence() (opDivergence, bool) {
	bySize := map[int][]*opSeq{}
	keys := make([]string, 0, len(inc.opSeqs))
	for k := range inc.opSeqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q := inc.opSeqs[k]
		bySize[q.nranks] = append(bySize[q.nranks], q)
	}
	sizes := make([]int, 0, len(bySize))
	for n := range bySize {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	for _, n := range sizes {
		qs := bySize[n]
		if len(qs) < 3 {
			continue
		}
		counts := map[int64]bool{}
		for _, q := range qs {
			for _, c := range q.calls {
				counts[c.count] = true
			}
		}
		order := make([]int64, 0, len(counts))
		for c := range counts {
			order = append(order, c)
		}
		sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
		for _, oc := range order {
			byOp := map[string][]*opSeq{}
			at := map[*opSeq]opAt{}
			reached := 0
			for _, q := range qs {
				for _, c := range q.calls {
					if c.count == oc {
						byOp[c.op] = append(byOp[c.op], q)
						at[q] = c
						reached++
						break
					}
				}
			}
			if reached < 3 || len(byOp) < 2 {
				continue
			}
			maj, hi := "", 0
			for op, v := range byOp {
				if len(v) > hi || len(v) == hi && op < maj {
					maj, hi = op, len(v)
				}
			}
			if hi*2 <= reached {
				continue // no majority: nothing says which side diverged
			}
			d := opDivergence{count: oc, majority: maj}
			for _, q := range qs {
				if c, ok := at[q]; ok && c.op != maj {
					d.odd = append(d.odd, q)
					d.oddOps = append(d.oddOps, c.op)
					d.evs = append(d.evs, c.ev)
				}
			}
			d.evs = append(d.evs, at[byOp[maj][0]].ev)
			return d, true
		}
	}
	return opDivergence{}, false
}

// watchdogDivergence is the same rule over the watchdog's per-rank
// WorkNCCL(SeqNum, OpType): ranks timed out at one SeqNum in different
// collectives.
func (inc *incidentFacts) watchdogDivergence() (opDivergence, bool) {
	bySeq := map[int]map[string][]int{}
	for r, st := range inc.ranks {
		if !st.hasSeq || st.op == "" {
			continue
		}
		if bySeq[st.seq] == nil {
			bySeq[st.seq] = map[string][]int{}
		}
		bySeq[st.seq][st.op] = append(bySeq[st.seq][st.op], r)
	}
	seqs := make([]int, 0, len(bySeq))
	for q := range bySeq {
		seqs = append(seqs, q)
	}
	sort.Ints(seqs)
	for _, q := range seqs {
		byOp := bySeq[q]
		n := 0
		maj, hi := "", 0
		for op, rs := range byOp {
			sort.Ints(rs) // ranks came in map order: the evidence must not change run to run
			n += len(rs)
			if len(rs) > hi || len(rs) == hi && op < maj {
				maj, hi = op, len(rs)
			}
		}
		if n < 3 || len(byOp) < 2 || hi*2 <= n {
			continue
		}
		d := opDivergence{count: int64(q), majority: maj, seqNum: true}
		var odd []int
		for op, rs := range byOp {
			if op != maj {
				odd = append(odd, rs...)
			}
		}
		sort.Ints(odd)
		for _, r := range odd {
			st := inc.ranks[r]
			d.odd = append(d.odd, &opSeq{rank: r, pid: st.pid})
			d.oddOps = append(d.oddOps, st.op)
			d.evs = append(d.evs, st.ev)
		}
		d.evs = append(d.evs, inc.ranks[byOp[maj][0]].ev)
		return d, true
	}
	return opDivergence{}, false
}

// opDivergenceCulprit turns a divergence into a culprit (culprit.go).
func opDivergenceCulprit(inc *incidentFacts, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	d, ok := inc.opDivergence()
	if !ok {
		if d, ok = inc.watchdogDivergence(); !ok {
			return Culprit{}, false
		}
	}
	q := d.odd[0]
	rank := q.rank
	if r, ok := inc.rankOf(q.pid); ok {
		rank = r
	}
	if rank < 0 && !d.seqNum && len(d.odd) == 1 {
		// NCCL's "[6]" is the device, not the rank: the watchdog names the
		// rank that timed out in the same odd collective
		if w, ok := inc.watchdogDivergence(); ok && len(w.odd) == 1 && sameCollective(w.oddOps[0], d.oddOps[0]) && sameCollective(w.majority, d.majority) {
			rank = w.odd[0].rank
			d.evs = append(d.evs, w.evs[0])
		}
	}
	who := "pid " + strconv.Itoa(q.pid)
	if rank >= 0 {
		who = "rank " + strconv.Itoa(rank) + " (" + who + ")"
	}
	at, method := "opCount "+strconv.FormatInt(d.count, 16), "NCCL_DEBUG=INFO collective per opCount compared across ranks (op mismatch)"
	if d.seqNum {
		at, method = "SeqNum "+strconv.FormatInt(d.count, 10), "watchdog WorkNCCL OpType per SeqNum compared across ranks (op mismatch)"
	}
	reason := who + " called " + d.oddOps[0] + " at " + at + " where the other ranks called " + d.majority + ": a divergent code path, the others wait for a collective it never issues"
	c := mk(rank, q.pid, "", reason, method, d.evs...)
	if c.Host == nil && q.host != "" {
		h := q.host
		c.Host = &h
	}
	if len(d.odd) > 1 {
		c.Rank, c.PID = nil, nil
		for _, x := range d.odd {
			c.PIDs = append(c.PIDs, x.pid)
			if r, ok := inc.rankOf(x.pid); ok {
				c.Ranks = append(c.Ranks, r)
			} else if x.rank >= 0 {
				c.Ranks = append(c.Ranks, x.rank)
			}
		}
	}
	return c, true
}

// sameCollective compares NCCL's operation name ("AllGather",
// "ReduceScatter") with c10d's OpType ("_ALLGATHER_BASE",
// "_REDUCE_SCATTER_BASE", "ALLREDUCE").
func sameCollective(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.ReplaceAll(s, "_", ""))
		return strings.TrimSuffix(strings.TrimSuffix(s, "base"), "coalesced")
	}
	return norm(a) == norm(b)
}
