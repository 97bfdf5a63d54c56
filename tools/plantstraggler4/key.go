package plantstraggler4

import (
	"math"
	"sort"
	"strings"
)

// Instance is one collective matched across the ranks: the k-th kernel of a (process group,
// kind) in issue order on every rank (no Seq in any base trace here).
type Instance struct {
	PG, Kind  string
	Index     int
	Kernel    []map[string]any // per rank
	Issue     []int64          // per rank: launch call start, else kernel start (ns)
	Bytes     int64            // -1 unknown
	Dtype     string
	GroupSize int
}

var dtypeSize = map[string]int64{
	"float": 4, "float32": 4, "int": 4, "int32": 4, "uint32": 4,
	"bfloat16": 2, "half": 2, "float16": 2, "short": 2, "int16": 2,
	"double": 8, "long": 8, "int64": 8, "uint64": 8, "complexfloat": 8,
	"byte": 1, "char": 1, "bool": 1, "int8": 1, "uint8": 1,
	"float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1,
}

func normKind(s string) string {
	k := strings.ReplaceAll(strings.ToLower(s), "_", "")
	switch {
	case strings.Contains(k, "allreduce"):
		return "allreduce"
	case strings.Contains(k, "allgather"):
		return "allgather"
	case strings.Contains(k, "reducescatter"):
		return "reducescatter"
	case strings.Contains(k, "alltoall"):
		return "alltoall"
	case strings.Contains(k, "broadcast"):
		return "broadcast"
	case strings.Contains(k, "sendrecv"), k == "send", k == "recv":
		return "sendrecv"
	case strings.Contains(k, "barrier"):
		return "barrier"
	case strings.Contains(k, "reduce"):
		return "reduce"
	}
	return ""
}

// kindFromName reads an NCCL kernel name (ncclKernel_AllReduce_…, ncclDevKernel_SendRecv…).
func kindFromName(name string) string {
	n := name
	for _, p := range []string{"ncclDevKernel_", "ncclKernel_"} {
		if i := strings.Index(n, p); i >= 0 {
			n = n[i+len(p):]
			if j := strings.IndexAny(n, "_("); j >= 0 {
				n = n[:j]
			}
			return normKind(n)
		}
	}
	return ""
}

type collMeta struct {
	kind, pg, dtype string
	bytes           int64
	group           int
}

func metaFrom(a map[string]any) (collMeta, bool) {
	cn, ok := a["Collective name"].(string)
	if !ok {
		return collMeta{}, false
	}
	m := collMeta{kind: normKind(cn), bytes: -1}
	if m.kind == "" {
		m.kind = strings.ToLower(cn)
	}
	m.pg, _ = a["Process Group Name"].(string)
	m.dtype, _ = a["dtype"].(string)
	var ne int64 = -1
	for _, k := range []string{"In msg nelems", "Out msg nelems"} {
		if v, ok := anyInt(a[k]); ok && v > ne {
			ne = v
		}
	}
	if sz, ok := dtypeSize[strings.ToLower(m.dtype)]; ok && ne >= 0 {
		m.bytes = ne * sz
	}
	if g, ok := anyInt(a["Group size"]); ok {
		m.group = int(g)
	}
	return m, true
}

// MatchInstances finds the collective kernels of every rank and matches them.
func MatchInstances(ts []*Trace) []Instance {
	type kern struct {
		e     map[string]any
		issue int64
		meta  collMeta
	}
	groups := map[[2]string][][]kern{} // (pg, kind) → per rank
	var order [][2]string
	for r, t := range ts {
		launch := map[int64]map[string]any{}
		byExt := map[int64]map[string]any{}
		var comms []map[string]any // CPU ops carrying collective args, by thread
		for _, e := range t.Events {
			if isRuntime(e) {
				if c, ok := argInt(e, "correlation"); ok {
					launch[c] = e
				}
			}
			if str(e, "cat") == "cpu_op" {
				if _, ok := args(e)["Collective name"]; ok {
					if x, ok := argInt(e, "External id"); ok {
						byExt[x] = e
					}
					comms = append(comms, e)
				}
			}
		}
		for _, e := range t.Events {
			if !isCollectiveKernel(e) || str(e, "ph") != "X" {
				continue
			}
			k := kern{e: e, meta: collMeta{bytes: -1}}
			k.issue, _ = ns(e, "ts")
			found := false
			if m, ok := metaFrom(args(e)); ok {
				k.meta, found = m, true
			}
			if c, ok := argInt(e, "correlation"); ok {
				if l := launch[c]; l != nil {
					k.issue, _ = ns(l, "ts")
					if !found {
						if x, ok := argInt(l, "External id"); ok && byExt[x] != nil {
							k.meta, found = metaFrom(args(byExt[x]))
						}
					}
					if !found {
						// the collective's CPU op around its launch on the same thread
						for _, c := range comms {
							cs, _ := ns(c, "ts")
							cd, _ := ns(c, "dur")
							if c["tid"] == l["tid"] && cs <= k.issue && k.issue <= cs+cd {
								k.meta, found = metaFrom(args(c))
							}
						}
					}
				}
			}
			if !found {
				k.meta.kind = kindFromName(str(e, "name"))
				if k.meta.kind == "" {
					k.meta.kind = "collective"
				}
			}
			key := [2]string{k.meta.pg, k.meta.kind}
			if _, ok := groups[key]; !ok {
				groups[key] = make([][]kern, len(ts))
				order = append(order, key)
			}
			groups[key][r] = append(groups[key][r], k)
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i][0] != order[j][0] {
			return order[i][0] < order[j][0]
		}
		return order[i][1] < order[j][1]
	})
	var out []Instance
	for _, key := range order {
		per := groups[key]
		n := math.MaxInt
		for _, ks := range per {
			sort.SliceStable(ks, func(i, j int) bool { return ks[i].issue < ks[j].issue })
			n = min(n, len(ks))
		}
		for i := 0; i < n; i++ {
			in := Instance{PG: key[0], Kind: key[1], Index: i, Bytes: -1, GroupSize: len(ts)}
			for _, ks := range per {
				k := ks[i]
				in.Kernel = append(in.Kernel, k.e)
				in.Issue = append(in.Issue, k.issue)
				if k.meta.bytes >= 0 {
					in.Bytes = k.meta.bytes
				}
				if k.meta.dtype != "" {
					in.Dtype = k.meta.dtype
				}
				if k.meta.group > 0 {
					in.GroupSize = k.meta.group
				}
			}
			out = append(out, in)
		}
	}
	return out
}

// KeyRank is one rank's part of a keyed instance.
type KeyRank struct {
	Rank    int     `json:"rank"`
	StartUS float64 `json:"start_us"`
	EndUS   float64 `json:"end_us"`
	WaitUS  float64 `json:"wait_us"`
}

// KeyInstance is an instance as issue 19 defines it.
type KeyInstance struct {
	PG         string    `json:"pg"`
	Kind       string    `json:"kind"`
	Index      int       `json:"index"`
	Step       string    `json:"step"`
	Bytes      *int64    `json:"bytes"`
	GroupSize  int       `json:"group_size"`
	Ranks      []KeyRank `json:"ranks"`
	SkewUS     float64   `json:"skew_us"`
	FirstRank  int       `json:"first_rank"`
	LastRank   int       `json:"last_rank"`
	TransferUS float64   `json:"transfer_us"`
	AlgbwGBps  *float64  `json:"algbw_gbps"`
	BusbwGBps  *float64  `json:"busbw_gbps"`
}

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

// KeyOf computes every instance of planted traces (ranks[i] is trace i's rank); offset[i] is a
// known clock offset of trace i (ns) taken off first, so the key holds the true instances.
func KeyOf(ts []*Trace, ranks []int, offset []int64) []KeyInstance {
	steps := make([][]stepWin, len(ts))
	for i, t := range ts {
		steps[i] = profilerSteps(t)
	}
	var out []KeyInstance
	for _, in := range MatchInstances(ts) {
		k := KeyInstance{PG: in.PG, Kind: in.Kind, Index: in.Index, GroupSize: in.GroupSize}
		var st, en []int64
		var latest, earliest, firstEnd int64 = math.MinInt64, math.MaxInt64, math.MaxInt64
		for i, e := range in.Kernel {
			s, _ := ns(e, "ts")
			d, _ := ns(e, "dur")
			s -= offset[i]
			st = append(st, s)
			en = append(en, s+d)
			if s > latest {
				latest, k.LastRank = s, ranks[i]
			}
			if s < earliest {
				earliest, k.FirstRank = s, ranks[i]
			}
			firstEnd = min(firstEnd, s+d)
		}
		// ties: the lowest rank among equals is last
		for i := range in.Kernel {
			k.Ranks = append(k.Ranks, KeyRank{Rank: ranks[i], StartUS: us(st[i]), EndUS: us(en[i]), WaitUS: us(latest - st[i])})
		}
		for i := range in.Kernel {
			if st[i] == latest {
				k.LastRank = ranks[i]
				k.Step = stepAt(steps[i], in.Issue[i]) // the trace's own clock
				break
			}
		}
		k.SkewUS = us(latest - earliest)
		k.TransferUS = us(firstEnd - latest)
		if in.Bytes >= 0 {
			b := in.Bytes
			k.Bytes = &b
			if firstEnd > latest {
				alg := float64(b) / float64(firstEnd-latest) // bytes/ns = GB/s
				bus := alg * busFactor(in.Kind, in.GroupSize)
				k.AlgbwGBps, k.BusbwGBps = &alg, &bus
			}
		}
		out = append(out, k)
	}
	return out
}

// us converts ns to µs without going through a float of the ns (1.7e18 ns is past 2^53).
func us(v int64) float64 { return float64(v/1000) + float64(v%1000)/1000 }

type stepWin struct {
	name       string
	start, end int64
}

func profilerSteps(t *Trace) []stepWin {
	var w []stepWin
	for _, e := range t.Events {
		if str(e, "cat") != "user_annotation" || !strings.HasPrefix(str(e, "name"), "ProfilerStep#") {
			continue
		}
		s, _ := ns(e, "ts")
		d, _ := ns(e, "dur")
		w = append(w, stepWin{name: str(e, "name"), start: s, end: s + d})
	}
	return w
}

func stepAt(w []stepWin, t int64) string {
	for _, s := range w {
		if s.start <= t && t <= s.end {
			return s.name
		}
	}
	return ""
}
