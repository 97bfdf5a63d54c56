package main

import (
	"fmt"
	"sort"
	"strings"
)

// collOp is one collective kernel on one rank, read by this tool's own rules (not the analyzer's):
// a kernel whose name contains "nccl"; kind from its `Collective name`, else from the kernel name;
// process group from its `Process Group Name`; issue time = the start of the runtime call with its
// correlation id (else the kernel start).
type collOp struct {
	k      *ev
	kind   string
	pg     string
	issue  float64
	launch *ev
	bytes  float64 // 0: unknown
	gsize  int
}

var dtypeSize = map[string]float64{"Float": 4, "Half": 2, "BFloat16": 2, "Double": 8, "Byte": 1, "Char": 1,
	"Int8": 1, "Int": 4, "Long": 8, "Float8_e4m3fn": 1}

func kindFromName(n string) string {
	l := strings.ToLower(n)
	for _, p := range [][2]string{{"allreduce", "allreduce"}, {"all_reduce", "allreduce"}, {"allgather", "allgather"},
		{"reducescatter", "reducescatter"}, {"sendrecv", "sendrecv"}, {"broadcast", "broadcast"}, {"alltoall", "alltoall"}} {
		if strings.Contains(l, p[0]) {
			return p[1]
		}
	}
	return "collective"
}

func collOps(t *rankTrace) []*collOp {
	launch := map[string]*ev{}
	for _, e := range t.evs {
		if e.cat() == "cuda_runtime" || e.cat() == "cuda_driver" {
			if c, ok := e.argNum("correlation"); ok {
				launch[fmt.Sprint(c)] = e
			}
		}
	}
	var ops []*collOp
	for _, e := range t.evs {
		if e.cat() != "kernel" || !strings.Contains(strings.ToLower(e.name()), "nccl") {
			continue
		}
		o := &collOp{k: e, kind: e.argStr("Collective name"), pg: e.argStr("Process Group Name"), issue: e.ts}
		if o.kind == "" {
			o.kind = kindFromName(e.name())
		} else {
			o.kind = strings.ReplaceAll(strings.ToLower(o.kind), "_", "")
		}
		if c, ok := e.argNum("correlation"); ok {
			if l := launch[fmt.Sprint(c)]; l != nil {
				o.launch = l
				o.issue = l.ts
			}
		}
		in, _ := e.argNum("In msg nelems")
		out, _ := e.argNum("Out msg nelems")
		if sz := dtypeSize[e.argStr("dtype")]; sz > 0 && max(in, out) > 0 {
			o.bytes = max(in, out) * sz
		}
		if g, ok := e.argNum("Group size"); ok {
			o.gsize = int(g)
		}
		ops = append(ops, o)
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].issue < ops[j].issue })
	return ops
}

// RankTime is one rank's kernel of an instance.
type RankTime struct {
	Rank  int     `json:"rank"`
	Start float64 `json:"start_us"`
	End   float64 `json:"end_us"`
	Wait  float64 `json:"wait_us"`
}

// Instance is one collective matched across the ranks of its group, with the issue's metrics.
type Instance struct {
	PG        string     `json:"pg"`
	Kind      string     `json:"kind"`
	Index     int        `json:"index"`
	Step      string     `json:"step"`
	Bytes     *float64   `json:"bytes"`
	GroupSize int        `json:"group_size"`
	Ranks     []RankTime `json:"ranks"`
	Skew      float64    `json:"skew_us"`
	FirstRank int        `json:"first_rank"`
	LastRank  int        `json:"last_rank"`
	Transfer  float64    `json:"transfer_us"`
	AlgBW     *float64   `json:"algbw_gbps"`
	BusBW     *float64   `json:"busbw_gbps"`
}

func (in *Instance) id() string { return fmt.Sprintf("%s %s #%d", in.PG, in.Kind, in.Index) }

// busFactor is NCCL's (nccl-tests doc/PERFORMANCE.md).
func busFactor(kind string, n int) float64 {
	fn := float64(n)
	switch kind {
	case "allreduce":
		return 2 * (fn - 1) / fn
	case "allgather", "reducescatter", "alltoall":
		return (fn - 1) / fn
	}
	return 1
}

// job is every rank of one case with its collectives grouped into instances.
type job struct {
	ranks []*rankTrace // by rank id
	ops   [][]*collOp  // per rank, issue order
	inst  []*instRef
}

// instRef ties an instance to each rank's op.
type instRef struct {
	pg, kind string
	index    int
	ops      map[int]*collOp
}

func (r *instRef) id() string { return fmt.Sprintf("%s %s #%d", r.pg, r.kind, r.index) }

func newJob(ranks []*rankTrace) *job {
	j := &job{ranks: ranks}
	j.rebuild()
	return j
}

// rebuild re-reads the collectives after times moved (maps are monotone: identities are stable).
func (j *job) rebuild() {
	j.ops = make([][]*collOp, len(j.ranks))
	type gk struct{ pg, kind string }
	per := map[gk]map[int][]*collOp{}
	var order []gk
	for r, t := range j.ranks {
		j.ops[r] = collOps(t)
		for _, o := range j.ops[r] {
			g := gk{o.pg, o.kind}
			if per[g] == nil {
				per[g] = map[int][]*collOp{}
				order = append(order, g)
			}
			per[g][r] = append(per[g][r], o)
		}
	}
	j.inst = nil
	for _, g := range order {
		n := -1
		for _, l := range per[g] {
			if n < 0 || len(l) < n {
				n = len(l)
			}
		}
		for i := 0; i < n; i++ {
			ref := &instRef{pg: g.pg, kind: g.kind, index: i, ops: map[int]*collOp{}}
			for r, l := range per[g] {
				ref.ops[r] = l[i]
			}
			j.inst = append(j.inst, ref)
		}
	}
}

func (j *job) find(pg, kind string, index int) *instRef {
	for _, r := range j.inst {
		if r.pg == pg && r.kind == kind && r.index == index {
			return r
		}
	}
	panic(fmt.Sprintf("no instance %q %s #%d", pg, kind, index))
}

func (r *instRef) sortedRanks() []int {
	var rs []int
	for k := range r.ops {
		rs = append(rs, k)
	}
	sort.Ints(rs)
	return rs
}

// latest start of the instance and its rank.
func (r *instRef) latest() (float64, int) {
	l, lr := -1e300, -1
	for _, k := range r.sortedRanks() {
		if s := r.ops[k].k.ts; s > l {
			l, lr = s, k
		}
	}
	return l, lr
}

// stepOf is the ProfilerStep annotation around a host time on a rank.
func stepOf(t *rankTrace, at float64) string {
	for _, e := range t.evs {
		if !e.gpu && strings.HasPrefix(e.name(), "ProfilerStep#") && e.ts <= at && at <= e.end {
			return e.name()
		}
	}
	return ""
}

// instances computes every instance's metrics by the issue's definitions.
func (j *job) instances() []Instance {
	var out []Instance
	for _, ref := range j.inst {
		in := Instance{PG: ref.pg, Kind: ref.kind, Index: ref.index}
		first, last := 1e300, -1e300
		minEnd := 1e300
		for _, r := range ref.sortedRanks() {
			o := ref.ops[r]
			s, e := j.ranks[r].round(o.k.ts), j.ranks[r].round(o.k.end)
			in.Ranks = append(in.Ranks, RankTime{Rank: r, Start: s, End: e})
			if s < first {
				first, in.FirstRank = s, r
			}
			if s > last {
				last, in.LastRank = s, r
			}
			minEnd = min(minEnd, e)
			if o.bytes > 0 {
				b := o.bytes
				in.Bytes = &b
			}
			if o.gsize > 0 {
				in.GroupSize = o.gsize
			}
		}
		if in.GroupSize == 0 {
			in.GroupSize = len(in.Ranks)
		}
		for i := range in.Ranks {
			in.Ranks[i].Wait = last - in.Ranks[i].Start
		}
		in.Skew = last - first
		in.Transfer = minEnd - last
		if in.Bytes != nil && in.Transfer > 0 {
			a := *in.Bytes / (in.Transfer * 1000) // bytes/µs → GB/s = bytes/ns
			b := a * busFactor(in.Kind, in.GroupSize)
			in.AlgBW, in.BusBW = &a, &b
		}
		lo := ref.ops[in.LastRank]
		in.Step = stepOf(j.ranks[in.LastRank], lo.issue)
		out = append(out, in)
	}
	return out
}
