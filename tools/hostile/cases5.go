package main

// The sixth sweep (issue 24): what the last two sessions added — breakdown
// --merge-ranks (ranks_merged_trace.json with hostile process group, stream
// and kernel names, 10^5 streams, clock bases at int64's edges), the new
// crash extractors and rules (framework errors, SIGBUS/shared memory, train
// step progress, BLAS libraries, RDMA completions, ROCm and framework
// allocators, torch.OutOfMemoryError) with breakouts in every captured
// field, 10 MB lines and 10^6 matching lines, the page's Ranks heatmap with
// thousands of ranks × steps, and rank summaries with forged numbers.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// crash6Logs are one log per new extractor, s substituted into every field
// it captures (paths, pids, sizes, names, hosts).
func crash6Logs(s string) map[string]string {
	return map[string]string{
		"sigbus":     "RuntimeError: DataLoader worker (pid 46794" + s + ") is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." + s + "\n",
		"trainstep":  "[rank0]:[titan] 2025-03-12 11:10:21,511 - root - INFO - step: 22" + s + "  loss:  6.2250  memory:  1.41GiB(1.79%)  tps: 193,831  tflops: 18.36  mfu: 1.86%\n[rank0]:[titan] 2025-03-12 11:10:22,511 - root - INFO - step: 23  loss:  6.2" + s + "  memory:  1.41GiB(1.79%)  tps: 193,831  tflops: 18.36  mfu: 1.86%\nRuntimeError: CUDA error: an illegal memory access was encountered" + s + "\n",
		"blaslib":    "rocblaslt error: Cannot read C:\\venv\\Lib\\site-packages\\_rocm_sdk_libraries_gfx110X_all\\bin\\hipblaslt\\library\\TensileLibrary_lazy_gfx1102" + s + ".dat: No such file or directory\nRuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasLtMatmulAlgoGetHeuristic( ltHandle" + s + ", computeDesc.descriptor(), 1, &heuristicResult, &returnedResult)`\n",
		"rdma":       "CQE ERROR wr_id=12887842422" + s + " status=12(transport retry counter exceeded" + s + ") opcode=4 byte_len=0 vendor_err=0xa qp_num=0x2e24" + s + "\n",
		"rocalloc":   "    MIOpen Error: /data/repo" + s + "/MIOpen/src/hip/handlehip.cpp:68: Memory not available to allocate buffer: 528515072" + s + "\nRuntimeError: /src/extlibs/AMDMIGraphX" + s + "/src/targets/gpu/hip.cpp:109: allocate_gpu: Memory not available to allocate buffer: 41943040\n",
		"torchoom":   "2024-12-16 17:10:56,767 - root - ERROR - !!! Exception during processing !!! Allocation on device " + s + "\ntorch.OutOfMemoryError: Allocation on device " + s + "\n",
		"fwalloc":    "Non-zero status code returned while running ReduceSum" + s + " node. onnxruntime::BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer of size 939524096" + s + "\n",
		"frameworks": "ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks" + s + ". Try increasing `gpu_memory_utilization` when initializing the engine.\n(EngineCore_DP0 pid=223840" + s + ") ERROR 10-25 13:08:43 [core.py:708]     raise ValueError(\"No available memory for the cache blocks. " + s + "\")\n",
	}
}

func gen6(add adder, scale int) error {
	one := func(name string) []string { return []string{name} }
	two := []string{"r0.json", "r1.json"}
	pays := []struct{ id, s string }{{"markup", pMarkupAll}, {"term", pTermAll}, {"shell", pShellAll}}

	// ---- --merge-ranks: every name of a multi-rank job carries a payload
	for _, pt := range []string{"pg", "pgdesc", "coll", "annotation", "device", "kernel", "pgcfg"} {
		for _, p := range pays {
			add(Case{ID: "mr6-" + pt + "-" + p.id, Kind: "markup", What: fmt.Sprintf("breakdown --merge-ranks of two ranks whose %s carries %s", pt, p.id), Cmd: "breakdown", Args: []string{"--merge-ranks"}, Inputs: two, Hosts: cli2, Reason: "page/worker: no --merge-ranks"},
				map[string][]byte{"r0.json": rankTrace("0", "0", 20, map[string]string{pt: p.s}), "r1.json": rankTrace("1", "0", 20, map[string]string{pt: p.s})}, nil)
		}
	}
	for _, c := range []struct{ id, a, b string }{
		{"max", "9223372036854775807", "0"}, {"min", "-9223372036854775808", "0"}, {"4e18", "4000000000000000000", "0"},
		{"ends", "4000000000000000000", "-4000000000000000000"}, {"float", "1.7e308", "0"}, {"2p64", "18446744073709551616", "1"},
		{"edge", "3999999999999999999", "4000000000000000000"},
	} {
		add(Case{ID: "mr6-clock-" + c.id, Kind: "numbers", What: fmt.Sprintf("breakdown --merge-ranks of two ranks whose baseTimeNanoseconds are %s and %s", c.a, c.b), Cmd: "breakdown", Args: []string{"--merge-ranks"}, Inputs: two, Hosts: cli2, Exits: []int{0, 1}, Reason: "page/worker: no --merge-ranks"},
			map[string][]byte{"r0.json": rankTrace("0", c.a, 20, nil), "r1.json": rankTrace("1", c.b, 20, nil)}, nil)
	}
	// 10^5 streams per rank, one kernel each, and stream ids at int64's edges
	streams := func(rank, n int) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":2},"traceEvents":[`, rank)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":%d,"ts":%d,"dur":3,"args":{"device":0,"stream":%d}}`, i%50, 10+i, 10+i*2, 10+i)
		}
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9223372036854775807,"ts":5,"dur":3,"args":{"device":9223372036854775807,"stream":9223372036854775807,"Collective name":"allreduce","Process Group Name":"0","Group size":2,"In msg nelems":1,"dtype":"BFloat16","Seq":0}}`)
		b.WriteString("]}")
		return b.Bytes()
	}
	ns := 100000 * scale
	add(Case{ID: "mr6-streams-100k", Kind: "lanes", What: fmt.Sprintf("breakdown --merge-ranks of two ranks of %d k streams each (one kernel per stream), a collective on stream 2^63-1", ns/1000), Cmd: "breakdown", Args: []string{"--merge-ranks"}, Inputs: two, Hosts: cli2, Reason: "page/worker: no --merge-ranks"},
		map[string][]byte{"r0.json": streams(0, ns), "r1.json": streams(1, ns)}, nil)
	nr := 256 * scale
	add(Case{ID: "mr6-ranks-many", Kind: "lanes", What: fmt.Sprintf("breakdown --merge-ranks of %d rank traces in one folder", nr), Cmd: "breakdown", Args: []string{"--merge-ranks"}, Inputs: one("ranks"), Hosts: cli2, Reason: "page/worker: no --merge-ranks"},
		nil, func(in string) error {
			os.MkdirAll(filepath.Join(in, "ranks"), 0o755)
			for r := 0; r < nr; r++ {
				if err := os.WriteFile(filepath.Join(in, "ranks", fmt.Sprintf("r%05d.json", r)), rankTrace(fmt.Sprint(r), "0", 5, nil), 0o644); err != nil {
					return err
				}
			}
			return nil
		})

	// ---- the page's Ranks heatmap: thousands of ranks × steps
	heat := func(ranks, steps int) func(in string) error {
		return func(in string) error {
			os.MkdirAll(filepath.Join(in, "ranks"), 0o755)
			for r := 0; r < ranks; r++ {
				if err := os.WriteFile(filepath.Join(in, "ranks", fmt.Sprintf("r%05d.json", r)), rankTrace(fmt.Sprint(r), "0", steps, nil), 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	add(Case{ID: "heat-2000x20", Kind: "lanes", What: "2,000 rank traces of 20 steps each (the Ranks heatmap: 2,000 rows × 20 steps)", Cmd: "breakdown", Inputs: one("ranks"), Hosts: noWorker, Reason: "worker: one file per request"}, nil, heat(2000*scale, 20))
	add(Case{ID: "heat-64x5000", Kind: "lanes", What: "64 rank traces of 5,000 steps each (the Ranks heatmap: 64 rows × 5,000 steps)", Cmd: "breakdown", Inputs: one("ranks"), Hosts: noWorker, Reason: "worker: one file per request"}, nil, heat(64, 5000*scale))

	// ---- rank summaries with forged numbers
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
		mut func(map[string]any)
	}{
		{"start-after-end", func(m map[string]any) {
			for _, o := range m["ops"].([]any) {
				o.(map[string]any)["start_ns"], o.(map[string]any)["end_ns"] = 4000000000000000000, 0
			}
		}},
		{"busy-over-window", func(m map[string]any) { m["busy_ns"], m["window_ns"] = int64(4e18), 1 }},
		{"comm-over-kernel", func(m map[string]any) {
			m["comm_ns"], m["exposed_comm_ns"], m["kernel_ns"] = int64(4e18), int64(4e18), 0
		}},
		{"float-times", opsMut("start_ns", 1.5e3)},
		{"string-times", opsMut("end_ns", "12")},
		{"neg-bytes", opsMut("bytes", -7)},
		{"huge-delay", opsMut("gpu_delay_ns", int64(1<<63-1))},
		{"neg-launch", opsMut("launch_ns", int64(-1<<63))},
		{"top-negative", func(m map[string]any) {
			for _, o := range m["ops"].([]any) {
				o.(map[string]any)["top"] = []any{map[string]any{"name": "k", "ns": -5, "n": -1}}
			}
		}},
		{"world-2p31", func(m map[string]any) { m["world_size"] = int64(1 << 31) }},
		{"step-end-before", func(m map[string]any) {
			m["steps"] = []any{map[string]any{"name": "s", "start_ns": 4000000000, "end_ns": 0}}
		}},
		{"version-forged", func(m map[string]any) { m["schema_version"] = "9.9.9" + pMarkup }},
		{"digest-markup", func(m map[string]any) { m["digest"], m["file"] = pMarkupAll, pTermAll }},
	} {
		add(Case{ID: "ranks6-" + c.id, Kind: "numbers", What: "gputriage ranks over two forged summaries: " + c.id, Cmd: "ranks", Inputs: []string{"a/rank_summary.json", "b/rank_summary.json"}, Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "page/worker: no ranks"},
			map[string][]byte{"a/rank_summary.json": numSum(0, func(map[string]any) {}), "b/rank_summary.json": numSum(1, c.mut)}, nil)
	}

	// ---- the new crash extractors: breakouts in every captured field
	var payloads []struct{ id, s string }
	payloads = append(payloads, struct{ id, s string }{"markup", strings.ReplaceAll(pMarkupAll, "\n", " ")}, struct{ id, s string }{"term", pTermAll})
	for i, s := range append([]string{pShell}, pShell4...) {
		payloads = append(payloads, struct{ id, s string }{fmt.Sprintf("sh%d", i), strings.ReplaceAll(s, "\n", " ")})
	}
	for _, p := range payloads {
		for name, body := range crash6Logs(p.s) {
			c := Case{ID: "crash6-" + name + "-" + p.id, Kind: "command", What: fmt.Sprintf("a %s log whose captured fields carry %s", name, p.id), Cmd: "diagnose", Inputs: one("server.log"), Hosts: cli2, Steps: true, Reason: "page/worker: run for the markup, term and sh0 payloads"}
			if p.id == "markup" || p.id == "term" || p.id == "sh0" {
				c.Hosts = all4
			}
			add(c, map[string][]byte{"server.log": []byte(body)}, nil)
		}
	}
	// 10^6 matching lines, and one line of 10 MB, per extractor
	for name, body := range crash6Logs("") {
		nl := 1000000 * scale
		line := strings.SplitAfter(body, "\n")[0]
		add(Case{ID: "crash6-" + name + "-dense", Kind: "structure", What: fmt.Sprintf("%d k %s lines, each its own numbers", nl/1000, name), Cmd: "diagnose", Inputs: one("server.log"), Hosts: cli2, Reason: "page/worker: over the Worker's body limit; the page runs the 200 k variant"},
			nil, func(in string) error {
				var b bytes.Buffer
				for i := 0; i < nl; i++ {
					b.WriteString(strings.ReplaceAll(line, "4", fmt.Sprint(i)))
				}
				return os.WriteFile(filepath.Join(in, "server.log"), b.Bytes(), 0o644)
			})
		n2 := 200000 * scale
		add(Case{ID: "crash6-" + name + "-200k", Kind: "structure", What: fmt.Sprintf("%d k %s lines, each its own numbers", n2/1000, name), Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4},
			nil, func(in string) error {
				var b bytes.Buffer
				for i := 0; i < n2; i++ {
					b.WriteString(strings.ReplaceAll(line, "4", fmt.Sprint(i)))
				}
				return os.WriteFile(filepath.Join(in, "server.log"), b.Bytes(), 0o644)
			})
		add(Case{ID: "crash6-" + name + "-10mb", Kind: "structure", What: fmt.Sprintf("a %s line of 10 MB (its fields padded), then the line itself", name), Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4},
			map[string][]byte{"server.log": []byte(strings.ReplaceAll(line, "4", strings.Repeat("4", 10<<20/max(1, strings.Count(line, "4")))) + body)}, nil)
	}
	return nil
}
