package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Bases are real traces read from ../shared/testdata (never copied).
const (
	dlrmGlob = "traces2/param_dlrm_v100_8rank/*.pt.trace.json.gz"
	a100File = "traces/hta/nccl_parser_config/nccl_data.json.gz"
)

// loadBase builds a base job. dlrm: the real 8 × V100 job as written. dmesh: the same ranks as a
// TP × DP mesh (all-reduces #0 and #2 in two TP groups of four, #1 in four DP pairs: the real
// kernels of one 8-rank all-reduce end together, so each group's instance is consistent) with the
// metadata PyTorch writes (`Collective name`, `Process Group Name`/`Ranks`, `Group size`, nelems,
// dtype) added to the all-reduce kernels. a100x4: one real A100 DDP rank made into a 2 × 2 mesh
// of four (all-reduces in DP pairs {0,2},{1,3}, broadcasts in TP pairs {0,1},{2,3}), told apart by
// seeded jitter: every rank's kernel before every collective runs U(0, 60 µs) longer.
func loadBase(shared, base string) (*job, []string, error) {
	switch base {
	case "dlrm", "dmesh":
		files, _ := filepath.Glob(filepath.Join(shared, dlrmGlob))
		if len(files) != 8 {
			return nil, nil, fmt.Errorf("want 8 DLRM ranks under %s, found %d", shared, len(files))
		}
		ranks := make([]*rankTrace, 8)
		names := make([]string, 8)
		for _, f := range files {
			t, err := readTrace(f)
			if err != nil {
				return nil, nil, err
			}
			r := t.rank()
			ranks[r], names[r] = t, filepath.Base(f)
		}
		if base == "dmesh" {
			meshDLRM(ranks)
		}
		return newJob(ranks), names, nil
	case "a100x4":
		ranks := make([]*rankTrace, 4)
		names := make([]string, 4)
		for r := range ranks {
			t, err := readTrace(filepath.Join(shared, a100File))
			if err != nil {
				return nil, nil, err
			}
			meshA100(t, r)
			ranks[r], names[r] = t, fmt.Sprintf("rank%d.nccl_data.json.gz", r)
		}
		j := newJob(ranks)
		rng := rand.New(rand.NewPCG(5, 19))
		// jitter instance by instance in rank 0's issue order
		for i := 0; i < len(j.ops[0]); i++ {
			pg, kind := j.ops[0][i].pg, j.ops[0][i].kind
			idx := 0
			for _, p := range j.ops[0][:i] {
				if p.pg == pg && p.kind == kind {
					idx++
				}
			}
			// the same instance index on every rank of the other mesh half too
			for r := range ranks {
				rp := groupName(kind, r)
				p := &Plant{Method: "longer", Rank: r, PG: rp, Kind: kind, Index: idx, Delta: float64(rng.IntN(60000)) / 1000, Jitter: true}
				if err := j.plant(p); errors.Is(err, errSpan) {
					continue // no jitter where the rank's previous collective still runs
				} else if err != nil {
					return nil, nil, fmt.Errorf("jitter: %w", err)
				}
				if os.Getenv("PS5_DEBUG") != "" {
					for _, in := range j.instances() {
						if in.Transfer < 0 {
							return nil, nil, fmt.Errorf("jitter %+v broke %s", *p, in.id())
						}
					}
				}
			}
		}
		return j, names, nil
	}
	return nil, nil, fmt.Errorf("unknown base %q", base)
}

func setArgs(e *ev, kv map[string]any) {
	a := e.args()
	if a == nil {
		a = map[string]any{}
		e.m["args"] = a
	}
	for k, v := range kv {
		a[k] = v
	}
}

func meshDLRM(ranks []*rankTrace) {
	nelems := []int{262144, 65536, 1048576}
	for r, t := range ranks {
		i := 0
		for _, o := range collOps(t) {
			if o.kind != "allreduce" {
				continue
			}
			pg, members, desc := fmt.Sprintf("tp_%c", 'a'+r/4), fmt.Sprintf("[%d, %d, %d, %d]", r/4*4, r/4*4+1, r/4*4+2, r/4*4+3), "tp"
			size := 4
			if i == 1 {
				pg, members, desc, size = fmt.Sprintf("dp%d", r%4), fmt.Sprintf("[%d, %d]", r%4, r%4+4), "dp", 2
			}
			setArgs(o.k, map[string]any{"Collective name": "allreduce", "Process Group Name": pg,
				"Process Group Ranks": members, "Process Group Description": desc, "Group size": json.Number(fmt.Sprint(size)),
				"In msg nelems": json.Number(fmt.Sprint(nelems[i])), "Out msg nelems": json.Number(fmt.Sprint(nelems[i])), "dtype": "Float"})
			i++
		}
		di, _ := t.doc["distributedInfo"].(map[string]any)
		di["pg_config"] = meshConfig([][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, []string{"tp_a", "tp_b"}, "tp",
			[][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, []string{"dp0", "dp1", "dp2", "dp3"}, "dp")
	}
}

func meshConfig(g1 [][]int, n1 []string, d1 string, g2 [][]int, n2 []string, d2 string) []any {
	var out []any
	add := func(gs [][]int, ns []string, d string) {
		for i, g := range gs {
			rs := make([]any, len(g))
			for k, r := range g {
				rs[k] = json.Number(fmt.Sprint(r))
			}
			out = append(out, map[string]any{"pg_name": ns[i], "pg_desc": d, "backend_config": "cuda:nccl",
				"pg_size": json.Number(fmt.Sprint(len(g))), "ranks": rs})
		}
	}
	add(g1, n1, d1)
	add(g2, n2, d2)
	return out
}

// groupName is rank r's group for a kind in the A100 mesh.
func groupName(kind string, r int) string {
	if kind == "broadcast" {
		return fmt.Sprintf("tp%d", r/2)
	}
	return fmt.Sprintf("dp%d", r%2)
}

func meshA100(t *rankTrace, r int) {
	di, _ := t.doc["distributedInfo"].(map[string]any)
	di["rank"] = json.Number(fmt.Sprint(r))
	di["world_size"] = json.Number("4")
	di["pg_count"] = json.Number("4")
	di["pg_config"] = meshConfig([][]int{{0, 2}, {1, 3}}, []string{"dp0", "dp1"}, "dp", [][]int{{0, 1}, {2, 3}}, []string{"tp0", "tp1"}, "tp")
	for _, e := range t.evs {
		if !e.gpu {
			if n, ok := e.m["pid"].(json.Number); ok {
				p, _ := n.Int64()
				if p > 100 {
					e.m["pid"] = json.Number(fmt.Sprint(p + int64(r)))
				}
			}
		}
		kind := e.argStr("Collective name")
		if kind == "" || (e.cat() != "kernel" && e.name() != "record_param_comms") {
			continue
		}
		kind = strings.ReplaceAll(strings.ToLower(kind), "_", "")
		pg := groupName(kind, r)
		var members []int
		if kind == "broadcast" {
			members = []int{r / 2 * 2, r/2*2 + 1}
		} else {
			members = []int{r % 2, r%2 + 2}
		}
		sort.Ints(members)
		setArgs(e, map[string]any{"Process Group Name": pg, "Process Group Ranks": fmt.Sprintf("[%d, %d]", members[0], members[1]),
			"Process Group Description": pg[:2], "Group size": json.Number("2")})
	}
}
