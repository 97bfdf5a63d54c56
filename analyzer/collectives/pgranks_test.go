package collectives

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// meshTrace is rank r of a 2 × 2 mesh (TP groups {0,1} {2,3}, DP groups
// {0,2} {1,3}) as PyTorch writes it, without Process Group Name /
// Description: each kernel says its group only by Process Group Ranks.
// withConfig adds distributedInfo.pg_config naming the groups.
func meshTrace(r int, withConfig bool, late map[[2]int]int64) []byte {
	tp := fmt.Sprintf("[%d, %d]", r&^1, r|1)
	dp := fmt.Sprintf("[%d, %d]", r%2, r%2+2)
	info := fmt.Sprintf(`{"backend": "nccl", "rank": %d, "world_size": 4}`, r)
	if withConfig {
		// every rank creates every group in one order (new_group's
		// counter names them 1–4); pg_config lists the rank's own
		info = fmt.Sprintf(`{"backend": "nccl", "rank": %d, "world_size": 4, "pg_config": [`+
			`{"pg_name": "0", "pg_desc": "default_pg", "ranks": [0, 1, 2, 3]}, {"pg_name": "%d", "pg_desc": "tp", "ranks": %s}, {"pg_name": "%d", "pg_desc": "dp", "ranks": %s}]}`,
			r, 1+r/2, tp, 3+r%2, dp)
	}
	var ev []string
	for i := 0; i < 12; i++ {
		for g, ranks := range []string{tp, dp} {
			ts := int64(i)*2000 + int64(g)*1000 + late[[2]int{r, 2*i + g}]
			ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 7, "ts": %d, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": %d, "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 2, "Process Group Ranks": "%s"}}`,
				ts, 100+2*i+g, ranks))
		}
	}
	return []byte(`{"distributedInfo": ` + info + `, "traceEvents": [` + strings.Join(ev, ",\n") + `]}`)
}

func TestMeshByProcessGroupRanks(t *testing.T) {
	for _, withConfig := range []bool{false, true} {
		t.Run(fmt.Sprint("pg_config=", withConfig), func(t *testing.T) {
			// rank 3 late by 300 µs at its 15th collective (DP #7 of {1,3})
			late := map[[2]int]int64{{3, 15}: 300}
			var sums []*Summary
			for r := 0; r < 4; r++ {
				st := trace.NewStore()
				rd := st.NewReader(fmt.Sprintf("rank%d.json", r))
				rd.Write(meshTrace(r, withConfig, late))
				if f := rd.Close(); !f.Complete {
					t.Fatal(f.Problem)
				}
				sums = append(sums, Extract(st, 0, r, 4, callsite.NewJoins(st)))
			}
			res := Match(sums)
			groups := map[string]int{}
			for _, in := range res.Instances {
				groups[in.PG+" "+in.PGDesc]++
				if len(in.Ranks) != 2 {
					t.Fatalf("%s matched %d ranks, want 2", in.Label(), len(in.Ranks))
				}
			}
			want := map[string]int{"ranks 0,1 ": 12, "ranks 2,3 ": 12, "ranks 0,2 ": 12, "ranks 1,3 ": 12}
			if withConfig {
				// pg_config names them
				want = map[string]int{"1 tp": 12, "2 tp": 12, "3 dp": 12, "4 dp": 12}
			}
			if fmt.Sprint(groups) != fmt.Sprint(want) {
				t.Fatalf("groups %v, want %v", groups, want)
			}
			if res.Straggler == nil || *res.Straggler.Rank != 3 {
				t.Fatalf("straggler %+v, want rank 3", res.Straggler)
			}
		})
	}
}

// The real TP=2 pair with its Process Group Name / Description renamed
// away: the group comes back from Process Group Ranks through
// distributedInfo.pg_config, every instance matched as before.
func TestTP2WithoutPGNames(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 158 MB of JSON")
	}
	var sums []*Summary
	for _, rel := range tp2Files {
		doc := fixture.Read(t, rel)
		n := bytes.Count(doc, []byte(`"Process Group Name"`))
		doc = bytes.ReplaceAll(doc, []byte(`"Process Group Name"`), []byte(`"Process Group Nome"`))
		doc = bytes.ReplaceAll(doc, []byte(`"Process Group Description"`), []byte(`"Process Group Descrixxxxx"`))
		if n == 0 {
			t.Fatalf("%s: no Process Group Name to strip", rel)
		}
		st := trace.NewStore()
		rd := st.NewReader(rel)
		rd.Write(doc)
		if f := rd.Close(); !f.Complete {
			t.Fatal(f.Problem)
		}
		var d struct {
			Rank  int `json:"rank"`
			World int `json:"world_size"`
		}
		json.Unmarshal(st.Files[0].Header["distributedInfo"], &d)
		sums = append(sums, Extract(st, 0, d.Rank, d.World, callsite.NewJoins(st)))
	}
	res := Match(sums)
	if len(res.Instances) != 1073 {
		t.Errorf("%d instances, want 1073 (1040 all-reduces + 33 all-gathers)", len(res.Instances))
	}
	for _, in := range res.Instances {
		if in.PG != "0" || in.PGDesc != "default_pg" {
			t.Fatalf("%s: pg %q %q, want 0 default_pg from pg_config", in.Label(), in.PG, in.PGDesc)
		}
	}
}
