package plantstraggler6

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// The key is computed from the written files alone, by the issue's definitions.

type keyRank struct {
	Rank  int     `json:"rank"`
	Start float64 `json:"start_us"`
	End   float64 `json:"end_us"`
	Wait  float64 `json:"wait_us"`
}

type keyInst struct {
	PG        string    `json:"pg"`
	Kind      string    `json:"kind"`
	Index     int       `json:"index"`
	Step      string    `json:"step"`
	Bytes     *float64  `json:"bytes"`
	GroupSize int       `json:"group_size"`
	Ranks     []keyRank `json:"ranks"`
	Skew      float64   `json:"skew_us"`
	FirstRank int       `json:"first_rank"`
	LastRank  int       `json:"last_rank"`
	Transfer  float64   `json:"transfer_us"`
	Algbw     *float64  `json:"algbw_gbps"`
	Busbw     *float64  `json:"busbw_gbps"`
}

type kColl struct {
	rank       int
	pg, kind   string
	start, end float64
	issue      float64
	bytes      *float64
	gsize      int
	step       string
	seq        float64 // PyTorch's `Seq` (per process group), NaN without
}

func stepAround(hostSpans []map[string]any, tid, t float64) string {
	best := ""
	bestStart := math.Inf(-1)
	for _, s := range hostSpans {
		if ts(s) <= t && t <= ts(s)+dur(s) && ts(s) > bestStart {
			best, bestStart = str(s["name"]), ts(s)
		}
	}
	return best
}

func keyColls(d *doc) ([]kColl, int) {
	rank := 0
	if di, ok := d.top["distributedInfo"].(map[string]any); ok {
		rank = int(numOr(di["rank"], 0))
	}
	launch := map[float64]map[string]any{}
	var steps, tops, cops []map[string]any
	for _, e := range d.events {
		switch str(e["cat"]) {
		case "cuda_runtime", "cuda_driver":
			if c, ok := num(args(e)["correlation"]); ok {
				launch[c] = e
			}
		case "user_annotation":
			if strings.HasPrefix(str(e["name"]), "ProfilerStep#") {
				steps = append(steps, e)
			} else if !strings.HasPrefix(str(e["name"]), "nccl:") {
				tops = append(tops, e)
			}
		case "cpu_op":
			if strings.Contains(str(e["name"]), "all_reduce") {
				cops = append(cops, e)
			}
		}
	}
	// Numbered top-level annotations, as the steps of a trace without ProfilerStep.
	sort.SliceStable(tops, func(i, j int) bool { return ts(tops[i]) < ts(tops[j]) })
	var outer []map[string]any
	seen := map[string]int{}
	for _, a := range tops {
		inside := false
		for _, o := range outer {
			if ts(o) <= ts(a) && ts(a)+dur(a) <= ts(o)+dur(o) {
				inside = true
			}
		}
		if inside {
			continue
		}
		outer = append(outer, a)
	}
	named := make([]map[string]any, len(outer))
	for i, a := range outer {
		n := str(a["name"])
		c := seen[n]
		seen[n]++
		nm := n
		if c > 0 {
			nm = fmt.Sprintf("%s#%d", n, c)
		}
		named[i] = map[string]any{"name": nm, "ts": a["ts"], "dur": a["dur"]}
	}
	var out []kColl
	for _, e := range d.events {
		if !isCollKernel(e) {
			continue
		}
		a := args(e)
		k := kColl{rank: rank, start: ts(e), end: ts(e) + dur(e), issue: ts(e), kind: kindOf(e), pg: str(a["Process Group Name"])}
		k.gsize = int(numOr(a["Group size"], 0))
		k.seq = numOr(a["Seq"], math.NaN())
		var l map[string]any
		if c, ok := num(a["correlation"]); ok {
			l = launch[c]
		}
		if l != nil {
			k.issue = ts(l)
		}
		if in, ok := num(a["In msg nelems"]); ok {
			out := numOr(a["Out msg nelems"], 0)
			if sz, ok := dtypeSize[str(a["dtype"])]; ok {
				b := math.Max(in, out) * sz
				k.bytes = &b
			}
		} else if k.kind == "custom_allreduce" && l != nil {
			for _, c := range cops {
				if numOr(c["tid"], -1) == numOr(l["tid"], -2) && ts(c) <= ts(l) && ts(l) <= ts(c)+dur(c) {
					ca := args(c)
					dims, _ := ca["Input Dims"].([]any)
					types, _ := ca["Input type"].([]any)
					if len(dims) > 0 && len(types) > 0 {
						nel := 1.0
						for _, x := range dims[0].([]any) {
							nel *= numOr(x, 0)
						}
						if sz, ok := dtypeSize[torchDtype(str(types[0]))]; ok {
							b := nel * sz
							k.bytes = &b
						}
					}
				}
			}
		}
		if l != nil {
			if s := stepAround(steps, 0, ts(l)); s != "" {
				k.step = s
			} else {
				k.step = stepAround(named, 0, ts(l))
			}
		}
		out = append(out, k)
	}
	return out, rank
}

func busFactor(kind string, n int) float64 {
	fn := float64(n)
	switch kind {
	case "allreduce", "custom_allreduce":
		return 2 * (fn - 1) / fn
	case "allgather", "reducescatter", "alltoall":
		return (fn - 1) / fn
	}
	return 1
}

func computeKey(docs []*doc) []*keyInst {
	groups := map[string][][]kColl{} // pg+kind → per rank list
	var order []string
	for _, d := range docs {
		cs, _ := keyColls(d)
		by := map[string][]kColl{}
		for _, c := range cs {
			k := c.pg + "\x00" + c.kind
			by[k] = append(by[k], c)
		}
		for k, l := range by {
			sort.SliceStable(l, func(i, j int) bool { return l[i].issue < l[j].issue })
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], l)
		}
	}
	var out []*keyInst
	// groups in name order: instances of two groups that start together keep one order (the hash)
	sort.Strings(order)
	for _, k := range order {
		lists := groups[k]
		if bySeq := seqInstances(lists); bySeq != nil {
			out = append(out, bySeq...)
			continue
		}
		// A mesh: ranks of one group name hold the same count; split by membership.
		n := len(lists[0])
		for i := 0; i < n; i++ {
			var rs []kColl
			for _, l := range lists {
				if i < len(l) {
					rs = append(rs, l[i])
				}
			}
			out = append(out, instanceKey(rs, i))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Ranks[0].Start < out[j].Ranks[0].Start
	})
	return out
}

// seqInstances matches by PyTorch's `Seq` when every collective of the group
// and kind has one (a rank whose trace starts later lacks the first instances);
// index = the instance's place among the group's Seqs. Nil without Seq.
func seqInstances(lists [][]kColl) []*keyInst {
	by := map[float64][]kColl{}
	for _, l := range lists {
		for _, c := range l {
			if math.IsNaN(c.seq) {
				return nil
			}
			by[c.seq] = append(by[c.seq], c)
		}
	}
	var seqs []float64
	for q := range by {
		seqs = append(seqs, q)
	}
	sort.Float64s(seqs)
	var out []*keyInst
	for i, q := range seqs {
		out = append(out, instanceKey(by[q], i))
	}
	return out
}

func instanceKey(rs []kColl, idx int) *keyInst {
	sort.Slice(rs, func(i, j int) bool { return rs[i].rank < rs[j].rank })
	in := &keyInst{PG: rs[0].pg, Kind: rs[0].kind, Index: idx}
	L, E := math.Inf(-1), math.Inf(1)
	first, last := -1, -1
	F := math.Inf(1)
	for _, c := range rs {
		if c.start > L {
			L, last = c.start, c.rank
		}
		if c.start < F {
			F, first = c.start, c.rank
		}
		E = math.Min(E, c.end)
	}
	for _, c := range rs {
		in.Ranks = append(in.Ranks, keyRank{Rank: c.rank, Start: c.start, End: c.end, Wait: L - c.start})
		if c.rank == last {
			in.Step = c.step
		}
	}
	in.Skew = L - F
	in.FirstRank, in.LastRank = first, last
	in.Transfer = E - L
	in.GroupSize = rs[0].gsize
	if in.GroupSize == 0 {
		in.GroupSize = len(rs)
	}
	in.Bytes = rs[0].bytes
	if in.Bytes != nil && in.Transfer > 0 {
		a := *in.Bytes / (in.Transfer * 1000) // bytes/ns = GB/s
		b := a * busFactor(in.Kind, in.GroupSize)
		in.Algbw, in.Busbw = &a, &b
	}
	return in
}

func instancesHash(ins []*keyInst) string {
	b, _ := json.Marshal(ins)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
