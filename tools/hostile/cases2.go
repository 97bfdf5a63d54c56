package main

// The third sweep's cases (issue 24's hidden acceptance): the same kinds as
// cases.go, through quoting contexts, artifacts, structures and numeric
// fields the first two sweeps did not try. Written from the issue and the
// docs (docs/limits.md, docs/rocprof.md, docs/page.md), before reading the
// analyzer's code.

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type adder func(c Case, files map[string][]byte, extra func(in string) error)

// Payloads of the third sweep.
const (
	// CR line endings (CommonMark ends a line at a lone CR), backtick runs
	// longer than any fence a report would pick, autolinks, reference
	// definitions, an image, an HTML comment that would swallow the rest,
	// table-cell breakouts through an escaped backslash.
	pMarkup3 = "x\r# Forged CR heading PWN\r\r<img src=x onerror=alert(1)>\r````````````\r~~~~~~~~~~~~\r" +
		"<javascript:alert(1)> [PWNref]\n\n[PWNref]: javascript:alert(1)\n![PWNimg](https://evil.example/p.png) " +
		"<a href=\"javascript:alert(1)\">PWNa</a> a\\|**PWNcell**\\\\| ` `` ``` <!-- <?php PWN ?> <![CDATA[PWN]]> " +
		"&lt;script&gt; _PWNu_ <svg/onload=alert(1)>"
	// controls the first sweeps did not write: CR, backspace, NUL, DCS,
	// OSC 8 hyperlink in C1 form, NEL, the remaining bidi embeddings and
	// isolates
	pTerm3 = "a\rb\x08\x08\x00c\x1bP+q544e\x1b\\\u009d8;;https://evil.example\u009cLINK\u009d8;;\u009c\u0085NEL\u202aLRE\u202bRLE\u202cPDF\u202dLRO\u2067RLI\u2068FSI\u2069"
)

// Shell and Python breakouts the first sweeps did not try.
var pShell3 = []string{
	"x\n$(touch${IFS}pwned)\n",                                  // newline inside a value
	"x\r;touch${IFS}pwned;#",                                    // CR
	"x\u2019$(touch${IFS}pwned)\u2019",                          // unicode quotes
	"x\x00';touch${IFS}pwned;'",                                 // NUL then a quote
	"x\\\\'+__import__('os').system('touch pwned')+'",           // doubled backslash before a quote
	"x\"\"\"+__import__(\"os\").system(\"touch pwned\")+\"\"\"", // triple quotes
	"x{__import__('os').system('touch pwned')}",                 // f-string braces
	"x$'\\x27'$(touch${IFS}pwned)",                              // ANSI-C quoting
	"x'\\''$(touch${IFS}pwned)'\\''",                            // a pre-quoted breakout
	"x\\",                                                       // a trailing backslash (line continuation)
	"-x --help;touch${IFS}pwned",                                // a leading dash
}

func gen3(add adder, shared string, scale int) error {
	one := func(name string) []string { return []string{name} }
	q := jsonString

	// ---- markup and controls (third payloads) at every injection point
	for _, pt := range []string{"kernel", "op", "python", "annotation", "pg", "device"} {
		for _, p := range []struct{ id, s string }{{"markup3", pMarkup3}, {"term3", pTerm3}} {
			add(Case{ID: "n3-" + pt + "-" + p.id, Kind: "markup", What: fmt.Sprintf("%s names carry %s", pt, p.id), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
				map[string][]byte{"t.json": kineto(200, map[string]string{pt: p.s})}, nil)
		}
	}
	// a name that is only backticks and spaces, and one that is a 100 k run of backticks
	add(Case{ID: "n3-backticks", Kind: "markup", What: "kernel names of backticks only (` `` ` and a 100 k run) and an op name starting and ending with one", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": kineto(100, map[string]string{"kernel": "` `` `" + strings.Repeat("`", 100000) + "\n# Forged PWN", "op": "`*PWNem*`"})}, nil)
	// the diff's Markdown with the third payloads in stages, kernels and ops
	add(Case{ID: "n3-diff", Kind: "markup", What: "diff --force of runs whose stage, kernel and op names carry markup3/term3", Cmd: "diff", Args: []string{"--force"},
		Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Reason: "page: no --force; worker: one file"},
		map[string][]byte{"a.json": kineto(100, map[string]string{"kernel": pMarkup3, "op": pTerm3, "annotation": pMarkup3}), "b.json": kineto(160, map[string]string{"kernel": pMarkup3, "op": pTerm3, "annotation": pMarkup3})}, nil)
	add(Case{ID: "n3-diff-refusal", Kind: "markup", What: "diff's refusal reason from --server-flags with markup3", Cmd: "diff",
		Args: []string{"--server-flags", pMarkup3 + strings.ReplaceAll(pTerm3, "\x00", ""), "--b-server-flags", "--tp 2"}, Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Exits: []int{2, 3},
		Reason: "page/worker: identity flags are CLI"},
		map[string][]byte{"a.json": kineto(100, nil), "b.json": kineto(120, nil)}, nil)
	// file names: CR, markup3, term3 (no '/' in a name)
	// (a file name holds at most 255 bytes)
	for _, p := range []struct{ id, s string }{{"markup3", "x\r# Forged CR heading PWN\r<img src=x onerror=alert(1)>````````<javascript:alert(1)> ![PWNimg](https:__evil.example_p.png) a\\|**PWNcell**\\\\| <!-- "}, {"term3", pTerm3}} {
		s := strings.NewReplacer("/", "_", "\x00", "0").Replace(p.s)
		hosts, reason := all4, ""
		if strings.ContainsAny(s, "\n\r") {
			hosts, reason = noWorker, "worker: ?name= is one line"
		}
		add(Case{ID: "n3-filename-trace-" + p.id, Kind: "markup", What: "a trace's file name carries " + p.id, Cmd: "breakdown", Inputs: one(s + ".json"), Hosts: hosts, Reason: reason},
			map[string][]byte{s + ".json": kineto(50, nil)}, nil)
		add(Case{ID: "n3-filename-log-" + p.id, Kind: "markup", What: "a crash log's file name carries " + p.id, Cmd: "diagnose", Inputs: one(s + ".log"), Hosts: hosts, Reason: reason, Steps: true},
			map[string][]byte{s + ".log": []byte(rocrFault)}, nil)
	}
	// a file name that is not UTF-8, in a folder (CLI)
	add(Case{ID: "n3-filename-badutf8", Kind: "markup", What: "a trace in a folder whose name is not UTF-8 (\\xff\\xfe, a lone continuation byte)", Cmd: "breakdown", Inputs: one("dir"), Hosts: cli2, Reason: "page/worker: names arrive as UTF-16 / a query"},
		map[string][]byte{"dir/t\xff\xfe\x80<b>PWN</b>.json": kineto(50, nil)}, nil)
	// log lines with markup3 / term3 and crash signatures, for crash_summary.md's evidence
	add(Case{ID: "n3-log-lines", Kind: "markup", What: "crash log lines carry markup3, term3 and the third shell payloads", Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4, Steps: true},
		map[string][]byte{"server.log": []byte(strings.ReplaceAll(pMarkup3, "\n", " ") + "\n" + pTerm3 + "\n" + rocrFault + "RuntimeError: " + strings.Join(pShell3, " ") + "\n" + pMarkup3 + "\n" + deviceAssert)}, nil)

	// ---- rocprofv3 CSV and JSON: names with payloads, numbers at the ends
	csvHead := `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"` + "\n"
	csvQ := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	rocCSV := func(n int, name string) []byte {
		var b bytes.Buffer
		b.WriteString(csvHead)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `"KERNEL_DISPATCH","Agent 2",16,0,908,%d,8,%s,%d,%d,%d,0,0,8,0,32,512,1,1,512,1,1`+"\n", i+1, csvQ(name+fmt.Sprint(i%3)), i+1, 63857982592000+i*10000, 63857982592000+i*10000+2840)
		}
		return b.Bytes()
	}
	for _, p := range []struct{ id, s string }{{"markup", pMarkup}, {"markup3", pMarkup3}, {"term3", pTerm3}, {"formula", "=HYPERLINK(\"https://evil.example\",\"PWN\")+cmd|' /C calc'!A0"}} {
		add(Case{ID: "rocprof-csv-" + p.id, Kind: "markup", What: "rocprofv3 kernel_trace.csv whose kernel names carry " + p.id, Cmd: "breakdown", Inputs: one("908_kernel_trace.csv"), Hosts: all4},
			map[string][]byte{"908_kernel_trace.csv": rocCSV(300, p.s)}, nil)
	}
	var nb bytes.Buffer
	nb.WriteString(csvHead)
	for i, v := range []string{"1e400", "-1", "NaN", "Infinity", "18446744073709551616", "-0", "99999999999999999999999999", "0x10", "4000000000000000001", "1.5"} {
		fmt.Fprintf(&nb, `"KERNEL_DISPATCH","Agent 2",%s,0,908,%d,8,"k%d",%d,%s,%s,%s,%s,8,0,32,%s,1,1,%s,1,1`+"\n", v, i+1, i, i+1, v, v, v, v, v, v)
	}
	nb.WriteString(`"KERNEL_DISPATCH","Agent 2",16,0,908,99,8,"ok",99,63857982592000,63857982592100,0,0,8,0,32,512,1,1,512,1,1` + "\n")
	nb.WriteString(`"KERNEL_DISPATCH","Agent 2",16,0,908,100,8,"backwards",100,63857982592100,63857982592000,0,0,8,0,32,512,1,1,512,1,1` + "\n")
	add(Case{ID: "rocprof-csv-numbers", Kind: "numbers", What: "rocprofv3 CSV with 1e400, NaN, Infinity, 2^64, -0, hex, ends before starts in every numeric column", Cmd: "breakdown", Inputs: one("908_kernel_trace.csv"), Hosts: all4},
		map[string][]byte{"908_kernel_trace.csv": nb.Bytes()}, nil)
	rocJSON := func(kernel, extra string, ts string) []byte {
		return []byte(`{"rocprofiler-sdk-tool":[{"metadata":{"pid":908,"init_time":1,"fini_time":2` + extra + `},"agents":[{"node_id":2,"logical_node_id":2,"logical_node_type_id":0,"type":2,"name":"gfx942","product_name":` + q(pMarkup3) + `,"cu_count":304,"wave_front_size":64}],` +
			`"kernel_symbols":[{"kernel_id":8,"formatted_kernel_name":` + q(kernel) + `,"kernel_name":` + q(kernel) + `}],` +
			`"buffer_records":{"kernel_dispatch":[{"size":1,"kind":11,"operation":0,"thread_id":908,"correlation_id":{"internal":1,"external":0},"start_timestamp":` + ts + `,"end_timestamp":` + ts + `,"dispatch_info":{"size":1,"agent_id":{"handle":2},"queue_id":{"handle":1},"kernel_id":8,"dispatch_id":1,"private_segment_size":0,"group_segment_size":0,"workgroup_size":{"x":256,"y":1,"z":1},"grid_size":{"x":1e400,"y":-1,"z":18446744073709551616}}}]}}]}`)
	}
	add(Case{ID: "rocprof-json-names", Kind: "markup", What: "rocprofv3 JSON whose kernel and product names carry markup3, times 1e400", Cmd: "breakdown", Inputs: one("908_results.json"), Hosts: all4},
		map[string][]byte{"908_results.json": rocJSON(pMarkup3+pTerm3, "", "1e400")}, nil)
	deepN := 1000000 * scale
	add(Case{ID: "rocprof-json-deep", Kind: "json", What: fmt.Sprintf("rocprofv3 JSON (read whole) with %d nested arrays in its metadata", deepN), Cmd: "breakdown", Inputs: one("908_results.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_results.json": rocJSON("k", `,"x":`+strings.Repeat("[", deepN)+strings.Repeat("]", deepN), "100")}, nil)
	add(Case{ID: "rocprof-json-escapes", Kind: "json", What: "rocprofv3 JSON (read whole) with a kernel name of 2 M backslash escapes", Cmd: "breakdown", Inputs: one("908_results.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_results.json": rocJSON(strings.Repeat(`\`, 2000000*scale), "", "100")}, nil)
	// a rocprofv3 JSON of 30 k dispatches in one document: read whole
	var big bytes.Buffer
	big.WriteString(`{"rocprofiler-sdk-tool":[{"metadata":{"pid":908,"init_time":1,"fini_time":2},"agents":[{"node_id":2,"logical_node_id":2,"logical_node_type_id":0,"type":2,"name":"gfx942","product_name":"MI300X","cu_count":304,"wave_front_size":64}],"kernel_symbols":[{"kernel_id":8,"formatted_kernel_name":"k","kernel_name":"k"}],"buffer_records":{"kernel_dispatch":[`)
	for i := range 300000 * scale {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"size":1,"kind":11,"operation":0,"thread_id":908,"correlation_id":{"internal":%d,"external":0},"start_timestamp":%d,"end_timestamp":%d,"dispatch_info":{"size":1,"agent_id":{"handle":2},"queue_id":{"handle":1},"kernel_id":8,"dispatch_id":%d,"private_segment_size":0,"group_segment_size":0,"workgroup_size":{"x":256,"y":1,"z":1},"grid_size":{"x":1024,"y":1,"z":1}}}`, i+1, 1000+i*100, 1050+i*100, i+1)
	}
	big.WriteString(`]}}]}`)
	add(Case{ID: "rocprof-json-big", Kind: "records", What: fmt.Sprintf("a rocprofv3 JSON of %d k dispatches (%d MB, read whole)", 300*scale, big.Len()>>20), Cmd: "breakdown", Inputs: one("908_results.json"), Hosts: all4},
		map[string][]byte{"908_results.json": big.Bytes()}, nil)

	// ---- suggested commands: the third shell payloads in every place a
	// value reaches a step
	kapi := func(name string) []byte {
		return []byte("SGLANG_KERNEL_API_LOGLEVEL=3\nSGLang Kernel API Call: " + name + "\n" + deviceAssert)
	}
	for i, p := range pShell3 {
		if strings.ContainsAny(p, "\n") {
			continue // a log line ends there; the metadata case below carries it
		}
		add(Case{ID: fmt.Sprintf("k3-kapi-%d", i+1), Kind: "command", What: fmt.Sprintf("kernel-API name sglang.op.%q", p), Cmd: "diagnose", Inputs: one("api.log"), Hosts: all4, Steps: true},
			map[string][]byte{"api.log": kapi("sglang.op." + p)}, nil)
		log := "FLASHINFER_LOGLEVEL=10\nFlashInfer API Call: flashinfer.decode.run\nDumped inputs to: /dumps/" + p + "\n" + deviceAssert
		add(Case{ID: fmt.Sprintf("k3-dump-%d", i+1), Kind: "command", What: fmt.Sprintf("dumped-inputs path /dumps/%q", p), Cmd: "diagnose", Inputs: one("fi.log"), Hosts: all4, Steps: true},
			map[string][]byte{"fi.log": []byte(log)}, nil)
	}
	// metadata.json carries any string (newline, NUL) in function_name and the tensor keys
	for i, p := range pShell3 {
		md := `{"function_name": ` + q("sglang.op."+p) + `, "execution_status": "inputs_saved", "input_tensor_keys": [` + q(p) + `]}`
		add(Case{ID: fmt.Sprintf("k3-meta-%d", i+1), Kind: "command", What: fmt.Sprintf("a dump's metadata.json function_name sglang.op.%q", p), Cmd: "diagnose", Inputs: one("metadata.json"), Hosts: all4, Steps: true},
			map[string][]byte{"metadata.json": []byte(md)}, nil)
		if i%3 == 0 {
			dname := strings.NewReplacer("/", "_", "\x00", "0").Replace("20260401_154232_001_pid1_x_call0007" + p)
			add(Case{ID: fmt.Sprintf("k3-dumpdir-%d", i+1), Kind: "command", What: fmt.Sprintf("a dump folder named …call0007%q", p), Cmd: "diagnose", Inputs: one("run"), Hosts: cli2, Steps: true, Reason: "page/worker: no folders"},
				map[string][]byte{"run/server.log": []byte("SGLANG_KERNEL_API_LOGLEVEL=10\n" + deviceAssert), "run/dumps/" + dname + "/metadata.json": []byte(md)}, nil)
		}
	}
	// every log of the shared crash corpus, with environment values, paths,
	// kernel-like identifiers, hosts and quoted strings carrying a payload
	logs, err := filepath.Glob(filepath.Join(shared, "testdata", "crash", "*_*.*"))
	if err != nil || len(logs) == 0 {
		return fmt.Errorf("the shared crash corpus (-shared): %v", err)
	}
	sort.Strings(logs)
	reEnv := regexp.MustCompile(`\b([A-Z][A-Z0-9_]{2,}=)([^\s'",;]+)`)
	rePath := regexp.MustCompile(`(/[A-Za-z0-9_.+-]+){2,}`)
	reIdent := regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_:]*(_kernel|Kernel|kernel_)[A-Za-z0-9_]*`)
	reHost := regexp.MustCompile(`\b([a-z][a-z0-9-]*[0-9]):([0-9]+):([0-9]+)\b`)
	reQuoted := regexp.MustCompile(`'([^'\n]{1,80})'`)
	for _, f := range logs {
		src, rerr := os.ReadFile(f)
		if rerr != nil {
			return rerr
		}
		base := filepath.Base(f)
		tag := base[:strings.IndexByte(base, '_')]
		for v, p := range []string{"x'$(touch${IFS}pwned)'", "x\u2019;touch${IFS}pwned;\u2019`touch${IFS}pwned2`", "x\\');__import__('os').system('touch${IFS}pwned');('"} {
			s := string(src)
			s = reEnv.ReplaceAllString(s, "${1}${2}"+strings.ReplaceAll(p, "$", "$$"))
			s = rePath.ReplaceAllString(s, "${0}"+strings.ReplaceAll(p, "$", "$$"))
			s = reIdent.ReplaceAllString(s, "${0}"+strings.ReplaceAll(p, "$", "$$"))
			s = reHost.ReplaceAllString(s, "${1}"+strings.ReplaceAll(p, "$", "$$")+":${2}:${3}")
			s = reQuoted.ReplaceAllString(s, "'${1}"+strings.ReplaceAll(p, "$", "$$")+"'")
			name := "in." + tag + filepath.Ext(base)
			add(Case{ID: fmt.Sprintf("k3-%s-%d", tag, v+1), Kind: "command", What: fmt.Sprintf("%s with every env value, path, kernel identifier, host and quoted string + %q", tag, p), Cmd: "diagnose",
				Inputs: one(name), Hosts: all4, Steps: true}, map[string][]byte{name: []byte(s)}, nil)
		}
		// markup3 and term3 after every identifier of the same kinds
		s := string(src)
		m := strings.ReplaceAll(strings.ReplaceAll(pMarkup3, "\n", " "), "$", "$$") + strings.ReplaceAll(pTerm3, "\r", "")
		s = rePath.ReplaceAllString(s, "${0}"+m)
		s = reIdent.ReplaceAllString(s, "${0}"+m)
		name := "in." + tag + filepath.Ext(base)
		add(Case{ID: fmt.Sprintf("k3-%s-markup", tag), Kind: "markup", What: tag + " with markup3 and term3 after every path and kernel identifier", Cmd: "diagnose",
			Inputs: one(name), Hosts: all4, Steps: true}, map[string][]byte{name: []byte(s)}, nil)
	}

	// ---- crash extractors: long lines, many occurrences, many pids/ranks
	add(Case{ID: "log-one-line", Kind: "structure", What: fmt.Sprintf("a %d MB crash log of one line without a newline", 64*scale), Cmd: "diagnose", Inputs: one("a.log"), Hosts: all4},
		map[string][]byte{"a.log": bytes.Repeat([]byte("Memory access fault by GPU node-"), 2<<20*scale)}, nil)
	frags := []struct{ id, s string }{
		{"rocr", "Memory access fault by GPU node-2 (Agent handle: 0x5"},
		{"watchdog", "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "},
		{"xid", "NVRM: Xid (PCI:0000:3b:00): 79, pid="},
		{"hip", "HIP error: invalid device function hipErrorInvalidDeviceFunction "},
		{"hsa", "HSA_STATUS_ERROR_EXCEPTION: 0x1016 "},
		{"hex", "0x0x0x0x"},
		{"paren", "((((((((["},
		{"digits", "1234567890:"},
		{"env", "HSA_OVERRIDE_GFX_VERSION=1"},
		{"oom", "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "},
		{"killed", "Killed process 1 (python) total-vm:1kB, "},
		{"pg", "[PG ID 0 PG GUID 0(default_pg) Rank 0] "},
		{"wave", "wave_1: pc=0x7fd4f100d0e8 (stopped, reason: ASSERT_TRAP) "},
		{"quote", "'\"'\"`"},
	}
	for _, fr := range frags {
		line := strings.Repeat(fr.s, (64<<10)/len(fr.s)+1)
		var b bytes.Buffer
		for b.Len() < (16<<20)*scale {
			b.WriteString(line)
			b.WriteByte('\n')
		}
		add(Case{ID: "log-dense-" + fr.id, Kind: "structure", What: fmt.Sprintf("%d MB of 64 KiB lines packed with %q", b.Len()>>20, fr.s), Cmd: "diagnose", Inputs: one("a.log"), Hosts: all4},
			map[string][]byte{"a.log": b.Bytes()}, nil)
	}
	lines := func(n int, f func(i int) string) []byte {
		var b bytes.Buffer
		for i := range n {
			b.WriteString(f(i))
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	add(Case{ID: "log-pids", Kind: "structure", What: "500 k OOM-killer lines, each a distinct pid", Cmd: "diagnose", Inputs: one("dmesg.log"), Hosts: all4},
		map[string][]byte{"dmesg.log": lines(500000*scale, func(i int) string {
			return fmt.Sprintf("[%d.%06d] Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0", 1000+i/1000, i%1000000, 100000+i, 1000+i)
		})}, nil)
	add(Case{ID: "log-ranks", Kind: "structure", What: "200 k watchdog timeouts, each a distinct rank and sequence number", Cmd: "diagnose", Inputs: one("train.log"), Hosts: all4},
		map[string][]byte{"train.log": lines(200000*scale, func(i int) string {
			return fmt.Sprintf("[rank%d]:[E%d ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600%03d milliseconds before timing out.", i, i, i, i*7+1, i%1000)
		})}, nil)
	add(Case{ID: "log-xids", Kind: "structure", What: "200 k Xid lines, each a distinct PCI address and pid", Cmd: "diagnose", Inputs: one("kern.log"), Hosts: all4},
		map[string][]byte{"kern.log": lines(200000*scale, func(i int) string {
			return fmt.Sprintf("[%d.1] NVRM: Xid (PCI:%04x:%02x:%02x): 79, pid=%d, name=python%d, GPU has fallen off the bus.", 100+i, i>>16, (i>>8)&0xff, i&0xff, i+1, i)
		})}, nil)
	add(Case{ID: "log-tracebacks", Kind: "structure", What: "300 k Python tracebacks of one frame each, every one a distinct exception", Cmd: "diagnose", Inputs: one("err.log"), Hosts: all4},
		map[string][]byte{"err.log": lines(300000*scale, func(i int) string {
			return fmt.Sprintf("Traceback (most recent call last):\n  File \"/w/m%d.py\", line %d, in f%d\n    x()\nRuntimeError: HIP error: an illegal memory access was encountered %d", i, i, i, i)
		})}, nil)
	add(Case{ID: "log-deep-traceback", Kind: "structure", What: "one traceback 1 M frames deep", Cmd: "diagnose", Inputs: one("err.log"), Hosts: all4},
		map[string][]byte{"err.log": append(append([]byte("Traceback (most recent call last):\n"), lines(1000000*scale, func(i int) string { return fmt.Sprintf("  File \"/w/m.py\", line %d, in f\n    f()", i) })...), []byte("RuntimeError: HIP error: an illegal memory access was encountered\n")...)}, nil)
	// debug-agent wave dumps and rocgdb backtraces repeated to tens of MB
	for _, d := range []struct{ id, file string }{{"wave", "fx01_rocm_debug_agent_userguide_sample_assert_trap.txt"}, {"rocgdb", "s18_rocgdb_sigsegv_lane_switch_bt_flang_offload.log"}, {"agent", "s15_debug_agent_disassembly_srun_hypre614.log"}} {
		src, rerr := os.ReadFile(filepath.Join(shared, "testdata", "crash", d.file))
		if rerr != nil {
			return rerr
		}
		var b bytes.Buffer
		for i := 0; b.Len() < (40<<20)*scale; i++ {
			b.Write(bytes.ReplaceAll(src, []byte("wave_1"), fmt.Appendf(nil, "wave_%d", i)))
		}
		add(Case{ID: "dump-huge-" + d.id, Kind: "structure", What: fmt.Sprintf("%s repeated to %d MB (distinct wave ids)", d.file[:4], b.Len()>>20), Cmd: "diagnose", Inputs: one("in" + filepath.Ext(d.file)), Hosts: all4},
			map[string][]byte{"in" + filepath.Ext(d.file): b.Bytes()}, nil)
	}
	// a rocgdb backtrace 1 M frames deep
	add(Case{ID: "dump-bt-deep", Kind: "structure", What: "a rocgdb backtrace of 1 M frames", Cmd: "diagnose", Inputs: one("gdb.log"), Hosts: all4},
		map[string][]byte{"gdb.log": append([]byte("Thread 3 \"python\" received signal SIGSEGV, Segmentation fault.\n[Switching to thread 3, lane 0 (AMDGPU Lane 1:2:1:1/0 (0,0,0)[0,0,0])]\n(gdb) bt\n"), lines(1000000*scale, func(i int) string {
			return fmt.Sprintf("#%d  0x%016x in __omp_offloading_kernel_%d (x=<optimized out>) at /w/m.f90:%d", i, 0x7fd4f100d0e8+i, i, i)
		})...)}, nil)

	// ---- JSON structure in side documents and headers
	add(Case{ID: "json-deep-meta", Kind: "json", What: "a kernel-API metadata.json nested 1 M deep", Cmd: "diagnose", Inputs: one("metadata.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"metadata.json": []byte(`{"function_name":"sglang.op","execution_status":"exception","x":` + strings.Repeat("[", deepN) + strings.Repeat("]", deepN) + `}`)}, nil)
	add(Case{ID: "json-deep-fr", Kind: "json", What: "a flight-recorder JSON nested 1 M deep in an entry", Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"fr_rank0.json": []byte(`{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":5,"last_started_collective":5,"last_completed_collective":4}},"entries":[{"record_id":1,"frames":` + strings.Repeat("[", deepN) + strings.Repeat("]", deepN) + `}]}`)}, nil)
	add(Case{ID: "json-deep-devprops", Kind: "json", What: "deviceProperties nested 1 M deep", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json": []byte(`{"deviceProperties":` + strings.Repeat("[", deepN) + strings.Repeat("]", deepN) + `,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7}}]}`)}, nil)
	var keys bytes.Buffer
	keys.WriteString(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7`)
	for i := range 500000 * scale {
		fmt.Fprintf(&keys, `,"k%d":%d`, i, i)
	}
	keys.WriteString(`}}]}`)
	add(Case{ID: "json-many-keys", Kind: "json", What: "one event whose args hold 500 k keys", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1}},
		map[string][]byte{"t.json": keys.Bytes()}, nil)
	add(Case{ID: "json-nan-tokens", Kind: "numbers", What: "bare NaN, Infinity, -Infinity tokens (Python's json.dump) in ts, dur and ids", Cmd: "triage", Inputs: one("t.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":NaN,"dur":Infinity,"args":{"device":-Infinity,"stream":NaN}},{"ph":"X","cat":"kernel","name":"ok","pid":0,"tid":7,"ts":1000,"dur":5,"args":{"device":0,"stream":7}}]}`)}, nil)

	// ---- numbers in every field of a Kineto trace's header and args
	hdr := `{"schemaVersion":1e400,"deviceProperties":[{"id":18446744073709551616,"name":"MI300X","totalGlobalMem":-1,"computeMajor":1e308,"computeMinor":-0,"warpSize":0,"numSms":0,"maxThreadsPerBlock":-1e400,"sharedMemPerBlock":1e400},{"id":-1,"name":"x","numSms":-5,"warpSize":1e30}],` +
		`"distributedInfo":{"rank":9223372036854775807,"world_size":2147483647,"backend":"nccl","pg_count":1e30},"baseTimeNanoseconds":1e400,"traceEvents":[`
	var hx bytes.Buffer
	hx.WriteString(hdr)
	vals := []string{"1e400", "-1", "0", "18446744073709551616", "-9223372036854775808", "1e-320", "9007199254740993", "-0", "4e18", "1e12"}
	for i, v := range vals {
		if i > 0 {
			hx.WriteByte(',')
		}
		fmt.Fprintf(&hx, `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":%s,"tid":%s,"ts":%d,"dur":10,"args":{"External id":%s,"Input Dims":[[%s,%s]],"Sequence number":%s,"Fwd thread id":%s}}`, v, v, 1000+i*100, v, v, v, v, v)
		fmt.Fprintf(&hx, `,{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":251,"tid":251,"ts":%d,"dur":5,"args":{"External id":%s,"correlation":%s}}`, 1002+i*100, v, v)
		fmt.Fprintf(&hx, `,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":%d,"dur":20,"args":{"External id":%s,"device":0,"stream":7,"correlation":%s,"grid":[%s,%s,1],"block":[%s,1,1],"registers per thread":%s,"shared memory":%s,"blocks per SM":%s,"warps per SM":%s,"est. achieved occupancy %%":%s,"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, %s]","Group size":%s,"In msg nelems":%s,"Out msg nelems":%s,"dtype":"BFloat16","Seq":%s}}`,
			1010+i*100, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v)
		fmt.Fprintf(&hx, `,{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":%d,"dur":5,"args":{"device":0,"stream":7,"bytes":%s,"memory bandwidth (GB/s)":%s}}`, 1050+i*100, v, v)
		fmt.Fprintf(&hx, `,{"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":251,"tid":251,"ts":%d,"s":"t","args":{"Device Type":1,"Device Id":0,"Addr":%s,"Bytes":%s,"Total Allocated":%s,"Total Reserved":%s}}`, 1060+i*100, v, v, v, v)
	}
	hx.WriteString(`]}`)
	add(Case{ID: "kineto-numbers-all", Kind: "numbers", What: "1e400, -1, 0, 2^64, int64 min, denormal, 2^53+1, -0, 4e18, 1e12 in every header field (numSms 0, warpSize 0, world_size 2^31-1, rank int64 max) and every args number of cpu_op, launch, kernel (grid, block, occupancy, collective sizes, Seq), memcpy and memory events", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": hx.Bytes()}, nil)
	// the same run with a model config whose numbers are extreme (the roofline)
	add(Case{ID: "kineto-world-size", Kind: "numbers", What: "two rank files claiming world_size 2^31-1 and ranks 2^31-2 and 2^63-1", Cmd: "breakdown", Inputs: []string{"r0.json", "r1.json"}, Hosts: noWorker, Reason: "worker: one file per request"},
		map[string][]byte{
			"r0.json": []byte(`{"distributedInfo":{"rank":2147483646,"world_size":2147483647},"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7}}]}`),
			"r1.json": []byte(`{"distributedInfo":{"rank":9223372036854775807,"world_size":2147483647},"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7}}]}`)}, nil)
	// devices instead of streams: 80 k kernels, each on its own device
	var dv bytes.Buffer
	dv.WriteString(`{"traceEvents":[`)
	for i := range 80000 * scale {
		if i > 0 {
			dv.WriteByte(',')
		}
		fmt.Fprintf(&dv, `{"ph":"X","cat":"kernel","name":"k","pid":%d,"tid":7,"ts":%d,"dur":3,"args":{"device":%d,"stream":7}}`, i, 10+i, i)
	}
	dv.WriteString("]}")
	add(Case{ID: "lanes-devices-80k", Kind: "lanes", What: fmt.Sprintf("%d k devices, one kernel each", 80*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4, MemMB: 768},
		map[string][]byte{"t.json": dv.Bytes()}, nil)
	// process groups: 100 k collectives, each in its own group
	var pg bytes.Buffer
	pg.WriteString(`{"traceEvents":[`)
	for i := range 100000 * scale {
		if i > 0 {
			pg.WriteByte(',')
		}
		fmt.Fprintf(&pg, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":%d,"dur":3,"args":{"device":0,"stream":7,"Collective name":"allreduce","Process Group Name":"pg%d","Process Group Description":"d%d","Process Group Ranks":"[0, %d]","Group size":2,"In msg nelems":1,"dtype":"BFloat16","Seq":%d}}`, 10+i*5, i, i, i+1, i)
	}
	pg.WriteString("]}")
	add(Case{ID: "pgs-100k", Kind: "lanes", What: fmt.Sprintf("%d k collectives, each in its own process group", 100*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": pg.Bytes()}, nil)
	// distinct names: 500 k kernels, every name distinct
	var dn bytes.Buffer
	dn.WriteString(`{"traceEvents":[`)
	for i := range 500000 * scale {
		if i > 0 {
			dn.WriteByte(',')
		}
		fmt.Fprintf(&dn, `{"ph":"X","cat":"kernel","name":"kernel_%d_%s","pid":0,"tid":7,"ts":%d,"dur":1,"args":{"device":0,"stream":7}}`, i, pMarkup3[:1], 10+i*2)
	}
	dn.WriteString("]}")
	add(Case{ID: "names-500k", Kind: "lanes", What: fmt.Sprintf("%d k kernels, every name distinct", 500*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": dn.Bytes()}, nil)
	// nesting by time: 200 k nested annotations and 200 k nested python frames
	var na bytes.Buffer
	na.WriteString(`{"traceEvents":[`)
	n := 200000 * scale
	for i := range n {
		if i > 0 {
			na.WriteByte(',')
		}
		fmt.Fprintf(&na, `{"ph":"X","cat":"user_annotation","name":"step%d","pid":251,"tid":251,"ts":%d,"dur":%d},{"ph":"X","cat":"python_function","name":"m.py(%d): f","pid":251,"tid":251,"ts":%d,"dur":%d}`, i, 1000+i*2, 4*n-i*4, i, 1001+i*2, 4*n-i*4-2)
	}
	na.WriteString(`,{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":251,"tid":251,"ts":` + fmt.Sprint(1000+2*n) + `,"dur":5,"args":{"External id":1}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":` + fmt.Sprint(1003+2*n) + `,"dur":5,"args":{"device":0,"stream":7,"External id":1}}]}`)
	add(Case{ID: "nest-200k", Kind: "lanes", What: fmt.Sprintf("%d k nested annotations and python frames around one kernel", 200*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": na.Bytes()}, nil)
	// flows: 1 M flow starts and no ends
	var fl bytes.Buffer
	fl.WriteString(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7}}`)
	for i := range 1000000 * scale {
		fmt.Fprintf(&fl, `,{"ph":"s","id":%d,"pid":251,"tid":251,"ts":%d,"cat":"ac2g","name":"ac2g"}`, i, i)
	}
	fl.WriteString("]}")
	add(Case{ID: "flows-1m", Kind: "records", What: "1 M flow starts without ends", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": fl.Bytes()}, nil)
	// perfetto-fix on events at the ends of the range
	add(Case{ID: "fix-numbers", Kind: "numbers", What: "perfetto-fix of the numbers-in-every-field trace", Cmd: "perfetto-fix", Inputs: one("t.json"), Hosts: cli2, Reason: "page/worker: perfetto-fix is the CLI's (the page's fix is tested by name)"},
		map[string][]byte{"t.json": hx.Bytes()}, nil)
	// diff of two runs whose times sit at the documented ends
	edge := func(d int64) []byte {
		var b bytes.Buffer
		b.WriteString(`{"traceEvents":[`)
		for i := range 2000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7}}`, i%3, int64(i)*d, d)
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	add(Case{ID: "diff-edges", Kind: "numbers", What: "diff --force of runs of 2,000 kernels of dur 10^9 µs (the limit) and 1 µs", Cmd: "diff", Args: []string{"--force"}, Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Reason: "page: no --force; worker: one file"},
		map[string][]byte{"a.json": edge(1000000000), "b.json": edge(1)}, nil)

	// ---- flight recorder: numbers in every field, pickles of extreme values
	var fr bytes.Buffer
	fr.WriteString(`{"version":"2.4","rank":1e30,"pg_config":{"0":{"name":"0","desc":"default_pg","ranks":"[0, 18446744073709551616]"}},"pg_status":{"0":{"last_enqueued_collective":18446744073709551616,"last_started_collective":-1,"last_completed_collective":-9223372036854775809}},"entries":[`)
	for i, v := range vals {
		if i > 0 {
			fr.WriteByte(',')
		}
		fmt.Fprintf(&fr, `{"record_id":%s,"pg_id":%s,"collective_seq_id":%s,"p2p_seq_id":%s,"op_id":%s,"profiling_name":"nccl:all_reduce","time_created_ns":%s,"duration_ms":%s,"timeout_ms":%s,"state":"started","input_sizes":[[%s]],"output_sizes":[[%s]],"frames":[]}`, v, v, v, v, v, v, v, v, v, v)
	}
	fr.WriteString(`]}`)
	add(Case{ID: "fr-numbers-all", Kind: "numbers", What: "a flight-recorder JSON with the extreme values in every numeric field", Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4},
		map[string][]byte{"fr_rank0.json": fr.Bytes()}, nil)
	// pickle: a dict with BINFLOAT NaN/Inf and LONG4 of 1 MB as sequence numbers
	pk := []byte{0x80, 2, '}', 'q', 0, '('}
	str := func(s string) []byte {
		return append([]byte{'X'}, append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)...)
	}
	flt := func(f float64) []byte { return binary.BigEndian.AppendUint64([]byte{'G'}, math.Float64bits(f)) }
	pk = append(pk, str("version")...)
	pk = append(pk, str("2.4")...)
	pk = append(pk, str("rank")...)
	pk = append(pk, flt(math.NaN())...)
	pk = append(pk, str("pg_status")...)
	pk = append(pk, '}', '(')
	pk = append(pk, str("0")...)
	pk = append(pk, '}', '(')
	pk = append(pk, str("last_enqueued_collective")...)
	long := bytes.Repeat([]byte{0xff}, (1<<20)*scale)
	long[len(long)-1] = 0x7f
	pk = append(append(append(pk, 0x8b), binary.LittleEndian.AppendUint32(nil, uint32(len(long)))...), long...) // LONG4
	pk = append(pk, str("last_started_collective")...)
	pk = append(pk, flt(math.Inf(1))...)
	pk = append(pk, str("last_completed_collective")...)
	pk = append(pk, flt(math.Copysign(0, -1))...)
	pk = append(pk, 'u', 'u', 'u', '.')
	add(Case{ID: "pickle-numbers", Kind: "numbers", What: "a flight-recorder pickle: rank NaN, a 1 MB LONG4 sequence number, +Inf, -0", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768},
		map[string][]byte{"nccl_trace_rank_0": pk}, nil)
	// a pickle whose memo is asked for indices it never stored, and a LONG_BINGET of 2^32-1
	add(Case{ID: "pickle-memo", Kind: "pickle", What: "a pickle reading memo index 2^32-1 and a BINPUT flood of 1 M", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768, Exits: []int{0, 1, 2}},
		map[string][]byte{"nccl_trace_rank_0": func() []byte {
			b := []byte{0x80, 2, ']'}
			for i := range 1000000 * scale {
				b = append(append(b, 'r'), binary.LittleEndian.AppendUint32(nil, uint32(i*4099))...) // LONG_BINPUT at scattered indices
			}
			b = append(append(b, 'j'), 0xff, 0xff, 0xff, 0xff) // LONG_BINGET 2^32-1
			return append(b, 'a', '.')
		}()}, nil)
	// kernel-API metadata with extreme tensor shapes (a size product that overflows)
	add(Case{ID: "meta-numbers", Kind: "numbers", What: "a kernel-API metadata.json with tensor shapes of 1e308, 2^63, -1 and NaN tokens", Cmd: "diagnose", Inputs: one("metadata.json"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"metadata.json": []byte(`{"function_name":"sglang.op","execution_status":"exception","exception":"RuntimeError","input_tensor_keys":["a","b"],"input_shapes":[[1e308,9223372036854775807],[-1,18446744073709551616]],"input_numel":1e400,"nbytes":-0,"timestamp":1e400,"call_id":18446744073709551616,"pid":-1,"device":1e30}`)}, nil)

	// ---- compression: headers, members, archives
	gzHeader := func(flg byte, field []byte, body []byte) []byte {
		var b bytes.Buffer
		b.Write([]byte{0x1f, 0x8b, 8, flg, 0, 0, 0, 0, 0, 3})
		if flg&4 != 0 { // FEXTRA
			b.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(field))))
		}
		b.Write(field)
		if flg&(8|16) != 0 {
			b.WriteByte(0)
		}
		z := gz(body)
		b.Write(z[10:]) // the raw deflate stream and trailer of a plain member
		return b.Bytes()
	}
	tr := kineto(60, nil)
	add(Case{ID: "gzip-fname-32m", Kind: "compression", What: "a gzip whose FNAME header field is 32 MB", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": gzHeader(8, bytes.Repeat([]byte("a"), (32<<20)*scale), tr)}, nil)
	add(Case{ID: "gzip-fcomment-markup", Kind: "compression", What: "a gzip whose FCOMMENT holds markup3 and term3", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": gzHeader(16, []byte(strings.ReplaceAll(pMarkup3+pTerm3, "\x00", "")), tr)}, nil)
	add(Case{ID: "gzip-fextra", Kind: "compression", What: "a gzip with a 64 KiB FEXTRA field", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": gzHeader(4, bytes.Repeat([]byte("E"), 65535), tr)}, nil)
	empty := gz(nil)
	var em bytes.Buffer
	for range 500000 * scale {
		em.Write(empty)
	}
	em.Write(gz(tr))
	add(Case{ID: "gzip-empty-members", Kind: "compression", What: fmt.Sprintf("%d k empty gzip members before the trace's (%d MB)", 500*scale, em.Len()>>20), Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": em.Bytes()}, nil)
	var split bytes.Buffer
	for i := 0; i < len(tr); i += 7 {
		split.Write(gz(tr[i:min(i+7, len(tr))]))
	}
	add(Case{ID: "gzip-split-members", Kind: "compression", What: "a valid trace cut into one gzip member per 7 bytes", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4},
		map[string][]byte{"t.json.gz": split.Bytes()}, nil)
	add(Case{ID: "gzip-gzip-trace", Kind: "compression", What: "a valid trace gzipped twice", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": gz(gz(tr))}, nil)
	add(Case{ID: "gzip-trailing-junk", Kind: "compression", What: "a gzipped trace followed by 8 MB of junk", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": append(gz(tr), bytes.Repeat([]byte{0x1f, 0x8b, 0}, (8<<20)/3)...)}, nil)
	add(Case{ID: "gzip-log-bomb", Kind: "compression", What: "a 1 GiB gzip bomb named as a crash log (one line of spaces)", Cmd: "diagnose", Inputs: one("server.log.gz"), Hosts: all4, Exits: []int{1, 2}, Flag: "--max-ratio"},
		map[string][]byte{"server.log.gz": bombOf(" ", 1024*scale)}, nil)
	add(Case{ID: "gzip-csv-bomb", Kind: "compression", What: "a 1 GiB gzip bomb named as a rocprofv3 kernel_trace.csv (the header then newlines)", Cmd: "breakdown", Inputs: one("908_kernel_trace.csv.gz"), Hosts: all4, Exits: []int{1, 2}, Flag: "--max-ratio"},
		map[string][]byte{"908_kernel_trace.csv.gz": bombOf2(csvHead, "\n", 1024*scale)}, nil)
	add(Case{ID: "gzip-pickle-bomb", Kind: "compression", What: "a 1 GiB gzip bomb named as a flight-recorder pickle", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0.gz"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"nccl_trace_rank_0.gz": bombOf2("\x80\x02]", "N", 1024*scale)}, nil)
	add(Case{ID: "gzip-db-bomb", Kind: "compression", What: "a 1 GiB gzip bomb that starts like a SQLite database", Cmd: "breakdown", Inputs: one("908_results.db.gz"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"908_results.db.gz": bombOf2("SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20", "\x00", 1024*scale)}, nil)
	// zips on the page: a deflate bomb entry, a zip in a zip, hostile entry names, 20 k entries
	zipOf := func(entries ...zipEntry) []byte {
		var b bytes.Buffer
		w := zip.NewWriter(&b)
		for _, e := range entries {
			h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
			if e.store {
				h.Method = zip.Store
			}
			f, _ := w.CreateHeader(h)
			if e.gen != nil {
				e.gen(f)
			} else {
				f.Write(e.body)
			}
		}
		w.Close()
		return b.Bytes()
	}
	spaces := func(n int) func(w interface{ Write([]byte) (int, error) }) {
		return func(w interface{ Write([]byte) (int, error) }) {
			w.Write([]byte(`{"traceEvents":[`))
			z := bytes.Repeat([]byte(" "), 1<<20)
			for range n {
				w.Write(z)
			}
		}
	}
	zhosts, zreason := []string{"page"}, "CLI/worker: a zip is read by the page only (docs/page.md)"
	add(Case{ID: "zip-bomb", Kind: "compression", What: fmt.Sprintf("a zip holding a deflate bomb entry of %d GiB", scale), Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{1, 2}, TimeS: 60},
		map[string][]byte{"run.zip": zipOf(zipEntry{name: "t.json", gen: spaces(1024 * scale)})}, nil)
	add(Case{ID: "zip-two-bombs", Kind: "compression", What: "two artifact zips whose profile_metadata.json entries are 1 GiB deflate bombs (compare)", Cmd: "diff", Inputs: []string{"a.zip", "b.zip"}, Hosts: zhosts, Reason: zreason, Exits: []int{1, 2, 3}, TimeS: 60},
		map[string][]byte{"a.zip": zipOf(zipEntry{name: "profile_metadata.json", gen: spaces(1024 * scale)}), "b.zip": zipOf(zipEntry{name: "profile_metadata.json", gen: spaces(1024 * scale)})}, nil)
	inner := zipOf(zipEntry{name: "t.json", gen: spaces(512 * scale)})
	add(Case{ID: "zip-nested", Kind: "compression", What: "a zip holding a zip holding a 512 MiB deflate bomb", Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{0, 1, 2}, TimeS: 60},
		map[string][]byte{"run.zip": zipOf(zipEntry{name: "inner.zip", body: inner, store: true}, zipEntry{name: "t.json", body: tr})}, nil)
	add(Case{ID: "zip-names", Kind: "markup", What: "a zip whose entry names carry markup3, term3, ../ and an absolute path", Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{0, 1, 2}},
		map[string][]byte{"run.zip": zipOf(zipEntry{name: strings.ReplaceAll(pMarkup3+pTerm3, "\x00", "") + ".json", body: tr}, zipEntry{name: "../../etc/" + pTerm3 + "x.json", body: tr}, zipEntry{name: "/abs/" + pMarkup + ".log", body: []byte(rocrFault)})}, nil)
	zipMany := func(n int) []byte {
		es := make([]zipEntry, n)
		for i := range es {
			es[i] = zipEntry{name: fmt.Sprintf("d/%06d.json", i), body: []byte(`{"traceEvents":[]}`)}
		}
		return zipOf(es...)
	}
	add(Case{ID: "zip-many", Kind: "structure", What: "a zip of 20 k tiny entries", Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{0, 1, 2}},
		map[string][]byte{"run.zip": zipMany(20000 * scale)}, nil)
	lying := zipOf(zipEntry{name: "t.json", body: tr})
	if i := bytes.Index(lying, []byte("PK\x01\x02")); i > 0 { // the central directory claims 4 GiB-1 uncompressed
		binary.LittleEndian.PutUint32(lying[i+24:], 0xffffffff)
	}
	add(Case{ID: "zip-lying-size", Kind: "compression", What: "a zip whose central directory claims an entry of 4 GiB-1", Cmd: "breakdown", Inputs: one("run.zip"), Hosts: zhosts, Reason: zreason, Exits: []int{0, 1, 2}},
		map[string][]byte{"run.zip": lying}, nil)

	// ---- many files
	manyFiles := map[string][]byte{}
	for i := range 20000 * scale {
		manyFiles[fmt.Sprintf("dir/%06d.json", i)] = []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":` + fmt.Sprint(10+i) + `,"dur":1,"args":{"device":0,"stream":7}}]}`)
	}
	add(Case{ID: "folder-20k-traces", Kind: "structure", What: fmt.Sprintf("a folder of %d k tiny traces", 20*scale), Cmd: "breakdown", Inputs: one("dir"), Hosts: cli2, Reason: "page: see page-2k-files; worker: one file"}, manyFiles, nil)
	manyLogs := map[string][]byte{}
	for i := range 20000 * scale {
		manyLogs[fmt.Sprintf("dir/%06d.log", i)] = []byte(rocrFault)
	}
	add(Case{ID: "folder-20k-logs", Kind: "structure", What: fmt.Sprintf("a folder of %d k crash logs, each the same fault", 20*scale), Cmd: "diagnose", Inputs: one("dir"), Hosts: cli2, Reason: "page: see page-2k-files; worker: one file", Steps: true}, manyLogs, nil)
	pageFiles := map[string][]byte{}
	var names []string
	for i := range 2000 {
		n := fmt.Sprintf("%04d.json", i)
		names = append(names, n)
		pageFiles[n] = []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":` + fmt.Sprint(10+i) + `,"dur":1,"args":{"device":0,"stream":7}}]}`)
	}
	add(Case{ID: "page-2k-files", Kind: "structure", What: "2,000 tiny traces dropped at once", Cmd: "breakdown", Inputs: names, Hosts: noWorker, Reason: "worker: one file"}, pageFiles, nil)
	add(Case{ID: "folder-deep", Kind: "structure", What: "a trace 1,800 folders deep", Cmd: "breakdown", Inputs: one("d"), Hosts: cli2, Exits: []int{0, 1, 2}, Reason: "page/worker: no file system"},
		map[string][]byte{strings.Repeat("d/", 1800) + "t.json": kineto(20, nil)}, nil)

	// ---- special files
	sp := func(id, what string, hosts []string, files map[string][]byte, mk func(in string) error, exits []int, want string) {
		add(Case{ID: id, Kind: "special", What: what, Cmd: "breakdown", Inputs: one("dir"), Hosts: hosts, Exits: exits, Want: want, TimeS: 30, Reason: "page/worker: no file system"}, files, mk)
	}
	base := map[string][]byte{"dir/a.json": kineto(20, nil)}
	sp("special-socket", "a Unix socket named trace.json in a folder", cli2, base, func(in string) error {
		l, err := net.Listen("unix", filepath.Join(in, "dir", "trace.json"))
		if err != nil {
			return err
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		return l.Close()
	}, []int{2}, "not a regular file")
	sp("special-dir-named-json", "a folder named t.json inside the folder (holding a trace)", cli2, map[string][]byte{"dir/a.json": kineto(20, nil), "dir/t.json/b.json": kineto(20, nil)}, nil, []int{0, 1, 2}, "")
	sp("special-broken-link", "a symlink to nowhere named b.json in a folder", cli2, base, func(in string) error { return os.Symlink("/nonexistent/x", filepath.Join(in, "dir", "b.json")) }, []int{0, 1, 2}, "")
	sp("special-link-chain", "a chain of 50 symlinks (past the kernel's 40) named b.json", cli2, base, func(in string) error {
		d := filepath.Join(in, "dir")
		os.WriteFile(filepath.Join(in, "l50"), kineto(20, nil), 0o644)
		for i := 49; i >= 1; i-- {
			if err := os.Symlink(fmt.Sprintf("l%d", i+1), filepath.Join(in, fmt.Sprintf("l%d", i))); err != nil {
				return err
			}
		}
		return os.Symlink("../l1", filepath.Join(d, "b.json"))
	}, []int{0, 1, 2}, "")
	sp("special-sparse-8g", "an 8 GiB sparse file (all zeros) named t.json in a folder", cli2, base, func(in string) error { return sparse(filepath.Join(in, "dir", "t.json"), 8<<30) }, []int{1, 2}, "")
	sp("special-sparse-gz", "an 8 GiB sparse file named t.json.gz (no gzip magic)", cli2, base, func(in string) error { return sparse(filepath.Join(in, "dir", "t.json.gz"), 8<<30) }, []int{1, 2}, "")
	add(Case{ID: "special-sparse-log", Kind: "special", What: "a 2 GiB sparse crash log (NULs, no newline)", Cmd: "diagnose", Inputs: one("x.log"), Hosts: cli2, Exits: []int{0, 1, 2}, TimeS: 60, Reason: "page/worker: a 2 GiB upload is refused by size (tested)"}, nil,
		func(in string) error { return sparse(filepath.Join(in, "x.log"), 2<<30) })
	add(Case{ID: "special-cmdline-dev", Kind: "special", What: "/dev/zero named on the command line", Cmd: "breakdown", Inputs: one("/dev/zero"), Hosts: cli2, Exits: []int{2}, Want: "not a regular file", TimeS: 30, Reason: "page/worker: no file system"}, nil, nil)
	add(Case{ID: "special-cmdline-proc", Kind: "special", What: "/proc/self/mem named on the command line", Cmd: "diagnose", Inputs: one("/proc/self/mem"), Hosts: cli2, Exits: []int{1, 2}, TimeS: 30, Reason: "page/worker: no file system"}, nil, nil)
	return nil
}

type zipEntry struct {
	name  string
	body  []byte
	store bool
	gen   func(w interface{ Write([]byte) (int, error) })
}

// bombOf gzips n MiB of s repeated.
func bombOf(s string, n int) []byte { return bombOf2("", s, n) }

func bombOf2(head, fill string, n int) []byte {
	var o bytes.Buffer
	w, _ := gzip.NewWriterLevel(&o, flate.BestCompression)
	w.Write([]byte(head))
	z := bytes.Repeat([]byte(fill), (1<<20)/len(fill))
	for range n {
		w.Write(z)
	}
	w.Close()
	return o.Bytes()
}

func sparse(p string, n int64) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Truncate(n)
}
