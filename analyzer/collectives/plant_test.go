package collectives

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// A planted straggler: real rank traces with one rank made late at chosen
// collectives (testdata/plantkey.py's rule, applied here to the same
// bytes), then the cross-rank view must name the planted rank at each
// planted step and collective, and every instance's skew, wait and busbw
// must be within 2 % of plantkey.py's independent computation (its key,
// testdata/*.plant.key.json, holds the spec it planted).
func TestPlantedStragglerRealTraces(t *testing.T) {
	for _, c := range []struct {
		key   string
		files []string
		long  bool
	}{
		{"dlrm.plant.key.json", dlrmFiles(t), false},
		// two ranks miss an instance each: order matching must realign, not shift
		{"dlrm_drop.plant.key.json", dlrmFiles(t), false},
		// a TP × DP mesh: the all-reduces in two process groups of four
		// ranks, the straggler in the non-default one
		{"dlrm_mesh.plant.key.json", dlrmFiles(t), false},
		{"tp2.plant.key.json", tp2Files, true},
		// 5–5.5 ms stalls, below the natural skew of the step they are in
		// (rank 0 arrives 4.5 ms late at #616 unplanted): named only
		// against each rank's usual arrival offset
		{"tp2_stall1.plant.key.json", tp2Files, true},
		{"tp2_stall0.plant.key.json", tp2Files, true},
	} {
		t.Run(c.key, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("reads 158 MB of JSON")
			}
			var key plantKey
			b, err := os.ReadFile(filepath.Join("testdata", c.key))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &key); err != nil {
				t.Fatal(err)
			}
			var sums []*Summary
			for _, rel := range c.files {
				doc := plant(t, decodePlant(t, rel), key.Spec)
				st := trace.NewStore()
				r := st.NewReader(rel)
				r.Write(doc)
				if f := r.Close(); !f.Complete {
					t.Fatalf("%s planted: %s", rel, f.Problem)
				}
				var d struct {
					Rank  int `json:"rank"`
					World int `json:"world_size"`
				}
				json.Unmarshal(st.Files[0].Header["distributedInfo"], &d)
				s := Extract(st, 0, d.Rank, d.World, callsite.NewJoins(st))
				if base, err := strconv.ParseInt(strings.Trim(string(st.Files[0].Header["baseTimeNanoseconds"]), `" `), 10, 64); err == nil {
					s.ClockBase = base
				}
				sums = append(sums, s)
			}
			res := Match(sums)
			checkKey(t, res, &key)
		})
	}
}

var tp2Files = []string{"gpu/traces/tp_rank0.trace.json.gz", "gpu/traces/tp_rank1.trace.json.gz"}

type plantSpec struct {
	Rank    int       `json:"rank"`
	DelayUS int64     `json:"delay_us"`
	At      []plantAt `json:"at"`
	// Drop: the rank's instance is removed after planting (a lost event,
	// a cut trace).
	// Args: before planting, the ranks' collectives of a kind get these
	// kernel args (a TP × DP mesh: Collective name, Process Group Name,
	// Group size).
	Args []struct {
		Ranks []int                      `json:"ranks"`
		Kind  string                     `json:"kind"`
		Set   map[string]json.RawMessage `json:"set"`
	} `json:"args"`
	Drop []struct {
		Rank int `json:"rank"`
		plantAt
	} `json:"drop"`
}

type plantAt struct {
	PG    string `json:"pg"`
	Kind  string `json:"kind"`
	Index int    `json:"index"`
}

type plantKey struct {
	Spec      plantSpec `json:"spec"`
	Straggler int       `json:"straggler_rank"`
	Instances []struct {
		PG       string             `json:"pg"`
		Kind     string             `json:"kind"`
		Index    int                `json:"index"`
		Skew     float64            `json:"skew_us"`
		Last     int                `json:"last_rank"`
		Wait     map[string]float64 `json:"wait_us"`
		Transfer float64            `json:"transfer_us"`
		BusBW    *float64           `json:"busbw_gbps"`
	} `json:"instances"`
}

func checkKey(t *testing.T, res *Result, key *plantKey) {
	t.Helper()
	us := func(u US) float64 { f, _ := strconv.ParseFloat(u.String(), 64); return f }
	// within 2 %, or 2 ns for values near zero (the key's rounding)
	near := func(got, want float64) bool {
		return math.Abs(got-want) <= 0.002 || math.Abs(got-want) <= 0.02*math.Abs(want)
	}
	find := func(pg, kind string, index int) *Instance {
		for i := range res.Instances {
			if in := &res.Instances[i]; in.PG == pg && in.Kind == kind && in.Index == index {
				return in
			}
		}
		return nil
	}
	if len(res.Instances) != len(key.Instances) {
		t.Errorf("%d instances, the key has %d", len(res.Instances), len(key.Instances))
	}
	for _, k := range key.Instances {
		in := find(k.PG, k.Kind, k.Index)
		if in == nil {
			t.Errorf("%s #%d (pg %q) not matched", k.Kind, k.Index, k.PG)
			continue
		}
		if !near(us(in.Skew), k.Skew) || !near(us(in.Transfer), k.Transfer) {
			t.Errorf("%s: skew %s transfer %s, key %.3f %.3f", in.Label(), in.Skew, in.Transfer, k.Skew, k.Transfer)
		}
		if k.Skew > 1 && in.LastRank != k.Last {
			t.Errorf("%s: last rank %d, key %d", in.Label(), in.LastRank, k.Last)
		}
		for _, r := range in.Ranks {
			if w, ok := k.Wait[strconv.Itoa(r.Rank)]; !ok || !near(us(r.Wait), w) {
				t.Errorf("%s: rank %d waits %s, key %.3f", in.Label(), r.Rank, r.Wait, w)
			}
		}
		switch {
		case k.BusBW == nil && in.BusBW != nil, k.BusBW != nil && in.BusBW == nil:
			t.Errorf("%s: busbw %v, key %v", in.Label(), in.BusBW, k.BusBW)
		case k.BusBW != nil && math.Abs(*in.BusBW-*k.BusBW) > 0.02**k.BusBW:
			t.Errorf("%s: busbw %.3f GB/s, key %.3f", in.Label(), *in.BusBW, *k.BusBW)
		}
	}
	// the planted rank is last at every planted collective, and the step
	// holding it names that rank and that collective
	late := key.Spec.Rank
	for _, at := range key.Spec.At {
		in := find(at.PG, at.Kind, at.Index)
		if in == nil {
			t.Fatalf("planted %s #%d not matched", at.Kind, at.Index)
		}
		if in.LastRank != late || us(in.Skew) < float64(key.Spec.DelayUS)/2 {
			t.Errorf("planted %s: last rank %d skew %s, want rank %d, ≥ %d µs", in.Label(), in.LastRank, in.Skew, late, key.Spec.DelayUS/2)
		}
		i := slices.IndexFunc(res.Steps, func(s StepRow) bool { return s.Step == in.Step })
		if i < 0 {
			t.Errorf("planted %s: step %q has no row", in.Label(), in.Step)
		} else if s := res.Steps[i]; s.StragglerRank != late || s.Collective != in.Label() {
			t.Errorf("step %s: straggler %d at %s, planted rank %d at %s", s.Step, s.StragglerRank, s.Collective, late, in.Label())
		} else if s.WorstSkew < in.Skew || s.WorstSkew == in.Skew && (s.WorstRank != late || s.WorstCollective != in.Label()) {
			t.Errorf("step %s: largest skew %s (rank %d at %s), planted %s at %s", s.Step, s.WorstSkew, s.WorstRank, s.WorstCollective, in.Skew, in.Label())
		}
	}
	// every stall is a planted one, and every planted instance with a
	// baseline (enough neighbours) is a stall
	for _, st := range res.Stalls {
		if st.Rank != late || !slices.ContainsFunc(key.Spec.At, func(a plantAt) bool { return a.PG == st.PG && a.Kind == st.Kind && a.Index == st.Index }) {
			t.Errorf("false stall: %s", st.text())
		}
	}
	for _, at := range key.Spec.At {
		if in := find(at.PG, at.Kind, at.Index); in != nil && in.Excess != nil && !in.Stall {
			t.Errorf("planted %s: excess %s over rank %d's usual %s, not a stall", in.Label(), *in.Excess, in.LastRank, *in.Usual)
		}
	}
	if s := res.Straggler; s == nil || s.Rank == nil || *s.Rank != key.Straggler {
		t.Errorf("straggler %+v, key rank %d", s, key.Straggler)
	}
}

// plantTrace is one rank trace decoded once for every spec planted into
// it (decoding 80 MB of events dominates a plant).
type plantTrace struct {
	top    map[string]json.RawMessage
	rank   int
	raw    []json.RawMessage
	launch map[int64]int64
	ops    []plantOp
}

type plantOp struct {
	i         int
	m, args   map[string]json.RawMessage
	ts, dur   int64
	name, cat string
}

var plantCache sync.Map // fixture path -> *plantTrace

func decodePlant(t *testing.T, rel string) *plantTrace {
	t.Helper()
	if p, ok := plantCache.Load(rel); ok {
		return p.(*plantTrace)
	}
	p := &plantTrace{launch: map[int64]int64{}}
	if err := json.Unmarshal(fixture.Read(t, rel), &p.top); err != nil {
		t.Fatal(err)
	}
	var info struct {
		Rank int `json:"rank"`
	}
	json.Unmarshal(p.top["distributedInfo"], &info)
	p.rank = info.Rank
	if err := json.Unmarshal(p.top["traceEvents"], &p.raw); err != nil {
		t.Fatal(err)
	}
	var head struct {
		Cat  string `json:"cat"`
		Ph   string `json:"ph"`
		Name string `json:"name"`
		Ts   json.Number
		Args struct {
			Corr *int64 `json:"correlation"`
		} `json:"args"`
	}
	for i, e := range p.raw {
		head.Cat, head.Ph, head.Name, head.Ts, head.Args.Corr = "", "", "", "", nil
		if json.Unmarshal(e, &head) != nil {
			continue
		}
		c := head.Cat
		if strings.HasSuffix(c, "_runtime") || strings.HasSuffix(c, "_driver") || c == "runtime" || c == "driver" {
			if head.Args.Corr != nil {
				if _, ok := p.launch[*head.Args.Corr]; !ok {
					p.launch[*head.Args.Corr] = ns(t, head.Ts.String())
				}
			}
			continue
		}
		if head.Ph != "X" || c != "kernel" && c != "gpu_memcpy" && c != "gpu_memset" {
			continue
		}
		op := plantOp{i: i, name: head.Name, cat: c}
		json.Unmarshal(e, &op.m)
		op.ts, op.dur = ns(t, string(op.m["ts"])), ns(t, string(op.m["dur"]))
		json.Unmarshal(op.m["args"], &op.args)
		p.ops = append(p.ops, op)
	}
	plantCache.Store(rel, p)
	return p
}

// plant applies plantkey.py's rule to one rank's trace: see its docstring.
// The decoded trace is shared: what a plant changes is copied first.
func plant(t *testing.T, p *plantTrace, spec plantSpec) []byte {
	t.Helper()
	top := maps.Clone(p.top)
	raw := slices.Clone(p.raw)
	info := struct{ Rank int }{p.rank}
	launch := p.launch
	type gpuOp struct {
		i       int // index in raw
		m       map[string]json.RawMessage
		ts, dur int64 // ns
		coll    bool
		key     string // pg + "\x00" + kind, collectives only
		issue   int64
	}
	var ops, setArgs []*gpuOp
	for _, po := range p.ops {
		op := &gpuOp{i: po.i, m: po.m, ts: po.ts, dur: po.dur}
		args := po.args
		l := strings.ToLower(po.name)
		if po.cat == "kernel" && (strings.Contains(l, "nccl") || strings.Contains(l, "rccl") || args["Collective name"] != nil) {
			op.coll = true
			var coll, pg string
			json.Unmarshal(args["Collective name"], &coll)
			json.Unmarshal(args["Process Group Name"], &pg)
			kind := kindOfArg(coll)
			if kind == "" {
				kind = kindOfKernel(po.name)
			}
			// spec.Args: the rank's collectives of a kind join a process group
			for _, a := range spec.Args {
				if a.Kind == kind && slices.Contains(a.Ranks, info.Rank) {
					args = maps.Clone(args)
					for k, v := range a.Set {
						args[k] = v
					}
					op.m = maps.Clone(op.m)
					op.m["args"], _ = json.Marshal(args)
					setArgs = append(setArgs, op)
					coll, pg = "", ""
					json.Unmarshal(args["Collective name"], &coll)
					json.Unmarshal(args["Process Group Name"], &pg)
					if kind = kindOfArg(coll); kind == "" {
						kind = kindOfKernel(po.name)
					}
				}
			}
			op.key = pg + "\x00" + kind
			op.issue = op.ts
		}
		ops = append(ops, op)
	}
	// launches may follow their kernels in the file: a second pass
	for _, op := range ops {
		if op.coll {
			var args struct {
				Corr *int64 `json:"correlation"`
			}
			json.Unmarshal(op.m["args"], &args)
			if args.Corr != nil {
				if l, ok := launch[*args.Corr]; ok {
					op.issue = l
				}
			}
		}
	}
	byKey := map[string][]*gpuOp{}
	for _, op := range ops {
		if op.coll {
			byKey[op.key] = append(byKey[op.key], op)
		}
	}
	for _, ks := range byKey {
		slices.SortStableFunc(ks, func(a, b *gpuOp) int {
			if a.issue != b.issue {
				return cmpInt(a.issue, b.issue)
			}
			return cmpInt(a.ts, b.ts)
		})
	}
	delay := spec.DelayUS * 1000
	changed := map[*gpuOp]bool{}
	for _, op := range setArgs {
		changed[op] = true
	}
	for _, at := range spec.At {
		ks := byKey[at.PG+"\x00"+at.Kind]
		if len(ks) == 0 {
			continue // the rank is not in that group
		}
		if at.Index >= len(ks) {
			t.Fatalf("rank %d has no %s #%d", info.Rank, at.Kind, at.Index)
		}
		c := ks[at.Index]
		if info.Rank == spec.Rank {
			prev, havePrev := int64(0), false
			for _, op := range ops {
				if op.coll && op.ts < c.ts && (!havePrev || op.ts > prev) {
					prev, havePrev = op.ts, true
				}
			}
			t0, have := int64(0), false
			for _, op := range ops {
				if !op.coll && op.ts < c.ts && (!havePrev || op.ts > prev) && (!have || op.ts > t0) && string(op.m["cat"]) == `"kernel"` {
					t0, have = op.ts, true
				}
			}
			if !have {
				t0 = c.ts
			}
			for _, op := range ops {
				if op.ts >= t0 {
					op.ts += delay
					changed[op] = true
				}
			}
		} else {
			t0 := c.ts
			for _, op := range ops {
				if op.ts > t0 {
					op.ts += delay
					changed[op] = true
				}
			}
			c.dur += delay
			changed[c] = true
		}
	}
	dropped := map[int]bool{}
	for _, d := range spec.Drop {
		if d.Rank == info.Rank {
			dropped[byKey[d.PG+"\x00"+d.Kind][d.Index].i] = true
		}
	}
	for op := range changed {
		op.m = maps.Clone(op.m)
		op.m["ts"] = json.RawMessage(usText(op.ts))
		op.m["dur"] = json.RawMessage(usText(op.dur))
		b, err := json.Marshal(op.m)
		if err != nil {
			t.Fatal(err)
		}
		raw[op.i] = b
	}
	kept := raw[:0]
	for i, e := range raw {
		if !dropped[i] {
			kept = append(kept, e)
		}
	}
	evs, _ := json.Marshal(kept)
	top["traceEvents"] = evs
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// ns reads a JSON µs number exactly (Kineto writes at most 3 decimals).
func ns(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		t.Fatalf("time %s: more than 3 decimals", s)
	}
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("time %q", s)
	}
	return w*1000 + f
}

func usText(n int64) string {
	return strconv.FormatInt(n/1000, 10) + "." + strconv.FormatInt(1000+n%1000, 10)[1:]
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
