package plantstraggler4

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Base is a set of rank traces under ../shared/testdata. Clone > 0 makes a job of Clone ranks
// from the one real rank in Files (its peers are copies of it, told apart by seeded jitter).
type Base struct {
	Name     string
	Files    []string
	Clone    int
	JitterUS float64 // each rank's last compute kernel before each collective runs U(0, J) longer
}

// Bases: the real 8-rank DLRM job, and two real single ranks of multi-rank jobs made whole.
var Bases = map[string]Base{
	"dlrm": {Name: "dlrm", Files: []string{
		"traces2/param_dlrm_v100_8rank/worker0_step_12.1694128201545.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker1_step_12.1694128201556.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker2_step_12.1694128201554.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker3_step_12.1694128201557.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker4_step_12.1694128201547.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker5_step_12.1694128201549.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker6_step_12.1694128201553.pt.trace.json.gz",
		"traces2/param_dlrm_v100_8rank/worker7_step_12.1694128201553.pt.trace.json.gz",
	}},
	"rn8":  {Name: "rn8", Files: []string{"traces/tracelens/mi300/resnet_act_checkpoint.json.gz"}, Clone: 8, JitterUS: 150},
	"a100": {Name: "a100", Files: []string{"traces/hta/nccl_parser_config/nccl_data.json.gz"}, Clone: 2, JitterUS: 150},
}

// Plant is one planted cause. Method: hostgap (the process pauses Δ right before the
// collective's CPU op), kernels (its three longest compute kernels since its previous
// collective run Δ/3 longer each), copy (its last memcpy before the collective runs Δ longer),
// xfer (the instance's transfer runs Factor× longer on every rank: a slow link, no one late),
// clock (every timestamp of Rank written Δ later: no real lateness).
type Plant struct {
	Method  string  `json:"method"`
	Rank    int     `json:"rank"`
	Kind    string  `json:"kind,omitempty"`
	Index   []int   `json:"index,omitempty"`
	DeltaUS float64 `json:"delta_us,omitempty"`
	Factor  float64 `json:"factor,omitempty"`
}

// Case is one planted job.
type Case struct {
	Name   string  `json:"name"`
	Base   string  `json:"base"`
	Note   string  `json:"note"`
	Plants []Plant `json:"plants"`
}

// Cases is the blind set, fixed before any run of gputriage on it.
var Cases = []Case{
	{Name: "dlrm_ctrl", Base: "dlrm", Note: "no plant: the replay reproduces the real traces"},
	{Name: "dlrm_h2d_r3_sr4", Base: "dlrm", Note: "slow pageable H2D copy on rank 3 before send/recv #4; the host syncs on it, so its launches come late",
		Plants: []Plant{{Method: "copy", Rank: 3, Kind: "sendrecv", Index: []int{4}, DeltaUS: 6000}}},
	{Name: "dlrm_kernels_r5_sr1", Base: "dlrm", Note: "rank 5's three longest kernels before send/recv #1 run 7.5 ms longer in all",
		Plants: []Plant{{Method: "kernels", Rank: 5, Kind: "sendrecv", Index: []int{1}, DeltaUS: 7500}}},
	{Name: "dlrm_first_r6_sr0", Base: "dlrm", Note: "rank 6 pauses 15 ms before the first collective (where rank 7 is naturally 7.6 ms late)",
		Plants: []Plant{{Method: "hostgap", Rank: 6, Kind: "sendrecv", Index: []int{0}, DeltaUS: 15000}}},
	{Name: "dlrm_last_r2_ar2", Base: "dlrm", Note: "rank 2 pauses 5 ms before the last collective",
		Plants: []Plant{{Method: "hostgap", Rank: 2, Kind: "allreduce", Index: []int{2}, DeltaUS: 5000}}},
	{Name: "dlrm_xfer_ar0", Base: "dlrm", Note: "all-reduce #0's transfer 20× longer on every rank (slow link): busbw drop, no straggler",
		Plants: []Plant{{Method: "xfer", Rank: -1, Kind: "allreduce", Index: []int{0}, Factor: 20}}},
	{Name: "dlrm_clock_r3", Base: "dlrm", Note: "rank 3's clock 3 ms ahead: no real lateness",
		Plants: []Plant{{Method: "clock", Rank: 3, DeltaUS: 3000}}},
	{Name: "dlrm_two_r1_r4", Base: "dlrm", Note: "two stragglers in the one step: rank 1's kernels before send/recv #4, rank 4's pause before all-reduce #1",
		Plants: []Plant{{Method: "kernels", Rank: 1, Kind: "sendrecv", Index: []int{4}, DeltaUS: 6000},
			{Method: "hostgap", Rank: 4, Kind: "allreduce", Index: []int{1}, DeltaUS: 6000}}},

	{Name: "rn8_ctrl", Base: "rn8", Note: "no plant, only the jitter that tells the cloned ranks apart"},
	{Name: "rn8_window_r5", Base: "rn8", Note: "rank 5's compute before all-reduces #2 and #3 (ProfilerStep#16) 3 ms longer each, then it recovers",
		Plants: []Plant{{Method: "kernels", Rank: 5, Kind: "allreduce", Index: []int{2, 3}, DeltaUS: 3000}}},
	{Name: "rn8_hostgap_absorbed_r2", Base: "rn8", Note: "rank 2 pauses 8 ms before all-reduce #1: its GPU is >20 ms behind its host, the queue absorbs it",
		Plants: []Plant{{Method: "hostgap", Rank: 2, Kind: "allreduce", Index: []int{1}, DeltaUS: 8000}}},
	{Name: "rn8_bcast_r7", Base: "rn8", Note: "rank 7 late only at broadcast #2 (compute before it 4 ms longer); every all-reduce clean",
		Plants: []Plant{{Method: "kernels", Rank: 7, Kind: "broadcast", Index: []int{2}, DeltaUS: 4000}}},
	{Name: "rn8_two_steps_r1_r6", Base: "rn8", Note: "rank 1 late at all-reduce #0 (step 15), rank 6 at the last all-reduce #5 (step 17)",
		Plants: []Plant{{Method: "kernels", Rank: 1, Kind: "allreduce", Index: []int{0}, DeltaUS: 5000},
			{Method: "kernels", Rank: 6, Kind: "allreduce", Index: []int{5}, DeltaUS: 5000}}},
	{Name: "rn8_xfer_ar3", Base: "rn8", Note: "all-reduce #3's transfer 3× longer on every rank: busbw drop, no straggler",
		Plants: []Plant{{Method: "xfer", Rank: -1, Kind: "allreduce", Index: []int{3}, Factor: 3}}},
	{Name: "rn8_clock_r4", Base: "rn8", Note: "rank 4's clock 2.5 ms behind: no real lateness",
		Plants: []Plant{{Method: "clock", Rank: 4, DeltaUS: -2500}}},

	{Name: "a100_ctrl", Base: "a100", Note: "no plant, only jitter"},
	{Name: "a100_hostgap_r1_ar7", Base: "a100", Note: "rank 1 pauses 4 ms before all-reduce #7 (launched just in time)",
		Plants: []Plant{{Method: "hostgap", Rank: 1, Kind: "allreduce", Index: []int{7}, DeltaUS: 4000}}},
	{Name: "a100_window_r1", Base: "a100", Note: "rank 1 pauses 1.5 ms before each of all-reduces #5..#9 (ProfilerStep#5), then recovers",
		Plants: []Plant{{Method: "hostgap", Rank: 1, Kind: "allreduce", Index: []int{5, 6, 7, 8, 9}, DeltaUS: 1500}}},
	{Name: "a100_first_r0", Base: "a100", Note: "rank 0's compute before the first all-reduce 3 ms longer",
		Plants: []Plant{{Method: "kernels", Rank: 0, Kind: "allreduce", Index: []int{0}, DeltaUS: 3000}}},
	{Name: "a100_bcast_r0", Base: "a100", Note: "rank 0 pauses 2 ms before broadcast #2 only",
		Plants: []Plant{{Method: "hostgap", Rank: 0, Kind: "broadcast", Index: []int{2}, DeltaUS: 2000}}},
	{Name: "a100_clock_r1", Base: "a100", Note: "rank 1's clock 1 ms ahead: no real lateness",
		Plants: []Plant{{Method: "clock", Rank: 1, DeltaUS: 1000}}},
}

// loadBase reads the base's rank traces (clones made and jitter planted, as fixed Extend).
func loadBase(shared string, b Base) ([]*Trace, []string, error) {
	var ts []*Trace
	var names []string
	for _, f := range b.Files {
		t, err := LoadTrace(filepath.Join(shared, f))
		if err != nil {
			return nil, nil, err
		}
		ts = append(ts, t)
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".gz"))
	}
	if b.Clone > 0 {
		src := ts[0]
		stem := strings.TrimSuffix(names[0], ".json")
		ts, names = nil, nil
		hostPid := hostPID(src)
		for r := 0; r < b.Clone; r++ {
			c := src.Clone()
			relabel(c, r, hostPid)
			ts = append(ts, c)
			names = append(names, fmt.Sprintf("%s_rank%d.json", stem, r))
		}
	}
	return ts, names, nil
}

func hostPID(t *Trace) any {
	for _, e := range t.Events {
		if str(e, "cat") == "cpu_op" {
			return e["pid"]
		}
	}
	return nil
}

// relabel makes a copy of rank 0 rank r: distributedInfo.rank, the collectives' Rank arg and
// a distinct host process id.
func relabel(t *Trace, r int, hostPid any) {
	if di, ok := t.Top["distributedInfo"].(map[string]any); ok {
		di["rank"] = json.Number(fmt.Sprint(r))
	}
	hp, _ := anyInt(hostPid)
	for _, e := range t.Events {
		if a := args(e); a != nil {
			if _, ok := a["Rank"]; ok {
				a["Rank"] = json.Number(fmt.Sprint(r))
			}
		}
		if p, ok := anyInt(e["pid"]); ok && p == hp && r > 0 {
			e["pid"] = json.Number(fmt.Sprint(hp + int64(r)*100000))
		}
	}
}

// planted builds the replay's plants for a case on its base traces.
func planted(ts []*Trace, inst []Instance, b Base, c Case) (Plants, []int64, error) {
	p := Plants{HostGap: map[int][][2]int64{}, Extend: map[uintptr]int64{}, LinkFactor: map[int]float64{}}
	clock := make([]int64, len(ts))
	ops := make([][]map[string]any, len(ts))
	for r, t := range ts {
		for _, e := range t.Events {
			if isGPUOp(e) && str(e, "ph") == "X" {
				ops[r] = append(ops[r], e)
			}
		}
		sort.SliceStable(ops[r], func(i, j int) bool { a, _ := ns(ops[r][i], "ts"); b, _ := ns(ops[r][j], "ts"); return a < b })
	}
	find := func(kind string, idx int) (int, error) {
		for i, in := range inst {
			if in.Kind == kind && in.Index == idx {
				return i, nil
			}
		}
		return 0, fmt.Errorf("%s: no %s #%d", c.Name, kind, idx)
	}
	if b.JitterUS > 0 {
		rng := rand.New(rand.NewPCG(uint64(len(b.Name)), 19))
		for _, in := range inst {
			for r := range ts {
				k := lastCompute(ops[r], in.Kernel[r], 1)
				j := int64(rng.Float64() * b.JitterUS * 1000)
				for _, e := range k {
					p.Extend[evID(e)] += j
				}
			}
		}
	}
	for _, pl := range c.Plants {
		if pl.Method == "clock" {
			clock[pl.Rank] = int64(pl.DeltaUS * 1000)
			continue
		}
		for _, idx := range pl.Index {
			i, err := find(pl.Kind, idx)
			if err != nil {
				return p, nil, err
			}
			d := int64(pl.DeltaUS * 1000)
			switch pl.Method {
			case "xfer":
				p.LinkFactor[i] = pl.Factor
			case "hostgap":
				p.HostGap[pl.Rank] = append(p.HostGap[pl.Rank], [2]int64{launchSite(ts[pl.Rank], inst[i].Kernel[pl.Rank]), d})
			case "kernels":
				ks := lastCompute(ops[pl.Rank], inst[i].Kernel[pl.Rank], 3)
				if len(ks) == 0 {
					return p, nil, fmt.Errorf("%s: no compute kernel on rank %d before %s #%d", c.Name, pl.Rank, pl.Kind, idx)
				}
				for _, e := range ks {
					p.Extend[evID(e)] += d / int64(len(ks))
				}
			case "copy":
				cp := lastCopy(ops[pl.Rank], inst[i].Kernel[pl.Rank])
				if cp == nil {
					return p, nil, fmt.Errorf("%s: no copy before %s #%d", c.Name, pl.Kind, idx)
				}
				p.Extend[evID(cp)] += d
			default:
				return p, nil, fmt.Errorf("%s: unknown method %q", c.Name, pl.Method)
			}
		}
	}
	return p, clock, nil
}

// lastCompute: the n longest non-collective kernels between the rank's previous collective
// kernel and this one (by start).
func lastCompute(ops []map[string]any, coll map[string]any, n int) []map[string]any {
	cs, _ := ns(coll, "ts")
	var seg []map[string]any
	for i := len(ops) - 1; i >= 0; i-- {
		e := ops[i]
		s, _ := ns(e, "ts")
		if s >= cs {
			continue
		}
		if isCollectiveKernel(e) {
			break
		}
		d, _ := ns(e, "dur")
		if str(e, "cat") == "kernel" && s+d <= cs {
			seg = append(seg, e)
		}
	}
	sort.SliceStable(seg, func(i, j int) bool { a, _ := ns(seg[i], "dur"); b, _ := ns(seg[j], "dur"); return a > b })
	if n == 1 && len(seg) > 0 { // jitter: the last one before the collective
		sort.SliceStable(seg, func(i, j int) bool { a, _ := ns(seg[i], "ts"); b, _ := ns(seg[j], "ts"); return a > b })
	}
	if len(seg) > n {
		seg = seg[:n]
	}
	return seg
}

func lastCopy(ops []map[string]any, coll map[string]any) map[string]any {
	cs, _ := ns(coll, "ts")
	var prev int64 // the rank's previous collective kernel's start
	for _, e := range ops {
		if s, _ := ns(e, "ts"); s < cs && isCollectiveKernel(e) {
			prev = s
		}
	}
	var best, h2d map[string]any
	for _, e := range ops {
		s, _ := ns(e, "ts")
		d, _ := ns(e, "dur")
		if str(e, "cat") == "gpu_memcpy" && s > prev && s+d <= cs {
			best = e
			if strings.Contains(str(e, "name"), "HtoD") {
				h2d = e
			}
		}
	}
	if h2d != nil {
		return h2d
	}
	return best
}

// launchSite: where the host starts on the collective: the record_param_comms op around its
// launch call, else the launch call.
func launchSite(t *Trace, k map[string]any) int64 {
	c, _ := argInt(k, "correlation")
	var l map[string]any
	for _, e := range t.Events {
		if isRuntime(e) {
			if x, ok := argInt(e, "correlation"); ok && x == c {
				l = e
				break
			}
		}
	}
	if l == nil {
		s, _ := ns(k, "ts")
		return s
	}
	ls, _ := ns(l, "ts")
	site := ls
	for _, e := range t.Events {
		if str(e, "name") != "record_param_comms" || e["tid"] != l["tid"] {
			continue
		}
		s, _ := ns(e, "ts")
		d, _ := ns(e, "dur")
		if s <= ls && ls <= s+d && s < site {
			site = s
		}
	}
	return site
}

// Planted is one written case: its rank files and key.
type Planted struct {
	Case      Case
	Files     []string // written paths
	FileSHA   []string // SHA-256 of each rank file's JSON
	Ranks     []int
	Clock     []int64
	Instances []KeyInstance
	Base      []KeyInstance // the unplanted (jitter-only) base's instances
}

type baseSet struct {
	raw   [][]byte // the base's rank files, cloned and relabelled, before any replay
	names []string
	key   []KeyInstance // the base's instances after its jitter-only replay
}

var (
	baseMu    sync.Mutex
	baseCache = map[string]*baseSet{}
)

// loadBaseSet reads a base once per process.
func loadBaseSet(shared string, b Base) (*baseSet, error) {
	baseMu.Lock()
	defer baseMu.Unlock()
	if bs := baseCache[shared+"|"+b.Name]; bs != nil {
		return bs, nil
	}
	ts, names, err := loadBase(shared, b)
	if err != nil {
		return nil, err
	}
	bs := &baseSet{names: names}
	for _, t := range ts {
		raw, err := t.Marshal()
		if err != nil {
			return nil, err
		}
		bs.raw = append(bs.raw, raw)
	}
	// the base: the same replay with the base's jitter only
	inst := MatchInstances(ts)
	bp, _, err := planted(ts, inst, b, Case{Name: b.Name + "/base"})
	if err != nil {
		return nil, err
	}
	if err := Replay(ts, inst, bp); err != nil {
		return nil, err
	}
	ranks := make([]int, len(ts))
	for i, t := range ts {
		ranks[i] = rankOf(t, i)
	}
	bs.key = KeyOf(ts, ranks, make([]int64, len(ts)))
	baseCache[shared+"|"+b.Name] = bs
	return bs, nil
}

// PlantCase writes a case's rank files (gzipped) under dir/<case>/ and keys it from them.
func PlantCase(shared, dir string, c Case) (*Planted, error) {
	b, ok := Bases[c.Base]
	if !ok {
		return nil, fmt.Errorf("%s: unknown base %q", c.Name, c.Base)
	}
	bs, err := loadBaseSet(shared, b)
	if err != nil {
		return nil, err
	}
	names := bs.names
	var ts []*Trace
	for i, raw := range bs.raw {
		t, err := ParseTrace(names[i], raw)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	inst := MatchInstances(ts)
	p, clock, err := planted(ts, inst, b, c)
	if err != nil {
		return nil, err
	}
	if err := Replay(ts, inst, p); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	out := &Planted{Case: c, Clock: clock}
	cdir := filepath.Join(dir, c.Name)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return nil, err
	}
	var written []*Trace
	for r, t := range ts {
		if clock[r] != 0 {
			for _, e := range t.Events {
				if v, ok := ns(e, "ts"); ok {
					e["ts"] = num(v + clock[r])
				}
			}
		}
		raw, err := t.Marshal()
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(raw)
		out.FileSHA = append(out.FileSHA, hex.EncodeToString(sum[:]))
		path := filepath.Join(cdir, names[r]+".gz")
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(raw)
		zw.Close()
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, path)
		// the key reads the written bytes again, not the replay's state
		w, err := ParseTrace(path, raw)
		if err != nil {
			return nil, err
		}
		written = append(written, w)
		out.Ranks = append(out.Ranks, rankOf(w, r))
	}
	out.Instances = KeyOf(written, out.Ranks, clock)
	out.Base = bs.key
	return out, nil
}

func rankOf(t *Trace, def int) int {
	if di, ok := t.Top["distributedInfo"].(map[string]any); ok {
		if r, ok := anyInt(di["rank"]); ok {
			return int(r)
		}
	}
	return def
}

// CaseByName finds a case of the plan.
func CaseByName(name string) (Case, bool) {
	for _, c := range Cases {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}
