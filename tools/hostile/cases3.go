package main

// The fourth sweep's cases (issue 24): the same kinds again, written as an
// attacker would from the issue, docs/ and the shared seed corpus only,
// before reading the fixes: every crash-seed and bug-report format (docker
// inspect, crash_diagnostics JSON, py-spy, rocgdb info, kernel-API per-pid
// logs, level-10 dump folders, incident folders) with values carrying shell,
// Python and markup payloads the earlier sweeps did not try (redirections,
// pipes, background &, form feed, U+2028, $IFS-first, doubled quote
// breakouts); rocpd SQLite names and times; Markdown constructs (setext
// headings, list/blockquote/table-row forgery, entity-encoded and mixed-case
// javascript: links, <style>/<iframe>/<math>) and terminal sequences (OSC 52
// clipboard, alternate screen, RIS, C1 CSI, U+061C/U+200E/U+FEFF);
// structures (billion-laughs pickles of shared references, deep dicts and
// tuples, 200 k process groups in a flight recorder, 200 k distinct op
// names / python frames / threads / annotations, unterminated CSV quotes,
// 100 k CSV columns, escapes in keys and side documents, empty stored
// deflate blocks, overlapping zip entries, symlinks to / and .., FIFOs
// inside dump folders); numbers (negative durations, ts+dur past int64,
// docker ExitCode 2^63, pickle LONG1 2^64, NaN durations); and inputs
// whose answer could differ by engine (sort ties, invalid UTF-8, float
// printing, case folding).

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Payloads of the fourth sweep.
const (
	pMarkup4 = "PWNsetext\n=========\n- [x] PWNlist\n> PWNquote\n| PWNa | PWNb |\n|---|---|\n| x | y |\n***\n" +
		"<style>body{display:none}</style><iframe srcdoc=\"<script>parent.PWN()</script>\"></iframe><math><mi xlink:href=\"javascript:alert(1)\">PWN</mi></math>" +
		"<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript> [PWNmix](JaVaScRiPt:alert(1)) [PWNent](java&#x73;cript:alert(1)) " +
		"[PWNangle](<javascript:alert(1)>) <https://PWN.example/x> __PWNunder__ &#60;script&#62; \\<b>PWN\\</b> [^PWNfoot]\n\n[^PWNfoot]: x"
	pTerm4 = "\x1b]52;c;cHduZWQ=\x07\x1b[?1049h\x1bc\u009b2J\u009b31m\u061cALM\u200eLRM\u200fRLM\ufeffBOM\u2028LS\u2029PS\U000e0041TAG\x1b[6n\x1b]8;;https://evil.example\x1b\\L\x1b]8;;\x1b\\"
)

// Shell and Python breakouts of the fourth sweep (each ends in a way that
// leaves the rest of a line parseable).
var pShell4 = []string{
	"x>pwned<x",                                            // a redirection creates the file
	"x|touch${IFS}pwned|x",                                 // a pipe
	"x&touch${IFS}pwned&x",                                 // a background job
	"x'\"'\"';touch${IFS}pwned;'\"'\"'",                    // a quote breakout in both quote kinds
	"$IFS$(touch${IFS}pwned)",                              // a value that starts with $
	"x\f;touch${IFS}pwned;#",                               // form feed
	"x\u2028'+__import__('os').system('touch pwned')+'",    // U+2028 (a line end to JS, not to Python)
	"x\\\\'));__import__('os').system('touch pwned');((('", // escaped backslashes, then a Python breakout
	"x\t;touch${IFS}pwned\t#",                              // tabs
	"x]]'\"\\\\n;touch${IFS}pwned;echo ${PATH:0:1}",        // parameter expansion, a literal \n
	"x`touch${IFS}pwned`$(touch${IFS}pwned2)$((1))${x:-$(touch${IFS}pwned3)}", // every substitution form
}

func gen4(add adder, shared string, scale int) error {
	one := func(name string) []string { return []string{name} }
	q := jsonString

	// ---- markup4 and term4 at every injection point of a trace
	for _, pt := range []string{"kernel", "op", "python", "annotation", "pg", "device"} {
		for _, p := range []struct{ id, s string }{{"markup4", pMarkup4}, {"term4", pTerm4}} {
			add(Case{ID: "n4-" + pt + "-" + p.id, Kind: "markup", What: fmt.Sprintf("%s names carry %s", pt, p.id), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
				map[string][]byte{"t.json": kineto(200, map[string]string{pt: p.s})}, nil)
		}
		add(Case{ID: "n4-" + pt + "-breakdown", Kind: "markup", What: pt + " names carry markup4+term4 (breakdown's artifacts)", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4},
			map[string][]byte{"t.json": kineto(200, map[string]string{pt: pMarkup4 + pTerm4})}, nil)
	}
	for _, p := range []struct{ id, s string }{{"markup4", "PWN\n===\n- [x] PWN <style>x</style> [PWNmix](JaVaScRiPt:alert(1)) __PWNu__ "}, {"term4", strings.ReplaceAll(pTerm4, "\x00", "")}} {
		s := strings.ReplaceAll(p.s, "/", "_")
		if len(s) > 200 {
			s = s[:200]
		}
		hosts, reason := all4, ""
		if strings.ContainsAny(s, "\n\r") {
			hosts, reason = noWorker, "worker: ?name= is one line"
		}
		add(Case{ID: "n4-filename-trace-" + p.id, Kind: "markup", What: "a trace's file name carries " + p.id, Cmd: "triage", Inputs: one(s + ".json"), Hosts: hosts, Reason: reason},
			map[string][]byte{s + ".json": kineto(50, nil)}, nil)
		add(Case{ID: "n4-filename-log-" + p.id, Kind: "markup", What: "a crash log's file name carries " + p.id, Cmd: "diagnose", Inputs: one(s + ".log"), Hosts: hosts, Reason: reason, Steps: true},
			map[string][]byte{s + ".log": []byte(rocrFault)}, nil)
	}
	add(Case{ID: "n4-diff-names", Kind: "markup", What: "diff --force of runs whose stage, kernel, op and device names carry markup4/term4", Cmd: "diff", Args: []string{"--force"},
		Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Reason: "page: no --force; worker: one file"},
		map[string][]byte{"a.json": kineto(100, map[string]string{"kernel": pMarkup4, "op": pTerm4, "annotation": pMarkup4, "device": pTerm4}), "b.json": kineto(170, map[string]string{"kernel": pMarkup4, "op": pTerm4, "annotation": pMarkup4, "device": pTerm4})}, nil)
	add(Case{ID: "n4-diff-refusal", Kind: "markup", What: "diff's refusal reason from --base-image with markup4+term4", Cmd: "diff",
		Args: []string{"--base-image", pMarkup4 + pTerm4, "--b-base-image", "x"}, Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Exits: []int{2, 3}, Reason: "page/worker: identity flags are CLI"},
		map[string][]byte{"a.json": kineto(100, nil), "b.json": kineto(120, nil)}, nil)
	add(Case{ID: "n4-log-lines", Kind: "markup", What: "crash log lines carry markup4, term4 and the fourth shell payloads", Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4, Steps: true},
		map[string][]byte{"server.log": []byte(strings.ReplaceAll(pMarkup4, "\n", " ") + "\n" + strings.ReplaceAll(pTerm4, "\n", "") + "\n" + rocrFault + "RuntimeError: " + strings.Join(pShell4, " ") + "\n" + pMarkup4 + "\n" + deviceAssert)}, nil)

	// ---- suggested commands: the fourth shell payloads where values reach steps
	kapi := func(name string) []byte {
		return []byte("SGLANG_KERNEL_API_LOGLEVEL=3\nSGLang Kernel API Call: " + name + "\n" + deviceAssert)
	}
	for i, p := range pShell4 {
		add(Case{ID: fmt.Sprintf("k4-kapi-%d", i+1), Kind: "command", What: fmt.Sprintf("kernel-API name sglang.op.%q", p), Cmd: "diagnose", Inputs: one("api.log"), Hosts: all4, Steps: true},
			map[string][]byte{"api.log": kapi("sglang.op." + p)}, nil)
		add(Case{ID: fmt.Sprintf("k4-dump-%d", i+1), Kind: "command", What: fmt.Sprintf("dumped-inputs path /dumps/%q", p), Cmd: "diagnose", Inputs: one("fi.log"), Hosts: all4, Steps: true},
			map[string][]byte{"fi.log": []byte("FLASHINFER_LOGLEVEL=10\nFlashInfer API Call: flashinfer.decode.run\nDumped inputs to: /dumps/" + p + "\n" + deviceAssert)}, nil)
		md := `{"function_name": ` + q("sglang.op."+p) + `, "execution_status": "exception", "exception": ` + q("RuntimeError: "+p) + `, "process_id": 1, "input_tensor_keys": [` + q(p) + `]}`
		add(Case{ID: fmt.Sprintf("k4-meta-%d", i+1), Kind: "command", What: fmt.Sprintf("a dump's metadata.json (exception) function_name sglang.op.%q", p), Cmd: "diagnose", Inputs: one("metadata.json"), Hosts: all4, Steps: true},
			map[string][]byte{"metadata.json": []byte(md)}, nil)
		if i%2 == 0 {
			dname := strings.NewReplacer("/", "_").Replace("20260512_110244_512_pid61877_sglang.custom_op.x_call0093" + p)
			add(Case{ID: fmt.Sprintf("k4-dumpdir-%d", i+1), Kind: "command", What: fmt.Sprintf("a level-10 dump folder named …call0093%q beside per-pid kernel-API logs", p), Cmd: "diagnose", Inputs: one("run"), Hosts: cli2, Steps: true, Reason: "page/worker: no folders"},
				map[string][]byte{"run/server.log": []byte("SGLANG_KERNEL_API_LOGLEVEL=10\n" + deviceAssert), "run/kernel_api_61877" + strings.ReplaceAll(p, "/", "_") + ".log": kapi("sglang.op." + p), "run/dumps/" + dname + "/metadata.json": []byte(md)}, nil)
		}
		// docker inspect: the container name, image and command carry the payload
		di := `[{"Id":"9f1c3be0d7a4","Name":"/sglang` + strings.Trim(q(p), `"`) + `","Path":"python3","Args":["-m",` + q(p) + `],"State":{"Status":"exited","OOMKilled":true,"Pid":0,"ExitCode":137,"Error":` + q(p) + `},"Config":{"Image":` + q("rocm/sglang:"+p) + `,"Env":[` + q("HSA_OVERRIDE_GFX_VERSION=9.4.2"+p) + `],"Hostname":` + q("node-1"+p) + `}}]`
		add(Case{ID: fmt.Sprintf("k4-docker-%d", i+1), Kind: "command", What: fmt.Sprintf("docker inspect whose Name, Image, Args, Env, Hostname carry %q", p), Cmd: "diagnose", Inputs: one("inspect.json"), Hosts: all4, Steps: true},
			map[string][]byte{"inspect.json": []byte(di)}, nil)
	}
	// a dmesg OOM kill whose comm, a py-spy dump whose command line, and a
	// watchdog line whose PG name carry the payloads
	for i, p := range pShell4[:6] {
		pl := strings.ReplaceAll(p, "\n", " ")
		add(Case{ID: fmt.Sprintf("k4-oomcomm-%d", i+1), Kind: "command", What: fmt.Sprintf("a dmesg OOM kill of comm %q", pl), Cmd: "diagnose", Inputs: one("dmesg.log"), Hosts: all4, Steps: true},
			map[string][]byte{"dmesg.log": []byte("[ 100.1] python3" + pl + " invoked oom-killer: gfp_mask=0x140dca, order=0, oom_score_adj=0\n[ 100.2] Out of memory: Killed process 4242" + pl + " (python3" + pl + ") total-vm:100kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0\n")}, nil)
		add(Case{ID: fmt.Sprintf("k4-pyspy-%d", i+1), Kind: "command", What: fmt.Sprintf("a py-spy dump whose process command line and thread name carry %q", pl), Cmd: "diagnose", Inputs: one("pyspy.txt"), Hosts: all4, Steps: true},
			map[string][]byte{"pyspy.txt": []byte("Process 71533: python3 -m sglang.launch_server --model " + pl + "\nPython v3.12.3 (/usr/bin/python3.12)\n\nThread 71533 (active): \"MainThread" + pl + "\"\n    synchronize (torch/cuda/__init__.py:985)\n    forward (model" + pl + ".py:12)\n")}, nil)
		add(Case{ID: fmt.Sprintf("k4-pgname-%d", i+1), Kind: "command", What: fmt.Sprintf("a watchdog timeout whose PG name and host carry %q", pl), Cmd: "diagnose", Inputs: one("train.log"), Hosts: all4, Steps: true},
			map[string][]byte{"train.log": []byte("[rank1]:[E512 10:31:03.1 ProcessGroupNCCL.cpp:632] [PG ID 3 PG GUID 3(tp_group" + pl + ") Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\nnode-7" + pl + ":4242:4299 [1] NCCL INFO comm 0x5 rank 1 nranks 8\n")}, nil)
	}
	// flight recorder JSON and pickle whose names carry payloads
	frNames := func(p string) []byte {
		return []byte(`{"version":"2.4","rank":0,"pg_config":{"0":{"name":` + q("tp"+p) + `,"desc":` + q(pMarkup4+p) + `,"ranks":"[0, 1]"}},"pg_status":{"0":{"last_enqueued_collective":5,"last_started_collective":5,"last_completed_collective":4}},"entries":[` +
			`{"record_id":5,"pg_id":0,"process_group":[` + q("0") + `,` + q("tp"+p) + `],"collective_seq_id":5,"profiling_name":` + q("nccl:all_reduce"+p) + `,"state":"started","frames":[{"name":` + q("forward"+p) + `,"filename":` + q("/w/"+p+".py") + `,"line":1}],"input_sizes":[[1]],"output_sizes":[[1]]}]}`)
	}
	for i, p := range []string{pShell4[0], pShell4[3], pShell4[7], pTerm4} {
		add(Case{ID: fmt.Sprintf("k4-frjson-%d", i+1), Kind: "command", What: fmt.Sprintf("a flight-recorder JSON whose PG name, profiling name and frames carry %q", p), Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4, Steps: true},
			map[string][]byte{"fr_rank0.json": frNames(p)}, nil)
		add(Case{ID: fmt.Sprintf("k4-frpickle-%d", i+1), Kind: "command", What: fmt.Sprintf("a flight-recorder pickle whose PG name, profiling name and frames carry %q", p), Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, Steps: true},
			map[string][]byte{"nccl_trace_rank_0": pickleOf(frValue(p))}, nil)
	}

	// ---- every seed and bug-report crash input with its values carrying payloads
	reEnv := regexp.MustCompile(`\b([A-Z][A-Z0-9_]{2,}=)([^\s'",;]+)`)
	rePath := regexp.MustCompile(`(/[A-Za-z0-9_.+-]+){2,}`)
	reIdent := regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_:]*(_kernel|Kernel|kernel_|_fwd|forward|custom_op)[A-Za-z0-9_.]*`)
	rePid := regexp.MustCompile(`\b(pid|PID|Pid|Process|process) ?[:=]? ?([0-9]{2,})`)
	reComm := regexp.MustCompile(`\((python[0-9.]*|pt_main_thread|[a-z_]+)\)`)
	rePG := regexp.MustCompile(`\(([a-z_]*pg|[a-z_]*group)\)`)
	reHostPfx := regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*[0-9]):`)
	var seeds []string
	for _, d := range []string{"crash-seedcases", "crash-bugreports"} {
		filepath.Walk(filepath.Join(shared, "testdata", d), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				seeds = append(seeds, p)
			}
			return nil
		})
	}
	sort.Strings(seeds)
	if len(seeds) == 0 {
		return fmt.Errorf("no crash-seedcases under %s", shared)
	}
	subst := func(name string, src []byte, p string) []byte {
		if strings.HasSuffix(name, ".json") {
			var v any
			if json.Unmarshal(src, &v) == nil {
				v = appendStrings(v, p)
				b, _ := json.MarshalIndent(v, "", "  ")
				return b
			}
		}
		r := strings.ReplaceAll(p, "$", "$$")
		s := string(src)
		s = reEnv.ReplaceAllString(s, "${1}${2}"+r)
		s = rePath.ReplaceAllString(s, "${0}"+r)
		s = reIdent.ReplaceAllString(s, "${0}"+r)
		s = rePid.ReplaceAllString(s, "${1} ${2}"+r)
		s = reComm.ReplaceAllString(s, "(${1}"+r+")")
		s = rePG.ReplaceAllString(s, "(${1}"+r+")")
		s = reHostPfx.ReplaceAllString(s, "${1}"+r+":")
		return []byte(s)
	}
	groups := map[string][]string{} // a seed folder (c08d, c20, …) is one case
	var order []string
	for _, f := range seeds {
		rel, _ := filepath.Rel(filepath.Join(shared, "testdata"), f)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		base := parts[len(parts)-1]
		ext := filepath.Ext(base)
		if len(parts) == 2 && (ext != ".log" && ext != ".txt" && ext != ".json" || base == "answers.json" || strings.HasPrefix(base, "c3")) {
			continue // answer keys, notes, empty, binary and UTF-16 copies
		}
		key := strings.Join(parts[:2], "/")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], f)
	}
	for n, key := range order {
		files := groups[key]
		tag := filepath.Base(key)
		if i := strings.IndexByte(tag, '_'); i > 0 {
			tag = tag[:i]
		}
		isDir := len(files) > 1 || strings.Count(filepath.ToSlash(strings.TrimPrefix(files[0], filepath.Join(shared, "testdata"))), "/") > 2
		for v, p := range []string{pShell4[n%len(pShell4)], strings.ReplaceAll(pMarkup4, "\n", " ") + strings.ReplaceAll(pTerm4, "\u2028", "")} {
			kind, id := "command", fmt.Sprintf("k4-%s-%d", tag, n%len(pShell4)+1)
			if v == 1 {
				kind, id = "markup", "k4-"+tag+"-markup"
			}
			in := map[string][]byte{}
			var inputs []string
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(filepath.Join(shared, "testdata", filepath.Dir(key)), f)
				rel = filepath.ToSlash(rel)
				if isDir {
					// folders of dumps are renamed too: …_callNNNN<payload>
					segs := strings.Split(rel, "/")
					for j := 1; j < len(segs)-1; j++ {
						segs[j] = clipName(segs[j] + strings.ReplaceAll(p, "/", "_"))
					}
					rel = strings.Join(segs, "/")
				} else {
					rel = "in." + tag + filepath.Ext(rel)
					inputs = append(inputs, rel)
				}
				if filepath.Ext(f) == ".pt" {
					in[rel] = src
				} else {
					in[rel] = subst(f, src, p)
				}
			}
			hosts, reason := all4, ""
			if isDir {
				hosts, reason = cli2, "page/worker: folders are the CLI's in the sweep"
				inputs = []string{filepath.Base(key)}
			}
			add(Case{ID: id, Kind: kind, What: fmt.Sprintf("%s with every env value, path, kernel identifier, pid, comm, PG name and host + %.40q", key, p), Cmd: "diagnose", Inputs: inputs, Hosts: hosts, Reason: reason, Steps: true}, in, nil)
		}
	}

	// ---- rocpd SQLite: names with payloads, times at int64's ends
	if db, err := rocpdCopy(shared); err == nil {
		for _, p := range []struct{ id, s string }{{"markup4", pMarkup4}, {"term4", pTerm4}, {"shell", pShell4[1]}} {
			sql := fmt.Sprintf("UPDATE %[1]s SET kernel_name = kernel_name || CAST(x'%[2]s' AS TEXT), display_name = display_name || CAST(x'%[2]s' AS TEXT);", rocpdTable(db, "rocpd_info_kernel_symbol"), hex.EncodeToString([]byte(p.s)))
			b, err := sqliteEdit(db, sql)
			if err != nil {
				return err
			}
			add(Case{ID: "rocpd-names-" + p.id, Kind: "markup", What: "a rocpd database whose kernel names carry " + p.id, Cmd: "triage", Inputs: one("908_results.db"), Hosts: all4}, map[string][]byte{"908_results.db": b}, nil)
		}
		kd := rocpdTable(db, "rocpd_kernel_dispatch")
		b, err := sqliteEdit(db, fmt.Sprintf(`UPDATE %[1]s SET start = 9223372036854775807 WHERE id %% 7 = 0; UPDATE %[1]s SET "end" = -9223372036854775808 WHERE id %% 7 = 1; UPDATE %[1]s SET start = 1e308 WHERE id %% 7 = 2; UPDATE %[1]s SET "end" = 'NaN' WHERE id %% 7 = 3; UPDATE %[1]s SET stream_id = 4294967297 WHERE id %% 7 = 4;`, kd))
		if err != nil {
			return err
		}
		add(Case{ID: "rocpd-numbers", Kind: "numbers", What: "a rocpd database with start 2^63-1, end -2^63, a REAL 1e308, a text 'NaN' end, a stream id 2^32+1", Cmd: "triage", Inputs: one("908_results.db"), Hosts: all4, Exits: []int{0, 1, 2}},
			map[string][]byte{"908_results.db": b}, nil)
		b, err = sqliteEdit(db, fmt.Sprintf(`UPDATE %[1]s SET kernel_name = printf('k%%d_%%s', id, hex(randomblob(8))), display_name = printf('k%%d', id);`, rocpdTable(db, "rocpd_info_kernel_symbol")))
		if err == nil {
			add(Case{ID: "rocpd-gz", Kind: "compression", What: "a rocpd database gzipped, followed by a second member of junk", Cmd: "triage", Inputs: one("908_results.db.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
				map[string][]byte{"908_results.db.gz": append(gz(b), gz(bytes.Repeat([]byte("junk"), 1<<18))...)}, nil)
		}
		os.Remove(db)
	} else {
		return err
	}

	// ---- rocprofv3 CSV: structure
	csvHead := `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"` + "\n"
	row := func(i int, name string, start, end int64) string {
		return fmt.Sprintf(`"KERNEL_DISPATCH","Agent 2",16,0,908,%d,8,"%s",%d,%d,%d,0,0,8,0,32,512,1,1,512,1,1`+"\n", i+1, strings.ReplaceAll(name, `"`, `""`), i+1, start, end)
	}
	var uq bytes.Buffer
	uq.WriteString(csvHead + row(0, "ok", 1000, 2000))
	uq.WriteString(`"KERNEL_DISPATCH","Agent 2",16,0,908,2,8,"unterminated` + "\n")
	for i := range 200000 * scale {
		uq.WriteString(row(i+2, "k", int64(3000+i*10), int64(3005+i*10)))
	}
	add(Case{ID: "csv-unterminated-quote", Kind: "structure", What: fmt.Sprintf("a rocprofv3 CSV whose second row opens a quote that never closes (%d MB after it)", uq.Len()>>20), Cmd: "breakdown", Inputs: one("908_kernel_trace.csv"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_kernel_trace.csv": uq.Bytes()}, nil)
	var wide bytes.Buffer
	wide.WriteString(strings.TrimSuffix(csvHead, "\n"))
	for i := range 100000 {
		fmt.Fprintf(&wide, `,"X%d"`, i)
	}
	wide.WriteString("\n")
	for i := range 50 {
		wide.WriteString(strings.TrimSuffix(row(i, "k", int64(1000+i*10), int64(1005+i*10)), "\n"))
		wide.WriteString(strings.Repeat(",1", 100000))
		wide.WriteString("\n")
	}
	add(Case{ID: "csv-100k-columns", Kind: "structure", What: "a rocprofv3 CSV with 100 k extra columns on every row", Cmd: "breakdown", Inputs: one("908_kernel_trace.csv"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_kernel_trace.csv": wide.Bytes()}, nil)
	var huge bytes.Buffer
	huge.WriteString(csvHead + row(0, strings.Repeat("A\"\n", (8<<20)*scale/3), 1000, 2000) + row(1, "ok", 3000, 4000))
	add(Case{ID: "csv-huge-field", Kind: "structure", What: "a rocprofv3 CSV whose one kernel name is 8 MB of doubled quotes and newlines", Cmd: "breakdown", Inputs: one("908_kernel_trace.csv"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_kernel_trace.csv": huge.Bytes()}, nil)
	var neg bytes.Buffer
	neg.WriteString(csvHead)
	for i, se := range [][2]int64{{5000, 1000}, {math.MaxInt64 - 1, math.MaxInt64}, {math.MinInt64, math.MaxInt64}, {0, 0}, {-5, -1}, {1000, 1000}, {63857982592000, 63857982592100}} {
		neg.WriteString(row(i, fmt.Sprintf("k%d", i%2), se[0], se[1]))
	}
	add(Case{ID: "csv-negative-durations", Kind: "numbers", What: "rocprofv3 CSV rows ending before they start, spanning int64, and zero-length", Cmd: "triage", Inputs: one("908_kernel_trace.csv"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_kernel_trace.csv": neg.Bytes()}, nil)

	// ---- JSON structure and escapes in places the earlier sweeps did not try
	deepN := 1000000 * scale
	add(Case{ID: "json-deep-docker", Kind: "json", What: "a docker inspect array nested 1 M deep in State", Cmd: "diagnose", Inputs: one("inspect.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"inspect.json": []byte(`[{"Id":"9f1c","Name":"/x","State":{"OOMKilled":true,"ExitCode":137,"x":` + strings.Repeat("[", deepN) + strings.Repeat("]", deepN) + `}}]`)}, nil)
	add(Case{ID: "json-deep-objects-event", Kind: "json", What: "an event's args holding 500 k nested objects", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7,"x":` + strings.Repeat(`{"a":`, deepN/2) + "1" + strings.Repeat("}", deepN/2) + `}}]}`)}, nil)
	add(Case{ID: "json-deep-diag", Kind: "json", What: "a crash_diagnostics JSON nested 1 M deep", Cmd: "diagnose", Inputs: one("crash_diagnostics.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"crash_diagnostics.json": []byte(`{"exit_code":139,"kernel_api_log":"x","x":` + strings.Repeat("[", deepN) + strings.Repeat("]", deepN) + `}`)}, nil)
	esc := strings.Repeat(`\ud83d\ude00`, 500000*scale)
	add(Case{ID: "json-surrogate-escapes", Kind: "json", What: "a kernel name of 500 k escaped surrogate pairs (6 MB)", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"` + esc + `","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7}}]}`)}, nil)
	add(Case{ID: "json-escaped-key", Kind: "json", What: "an args key of 1 M backslash escapes", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7,"` + strings.Repeat(`\\`, 1000000*scale) + `":1}}]}`)}, nil)
	add(Case{ID: "json-escapes-fr", Kind: "json", What: "a flight-recorder JSON whose frame names hold 1 M backslash escapes", Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4, Exits: []int{0, 1}},
		map[string][]byte{"fr_rank0.json": []byte(`{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":5,"last_started_collective":5,"last_completed_collective":4}},"entries":[{"record_id":5,"pg_id":0,"collective_seq_id":5,"profiling_name":"nccl:all_reduce","state":"started","frames":[{"name":"` + strings.Repeat(`\\`, 1000000*scale) + `","filename":"f.py","line":1}]}]}`)}, nil)
	add(Case{ID: "json-escapes-docker", Kind: "json", What: "a docker inspect whose Error holds 1 M \\u escapes", Cmd: "diagnose", Inputs: one("inspect.json"), Hosts: all4, Exits: []int{0, 1}},
		map[string][]byte{"inspect.json": []byte(`[{"Id":"9f1c","Name":"/x","State":{"OOMKilled":true,"ExitCode":137,"Error":"` + strings.Repeat(`\u0041`, 1000000*scale) + `"}}]`)}, nil)
	add(Case{ID: "json-escapes-rocprof-meta", Kind: "json", What: "a kernel-API metadata.json whose function_name is 1 M escapes", Cmd: "diagnose", Inputs: one("metadata.json"), Hosts: all4, Exits: []int{0, 1}},
		map[string][]byte{"metadata.json": []byte(`{"function_name":"sglang.op.` + strings.Repeat(`\"`, 1000000*scale) + `","execution_status":"exception","exception":"RuntimeError"}`)}, nil)
	add(Case{ID: "json-bad-utf8", Kind: "json", What: "raw invalid UTF-8 (0xff, overlong, surrogate halves) inside names", Cmd: "triage", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json": kineto(100, map[string]string{"kernel": "k\xff\xc0\xaf\xed\xa0\x80", "op": "op\xfe\x80"})}, nil)

	// ---- many distinct things
	many := func(n int, ev func(i int) string) []byte {
		var b bytes.Buffer
		b.WriteString(`{"traceEvents":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(ev(i))
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	add(Case{ID: "many-ops-200k", Kind: "lanes", What: fmt.Sprintf("%d k cpu ops, every name distinct, each launching one kernel", 200*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(200000*scale, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":"aten::op_%d","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":%d}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7,"External id":%d}}`, i, 10+i*10, i+1, 12+i*10, i+1)
		})}, nil)
	add(Case{ID: "many-python-200k", Kind: "lanes", What: fmt.Sprintf("%d k python frames, every one distinct, each over one op", 200*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(200000*scale, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"python_function","name":"m%d.py(%d): f%d","pid":1,"tid":1,"ts":%d,"dur":8},{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":%d}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7,"External id":%d}}`, i, i, i, 10+i*10, 11+i*10, i+1, 12+i*10, i+1)
		})}, nil)
	add(Case{ID: "many-threads-100k", Kind: "lanes", What: fmt.Sprintf("%d k CPU threads and pids, one op each", 100*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(100000*scale, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":%d,"tid":%d,"ts":%d,"dur":3,"args":{"External id":%d}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7,"External id":%d}}`, i, i, 10+i*10, i+1, 12+i*10, i+1)
		})}, nil)
	add(Case{ID: "many-annotations-200k", Kind: "lanes", What: fmt.Sprintf("%d k step annotations, every name distinct, side by side", 200*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(200000*scale, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"user_annotation","name":"step%d [DECODE bs=%d]","pid":1,"tid":1,"ts":%d,"dur":8},{"ph":"X","cat":"gpu_user_annotation","name":"step%d [DECODE bs=%d]","pid":0,"tid":7,"ts":%d,"dur":8},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7}}`, i, i, 10+i*10, i, i, 10+i*10, 12+i*10)
		})}, nil)
	add(Case{ID: "many-memcpy-streams", Kind: "lanes", What: fmt.Sprintf("%d k memcpys, each on its own stream and device", 80*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4, MemMB: 768},
		map[string][]byte{"t.json": many(80000*scale, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":%d,"tid":%d,"ts":%d,"dur":3,"args":{"device":%d,"stream":%d,"bytes":1024}}`, i, i, 10+i, i%300, i)
		})}, nil)
	add(Case{ID: "many-flows", Kind: "lanes", What: fmt.Sprintf("%d k flow events (s/f) all with the same id", 300*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(300000*scale, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf(`{"ph":"s","id":1,"pid":1,"tid":1,"ts":%d,"cat":"ac2g","name":"ac2g"}`, 10+i)
			}
			return fmt.Sprintf(`{"ph":"f","id":1,"pid":0,"tid":7,"ts":%d,"cat":"ac2g","name":"ac2g","bp":"e"},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":1,"args":{"device":0,"stream":7,"correlation":1}}`, 10+i, 10+i)
		})}, nil)
	add(Case{ID: "many-correlations-same", Kind: "lanes", What: fmt.Sprintf("%d k launches and kernels sharing one correlation and External id", 200*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(200000*scale, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":1}},{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":1,"args":{"External id":1,"correlation":1}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7,"External id":1,"correlation":1}}`, 10+i*10, 11+i*10, 12+i*10)
		})}, nil)
	frPGs := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"version":"2.4","rank":0,"pg_config":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%d":{"name":"pg%d","desc":"d%d","ranks":"[0, %d]"}`, i, i, i, i+1)
		}
		b.WriteString(`},"pg_status":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%d":{"last_enqueued_collective":%d,"last_started_collective":%d,"last_completed_collective":%d}`, i, 5, 5, 4)
		}
		b.WriteString(`},"entries":[]}`)
		return b.Bytes()
	}
	add(Case{ID: "fr-pgs-200k", Kind: "lanes", What: fmt.Sprintf("a flight-recorder JSON with %d k process groups, each stuck", 200*scale), Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4, Exits: []int{0, 1}},
		map[string][]byte{"fr_rank0.json": frPGs(200000 * scale)}, nil)
	var ranks bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&ranks, "[rank%d]:[E512 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n", i, i, 1000000-i)
	}
	files2k := map[string][]byte{}
	var names2k []string
	for i := range 64 {
		n := fmt.Sprintf("rank%02d.log", i)
		names2k = append(names2k, n)
		files2k[n] = ranks.Bytes()
	}
	add(Case{ID: "logs-64-ranks-2k-each", Kind: "structure", What: "64 rank logs dropped at once, each holding 2,000 ranks' watchdog timeouts", Cmd: "diagnose", Inputs: names2k, Hosts: noWorker, Reason: "worker: one file", Steps: true}, files2k, nil)

	// ---- pickles: shared references, deep dicts and tuples
	add(Case{ID: "pickle-laughs", Kind: "pickle", What: "a billion-laughs pickle: 12 levels, each a list of 10 references to the level below (10^12 elements expanded)", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": laughs(12, 10)}, nil)
	add(Case{ID: "pickle-laughs-entries", Kind: "pickle", What: "a flight-recorder pickle whose entries list is 10^9 references (9 levels of 10) to one entry dict", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": frLaughs(9, 10)}, nil)
	add(Case{ID: "pickle-deep-dicts", Kind: "pickle", What: "a pickle of dicts nested 1 M deep", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": deepDicts(1000000 * scale)}, nil)
	add(Case{ID: "pickle-deep-tuples", Kind: "pickle", What: "a pickle of 1-tuples nested 1 M deep (TUPLE1)", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": deepTuples(1000000 * scale)}, nil)
	add(Case{ID: "pickle-marks", Kind: "pickle", What: "a pickle of 2 M MARKs never closed", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": append(append([]byte{0x80, 2}, bytes.Repeat([]byte{'('}, 2000000*scale)...), 'N', '.')}, nil)
	add(Case{ID: "pickle-numbers4", Kind: "numbers", What: "a flight-recorder pickle with LONG1 2^64, BININT -2^31, negative sequence ids and a NaN duration", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": pickleOf(map[string]any{"version": "2.4", "rank": int64(math.MinInt32),
			"pg_status": map[string]any{"0": map[string]any{"last_enqueued_collective": bigInt{0, 0, 0, 0, 0, 0, 0, 0, 1}, "last_started_collective": int64(-5), "last_completed_collective": int64(math.MinInt32)}},
			"entries":   []any{map[string]any{"record_id": int64(-1), "pg_id": int64(0), "collective_seq_id": bigInt{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "profiling_name": "nccl:all_reduce", "state": "started", "duration_ms": math.NaN(), "time_created_ns": math.Inf(-1)}}})}, nil)

	// ---- numbers in traces, docker inspect, flight-recorder JSON, diff
	add(Case{ID: "kineto-negative-durations", Kind: "numbers", What: "kernels with dur -5, -1e308, ts+dur past int64, ts -9.2e18, and a step annotation of dur -1", Cmd: "triage", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"step [DECODE bs=1]","pid":1,"tid":1,"ts":100,"dur":-1},` +
			`{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1000,"dur":-5,"args":{"device":0,"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":1010,"dur":-1e308,"args":{"device":0,"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":9223372036854775000,"dur":9223372036854775000,"args":{"device":0,"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":-9.2e18,"dur":5,"args":{"device":0,"stream":7}},` +
			`{"ph":"B","cat":"kernel","name":"e","pid":0,"tid":7,"ts":2000},{"ph":"E","pid":0,"tid":7,"ts":1000},` +
			`{"ph":"X","cat":"kernel","name":"ok","pid":0,"tid":7,"ts":1020,"dur":5,"args":{"device":0,"stream":7}}]}`)}, nil)
	add(Case{ID: "kineto-ids-2p63", Kind: "numbers", What: "stream, device, pid and tid ids of 2^63-1, 2^63, -2^63, 2^32+7 and 7 (must not alias)", Cmd: "triage", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json": many(5, func(i int) string {
			v := []string{"9223372036854775807", "9223372036854775808", "-9223372036854775808", "4294967303", "7"}[i]
			return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"k%d","pid":%s,"tid":%s,"ts":%d,"dur":50,"args":{"device":%s,"stream":%s}}`, i, v, v, 1000+i*10, v, v)
		})}, nil)
	add(Case{ID: "docker-numbers", Kind: "numbers", What: "docker inspect with ExitCode 2^63, Pid -1, OOMKilled \"true\" (a string), a 1e308 RestartCount", Cmd: "diagnose", Inputs: one("inspect.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"inspect.json": []byte(`[{"Id":"9f1c","Name":"/x","RestartCount":1e308,"State":{"Status":"exited","OOMKilled":"true","Pid":-1,"ExitCode":9223372036854775808}},{"Id":"9f1d","Name":"/y","State":{"OOMKilled":false,"ExitCode":-1e400}}]`)}, nil)
	add(Case{ID: "diag-numbers", Kind: "numbers", What: "a crash_diagnostics JSON with exit_code 1e308, -0, 2^64 and NaN tokens", Cmd: "diagnose", Inputs: one("crash_diagnostics.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"crash_diagnostics.json": []byte(`{"exit_code":1e308,"signal":-0,"returncode":18446744073709551616,"elapsed_s":NaN,"kernel_api_log":"SGLang Kernel API Call: sglang.op.x\n"}`)}, nil)
	add(Case{ID: "fr-numbers4", Kind: "numbers", What: "a flight-recorder JSON whose sequence numbers are -1, 2^63, 4.5 and \"7\" and durations NaN/-1e308", Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"fr_rank0.json": []byte(`{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":-1,"last_started_collective":9223372036854775808,"last_completed_collective":4.5},"1":{"last_enqueued_collective":"7","last_started_collective":1e-400,"last_completed_collective":-0}},"entries":[{"record_id":-1,"pg_id":0,"collective_seq_id":9223372036854775807,"profiling_name":"nccl:all_reduce","state":"started","duration_ms":-1e308,"time_created_ns":1e308}]}`)}, nil)
	add(Case{ID: "diff-numbers", Kind: "numbers", What: "diff --force of traces whose times are 2^53+1 µs apart and whose durations are 1e308", Cmd: "diff", Args: []string{"--force"}, Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "page: no --force; worker: one file"},
		map[string][]byte{"a.json": many(3, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":1e308,"args":{"device":0,"stream":7}}`, i, 1+i)
		}), "b.json": many(3, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":-0,"args":{"device":0,"stream":7}}`, i, int64(9007199254740993)+int64(i))
		})}, nil)
	add(Case{ID: "fix-numbers4", Kind: "numbers", What: "perfetto-fix of kernels with -0, 1e308, NaN-less negative and 2^63 times", Cmd: "perfetto-fix", Inputs: one("t.json"), Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "page/worker: perfetto-fix is the CLI's"},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":-0,"dur":1e308,"args":{"stream":7}},{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":9223372036854775807,"dur":9223372036854775807,"args":{"stream":7}},{"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":5,"dur":-5,"args":{"stream":7}}]}`)}, nil)

	// ---- one answer on every engine: ties, float printing, case folding
	add(Case{ID: "engine-ties", Kind: "engine", What: "2,000 kernels of equal total time and names differing only in order, case and Unicode normalisation", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(2000, func(i int) string {
			names := []string{"K", "k", "\u212a", "é", "e\u0301", "İ", "i\u0307", "ß", "SS", "\ufb01"}
			return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":%d,"ts":%d,"dur":3,"args":{"device":0,"stream":%d}}`, q(names[i%len(names)]+fmt.Sprint(i/len(names)%20)), 7+i%3, 10+i*5, 7+i%3)
		})}, nil)
	add(Case{ID: "engine-floats", Kind: "engine", What: "durations whose sums and ratios print differently under %g/%f rounding (0.1+0.2, 1e-7, 5e-324, 1.5, 2.5, 0.125)", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(600, func(i int) string {
			d := []string{"0.1", "0.2", "1e-7", "5e-324", "1.5", "2.5", "0.125", "0.3", "1.0000000000000002", "999999.9999995"}[i%10]
			return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d.%03d,"dur":%s,"args":{"device":0,"stream":7}}`, i%4, 1000+i*3, (i*37)%1000, d)
		})}, nil)
	add(Case{ID: "engine-maps", Kind: "engine", What: "300 process groups and 300 devices seen in an order unlike their ids (map iteration)", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": many(300, func(i int) string {
			j := (i * 127) % 300
			return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":%d,"tid":7,"ts":%d,"dur":5,"args":{"device":%d,"stream":7,"Collective name":"allreduce","Process Group Name":"%d","Process Group Description":"g%d","Process Group Ranks":"[0, 1]","Group size":2,"In msg nelems":1,"dtype":"BFloat16","Seq":1}}`, j, 10+i*7, j, j, j)
		})}, nil)

	// ---- compression and archives
	var stored bytes.Buffer // a gzip of 2 M empty stored deflate blocks (10 MB making 0 bytes), then the trace
	stored.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3})
	for range 2000000 * scale {
		stored.Write([]byte{0, 0, 0, 0xff, 0xff})
	}
	tr := kineto(40, nil)
	stored.Write([]byte{1})
	stored.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(tr))))
	stored.Write(binary.LittleEndian.AppendUint16(nil, ^uint16(len(tr))))
	stored.Write(tr)
	stored.Write(binary.LittleEndian.AppendUint32(nil, crc32IEEE(tr)))
	stored.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(tr))))
	add(Case{ID: "gzip-empty-blocks", Kind: "compression", What: fmt.Sprintf("a gzip of %d M empty stored deflate blocks before the trace (%d MB)", 2*scale, stored.Len()>>20), Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": stored.Bytes()}, nil)
	add(Case{ID: "gzip-meta-bomb", Kind: "compression", What: "a 1 GiB gzip bomb named metadata.json.gz", Cmd: "diagnose", Inputs: one("metadata.json.gz"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"metadata.json.gz": bombOf2(`{"function_name":"sglang.op","x":"`, "A", 1024*scale)}, nil)
	add(Case{ID: "gzip-docker-bomb", Kind: "compression", What: "a 1 GiB gzip bomb named inspect.json.gz starting like docker inspect", Cmd: "diagnose", Inputs: one("inspect.json.gz"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"inspect.json.gz": bombOf2(`[{"Id":"9f1c","Name":"/x","State":{"OOMKilled":true,"ExitCode":137,"Error":"`, " ", 1024*scale)}, nil)
	add(Case{ID: "gzip-fr-bomb", Kind: "compression", What: "a 1 GiB gzip bomb named fr_rank0.json.gz", Cmd: "diagnose", Inputs: one("fr_rank0.json.gz"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"fr_rank0.json.gz": bombOf2(`{"version":"2.4","entries":[`, " ", 1024*scale)}, nil)
	var members bytes.Buffer // 1,000 members of 1 MiB each (each alone under the ratio, together 1 GiB)
	one1m := bombOf2(`{"traceEvents":[`, " ", 1)
	members.Write(one1m)
	for range 1023 * scale {
		members.Write(bombOf(" ", 1))
	}
	add(Case{ID: "gzip-many-small-bombs", Kind: "compression", What: fmt.Sprintf("%d gzip members of 1 MiB of spaces each (1 GiB in all, each member alone a bomb)", 1024*scale), Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{1, 2}, Flag: "--max-ratio"},
		map[string][]byte{"t.json.gz": members.Bytes()}, nil)
	zhosts, zreason := []string{"page"}, "CLI/worker: a zip is read by the page only (docs/page.md)"
	add(Case{ID: "zip-overlap", Kind: "compression", What: "a zip of 2,000 central-directory entries all pointing at one 100 MiB deflate bomb (overlapping files)", Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{0, 1, 2}, TimeS: 60},
		map[string][]byte{"run.zip": overlapZip(2000, 100)}, nil)
	add(Case{ID: "zip-stored-huge-name", Kind: "compression", What: "a zip whose entry name is 65,535 bytes of markup4", Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{0, 1, 2}},
		map[string][]byte{"run.zip": func() []byte {
			var b bytes.Buffer
			n := strings.Repeat(strings.ReplaceAll(pMarkup4, "/", "_"), 65535/len(pMarkup4)+1)[:65530] + ".json"
			writeStoredZip(&b, []zipFile{{n, kineto(30, nil)}})
			return b.Bytes()
		}()}, nil)

	// ---- special files in diagnose folders and dump folders
	sp := func(id, what string, files map[string][]byte, mk func(in string) error, exits []int, want string) {
		add(Case{ID: id, Kind: "special", What: what, Cmd: "diagnose", Inputs: one("run"), Hosts: cli2, Exits: exits, Want: want, TimeS: 30, Reason: "page/worker: no file system"}, files, mk)
	}
	runFiles := func() map[string][]byte {
		return map[string][]byte{"run/server.log": []byte(rocrFault), "run/dumps/20260512_110244_512_pid1_sglang.op_call0001/inputs.pt": []byte("x")}
	}
	sp("special-fifo-metadata", "a FIFO named metadata.json inside a dump folder", runFiles(), func(in string) error {
		return syscall.Mkfifo(filepath.Join(in, "run", "dumps", "20260512_110244_512_pid1_sglang.op_call0001", "metadata.json"), 0o644)
	}, []int{0, 1, 2}, "")
	sp("special-fifo-log", "a FIFO named server2.log in a diagnose folder", runFiles(), func(in string) error { return syscall.Mkfifo(filepath.Join(in, "run", "server2.log"), 0o644) }, []int{0, 1, 2}, "")
	sp("special-link-root", "a symlink named dumps2 → / in a diagnose folder", runFiles(), func(in string) error { return os.Symlink("/", filepath.Join(in, "run", "dumps2")) }, []int{0, 1, 2}, "")
	sp("special-link-parent", "a symlink named up → .. in a diagnose folder", runFiles(), func(in string) error { return os.Symlink("..", filepath.Join(in, "run", "up")) }, []int{0, 1, 2}, "")
	sp("special-link-zero-log", "a symlink z.log → /dev/zero in a diagnose folder", runFiles(), func(in string) error { return os.Symlink("/dev/zero", filepath.Join(in, "run", "z.log")) }, []int{0, 1, 2}, "")
	sp("special-link-proc", "a symlink kmsg.log → /proc/kmsg and tty.log → /dev/tty in a diagnose folder", runFiles(), func(in string) error {
		if err := os.Symlink("/proc/kmsg", filepath.Join(in, "run", "kmsg.log")); err != nil {
			return err
		}
		return os.Symlink("/dev/tty", filepath.Join(in, "run", "tty.log"))
	}, []int{0, 1, 2}, "")
	sp("special-sparse-pickle", "a 4 GiB sparse file named nccl_trace_rank_0 in a diagnose folder", runFiles(), func(in string) error { return sparse(filepath.Join(in, "run", "nccl_trace_rank_0"), 4<<30) }, []int{0, 1, 2}, "")
	sp("special-sparse-db", "a 4 GiB sparse file named 908_results.db in a folder", runFiles(), func(in string) error { return sparse(filepath.Join(in, "run", "908_results.db"), 4<<30) }, []int{0, 1, 2}, "")
	add(Case{ID: "special-fifo-db", Kind: "special", What: "a FIFO named 908_results.db in a folder (breakdown)", Cmd: "breakdown", Inputs: one("dir"), Hosts: cli2, Exits: []int{0, 1, 2}, TimeS: 30, Reason: "page/worker: no file system"},
		map[string][]byte{"dir/a.json": kineto(20, nil)}, func(in string) error { return syscall.Mkfifo(filepath.Join(in, "dir", "908_results.db"), 0o644) })
	return nil
}

// appendStrings appends p to every string value (not keys) of a decoded JSON value.
func appendStrings(v any, p string) any {
	switch x := v.(type) {
	case string:
		return x + p
	case []any:
		for i := range x {
			x[i] = appendStrings(x[i], p)
		}
	case map[string]any:
		for k := range x {
			x[k] = appendStrings(x[k], p)
		}
	}
	return v
}

// rocpdCopy gunzips the shared rocpd database to a temporary file.
func rocpdCopy(shared string) (string, error) {
	f, err := os.Open(filepath.Join(shared, "testdata", "rocprof", "908_results.rocpd.db.gz"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	o, err := os.CreateTemp("", "rocpd-*.db")
	if err != nil {
		return "", err
	}
	defer o.Close()
	_, err = io.Copy(o, zr)
	return o.Name(), err
}

// rocpdTable names the table of db whose name starts with prefix_ (rocpd
// suffixes every table with the run's guid).
func rocpdTable(db, prefix string) string {
	o, _ := exec.Command("sqlite3", db, "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '"+prefix+"\\_%' ESCAPE '\\' LIMIT 1").Output()
	return "`" + strings.TrimSpace(string(o)) + "`"
}

// sqliteEdit runs sql on a copy of db (the sqlite3 shell) and returns the copy's bytes.
func sqliteEdit(db, sql string) ([]byte, error) {
	src, err := os.ReadFile(db)
	if err != nil {
		return nil, err
	}
	tmp := db + ".edit"
	defer os.Remove(tmp)
	if err := os.WriteFile(tmp, src, 0o644); err != nil {
		return nil, err
	}
	if o, err := exec.Command("sqlite3", tmp, sql).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sqlite3: %v: %s", err, o)
	}
	return os.ReadFile(tmp)
}

// ---- a small pickle writer (protocol 2)

type bigInt []byte // LONG1 little-endian two's complement

func pickleOf(v any) []byte {
	b := []byte{0x80, 2}
	b = pickleValue(b, v)
	return append(b, '.')
}

func pickleValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 'N')
	case string:
		return append(append(append(b, 'X'), binary.LittleEndian.AppendUint32(nil, uint32(len(x)))...), x...)
	case int64:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return append(append(b, 'J'), binary.LittleEndian.AppendUint32(nil, uint32(int32(x)))...)
		}
		return pickleValue(b, bigInt(binary.LittleEndian.AppendUint64(nil, uint64(x))))
	case int:
		return pickleValue(b, int64(x))
	case bigInt:
		return append(append(b, 0x8a, byte(len(x))), x...)
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 'G'), math.Float64bits(x))
	case bool:
		if x {
			return append(b, 0x88)
		}
		return append(b, 0x89)
	case []any:
		b = append(b, ']', '(')
		for _, e := range x {
			b = pickleValue(b, e)
		}
		return append(b, 'e')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '}', '(')
		for _, k := range keys {
			b = pickleValue(pickleValue(b, k), x[k])
		}
		return append(b, 'u')
	}
	panic(fmt.Sprintf("pickleValue: %T", v))
}

func frValue(p string) map[string]any {
	return map[string]any{"version": "2.4", "rank": int64(0),
		"pg_config": map[string]any{"0": map[string]any{"name": "tp" + p, "desc": pMarkup4 + p, "ranks": "[0, 1]"}},
		"pg_status": map[string]any{"0": map[string]any{"last_enqueued_collective": int64(5), "last_started_collective": int64(5), "last_completed_collective": int64(4)}},
		"entries": []any{map[string]any{"record_id": int64(5), "pg_id": int64(0), "process_group": []any{"0", "tp" + p}, "collective_seq_id": int64(5), "profiling_name": "nccl:all_reduce" + p, "state": "started",
			"frames": []any{map[string]any{"name": "forward" + p, "filename": "/w/" + p + ".py", "line": int64(1)}}}}}
}

// laughs: level 0 is a list of w strings (memo 0); level k a list of w
// references to level k-1 (memo k). Expanded: w^levels elements.
func laughs(levels, w int) []byte {
	b := []byte{0x80, 2, ']', '('}
	for range w {
		b = append(b, 'X', 3, 0, 0, 0, 'l', 'o', 'l')
	}
	b = append(b, 'e', 'q', 0, '0')
	for k := 1; k <= levels; k++ {
		b = append(b, ']', '(')
		for range w {
			b = append(b, 'h', byte(k-1))
		}
		b = append(b, 'e', 'q', byte(k))
		if k < levels {
			b = append(b, '0')
		}
	}
	return append(b, '.')
}

// frLaughs: a flight-recorder dict whose entries is levels of w references
// down to one stuck entry dict.
func frLaughs(levels, w int) []byte {
	b := []byte{0x80, 2}
	b = pickleValue(b, map[string]any{"record_id": int64(5), "pg_id": int64(0), "collective_seq_id": int64(5), "profiling_name": "nccl:all_reduce", "state": "started"})
	b = append(b, 'q', 0, '0')
	for k := 1; k <= levels; k++ {
		b = append(b, ']', '(')
		for range w {
			b = append(b, 'h', byte(k-1))
		}
		b = append(b, 'e', 'q', byte(k), '0')
	}
	b = append(b, '}', '(')
	b = pickleValue(b, "version")
	b = pickleValue(b, "2.4")
	b = pickleValue(b, "pg_status")
	b = pickleValue(b, map[string]any{"0": map[string]any{"last_enqueued_collective": int64(5), "last_started_collective": int64(5), "last_completed_collective": int64(4)}})
	b = pickleValue(b, "entries")
	b = append(b, 'h', byte(levels))
	return append(b, 'u', '.')
}

func deepDicts(n int) []byte {
	b := []byte{0x80, 2}
	for range n {
		b = append(b, '}', 'X', 1, 0, 0, 0, 'a')
	}
	b = append(b, 'N')
	b = append(b, bytes.Repeat([]byte{'s'}, n)...)
	return append(b, '.')
}

func deepTuples(n int) []byte {
	b := []byte{0x80, 2, 'N'}
	b = append(b, bytes.Repeat([]byte{0x85}, n)...)
	return append(b, '.')
}

// ---- zips written by hand (overlapping entries, huge names)

type zipFile struct {
	name string
	body []byte
}

func writeStoredZip(w *bytes.Buffer, files []zipFile) {
	var cd bytes.Buffer
	for _, f := range files {
		off := w.Len()
		crc := crc32IEEE(f.body)
		lh := func(b *bytes.Buffer, central bool) {
			if central {
				b.Write([]byte{'P', 'K', 1, 2, 20, 0})
			} else {
				b.Write([]byte{'P', 'K', 3, 4})
			}
			b.Write([]byte{20, 0, 0, 0, 0, 0, 0, 0, 0, 0})
			b.Write(binary.LittleEndian.AppendUint32(nil, crc))
			b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(f.body))))
			b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(f.body))))
			b.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(f.name))))
			b.Write([]byte{0, 0})
			if central {
				b.Write(make([]byte, 8))
				b.Write(binary.LittleEndian.AppendUint32(nil, uint32(off)))
			}
			b.WriteString(f.name)
		}
		lh(w, false)
		w.Write(f.body)
		lh(&cd, true)
	}
	start := w.Len()
	w.Write(cd.Bytes())
	w.Write([]byte{'P', 'K', 5, 6, 0, 0, 0, 0})
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(files))))
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(files))))
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(cd.Len())))
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(start)))
	w.Write([]byte{0, 0})
}

// overlapZip writes one deflate entry of mib MiB of spaces (a trace's
// opening first) and n central-directory entries all pointing at it.
func overlapZip(n, mib int) []byte {
	var raw bytes.Buffer
	fw, _ := newFlate(&raw)
	fw.Write([]byte(`{"traceEvents":[`))
	z := bytes.Repeat([]byte(" "), 1<<20)
	h := crc32New()
	h.Write([]byte(`{"traceEvents":[`))
	for range mib {
		fw.Write(z)
		h.Write(z)
	}
	fw.Close()
	size := uint32(16 + mib<<20)
	var w bytes.Buffer
	name := "t.json"
	w.Write([]byte{'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0})
	w.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32()))
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(raw.Len())))
	w.Write(binary.LittleEndian.AppendUint32(nil, size))
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(name))))
	w.Write([]byte{0, 0})
	w.WriteString(name)
	w.Write(raw.Bytes())
	start := w.Len()
	var cd bytes.Buffer
	for i := range n {
		nm := fmt.Sprintf("d/%05d.json", i)
		cd.Write([]byte{'P', 'K', 1, 2, 20, 0, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0})
		cd.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32()))
		cd.Write(binary.LittleEndian.AppendUint32(nil, uint32(raw.Len())))
		cd.Write(binary.LittleEndian.AppendUint32(nil, size))
		cd.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(nm))))
		cd.Write(make([]byte, 12))
		cd.Write(binary.LittleEndian.AppendUint32(nil, 0))
		cd.WriteString(nm)
	}
	w.Write(cd.Bytes())
	w.Write([]byte{'P', 'K', 5, 6, 0, 0, 0, 0})
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(n)))
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(n)))
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(cd.Len())))
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(start)))
	w.Write([]byte{0, 0})
	return w.Bytes()
}

func crc32IEEE(b []byte) uint32                   { return crc32.ChecksumIEEE(b) }
func crc32New() hash.Hash32                       { return crc32.NewIEEE() }
func newFlate(w io.Writer) (*flate.Writer, error) { return flate.NewWriter(w, flate.BestCompression) }

// clipName keeps a file name within 250 bytes (NAME_MAX is 255), on a rune boundary.
func clipName(s string) string {
	for len(s) > 250 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}
