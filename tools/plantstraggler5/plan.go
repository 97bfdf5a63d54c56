package main

// Case is one planted (or unplanted) job.
type Case struct {
	Name   string   `json:"name"`
	Base   string   `json:"base"`
	Note   string   `json:"note"`
	Plants []*Plant `json:"plants"`
}

// plan: shapes the first four blind sets did not cover — stragglers in a second process group of
// a TP × DP mesh, a straggler that moves between ranks across steps, a rank late at one layer
// only, GPU-bound (longer or extra kernels, named) against host-bound (late launch), two late
// ranks in one instance (the later one is last), two in one step in different groups, slow links
// (long transfer, no skew) on a µs-scale send/recv and on all-reduces, a late rank at a µs-scale
// collective, and unplanted controls (natural or seeded jitter only).
var plan = []Case{
	{Name: "dlrm_ctrl", Base: "dlrm", Note: "no plant: the real job"},
	{Name: "dlrm_us_host_r2_sr2", Base: "dlrm", Note: "rank 2's host pauses 0.9 ms at the launch of send/recv #2, a 7 µs transfer",
		Plants: []*Plant{{Method: "host", Rank: 2, Kind: "sendrecv", Index: 2, Delta: 900}}},
	{Name: "dlrm_us_slow_sr3", Base: "dlrm", Note: "send/recv #3's transfer (6 µs) 10× longer on every rank: no one late",
		Plants: []*Plant{{Method: "slowlink", Rank: -1, Kind: "sendrecv", Index: 3, Factor: 10}}},
	{Name: "dlrm_extra_r4_sr1", Base: "dlrm", Note: "two extra copies of the kernel before send/recv #1 run on rank 4's GPU (3 ms)",
		Plants: []*Plant{{Method: "extra", Rank: 4, Kind: "sendrecv", Index: 1, Delta: 3000, Copies: 2}}},
	{Name: "dlrm_two_r1_r5_ar1", Base: "dlrm", Note: "two late ranks at all-reduce #1: rank 1's host 2 ms late, rank 5's kernel before 3.5 ms longer (last)",
		Plants: []*Plant{{Method: "host", Rank: 1, Kind: "allreduce", Index: 1, Delta: 2000},
			{Method: "longer", Rank: 5, Kind: "allreduce", Index: 1, Delta: 3500}}},

	{Name: "dmesh_ctrl", Base: "dmesh", Note: "no plant: the real job as a TP × DP mesh"},
	{Name: "dmesh_tpb_host_r6", Base: "dmesh", Note: "second TP group: rank 6's host pauses 2.5 ms at tp_b all-reduce #1",
		Plants: []*Plant{{Method: "host", Rank: 6, PG: "tp_b", Kind: "allreduce", Index: 1, Delta: 2500}}},
	{Name: "dmesh_dp3_longer_r7", Base: "dmesh", Note: "DP pair {3,7}: rank 7's kernel before dp3 all-reduce #0 runs 1.5 ms longer",
		Plants: []*Plant{{Method: "longer", Rank: 7, PG: "dp3", Kind: "allreduce", Index: 0, Delta: 1500}}},
	{Name: "dmesh_slow_tpa", Base: "dmesh", Note: "tp_a all-reduce #1's transfer 3× longer on ranks 0-3: no one late",
		Plants: []*Plant{{Method: "slowlink", Rank: -1, PG: "tp_a", Kind: "allreduce", Index: 1, Factor: 3}}},

	{Name: "a100x4_ctrl", Base: "a100x4", Note: "no plant: seeded jitter only"},
	{Name: "a100x4_moving", Base: "a100x4", Note: "the straggler moves: rank 1 (host, step 4), rank 2 (GPU, step 5), rank 3 (host, step 6), 3 ms each",
		Plants: []*Plant{{Method: "host", Rank: 1, PG: "dp1", Kind: "allreduce", Index: 2, Delta: 3000},
			{Method: "longer", Rank: 2, PG: "dp0", Kind: "allreduce", Index: 7, Delta: 3000},
			{Method: "host", Rank: 3, PG: "dp1", Kind: "allreduce", Index: 12, Delta: 3000}}},
	{Name: "a100x4_layer_r3", Base: "a100x4", Note: "rank 3 late at one layer only: its kernel before dp1 all-reduce #8 runs 2.5 ms longer",
		Plants: []*Plant{{Method: "longer", Rank: 3, PG: "dp1", Kind: "allreduce", Index: 8, Delta: 2500}}},
	{Name: "a100x4_bcast_tp1_r2", Base: "a100x4", Note: "second TP group: rank 2's host pauses 2 ms at tp1 broadcast #4",
		Plants: []*Plant{{Method: "host", Rank: 2, PG: "tp1", Kind: "broadcast", Index: 4, Delta: 2000}}},
	{Name: "a100x4_two_groups", Base: "a100x4", Note: "two late ranks in step 6, one per DP group: rank 1's host 2 ms at dp1 #10, rank 2's kernel 4 ms longer at dp0 #10",
		Plants: []*Plant{{Method: "host", Rank: 1, PG: "dp1", Kind: "allreduce", Index: 10, Delta: 2000},
			{Method: "longer", Rank: 2, PG: "dp0", Kind: "allreduce", Index: 10, Delta: 4000}}},
	{Name: "a100x4_slow_dp0", Base: "a100x4", Note: "dp0 all-reduce #13's transfer 3× longer: no one late",
		Plants: []*Plant{{Method: "slowlink", Rank: -1, PG: "dp0", Kind: "allreduce", Index: 13, Factor: 3}}},
}
