// Package plantstraggler7 is the seventh blind planted-straggler set of issue 19
// (testdata/straggler-blind7/README.md): a 16-rank A100 TorchRec job made from one
// real rank of a 16-rank run, with three process groups (all_to_all, reduce_scatter +
// all_gather, all_reduce), planted, keyed and scored by tools/plantstraggler6's
// library (monotone host and GPU clock maps, the key from the written files).
package plantstraggler7

import (
	"math"
	"sort"

	ps "github.com/gputriage/gputriage/tools/plantstraggler6"
)

const nqSrc = "traces/hta/negative_queue_length_values_check/rank0.json.gz"

const world = 16

// pgOfStream: the real rank's three NCCL streams are three process groups
// (PyTorch gives each group its own stream): the KJT all_to_alls and the DDP
// all_reduces on 84, the sharded embeddings' reduce_scatter/all_gather on 285,
// the pooled embeddings' all_to_alls on 363.
var pgOfStream = map[float64][2]string{
	84:  {"0", "default_pg"},
	285: {"1", "embedding_rs_ag"},
	363: {"2", "pooled_embedding_a2a"},
}

// prepare writes what a recent PyTorch records on each collective: its group
// (name, description, ranks) and, for reduce_scatter / all_gather, the input and
// output counts of a 16-way split (the annotation holds one tensor: the whole).
func prepare(seq bool) func(int, *ps.Doc) {
	return func(rank int, d *ps.Doc) {
		all := make([]int, world)
		for i := range all {
			all[i] = i
		}
		next := map[string]int{}
		for _, e := range ps.CollsInIssueOrder(d) {
			a := ps.Args(e)
			pg, ok := pgOfStream[ps.Num(a["stream"])]
			if !ok || ps.Str(a["Collective name"]) == "" {
				continue // no launch in the window: no args
			}
			a["Process Group Name"] = pg[0]
			a["Process Group Description"] = pg[1]
			a["Process Group Ranks"] = all
			a["Group size"] = world
			n := ps.Num(a["In msg nelems"])
			switch ps.Str(a["Collective name"]) {
			case "_reduce_scatter_base":
				a["Out msg nelems"] = int64(n / world)
			case "_all_gather_base":
				a["In msg nelems"] = int64(n / world)
			}
			if seq {
				a["Seq"] = next[pg[0]]
				next[pg[0]]++
			}
		}
	}
}

// cutBefore: the rank's trace starts at its first step's end (its profiler
// started a step later): every event before is gone, metadata kept.
func cutBefore(rank int) func([]*ps.Doc) {
	return func(docs []*ps.Doc) {
		d := docs[rank]
		var steps []float64
		for _, e := range d.Events() {
			if n := ps.Str(e["name"]); len(n) > 13 && n[:13] == "ProfilerStep#" {
				steps = append(steps, ps.Num(e["ts"]))
			}
		}
		sort.Float64s(steps)
		T := steps[1]
		var kept []map[string]any
		for _, e := range d.Events() {
			if t := ps.Num(e["ts"]); ps.Str(e["ph"]) != "M" && !math.IsNaN(t) && t < T {
				continue
			}
			kept = append(kept, e)
		}
		d.SetEvents(kept)
	}
}

// stripSeq: the trace as an older PyTorch writes it (no Seq); the key matched
// by Seq. New event maps, so the base's cached events keep theirs.
func stripSeq(docs []*ps.Doc) {
	for _, d := range docs {
		ev := make([]map[string]any, len(d.Events()))
		for i, e := range d.Events() {
			ev[i] = e
			a, ok := e["args"].(map[string]any)
			if _, has := a["Seq"]; !ok || !has {
				continue
			}
			c := map[string]any{}
			for k, v := range e {
				c[k] = v
			}
			ca := map[string]any{}
			for k, v := range a {
				if k != "Seq" {
					ca[k] = v
				}
			}
			c["args"] = ca
			ev[i] = c
		}
		d.SetEvents(ev)
	}
}

func ranksFrom(a, b int, off float64) map[int]float64 {
	m := map[int]float64{}
	for r := a; r < b; r++ {
		m[r] = off
	}
	return m
}

var bases = map[string]ps.Base{
	"nq16": {Name: "nq16", Src: []string{nqSrc}, Clones: world, Jitter: 60, JitterMaxQueue: 1000, AddArgs: true, Prepare: prepare(false),
		Note: "A100 TorchRec job (HTA negative_queue_length rank 0 of 16) × 16; 5 steps of 9 all_to_all, 2 reduce_scatter, 2 all_gather, 2 all_reduce over three process groups, no Seq"},
	"nq16s": {Name: "nq16s", Src: []string{nqSrc}, Clones: world, Jitter: 60, JitterMaxQueue: 1000, AddArgs: true, Prepare: prepare(true),
		Note: "nq16 with PyTorch's Seq per process group"},
}

const a2a, ar, rs, ag = "alltoall", "allreduce", "reducescatter", "allgather"

var h, lo, ex, sl = ps.Host, ps.Longer, ps.Extra, ps.Slow

var plan = []ps.CaseSpec{
	{Name: "nq16_ctrl", Base: "nq16", Note: "no plant: seeded jitter ≤ 60 µs on 16 ranks (negative)"},
	{Name: "nq16_host_a2a_r13", Base: "nq16", Note: "rank 13's host 2.5 ms late at the step's first all_to_all (queue ≈ 0.7 ms)",
		Plants: []ps.PlantSpec{h(13, "0", a2a, 15, 2500)}},
	{Name: "nq16_rs_longer_r11", Base: "nq16", Note: "rank 11's kernel before a reduce_scatter (pg 1) 2 ms longer (GPU slowdown)",
		Plants: []ps.PlantSpec{lo(11, "1", rs, 4, 2000)}},
	{Name: "nq16_two_steps_r3_r12", Base: "nq16", Note: "two stragglers in different steps and groups: rank 3's host 2 ms at pg 0 all_to_all #5, rank 12's kernel 1.5 ms longer at pg 2 all_to_all #13",
		Plants: []ps.PlantSpec{h(3, "0", a2a, 5, 2000), lo(12, "2", a2a, 13, 1500)}},
	{Name: "nq16_alternate_r6_r9", Base: "nq16", Note: "ranks 6 and 9 alternate step by step: the kernel before the step's first all_reduce 1.2 ms longer",
		Plants: []ps.PlantSpec{lo(6, "0", ar, 0, 1200), lo(9, "0", ar, 2, 1200), lo(6, "0", ar, 4, 1200), lo(9, "0", ar, 6, 1200), lo(6, "0", ar, 8, 1200)}},
	{Name: "nq16_small_every_r7", Base: "nq16", MinLate: 250, Note: "rank 7 late by a little (0.35 ms kernel) at pg 1's second reduce_scatter of every step, against ≤ 60 µs jitter",
		Plants: []ps.PlantSpec{lo(7, "1", rs, 1, 350), lo(7, "1", rs, 3, 350), lo(7, "1", rs, 5, 350), lo(7, "1", rs, 7, 350), lo(7, "1", rs, 9, 350)}},
	{Name: "nq16_node_clock_r11", Base: "nq16", Clock: ranksFrom(8, 16, 1500), Note: "second node 1.5 ms ahead; rank 11's host 2 ms late at pg 0 all_to_all #10",
		Plants: []ps.PlantSpec{h(11, "0", a2a, 10, 2000)}},
	{Name: "nq16_ag_extra_r4", Base: "nq16", Note: "200 extra copies of rank 4's kernel before an all_gather (pg 1)",
		Plants: []ps.PlantSpec{ex(4, "1", ag, 2, 200)}},
	{Name: "nq16_absorbed_r2", Base: "nq16", Note: "rank 2's host 3 ms late at a reduce_scatter launched ≈ 190 ms ahead of its kernel: absorbed by the GPU queue (key decides)",
		Plants: []ps.PlantSpec{h(2, "1", rs, 6, 3000)}},
	{Name: "nq16_node_behind_r5", Base: "nq16", Clock: ranksFrom(8, 16, -900), Note: "second node 0.9 ms behind; rank 5 (first node) kernel 1.5 ms longer at pg 2 all_to_all #6",
		Plants: []ps.PlantSpec{lo(5, "2", a2a, 6, 1500)}},
	{Name: "nq16_node_clock", Base: "nq16", Clock: ranksFrom(8, 16, 1500), Note: "the second node's clock (ranks 8–15) 1.5 ms ahead, no plant (negative)"},
	{Name: "nq16_slow_ag", Base: "nq16", Note: "slow link: pg 1 all_gather #5 transfer × 4 (negative)",
		Plants: []ps.PlantSpec{sl("1", ag, 5, 4)}},
	{Name: "nq16s_cut_r5", Base: "nq16s", Edit: cutBefore(5), Note: "Seq recorded; rank 5's trace starts a step late (its first step's collectives missing); rank 5's kernel 2 ms longer at pg 2 all_to_all #9",
		Plants: []ps.PlantSpec{lo(5, "2", a2a, 9, 2000)}},
	{Name: "nq16_cut_r5", Base: "nq16s", Edit: cutBefore(5), After: stripSeq, Note: "the same written without Seq (order fallback with a cut trace; keyed by the Seq it had)",
		Plants: []ps.PlantSpec{lo(5, "2", a2a, 9, 2000)}},
}

// Seventh is the seventh set.
var Seventh = &ps.Set{Tool: "tools/plantstraggler7", Bases: bases, Plan: plan}
