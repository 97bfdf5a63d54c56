package main

// The fifth sweep (issue 24's larger hidden acceptance): the structures added
// after the first four — several ranks of one job (process group names and
// descriptions, pg_config, rank ids, clock bases, collective names and
// dtypes, per-rank step annotations, thousands of ranks, groups and
// collectives), gputriage extract and ranks (forged rank_summary.json files,
// many of them, big ones, special files named like one), diff of multi-rank
// runs, rocpd databases with hostile strings in every table, huge tables and
// malformed pages, and crash logs whose catalogued names (CUDA/HIP/NCCL/XLA/
// TF errors), hosts, BDFs, pids and paths carry breakouts, with huge counts.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

var (
	pMarkupAll = pMarkup + "\n" + pMarkup3 + "\n" + pMarkup4
	pTermAll   = pTerm + pTerm3 + pTerm4
	pShellAll  = pShell + pShell3[0] + pShell3[7] + pShell4[0] + pShell4[3] + pShell4[10]
)

// rankTrace is one rank's Kineto trace: n steps, each a compute kernel and an
// all-reduce in a process group, with the given names substituted.
// rank and base are raw JSON (so 2^63, -1, 1.5, "0" can be written).
func rankTrace(rank, base string, n int, names map[string]string) []byte {
	get := func(k, d string) string {
		if v, ok := names[k]; ok {
			return d + v
		}
		return d
	}
	q := jsonString
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":%s,"totalGlobalMem":206141652992,"computeMajor":9,"computeMinor":4,"warpSize":64,"numSms":304}],`, q(get("device", "AMD Instinct MI300X")))
	fmt.Fprintf(&b, `"distributedInfo":{"backend":%s,"rank":%s,"world_size":2,"pg_count":2,"pg_config":[{"pg_name":%s,"pg_desc":%s,"ranks":[0,1]}],"nccl_version":%s},`,
		q(get("backend", "nccl")), rank, q(get("pgcfg", "0")), q(get("pgcfg", "default_pg")), q(get("backend", "2.21.5")))
	fmt.Fprintf(&b, `"baseTimeNanoseconds":%s,"traceEvents":[`, base)
	for i := 0; i < n; i++ {
		ts := 1000 + i*100
		if i > 0 {
			b.WriteByte(',')
		}
		step := get("annotation", fmt.Sprintf("ProfilerStep#%d", i))
		if names["annotation-rank"] != "" && rank != "0" {
			step = fmt.Sprintf("ProfilerStep#%d", i) + names["annotation-rank"]
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":%s,"pid":251,"tid":251,"ts":%d,"dur":95}`, q(step), ts)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"cpu_op","name":"c10d::allreduce_","pid":251,"tid":251,"ts":%d,"dur":12,"args":{"External id":%d}}`, ts+2, 100000+i)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":251,"tid":251,"ts":%d,"dur":6,"args":{"External id":%d,"correlation":%d}}`, ts+4, 100000+i, 5000+i)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":7,"ts":%d,"dur":30,"args":{"device":0,"stream":7}}`, q(get("kernel", "Cijk_Alik_Bljk_BBS_BH_MT256x32x64")), ts+5)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":9,"ts":%d,"dur":20,"args":{"External id":%d,"device":0,"stream":9,"correlation":%d,"Collective name":%s,"Process Group Name":%s,"Process Group Description":%s,"Process Group Ranks":%s,"Group size":2,"In msg nelems":1048576,"Out msg nelems":1048576,"dtype":%s,"Seq":%d}}`,
			q(get("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL")), ts+40, 100000+i, 5000+i, q(get("coll", "allreduce")), q(get("pg", "0")), q(get("pgdesc", "default_pg")), q(get("pgranks", "[0, 1]")), q(get("dtype", "BFloat16")), i)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// forgedSummary is a forged rank_summary.json (gputriage extract's map output) of
// n collectives; s is appended to every string.
func forgedSummary(rank int64, n int, s string) map[string]any {
	var ops []any
	for i := 0; i < n; i++ {
		ops = append(ops, map[string]any{"kind": "allreduce" + s, "pg": "0" + s, "pg_desc": "default_pg" + s, "seq": i, "bytes": 2097152, "dtype": "BFloat16" + s, "group_size": 2,
			"start_ns": 1000000 + i*100000 + int(rank)%7*1000, "end_ns": 1000000 + i*100000 + 20000, "launch_ns": 990000 + i*100000, "stream": 9, "step": 0, "busy_ns": 5000, "gpu_delay_ns": 100,
			"top":    []any{map[string]any{"name": "Cijk" + s, "ns": 5000, "n": 1}},
			"before": map[string]any{"kernel": "Cijk" + s, "op": "aten::mm" + s, "annotation": "layer" + s, "python": "model.py(1): f" + s}})
	}
	return map[string]any{"tool": "gputriage", "schema_version": "0.4.0", "run_id": "run-0", "partial": false, "version": "gputriage.rank_summary/1",
		"file": "rank" + s + ".json", "rank": rank, "world_size": 2, "device": "MI300X" + s, "clock_base_ns": 0, "digest": "d" + s,
		"kernel_ns": 10000000, "comm_ns": 5000000, "exposed_comm_ns": 4000000, "busy_ns": 9000000, "window_ns": 20000000,
		"steps": []any{map[string]any{"name": "ProfilerStep#1" + s, "start_ns": 0, "end_ns": 4000000000}}, "ops": ops}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func gen5(add adder, shared string, scale int) error {
	one := func(name string) []string { return []string{name} }
	two := []string{"r0.json", "r1.json"}
	pays := []struct{ id, s string }{{"markup", pMarkupAll}, {"term", pTermAll}, {"shell", pShellAll}}

	// ---- every string of a multi-rank job
	for _, pt := range []string{"pg", "pgdesc", "pgranks", "pgcfg", "coll", "dtype", "backend", "annotation", "annotation-rank", "device", "kernel"} {
		for _, p := range pays {
			add(Case{ID: "mr-" + pt + "-" + p.id, Kind: "markup", What: fmt.Sprintf("two ranks of one job whose %s carries %s", pt, p.id), Cmd: "triage", Inputs: two, Hosts: noWorker, Reason: "worker: one file per request"},
				map[string][]byte{"r0.json": rankTrace("0", "0", 20, map[string]string{pt: p.s}), "r1.json": rankTrace("1", "0", 20, map[string]string{pt: p.s})}, nil)
		}
	}
	// ---- rank ids and clock bases
	for _, r := range []struct{ id, a, b string }{
		{"huge", "4611686018427387904", "0"}, {"negative", "-1", "0"}, {"int64max", "9223372036854775807", "0"},
		{"2p63", "9223372036854775808", "0"}, {"int64min", "-9223372036854775808", "1"}, {"dup", "0", "0"},
		{"float", "1.5", "0"}, {"string", `"1"`, "0"}, {"1e30", "1e30", "0"}, {"null", "null", "1"},
	} {
		add(Case{ID: "mr-rank-" + r.id, Kind: "numbers", What: fmt.Sprintf("two rank traces with distributedInfo.rank %s and %s", r.a, r.b), Cmd: "breakdown", Inputs: two, Hosts: noWorker, Exits: []int{0, 1, 2}, Reason: "worker: one file per request"},
			map[string][]byte{"r0.json": rankTrace(r.a, "0", 20, nil), "r1.json": rankTrace(r.b, "0", 20, nil)}, nil)
	}
	for _, c := range []struct{ id, a, b string }{
		{"max", "9223372036854775807", "0"}, {"min", "-9223372036854775808", "0"}, {"4e18", "4000000000000000000", "0"},
		{"ends", "4000000000000000000", "-4000000000000000000"}, {"float", "1.7e308", "0"}, {"2p64", "18446744073709551616", "1"},
	} {
		add(Case{ID: "mr-clock-" + c.id, Kind: "numbers", What: fmt.Sprintf("two ranks whose baseTimeNanoseconds are %s and %s", c.a, c.b), Cmd: "triage", Inputs: two, Hosts: noWorker, Exits: []int{0, 1}, Reason: "worker: one file per request"},
			map[string][]byte{"r0.json": rankTrace("0", c.a, 20, nil), "r1.json": rankTrace("1", c.b, 20, nil)}, nil)
	}
	// ---- many ranks, groups, collectives
	nr := 512 * scale
	add(Case{ID: "mr-ranks-many", Kind: "lanes", What: fmt.Sprintf("%d rank traces in one folder, 5 all-reduces each", nr), Cmd: "breakdown", Inputs: one("ranks"), Hosts: cli2, Reason: "page: a folder; worker: one file per request"},
		nil, func(in string) error {
			os.MkdirAll(filepath.Join(in, "ranks"), 0o755)
			for r := 0; r < nr; r++ {
				if err := os.WriteFile(filepath.Join(in, "ranks", fmt.Sprintf("r%05d.json", r)), rankTrace(fmt.Sprint(r), "0", 5, nil), 0o644); err != nil {
					return err
				}
			}
			return nil
		})
	// every collective in its own process group, pg_config listing them all
	manyPG := func(rank, n int) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":2,"pg_config":[`, rank)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"pg_name":"pg%d","pg_desc":"d%d","ranks":[0,1]}`, i, i)
		}
		b.WriteString(`]},"traceEvents":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":%d,"dur":3,"args":{"device":0,"stream":9,"Collective name":"allreduce","Process Group Ranks":"[0, 1]","Group size":2,"In msg nelems":1,"dtype":"BFloat16"}}`, 10+i*5+rank)
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	npg := 50000 * scale
	add(Case{ID: "mr-pgcfg-many", Kind: "lanes", What: fmt.Sprintf("two ranks whose pg_config lists %d k groups of the same ranks, %d k unnamed collectives", npg/1000, npg/1000), Cmd: "breakdown", Inputs: two, Hosts: noWorker, Reason: "worker: one file per request"},
		map[string][]byte{"r0.json": manyPG(0, npg), "r1.json": manyPG(1, npg)}, nil)
	pgNamed := func(rank, n int) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"distributedInfo":{"rank":%d,"world_size":2},"traceEvents":[`, rank)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":%d,"dur":3,"args":{"device":0,"stream":9,"Collective name":"allreduce","Process Group Name":"pg%d","Process Group Description":"desc%d","Group size":2,"In msg nelems":1,"dtype":"dt%d","Seq":0}}`, 10+i*5+rank, i, i, i)
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	add(Case{ID: "mr-pgs-many", Kind: "lanes", What: fmt.Sprintf("two ranks, %d k collectives each in its own named process group with its own dtype", npg/1000), Cmd: "triage", Inputs: two, Hosts: noWorker, Reason: "worker: one file per request"},
		map[string][]byte{"r0.json": pgNamed(0, npg), "r1.json": pgNamed(1, npg)}, nil)
	nc := 100000 * scale
	add(Case{ID: "mr-colls-many", Kind: "lanes", What: fmt.Sprintf("two ranks, %d k all-reduces in one group, each in its own step", nc/1000), Cmd: "triage", Inputs: two, Hosts: noWorker, Reason: "worker: one file per request"},
		map[string][]byte{"r0.json": rankTrace("0", "0", nc, nil), "r1.json": rankTrace("1", "0", nc, nil)}, nil)
	bigRanks := `{"distributedInfo":{"rank":%d,"world_size":1000000,"pg_config":[{"pg_name":"0","pg_desc":"default_pg","ranks":[` + strings.TrimSuffix(strings.Repeat("7,", 1000000*scale), ",") + `]}]},"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":10,"dur":3,"args":{"device":0,"stream":9,"Collective name":"allreduce","Process Group Ranks":"[` + strings.TrimSuffix(strings.Repeat("7, ", 300000*scale), ", ") + `]","Group size":1000000,"In msg nelems":1,"dtype":"BFloat16"}}]}`
	add(Case{ID: "mr-pgcfg-ranks-1m", Kind: "lanes", What: "a pg_config group listing 1 M ranks, a collective whose Process Group Ranks lists 300 k", Cmd: "breakdown", Inputs: two, Hosts: noWorker, Reason: "worker: one file per request"},
		map[string][]byte{"r0.json": fmt.Appendf(nil, bigRanks, 0), "r1.json": fmt.Appendf(nil, bigRanks, 1)}, nil)

	// ---- extract (the map step) on hostile rank traces
	for _, p := range pays {
		add(Case{ID: "extract-" + p.id, Kind: "markup", What: "gputriage extract of a rank trace whose every name carries " + p.id, Cmd: "extract", Inputs: one("r1.json"), Hosts: cli2, Reason: "page/worker: no extract"},
			map[string][]byte{"r1.json": rankTrace("1", "0", 20, map[string]string{"pg": p.s, "pgdesc": p.s, "coll": p.s, "dtype": p.s, "annotation": p.s, "device": p.s, "kernel": p.s, "pgcfg": p.s})}, nil)
	}
	// ---- ranks (the reduce step) on forged summaries
	for _, p := range pays {
		add(Case{ID: "ranks-strings-" + p.id, Kind: "markup", What: "gputriage ranks over forged rank summaries whose every string carries " + p.id, Cmd: "ranks", Inputs: []string{"a/rank_summary.json", "b/rank_summary.json"}, Hosts: cli2, Reason: "page/worker: no ranks"},
			map[string][]byte{"a/rank_summary.json": mustJSON(forgedSummary(0, 20, p.s)), "b/rank_summary.json": mustJSON(forgedSummary(1, 20, p.s))}, nil)
	}
	numSum := func(rank int64, mut func(m map[string]any)) []byte {
		m := forgedSummary(rank, 5, "")
		mut(m)
		return mustJSON(m)
	}
	opsMut := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) {
			for _, o := range m["ops"].([]any) {
				o.(map[string]any)[k] = v
			}
		}
	}
	for _, c := range []struct {
		id  string
		a   int64
		mut func(map[string]any)
	}{
		{"rank-int64", -1 << 63, func(map[string]any) {}},
		{"rank-max", 1<<63 - 1, func(map[string]any) {}},
		{"world", 5, func(m map[string]any) { m["world_size"] = -1 }},
		{"group", 5, opsMut("group_size", int64(1<<62))},
		{"seq", 5, opsMut("seq", int64(1<<63-1))},
		{"bytes", 5, opsMut("bytes", int64(1<<63-1))},
		{"stream", 5, opsMut("stream", int64(-1<<63))},
		{"step", 5, opsMut("step", 1<<40)},
		{"topn", 5, func(m map[string]any) {
			for _, o := range m["ops"].([]any) {
				o.(map[string]any)["top"] = []any{map[string]any{"name": "k", "ns": int64(4e18), "n": int64(1<<63 - 1)}}
			}
		}},
		{"steps-overlap", 5, func(m map[string]any) {
			var st []any
			for i := 0; i < 20000*scale; i++ {
				st = append(st, map[string]any{"name": "s", "start_ns": 0, "end_ns": int64(4e18)})
			}
			m["steps"] = st
		}},
	} {
		add(Case{ID: "ranks-num-" + c.id, Kind: "numbers", What: "gputriage ranks over two forged summaries: " + c.id, Cmd: "ranks", Inputs: []string{"a/rank_summary.json", "b/rank_summary.json"}, Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "page/worker: no ranks"},
			map[string][]byte{"a/rank_summary.json": numSum(0, func(map[string]any) {}), "b/rank_summary.json": numSum(c.a, c.mut)}, nil)
	}
	ns := 1000 * scale
	add(Case{ID: "ranks-many", Kind: "lanes", What: fmt.Sprintf("gputriage ranks over a folder of %d forged summaries of 20 collectives", ns), Cmd: "ranks", Inputs: one("sums"), Hosts: cli2, Reason: "page/worker: no ranks"},
		nil, func(in string) error {
			for r := 0; r < ns; r++ {
				p := filepath.Join(in, "sums", fmt.Sprintf("r%05d", r), "rank_summary.json")
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, mustJSON(forgedSummary(int64(r), 20, "")), 0o644); err != nil {
					return err
				}
			}
			return nil
		})
	nops := 150000 * scale
	add(Case{ID: "ranks-big", Kind: "records", What: fmt.Sprintf("gputriage ranks over two forged summaries of %d k collectives each (~%d MB each)", nops/1000, nops*600/1000000), Cmd: "ranks", Inputs: []string{"a/rank_summary.json", "b/rank_summary.json"}, Hosts: cli2, Reason: "page/worker: no ranks"},
		map[string][]byte{"a/rank_summary.json": mustJSON(forgedSummary(0, nops, "")), "b/rank_summary.json": mustJSON(forgedSummary(1, nops, ""))}, nil)
	deep := `{"version":"gputriage.rank_summary/1","rank":0,"ops":[{"kind":"allreduce","top":` + strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000) + `}]}`
	add(Case{ID: "ranks-deep", Kind: "json", What: "a forged rank summary nested 1 M deep", Cmd: "ranks", Inputs: []string{"a/rank_summary.json", "b/rank_summary.json"}, Hosts: cli2, Exits: []int{1, 2}, Reason: "page/worker: no ranks"},
		map[string][]byte{"a/rank_summary.json": []byte(deep), "b/rank_summary.json": mustJSON(forgedSummary(1, 5, ""))}, nil)
	add(Case{ID: "ranks-fifo", Kind: "special", What: "a FIFO named rank_summary.json in a folder given to gputriage ranks", Cmd: "ranks", Inputs: one("sums"), Hosts: cli2, Exits: []int{1, 2}, TimeS: 30, Reason: "page/worker: no ranks"},
		map[string][]byte{"sums/a/rank_summary.json": mustJSON(forgedSummary(0, 5, "")), "sums/b/rank_summary.json": mustJSON(forgedSummary(1, 5, ""))}, func(in string) error {
			os.MkdirAll(filepath.Join(in, "sums", "c"), 0o755)
			return syscall.Mkfifo(filepath.Join(in, "sums", "c", "rank_summary.json"), 0o644)
		})
	add(Case{ID: "ranks-devzero", Kind: "special", What: "a symlink named rank_summary.json to /dev/zero in a folder given to gputriage ranks", Cmd: "ranks", Inputs: one("sums"), Hosts: cli2, Exits: []int{1, 2}, TimeS: 30, Reason: "page/worker: no ranks"},
		map[string][]byte{"sums/a/rank_summary.json": mustJSON(forgedSummary(0, 5, "")), "sums/b/rank_summary.json": mustJSON(forgedSummary(1, 5, ""))}, func(in string) error {
			os.MkdirAll(filepath.Join(in, "sums", "c"), 0o755)
			return os.Symlink("/dev/zero", filepath.Join(in, "sums", "c", "rank_summary.json"))
		})
	// ---- diff of two multi-rank runs with hostile groups
	add(Case{ID: "diff-ranks", Kind: "markup", What: "diff --force of two rank folders whose groups, collectives and steps carry markup and escapes", Cmd: "diff", Args: []string{"--force"}, Inputs: []string{"a", "b"}, Hosts: cli2, Exits: []int{0, 1}, Reason: "page/worker: folders"},
		map[string][]byte{
			"a/r0.json": rankTrace("0", "0", 20, map[string]string{"pg": pMarkupAll, "coll": pTermAll, "annotation": pMarkupAll}), "a/r1.json": rankTrace("1", "0", 20, map[string]string{"pg": pMarkupAll, "coll": pTermAll, "annotation": pMarkupAll}),
			"b/r0.json": rankTrace("0", "0", 30, map[string]string{"pg": pMarkupAll, "coll": pTermAll, "annotation": pMarkupAll}), "b/r1.json": rankTrace("1", "0", 30, map[string]string{"pg": pMarkupAll, "coll": pTermAll, "annotation": pMarkupAll}),
		}, nil)

	// ---- crash logs: catalogued names, hosts, BDFs, pids, paths
	for _, p := range append([]struct{ id, s string }{{"markup", strings.ReplaceAll(pMarkupAll, "\n", " ")}, {"term", pTermAll}}, func() (l []struct{ id, s string }) {
		for i, s := range append(append([]string{pShell}, pShell3...), pShell4...) {
			l = append(l, struct{ id, s string }{fmt.Sprintf("sh%d", i), strings.ReplaceAll(s, "\n", " ")})
		}
		return
	}()...) {
		s := p.s
		logs := map[string]string{
			"childfailed": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n============================================================\ntrain" + s + ".py FAILED\n------------------------------------------------------------\nFailures:\n[1]:\n  time      : 2024-05-01_10:00:00\n  host      : node1" + s + "\n  rank      : 1 (local_rank: 1)\n  exitcode  : -6 (pid: 4242" + s + ")\n  error_file: /tmp/torchelastic_" + s + "/error.json\n  traceback : Signal 6 (SIGABRT) received by PID 4242\n------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n  time      : 2024-05-01_10:00:00\n  host      : node0" + s + "\n  rank      : 0 (local_rank: 0)\n  exitcode  : -11 (pid: 4241)\n  error_file: <N/A>\n  traceback : Signal 11 (SIGSEGV) received by PID 4241" + s + "\n============================================================\n",
			"cudaerr":     "RuntimeError: CUDA error: cudaErrorIllegalAddress" + s + "\nCUDA kernel errors might be asynchronously reported at some other API call\nterminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: an illegal memory access was encountered" + s + "\nException raised from c10_cuda_check_implementation at /pytorch" + s + "/c10/cuda/CUDAException.cpp:43\n",
			"hiperr":      "HIP error: hipErrorNoBinaryForGpu" + s + "\nhipErrorNoBinaryForGpu: Unable to find code object for all current devices!" + s + "\n  what():  HIP error: invalid device function" + s + "\nHSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION" + s + "\n",
			"nccl":        "node0" + s + ":4242:4300 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\nnode0" + s + ":4242:4300 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2" + s + "<45678> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGidsfe80::1" + s + "\nnode0" + s + ":4242:4300 [0] transport/net_ib.cc:1688 NCCL WARN NET/IB: Got completion with error 12" + s + "\n[rank0]:[E501 10:00:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE" + s + ", NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n",
			"xid":         "[12345.678] NVRM: Xid (PCI:0000:3b:00" + s + "): 79, pid=4242" + s + ", name=python3" + s + ", GPU has fallen off the bus.\n[12345.679] NVRM: Xid (PCI:0000:3c:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0" + s + "\n",
			"amdgpu":      "[ 812.1] amdgpu 0000:c1:00.0" + s + ": amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32769, for process python3" + s + " pid 4242 thread python3" + s + " pid 4242)\n[ 812.2] amdgpu 0000:c1:00.0: amdgpu:   in page starting at address 0x00007f3a00000000 from client 10" + s + "\n[ 812.3] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!" + s + "\n",
			"xla":         "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 34359738368 bytes." + s + "\n2024-05-01 10:00:00.000000: W external/xla/xla/service/gpu/gpu_compiler.cc:1 " + s + "\nINTERNAL: Failed to launch CUDA kernel: fusion_42" + s + " with block dimensions: 128x1x1 and grid dimensions: 1x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" + s + "\n",
			"tf":          "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[32,4096,4096" + s + "] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc" + s + "\n\t [[node model/dense" + s + "/MatMul (defined at train.py:42) ]]\n",
			"oomkill":     "[ 900.1] Out of memory: Killed process 4242 (python3" + s + ") total-vm:100000kB, anon-rss:90000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:200kB oom_score_adj:0\n[ 900.2] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=" + s + ",mems_allowed=0,global_oom,task_memcg=/user.slice" + s + ",task=python3" + s + ",pid=4242,uid=1000\n",
		}
		for name, body := range logs {
			c := Case{ID: "crash5-" + name + "-" + p.id, Kind: "command", What: fmt.Sprintf("a %s log whose names, hosts, BDFs, pids and paths carry %s", name, p.id), Cmd: "diagnose", Inputs: one("server.log"), Hosts: cli2, Steps: true, Reason: "page/worker: run for the markup and term payloads"}
			if p.id == "markup" || p.id == "term" || p.id == "sh0" {
				c.Hosts = all4
			}
			add(c, map[string][]byte{"server.log": []byte(body)}, nil)
		}
	}
	// huge counts in crash logs
	nchild := 100000 * scale
	add(Case{ID: "crash5-childfailed-many", Kind: "structure", What: fmt.Sprintf("a ChildFailedError table of %d k failed ranks, each its own host and pid", nchild/1000), Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4},
		nil, func(in string) error {
			var b bytes.Buffer
			b.WriteString("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n============================================================\ntrain.py FAILED\n------------------------------------------------------------\nFailures:\n")
			for i := 1; i < nchild; i++ {
				fmt.Fprintf(&b, "[%d]:\n  time      : 2024-05-01_10:00:00\n  host      : node%d.example\n  rank      : %d (local_rank: %d)\n  exitcode  : -6 (pid: %d)\n  error_file: <N/A>\n  traceback : Signal 6 (SIGABRT) received by PID %d\n", i, i/8, i, i%8, 100000+i, 100000+i)
			}
			b.WriteString("------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n  time      : 2024-05-01_10:00:00\n  host      : node0\n  rank      : 0 (local_rank: 0)\n  exitcode  : -11 (pid: 100000)\n  error_file: <N/A>\n  traceback : Signal 11 (SIGSEGV) received by PID 100000\n============================================================\n")
			return os.WriteFile(filepath.Join(in, "server.log"), b.Bytes(), 0o644)
		})
	npid := 300000 * scale
	add(Case{ID: "crash5-nccl-pids", Kind: "structure", What: fmt.Sprintf("%d k NCCL WARN lines, each from its own host, pid and rank", npid/1000), Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4},
		nil, func(in string) error {
			var b bytes.Buffer
			for i := 0; i < npid; i++ {
				fmt.Fprintf(&b, "node%d:%d:%d [%d] NCCL WARN NET/IB : Got completion from peer 10.%d.%d.%d<45678> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n", i, 10000+i, 20000+i, i, i>>16&255, i>>8&255, i&255)
			}
			return os.WriteFile(filepath.Join(in, "server.log"), b.Bytes(), 0o644)
		})
	add(Case{ID: "crash5-watchdog-ranks", Kind: "structure", What: fmt.Sprintf("%d k watchdog timeouts, each its own rank, group and sequence number", npid/1000), Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4},
		nil, func(in string) error {
			var b bytes.Buffer
			for i := 0; i < npid; i++ {
				fmt.Fprintf(&b, "[rank%d]:[E501 10:00:00.000000000 ProcessGroupNCCL.cpp:616] [PG %d Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=%d, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n", i, i, i, i, i)
			}
			return os.WriteFile(filepath.Join(in, "server.log"), b.Bytes(), 0o644)
		})

	// ---- rocpd: every text column, huge tables, malformed pages
	db, err := rocpdCopy(shared)
	if err != nil {
		return nil // no shared data: the rocpd cases are left out (gen4 says so too)
	}
	defer os.Remove(db)
	texts, err := sqliteTextColumns(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile: rocpd text columns:", err)
	}
	if len(texts) > 0 {
		for _, p := range pays {
			var sql strings.Builder
			for _, tc := range texts {
				if tc[1] == "guid" || tc[1] == "type" {
					continue // ids join the tables
				}
				fmt.Fprintf(&sql, "UPDATE %s SET %s = %s || CAST(x'%x' AS TEXT) WHERE %s IS NOT NULL;", tc[0], tc[1], tc[1], []byte(p.s), tc[1])

			}
			if b, err := sqliteEdit(db, sql.String()); err != nil {
				fmt.Fprintln(os.Stderr, "hostile:", err)
			} else {
				add(Case{ID: "rocpd5-alltext-" + p.id, Kind: "markup", What: "a rocpd database whose every text column carries " + p.id, Cmd: "triage", Inputs: one("908_results.db"), Hosts: all4, Exits: []int{0, 1, 2}},
					map[string][]byte{"908_results.db": b}, nil)
			}
		}
	}
	kd := rocpdTable(db, "rocpd_kernel_dispatch")
	nrow := 300000 * scale
	if b, err := sqliteGrow(db, kd, nrow); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
	} else {
		add(Case{ID: "rocpd5-rows", Kind: "records", What: fmt.Sprintf("a rocpd database with %d k kernel dispatches", nrow/1000), Cmd: "triage", Inputs: one("908_results.db"), Hosts: all4, Exits: []int{0, 1}},
			map[string][]byte{"908_results.db": b}, nil)
	}
	if src, err := os.ReadFile(db); err == nil {
		ps := 4096
		if len(src) > 100 {
			if v := int(src[16])<<8 | int(src[17]); v >= 512 {
				ps = v
			} else if v == 1 {
				ps = 65536
			}
		}
		mal := func(f func(b []byte)) []byte {
			b := append([]byte(nil), src...)
			f(b)
			return b
		}
		for _, m := range []struct {
			id, what string
			b        []byte
		}{
			{"page-junk", "every page after the first overwritten with 0xff", mal(func(b []byte) {
				for i := ps; i < len(b); i++ {
					b[i] = 0xff
				}
			})},
			{"cell-ptrs", "every page's cell pointers pointing past the page", mal(func(b []byte) {
				for p := ps; p+16 < len(b); p += ps {
					for i := p + 8; i < p+64 && i < len(b); i += 2 {
						b[i], b[i+1] = 0xff, 0xf0
					}
				}
			})},
			{"pagecount", "a header claiming 2^31 pages and a page size of 1", mal(func(b []byte) {
				b[16], b[17] = 0, 1
				b[28], b[29], b[30], b[31] = 0x7f, 0xff, 0xff, 0xff
			})},
			{"truncated", "the database cut in the middle of a page", src[:len(src)/2+ps/2]},
			{"loop", "every interior page's right child pointing at itself", mal(func(b []byte) {
				for p := ps; p+12 < len(b); p += ps {
					if b[p] == 0x05 || b[p] == 0x02 {
						n := uint32(p/ps + 1)
						b[p+8], b[p+9], b[p+10], b[p+11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
					}
				}
			})},
		} {
			add(Case{ID: "rocpd5-" + m.id, Kind: "structure", What: "a rocpd database with " + m.what, Cmd: "triage", Inputs: one("908_results.db"), Hosts: all4, Exits: []int{0, 1, 2}, TimeS: 30},
				map[string][]byte{"908_results.db": m.b}, nil)
		}
	}
	return nil
}

// sqliteTextColumns lists (table, column) of every TEXT column of db.
func sqliteTextColumns(db string) ([][2]string, error) {
	o, err := sqliteQuery(db, `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type='table' AND upper(p.type) LIKE '%TEXT%';`)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, l := range strings.Split(strings.TrimSpace(o), "\n") {
		if t, c, ok := strings.Cut(l, "|"); ok {
			out = append(out, [2]string{t, c})
		}
	}
	return out, nil
}

// sqliteQuery runs sql on db and returns what sqlite3 prints.
func sqliteQuery(db, sql string) (string, error) {
	o, err := exec.Command("sqlite3", db, sql).Output()
	return string(o), err
}

// sqliteGrow copies the first row of table n times (new ids).
func sqliteGrow(db, table string, n int) ([]byte, error) {
	o, err := sqliteQuery(db, fmt.Sprintf(`SELECT group_concat(name, ',') FROM pragma_table_info('%s') WHERE name <> 'id';`, strings.Trim(table, "`\"")))
	if err != nil {
		return nil, err
	}
	cols := strings.TrimSpace(o)
	return sqliteEdit(db, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d) INSERT INTO %s (%s) SELECT %s FROM n, (SELECT * FROM %s LIMIT 1);`, n, table, cols, cols, table))
}
