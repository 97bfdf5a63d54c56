package plantstraggler6

const tdSrc = "traces/hta/trace_diff/control/control.json.gz"
const b200Src = "traces/tracelens/b200/eager_trace.json.gz"

func rangeInts(a, b int) []int {
	var out []int
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// meshGroups: all_to_all sharded in two groups of four, all_reduce over all eight.
func meshGroups(kind string, rank int) (string, []int) {
	if kind == "alltoall" {
		if rank < 4 {
			return "a2a_lo", rangeInts(0, 4)
		}
		return "a2a_hi", rangeInts(4, 8)
	}
	return "0", rangeInts(0, 8)
}

var bases6 = map[string]Base{
	"td8": {Name: "td8", Src: []string{tdSrc}, Clones: 8, Jitter: 60, AddArgs: true,
		Note: "A100 TorchRec job (HTA trace_diff control: rank 3 of 8) × 8; 6 steps of 7 all_to_all (SendRecv kernels) + 3 all_reduce, args added from the nccl:* annotations"},
	"td8m": {Name: "td8m", Src: []string{tdSrc}, Clones: 8, Jitter: 60, AddArgs: true, Groups: meshGroups,
		Note: "td8 as a mesh: all_to_all in two groups of four (a2a_lo 0–3, a2a_hi 4–7), all_reduce over all eight"},
	"b8": {Name: "b8", Src: []string{b200Src}, Clones: 8, Jitter: 8,
		Note: "B200 eager decoder (TraceLens b200 eager_trace: rank 0 of 8) × 8; 73 symmetric-memory multimem all-reduces (custom, 25 µs) + 1 NCCL all-gather, one step, compute and collectives on one stream"},
}

type PlantSpec struct {
	Rank   int     `json:"rank"`
	Method string  `json:"method"` // host, longer, extra, slow
	PG     string  `json:"pg"`
	Kind   string  `json:"kind"`
	Index  int     `json:"index"`
	Delta  float64 `json:"delta_us,omitempty"`
	N      int     `json:"n,omitempty"`      // extra: copies
	Factor float64 `json:"factor,omitempty"` // slow: transfer ×
}

type CaseSpec struct {
	Name   string      `json:"name"`
	Base   string      `json:"base"`
	Note   string      `json:"note"`
	Plants []PlantSpec `json:"plants"`
	// Edit changes the planted ranks before they are keyed (a cut trace).
	Edit func(docs []*Doc) `json:"-"`
	// Clock adds a constant (µs) to every time of a rank after the key is
	// computed: a host clock that disagrees, no lateness (the key keeps the true clock).
	Clock map[int]float64 `json:"-"`
	// After changes the ranks once keyed, before they are written (metadata
	// the key used and the trace lacks); it must not mutate shared event maps.
	After func(docs []*Doc) `json:"-"`
	// MinLate: a plant last by this much is expected named (default 500 µs).
	MinLate float64 `json:"-"`
}

// Host, Longer, Extra, Slow: plants for another set's plan.
func Host(r int, pg, kind string, i int, d float64) PlantSpec   { return host(r, pg, kind, i, d) }
func Longer(r int, pg, kind string, i int, d float64) PlantSpec { return longer(r, pg, kind, i, d) }
func Extra(r int, pg, kind string, i, n int) PlantSpec          { return extra(r, pg, kind, i, n) }
func Slow(pg, kind string, i int, f float64) PlantSpec          { return slow(pg, kind, i, f) }

func host(r int, pg, kind string, i int, d float64) PlantSpec {
	return PlantSpec{Rank: r, Method: "host", PG: pg, Kind: kind, Index: i, Delta: d}
}
func longer(r int, pg, kind string, i int, d float64) PlantSpec {
	return PlantSpec{Rank: r, Method: "longer", PG: pg, Kind: kind, Index: i, Delta: d}
}
func extra(r int, pg, kind string, i, n int) PlantSpec {
	return PlantSpec{Rank: r, Method: "extra", PG: pg, Kind: kind, Index: i, N: n}
}
func slow(pg, kind string, i int, f float64) PlantSpec {
	return PlantSpec{Rank: -1, Method: "slow", PG: pg, Kind: kind, Index: i, Factor: f}
}

const a2a, ar, car = "alltoall", "allreduce", "custom_allreduce"

var plan6 = []CaseSpec{
	{Name: "td8_ctrl", Base: "td8", Note: "no plant: seeded jitter only (negative)"},
	{Name: "td8_moving", Base: "td8", Note: "a different rank and cause in each of four steps",
		Plants: []PlantSpec{host(2, "0", ar, 5, 2000), longer(5, "0", a2a, 15, 3000), extra(7, "0", a2a, 23, 40), host(0, "0", a2a, 29, 1000)}},
	{Name: "td8_two_r6_r1", Base: "td8", Note: "two stragglers at once: rank 6's kernel 3 ms longer, rank 1's host 2 ms late, same all_to_all",
		Plants: []PlantSpec{longer(6, "0", a2a, 22, 3000), host(1, "0", a2a, 22, 2000)}},
	{Name: "td8_gemm_vs_extra_r3", Base: "td8", Note: "rank 3: extra kernels (150 × an 8 µs reduce) in step 1010, a 1.5 ms longer CUTLASS GEMM in step 1014",
		Plants: []PlantSpec{extra(3, "0", a2a, 9, 150), longer(3, "0", a2a, 36, 1500)}},
	{Name: "td8_small_r6", Base: "td8", Note: "small host pauses (0.6 and 1.2 ms) at launch-bound collectives",
		Plants: []PlantSpec{host(6, "0", ar, 2, 600), host(6, "0", a2a, 18, 1200)}},
	{Name: "td8_absorbed_r4", Base: "td8", Note: "a 2 ms host pause at an all-reduce launched 4.7 ms before it ran (queued on the NCCL stream): planned as absorbed, but the compute stream is launch-bound and one GPU map per rank carries the pause to the queued all-reduce too (key: last by 1.86 ms)",
		Plants: []PlantSpec{host(4, "0", ar, 0, 2000)}},
	{Name: "td8m_hi_r5", Base: "td8m", Note: "only group a2a_hi slowed: rank 5's kernel 3 ms longer; the global all_reduce that follows waits for the whole group",
		Plants: []PlantSpec{longer(5, "a2a_hi", a2a, 15, 3000)}},
	{Name: "td8m_lo_host_r1", Base: "td8m", Note: "rank 1's host 1.5 ms late at a2a_lo",
		Plants: []PlantSpec{host(1, "a2a_lo", a2a, 29, 1500)}},
	{Name: "b8_ctrl", Base: "b8", Note: "no plant: seeded jitter ≤ 8 µs (negative)"},
	{Name: "b8_host_r3", Base: "b8", Note: "a 0.7 ms host pause at a 25 µs custom all-reduce",
		Plants: []PlantSpec{host(3, "", car, 30, 700)}},
	{Name: "b8_gemm_r6", Base: "b8", Note: "the GEMM before the all-reduce 1 ms longer (compute and collective on one stream)",
		Plants: []PlantSpec{longer(6, "", car, 51, 1000)}},
	{Name: "b8_extra_r1", Base: "b8", Note: "120 extra copies of the 7 µs kernel before the all-reduce",
		Plants: []PlantSpec{extra(1, "", car, 12, 120)}},
	{Name: "b8_ag_r7", Base: "b8", Note: "host 1 ms late at the one NCCL all-gather (pg 3)",
		Plants: []PlantSpec{host(7, "3", "allgather", 0, 1000)}},
	{Name: "b8_two_r2_r5", Base: "b8", Note: "two stragglers in the one step: rank 2 host 0.8 ms at #20, rank 5 GEMM +0.8 ms at #61",
		Plants: []PlantSpec{host(2, "", car, 20, 800), longer(5, "", car, 61, 800)}},
	{Name: "b8_slow", Base: "b8", Note: "slow link: custom all-reduce #40 × 4 (negative)",
		Plants: []PlantSpec{slow("", car, 40, 4)}},
}

// Sixth is the sixth blind set's plan.
var Sixth = &Set{Tool: "tools/plantstraggler6", Bases: bases6, Plan: plan6}

// SourceFiles: the shared traces the named cases of the sixth set are made from.
func SourceFiles(cases []string) []string { return Sixth.SourceFiles(cases) }

// SourceFiles: the shared traces the named cases are made from.
func (s *Set) SourceFiles(cases []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, cs := range s.Plan {
		for _, n := range cases {
			if cs.Name == n {
				for _, f := range s.Bases[cs.Base].Src {
					if !seen[f] {
						seen[f] = true
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}
