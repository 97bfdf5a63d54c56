package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A Case is one hostile input and the command it goes through. Hosts lists
// where it applies: the page takes dropped files (no folders, special files
// or limit flags), the Worker one file per request with no limit flags.
type Case struct {
	ID     string   `json:"id"`
	Kind   string   `json:"kind"`
	What   string   `json:"what"`
	Cmd    string   `json:"cmd"`
	Args   []string `json:"args,omitempty"`   // CLI flags beyond the command
	Inputs []string `json:"inputs"`           // relative to the case's in/
	Hosts  []string `json:"hosts"`            // native wasm page worker
	TimeS  int      `json:"time_s"`           // wall-clock limit per host
	MemMB  int      `json:"mem_mb"`           // peak RSS cap (CLI and workerd)
	Flag   string   `json:"flag,omitempty"`   // a partial or refusal must name this flag
	Want   string   `json:"want,omitempty"`   // text the answer must hold (stderr or an artifact)
	Exits  []int    `json:"exits,omitempty"`  // allowed exit codes (default 0, 1)
	Steps  bool     `json:"steps,omitempty"`  // suggested commands must be checked
	Reason string   `json:"reason,omitempty"` // why a host does not apply
	// Query: the Worker's query parameters beyond cmd and name (the CLI
	// takes the same values as Args)
	Query map[string]string `json:"query,omitempty"`
}

var all4 = []string{"native", "wasm", "page", "worker"}
var cli2 = []string{"native", "wasm"}
var noWorker = []string{"native", "wasm", "page"}

// Payloads. Markers (PWN) let the checker tell the input's markup from the
// report's own.
const (
	pMarkup = "<img src=x onerror=alert(1)><marquee>PWN</marquee>\n```\n# Forged heading PWN\n~~~~\n</code></pre><script>PWN()</script> *PWNem* **PWNst** ~~PWNdel~~ [PWNlink](javascript:alert(1)) <details open>PWNd</details>| pipe | `tick` ``x"
	pTerm   = "\x1b]0;PWN title\x07\x1b[2J\x1b[31m\u202eRTL\u2066iso\u2069\u00adsoft\u200bzw\x7f\u009bC1"
	pShell  = "x'$(touch${IFS}pwned)'`touch${IFS}pwned2`\";touch pwned3;\"')+__import__('os').system('touch pwned4')+('"
)

// kineto writes a small Kineto trace (cpu_op → launch → kernel triples on
// two streams, a python frame, a step annotation, a collective with its
// process group) with the given names substituted.
func kineto(n int, names map[string]string) []byte {
	get := func(k, d string) string {
		if v, ok := names[k]; ok {
			return v + d
		}
		return d
	}
	q := func(s string) string { return jsonString(s) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":%s,"totalGlobalMem":206141652992,"computeMajor":9,"computeMinor":4,"warpSize":64,"numSms":304}],"traceEvents":[`, q(get("device", "AMD Instinct MI300X")))
	fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":%s,"pid":251,"tid":251,"ts":900,"dur":%d}`, q(get("annotation", "decode step[DECODE bs=32]")), n*20+200)
	fmt.Fprintf(&b, `,{"ph":"X","cat":"gpu_user_annotation","name":%s,"pid":0,"tid":7,"ts":905,"dur":%d}`, q(get("annotation", "decode step[DECODE bs=32]")), n*20+200)
	fmt.Fprintf(&b, `,{"ph":"X","cat":"python_function","name":%s,"pid":251,"tid":251,"ts":950,"dur":%d}`, q("model/"+get("python", "layer.py")+"(42): forward"), n*20+100)
	kern := []string{"Cijk_Alik_Bljk_BBS_BH_MT256x32x64_MI16x16x1_ISA942", "paged_attention_ll4mi_QKV_mfma16_kernel", "aiter::add_rmsnorm_quant_kernel", "elementwise_kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"}
	ops := []string{"aten::mm", "vllm::paged_attention", "aiter::rmsnorm", "aten::copy_", "c10d::allreduce_"}
	for i := 0; i < n; i++ {
		k := i % len(kern)
		ts := 1000 + i*20
		ext, corr := 100000+i, 5000+i
		stream := 7
		if k == 4 {
			stream = 9
		}
		kn := get("kernel", kern[k])
		on := get("op", ops[k])
		args := fmt.Sprintf(`"External id":%d,"device":0,"stream":%d,"correlation":%d,"grid":[304,1,1],"block":[256,1,1]`, ext, stream, corr)
		if k == 4 {
			args += fmt.Sprintf(`,"Collective name":"allreduce","Process Group Name":%s,"Process Group Description":%s,"Process Group Ranks":"[0, 1]","Group size":2,"In msg nelems":1048576,"dtype":"BFloat16","Seq":%d`, q(get("pg", "0")), q(get("pg", "default_pg")), i/5)
		}
		fmt.Fprintf(&b, `,{"ph":"X","cat":"cpu_op","name":%s,"pid":251,"tid":251,"ts":%d,"dur":12,"args":{"External id":%d,"Input Dims":[[4096,4096],[4096,4096]],"Input type":["c10::BFloat16","c10::BFloat16"]}}`, q(on), ts, ext)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":251,"tid":251,"ts":%d,"dur":6,"args":{"External id":%d,"correlation":%d}}`, ts+2, ext, corr)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":%d,"ts":%d,"dur":%d,"args":{%s}}`, q(kn), stream, ts+10, 8+k, args)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// jsonString quotes s as JSON, \u-escaping every control character (so a
// raw ESC reaches the analyzer through JSON's own escape, as in real traces).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func gz(b []byte) []byte {
	var o bytes.Buffer
	w, _ := gzip.NewWriterLevel(&o, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return o.Bytes()
}

const rocrFault = "Memory access fault by GPU node-2 (Agent handle: 0x55d0) on address 0x7f3a00000000. Reason: Page not present or supervisor privilege.\n"
const deviceAssert = "torch.AcceleratorError: CUDA error: device-side assert triggered\n"

// gen writes every case under dir/cases/<id>/in and returns the list.
// scale multiplies the structural sizes (1 = the sizes in small;
// the hidden acceptance runs larger). only (ids or prefixes ending in '*',
// as cli's) writes and lists just those cases.
func gen(dir, shared string, scale int, only string) ([]Case, error) {
	var cases []Case
	var err error
	add := func(c Case, files map[string][]byte, extra func(in string) error) {
		if err != nil || !selected(only, c.ID) {
			return
		}
		in := filepath.Join(dir, "cases", c.ID, "in")
		if !genWanted(c.ID) {
			files, extra = nil, nil // listed, its files left as they are
		} else {
			os.RemoveAll(in)
		}
		if err = os.MkdirAll(in, 0o755); err != nil {
			return
		}
		for name, b := range files {
			p := filepath.Join(in, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return
			}
			if err = os.WriteFile(p, b, 0o644); err != nil {
				return
			}
		}
		if extra != nil {
			if err = extra(in); err != nil {
				return
			}
		}
		if c.TimeS == 0 {
			c.TimeS = 60
		}
		if c.MemMB == 0 {
			c.MemMB = 1024
		}
		cases = append(cases, c)
	}
	// Each generator makes the ids under its prefixes (checked when gen runs
	// them all), so that -only runs just the generators that can make a
	// named case: the whole list takes minutes, mostly compressing bombs.
	gens := []struct {
		prefixes []string
		run      func() error
	}{
		{gen1Prefixes, func() error { return gen1(add, shared, scale) }},
		{[]string{"csv-", "diag-", "diff-", "docker-", "dump-", "engine-", "fix-", "flows-", "folder-", "fr-", "gzip-", "json-", "k3-", "kineto-", "lanes-", "log-", "meta-", "n3-", "names-", "nest-", "page-", "pgs-", "pickle-", "rocprof-", "special-", "zip-"},
			func() error { return gen3(add, shared, scale) }},
		{[]string{"csv-", "diag-", "diff-", "docker-", "engine-", "fix-", "fr-", "gzip-", "json-", "k4-", "kineto-", "logs-", "many-", "n4-", "pickle-", "rocpd-", "special-", "zip-"},
			func() error { return gen4(add, shared, scale) }},
		{[]string{"crash5-", "diff-", "extract-", "mr-", "ranks-", "rocpd5-"}, func() error { return gen5(add, shared, scale) }},
		{[]string{"crash6-", "heat-", "mr6-", "ranks6-"}, func() error { return gen6(add, scale) }},
		{[]string{"id7-", "mcfg7-"}, func() error { return gen7(add) }},
		{gen8Prefixes, func() error { return gen8(add, scale) }},
	}
	for _, g := range gens {
		if err != nil {
			break
		}
		if !mayMake(only, g.prefixes) {
			continue
		}
		n := len(cases)
		if e := g.run(); err == nil {
			err = e
		}
		for _, c := range cases[n:] {
			if err == nil && only == "" && !mayMake(c.ID, g.prefixes) {
				err = fmt.Errorf("case %s is not under its generator's prefixes %v", c.ID, g.prefixes)
			}
		}
	}
	return cases, err
}

var gen1Prefixes = []string{"crash-", "crossing-", "diff-", "dump-", "filename-", "fr-", "gzip-", "json-", "kapi-", "lanes-", "log-", "names-", "pickle-", "profile-", "ranks-", "records-", "special-", "stage-"}

// mayMake tells whether a generator making ids under prefixes may make a
// case only selects (comma-separated ids or prefixes ending in '*'; all
// when empty).
func mayMake(only string, prefixes []string) bool {
	if only == "" {
		return true
	}
	for _, o := range strings.Split(only, ",") {
		o = strings.TrimSuffix(o, "*")
		for _, p := range prefixes {
			if strings.HasPrefix(o, p) || strings.HasPrefix(p, o) {
				return true
			}
		}
	}
	return false
}

// gen1 writes the first sweep's cases.
func gen1(add adder, shared string, scale int) error {
	one := func(name string) []string { return []string{name} }

	// ---- markup and control characters, one injection point each
	for _, pt := range []string{"kernel", "op", "python", "annotation", "pg", "device"} {
		for _, p := range []struct{ id, s string }{{"markup", pMarkup}, {"term", pTerm}, {"shell", pShell}} {
			id := "names-" + pt + "-" + p.id
			add(Case{ID: id, Kind: "markup", What: fmt.Sprintf("%s names carry %s", pt, p.id), Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
				map[string][]byte{"t.json": kineto(200, map[string]string{pt: p.s})}, nil)
		}
	}
	add(Case{ID: "names-long", Kind: "markup", What: "kernel and op names of 200 KB (past --max-string-bytes) with markup at both ends", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": kineto(50, map[string]string{"kernel": pMarkup + strings.Repeat("A", 200<<10) + pMarkup, "op": pTerm + strings.Repeat("B", 200<<10) + pTerm})}, nil)
	for _, p := range []struct{ id, s string }{{"markup", pMarkup}, {"term", pTerm}} {
		name := strings.ReplaceAll(p.s, "/", "_") + ".json"
		c := Case{ID: "filename-trace-" + p.id, Kind: "markup", What: "a trace's file name carries " + p.id, Cmd: "breakdown", Inputs: one(name), Hosts: all4}
		if strings.Contains(p.s, "\n") {
			c.Hosts, c.Reason = noWorker, "worker: ?name= is one line (a newline is refused, tested)"
		}
		add(c, map[string][]byte{name: kineto(50, nil)}, nil)
		lname := strings.ReplaceAll(p.s, "/", "_") + ".log"
		c = Case{ID: "filename-log-" + p.id, Kind: "markup", What: "a crash log's file name carries " + p.id, Cmd: "diagnose", Inputs: one(lname), Hosts: c.Hosts, Reason: c.Reason}
		add(c, map[string][]byte{lname: []byte(rocrFault)}, nil)
	}
	add(Case{ID: "log-lines", Kind: "markup", What: "crash log lines carry markup, terminal escapes and shell", Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4, Steps: true},
		map[string][]byte{"server.log": []byte(strings.ReplaceAll(pMarkup, "\n", " ") + "\n" + pTerm + "\n" + rocrFault + "RuntimeError: " + pShell + "\n" + pMarkup + "\n" + deviceAssert)}, nil)
	add(Case{ID: "diff-refusal", Kind: "markup", What: "diff's refusal reason from --base-image and the stage names", Cmd: "diff",
		Args: []string{"--base-image", pMarkup + pTerm, "--b-base-image", "other"}, Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Exits: []int{3},
		Reason: "page/worker: identity flags are CLI (the page's form is tested by its own test)"},
		map[string][]byte{"a.json": kineto(100, map[string]string{"annotation": pMarkup}), "b.json": kineto(120, map[string]string{"annotation": pMarkup})}, nil)
	add(Case{ID: "diff-names", Kind: "markup", What: "diff --force of two runs whose kernel, op and stage names carry markup", Cmd: "diff", Args: []string{"--force"},
		Inputs: []string{"a.json", "b.json"}, Hosts: cli2, Exits: []int{0, 1}, Reason: "page: no --force (diff-names-refused); worker: one file per request"},
		map[string][]byte{"a.json": kineto(100, map[string]string{"kernel": pMarkup, "op": pTerm}), "b.json": kineto(140, map[string]string{"kernel": pMarkup, "op": pTerm})}, nil)
	add(Case{ID: "diff-names-refused", Kind: "markup", What: "diff (refused: identity unknown) of two runs whose names carry markup", Cmd: "diff",
		Inputs: []string{"a.json", "b.json"}, Hosts: noWorker, Exits: []int{3}, Reason: "worker: one file per request"},
		map[string][]byte{"a.json": kineto(100, map[string]string{"kernel": pMarkup, "op": pTerm}), "b.json": kineto(140, map[string]string{"kernel": pMarkup, "op": pTerm})}, nil)

	// ---- suggested commands
	kapi := func(name string) []byte {
		return []byte("SGLANG_KERNEL_API_LOGLEVEL=3\nSGLang Kernel API Call: " + name + "\n" + deviceAssert)
	}
	for i, n := range []string{"sglang.custom_op.x'$(touch${IFS}pwned)'", "sglang.op.`touch${IFS}pwned`", "sglang.op.x;touch${IFS}pwned;#", "sglang.op.x')+__import__('os').system('touch pwned')+('", "sglang.op.x\\'$(touch${IFS}pwned)"} {
		add(Case{ID: fmt.Sprintf("kapi-name-%d", i+1), Kind: "command", What: "kernel-API name " + n, Cmd: "diagnose", Inputs: one("api.log"), Hosts: all4, Steps: true},
			map[string][]byte{"api.log": kapi(n)}, nil)
	}
	for i, p := range []string{"/dumps/x');__import__('os').system('touch${IFS}pwned');('", "/dumps/call0007$(touch${IFS}pwned)", "/dumps/a b`touch pwned`'\"\\", "/dumps/x\\');__import__(\\'os\\').system(\\'touch pwned\\')#"} {
		log := "FLASHINFER_LOGLEVEL=10\nFlashInfer API Call: flashinfer.decode.run\nDumped inputs to: " + p + "\n" + deviceAssert
		add(Case{ID: fmt.Sprintf("dump-path-%d", i+1), Kind: "command", What: "dumped-inputs path " + p, Cmd: "diagnose", Inputs: one("fi.log"), Hosts: all4, Steps: true},
			map[string][]byte{"fi.log": []byte(log)}, nil)
	}
	for i, d := range []string{"20260401_154232_001_pid1_x_call0007$(touch${IFS}pwned)", "x');__import__('os').system('touch${IFS}pwned');('", "q\"`touch pwned`\\"} {
		files := map[string][]byte{
			"run/server.log":                    []byte("SGLANG_KERNEL_API_LOGLEVEL=10\n" + deviceAssert),
			"run/dumps/" + d + "/metadata.json": []byte(`{"function_name": "sglang.custom_op.x'$(touch${IFS}pwned)'", "execution_status": "inputs_saved", "input_tensor_keys": ["arg_0"]}`),
		}
		add(Case{ID: fmt.Sprintf("dump-folder-%d", i+1), Kind: "command", What: "dump folder named " + d, Cmd: "diagnose", Inputs: one("run"), Hosts: cli2, Steps: true,
			Reason: "page: folder drop not driven by the sweep; worker: one file"}, files, nil)
	}

	// ---- identifiers inside real crash logs (the shared corpus, names
	// replaced): kernel names, PG names, code-object paths reach the
	// suggested steps' prose and commands
	for _, f := range []struct{ file, old string }{
		{"s14_hsa_illegal_instruction_kernel_name_dump_gfx906_therock1844.log", "Cijk_Ailk_Bljk_BBS_BH_MT128x96x32_MI32x32x4x1_SE_1LDSB0_APM1_ABV0_ACED0_AF0EM8_AF1EM1_AMAS0_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR0_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB2_GRCGA1_GRCGB1_GRPM1_GRVW2_GSU1_GSUASB_GLS0_ISA908_IU1_K1_KLA_LBSPPA0_LBSPPB128_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_MAC_MIAV0_MDA2_MO40_MMFGLC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR9_PKA0_SIA3_SLW1_SS0_SU32_SUM0_SUS128_SCIUI1_SPO0_SRVW4_SSO0_SVW4_SNLL0_TSGRA0_TSGRB0_TT1_96_TLDS1_UMLDSA0_UMLDSB1_U64SL1_USFGROn1_VAW1_VSn1_VW1_VWB1_VFLRP0_WSGRA1_WSGRB1_WS64_WG128_2_1_WGM2"},
		{"s15_debug_agent_disassembly_srun_hypre614.log", "rocprim::detail::single_scan_kernel"},
		{"fx02_rocm_debug_agent_rocm720_offload_fixture_mfc.txt", "__omp_offloading_8116438_1c00689b__QMm_time_steppersPs_tvd_rk_l486"},
		{"fx01_rocm_debug_agent_userguide_sample_assert_trap.txt", "/rocm-debug-agent/build/test/rocm-debug-agent-test"},
		{"s08_nccl_watchdog_timeout_allreduce_basicsr737.log", "default_pg"},
	} {
		src, rerr := os.ReadFile(filepath.Join(shared, "testdata", "crash", f.file))
		if rerr != nil {
			return fmt.Errorf("the shared crash corpus (-shared): %v", rerr)
		}
		for i, p := range []string{"x;touch${IFS}pwned;#", "x$(touch${IFS}pwned)", "x'$(touch${IFS}pwned)'`touch${IFS}pwned2`", "<img/src=x/onerror=alert(1)>\x1b]0;PWN\x07\u202e"} {
			tag := f.file[:strings.IndexByte(f.file, '_')]
			name := tag + filepath.Ext(f.file)
			add(Case{ID: fmt.Sprintf("crash-%s-%d", tag, i+1), Kind: "command", What: fmt.Sprintf("%s with %q for %.40s", tag, p, f.old), Cmd: "diagnose",
				Inputs: one("in." + name), Hosts: all4, Steps: true}, map[string][]byte{"in." + name: []byte(strings.ReplaceAll(string(src), f.old, p))}, nil)
		}
	}

	// ---- JSON structure
	deep := func(n int) []byte {
		return []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}]}`)
	}
	add(Case{ID: "json-deep", Kind: "json", What: fmt.Sprintf("%d nested arrays in one event", 1000000*scale), Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4}, map[string][]byte{"t.json": deep(1000000 * scale)}, nil)
	add(Case{ID: "json-deep-doc", Kind: "json", What: "a document nested 500 k deep before traceEvents", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"t.json": []byte(`{"distributedInfo":` + strings.Repeat(`{"a":`, 500000*scale) + "1" + strings.Repeat("}", 500000*scale) + `,"traceEvents":[]}`)}, nil)
	var nums bytes.Buffer
	nums.WriteString(`{"traceEvents":[`)
	for i, v := range []string{"1e308", "1e400", "-1e400", "1e30", "18446744073709551616", "-9223372036854775809", "1e-400", "-0", "4.9e-324", "123456789012345678901234567890"} {
		if i > 0 {
			nums.WriteString(",")
		}
		fmt.Fprintf(&nums, `{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"device":0,"stream":7,"correlation":%s}}`, i, v, v, v)
	}
	nums.WriteString(`,{"ph":"X","cat":"kernel","name":"ok","pid":0,"tid":7,"ts":1000,"dur":5,"args":{"device":0,"stream":7}}]}`)
	add(Case{ID: "json-numbers", Kind: "json", What: "ts/dur/ids of 1e308, 1e400, 2^64, -0, denormals", Cmd: "triage", Inputs: one("t.json"), Hosts: all4}, map[string][]byte{"t.json": nums.Bytes()}, nil)
	esc := func(n int) []byte {
		return []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"` + strings.Repeat(`\\`, n) + `","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0,"stream":7}}]}`)
	}
	add(Case{ID: "json-escapes-1m", Kind: "json", What: fmt.Sprintf("one name of %d M backslash escapes", scale), Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4}, map[string][]byte{"t.json": esc(1000000 * scale)}, nil)
	add(Case{ID: "json-escapes-odd", Kind: "json", What: "lone surrogates, \\u0000, escaped bidi and ESC in names and keys", Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"a\ud800b\udfffc\u0000d\u202ee\u001b[2Jf","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7,"\u0000":1}},{"ph":"X","cat":"kernel","name":"\u0000","name":"dup\u2066key","pid":0,"tid":7,"ts":5,"dur":2,"args":{"device":0,"stream":7}}]}`)}, nil)
	var msg bytes.Buffer
	msg.WriteString(`{"function_name":"sglang.op","execution_status":"exception","exception":"`)
	for i := 0; i < (1<<20)*scale/16; i++ {
		msg.WriteString(`line\nmore \"q\" `)
	}
	msg.WriteString(`"}`)
	add(Case{ID: "json-metadata-1mb", Kind: "json", What: "a 1 MB kernel-API metadata.json exception message", Cmd: "diagnose", Inputs: one("metadata.json"), Hosts: all4}, map[string][]byte{"metadata.json": msg.Bytes()}, nil)

	// ---- compression
	zeros := func(n int) []byte {
		var o bytes.Buffer
		w, _ := gzip.NewWriterLevel(&o, gzip.BestCompression)
		w.Write([]byte(`{"traceEvents":[`))
		z := make([]byte, 1<<20)
		for i := range z {
			z[i] = ' '
		}
		for range n {
			w.Write(z)
		}
		w.Close()
		return o.Bytes()
	}
	bomb := zeros(1024 * scale)
	add(Case{ID: "gzip-bomb", Kind: "compression", What: fmt.Sprintf("%d KB gzip of %d GiB of spaces", len(bomb)>>10, scale), Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{1, 2}, Flag: "--max-ratio"},
		map[string][]byte{"t.json.gz": bomb}, nil)
	add(Case{ID: "gzip-nested", Kind: "compression", What: "the bomb gzipped again", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{1, 2}},
		map[string][]byte{"t.json.gz": gz(bomb)}, nil)
	tail := gz(kineto(100, nil))
	tail = append(tail, gz(deep(200000))...)
	add(Case{ID: "gzip-members", Kind: "compression", What: "a second gzip member holding 200 k nested arrays", Cmd: "breakdown", Inputs: one("t.json.gz"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"t.json.gz": tail}, nil)

	// ---- pickles (flight recorder)
	add(Case{ID: "pickle-selflist", Kind: "pickle", What: fmt.Sprintf("a %d KB pickle: a list holding itself", 983*scale), Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768},
		map[string][]byte{"nccl_trace_rank_0": selfList(491000 * scale)}, nil)
	add(Case{ID: "pickle-deep", Kind: "pickle", What: "a pickle of lists nested 1 M deep", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768},
		map[string][]byte{"nccl_trace_rank_0": deepPickle(1000000 * scale)}, nil)
	add(Case{ID: "pickle-bigstr", Kind: "pickle", What: "a pickle whose string claims 4 GiB", Cmd: "diagnose", Inputs: one("nccl_trace_rank_0"), Hosts: all4, MemMB: 768},
		map[string][]byte{"nccl_trace_rank_0": {0x80, 2, 'X', 0xff, 0xff, 0xff, 0xff, 'a', 'b', '.'}}, nil)
	add(Case{ID: "fr-1e30", Kind: "numbers", What: "flight recorder last_enqueued_collective 1e30", Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4},
		map[string][]byte{"fr_rank0.json": []byte(`{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":1e30,"last_started_collective":5,"last_completed_collective":5}},"entries":[]}`)}, nil)
	// sums of times over files and ranks near int64's end (saturated, never wrapped; one answer)
	stage := func() []byte {
		return []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":3900000000000000,"dur":5,"args":{"stream":7}},` +
			`{"ph":"X","cat":"kernel","name":"nccl_allreduce","pid":0,"tid":8,"ts":12,"dur":5,"args":{"stream":8}}]}`)
	}
	stages := []string{"1700000000-TP-0-EXTEND.trace.json", "1700000000-TP-0-DECODE.trace.json", "1700000000-TP-0-PREFILL.trace.json"}
	add(Case{ID: "stage-shift-4e18", Kind: "numbers", What: "three stage files of one rank spanning 3.9·10¹⁸ ns each (overlap lays them end to end)", Cmd: "triage",
		Inputs: stages, Hosts: noWorker, Want: `"busy_us": 31.000`, Reason: "worker: one file per request"},
		map[string][]byte{stages[0]: stage(), stages[1]: stage(), stages[2]: stage()}, nil)
	rankTrace := func(r int, base string, ts int64) []byte {
		var ev []string
		for i := range 3 {
			ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":7,"ts":%d,"dur":50,"args":{"device":0,"stream":7}}`, ts+int64(i)*1000))
		}
		return fmt.Appendf(nil, `{"distributedInfo":{"rank":%d,"world_size":2},"baseTimeNanoseconds":%s,"traceEvents":[%s]}`, r, base, strings.Join(ev, ","))
	}
	// the clock alignment (9209b72) takes the offset out before the waits
	// are summed: the answer names it; the sums saturate (units.AddSat) when
	// no alignment applies (TestBoundsRanksSums)
	add(Case{ID: "ranks-clock-4e18", Kind: "numbers", What: "two ranks whose clock bases are 4·10¹⁸ ns apart (per-rank wait sums)", Cmd: "breakdown",
		Inputs: []string{"rank0.json", "rank1.json"}, Hosts: noWorker, Want: `clocks aligned: rank 1's clock read +7899999999999.899 ms ahead`, Reason: "worker: one file per request"},
		map[string][]byte{"rank0.json": rankTrace(0, "1", 100), "rank1.json": rankTrace(1, "4000000000000000000", 3900000000000000)}, nil)
	add(Case{ID: "fr-real-size", Kind: "sidedoc", What: "a 2.7 MB flight-recorder dump (2,000 entries with stacks) is read", Cmd: "diagnose", Inputs: one("fr_rank0.json"), Hosts: all4, Want: "collective_timeout"},
		map[string][]byte{"fr_rank0.json": frDump(2000)}, nil)
	add(Case{ID: "fr-over-limit", Kind: "sidedoc", What: "a flight-recorder dump over --max-side-doc-bytes is a flagged partial", Cmd: "diagnose", Args: []string{"--max-side-doc-bytes", "1048576"},
		Inputs: one("fr_rank0.json"), Hosts: cli2, Exits: []int{1}, Flag: "--max-side-doc-bytes", Reason: "page/worker: no limit flags (the default limit is the CLI's, tested)"},
		map[string][]byte{"fr_rank0.json": frDump(2000)}, nil)
	add(Case{ID: "fr-over-default", Kind: "sidedoc", What: "a 6 MB flight-recorder dump over the default 4 MiB side-document limit", Cmd: "diagnose",
		Inputs: one("fr_rank0.json"), Hosts: all4, Exits: []int{1}, Flag: "--max-side-doc-bytes"},
		map[string][]byte{"fr_rank0.json": frDump(4500)}, nil)

	// ---- lanes and sweeps
	var st bytes.Buffer
	st.WriteString(`{"traceEvents":[`)
	for i := range 80000 * scale {
		if i > 0 {
			st.WriteString(",")
		}
		fmt.Fprintf(&st, `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":%d,"ts":%d,"dur":3,"args":{"device":0,"stream":%d}}`, i, 10+i, i)
	}
	st.WriteString("]}")
	add(Case{ID: "lanes-80k", Kind: "lanes", What: fmt.Sprintf("%d k streams, one kernel each", 80*scale), Cmd: "breakdown", Inputs: one("t.json"), Hosts: all4, Want: "merged_streams", MemMB: 768},
		map[string][]byte{"t.json": st.Bytes()}, nil)
	cross := crossing(100000*scale, 2)
	add(Case{ID: "crossing-triage", Kind: "lanes", What: fmt.Sprintf("%d k mutually crossing kernels on 2 streams (triage)", 100*scale), Cmd: "triage", Inputs: one("t.json"), Hosts: all4}, map[string][]byte{"t.json": cross}, nil)
	add(Case{ID: "crossing-fix", Kind: "lanes", What: fmt.Sprintf("%d k mutually crossing kernels on 1 stream (perfetto-fix)", 100*scale), Cmd: "perfetto-fix", Inputs: one("t.json"), Hosts: cli2,
		Reason: "page/worker: perfetto-fix is the CLI's"}, map[string][]byte{"t.json": crossing(100000*scale, 1)}, nil)
	add(Case{ID: "records-limit", Kind: "records", What: fmt.Sprintf("%d M tiny events against --max-records 1000000", 4*scale), Cmd: "breakdown", Args: []string{"--max-records", "1000000"},
		Inputs: one("t.json.gz"), Hosts: cli2, Exits: []int{1}, Flag: "--max-records", MemMB: 512, Reason: "page/worker: no limit flags"},
		map[string][]byte{"t.json.gz": tiny(4000000 * scale)}, nil)

	// ---- special files (CLI: the page and the Worker get bytes, not paths)
	sp := func(id, what, name string, mk func(p string) error) {
		add(Case{ID: id, Kind: "special", What: what, Cmd: "breakdown", Inputs: one("dir"), Hosts: cli2, Exits: []int{2}, Want: "not a regular file", TimeS: 30,
			Reason: "page/worker: no file system"}, map[string][]byte{"dir/a.json": kineto(20, nil)}, func(in string) error { return mk(filepath.Join(in, "dir", name)) })
	}
	sp("special-fifo", "a FIFO named trace.json in a folder", "trace.json", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	sp("special-devzero", "a symlink zero.json → /dev/zero in a folder", "zero.json", func(p string) error { return os.Symlink("/dev/zero", p) })
	sp("special-urandom", "a symlink r.json.gz → /dev/urandom in a folder", "r.json.gz", func(p string) error { return os.Symlink("/dev/urandom", p) })
	sp("special-stdin", "a symlink in.json → /proc/self/fd/0 in a folder", "in.json", func(p string) error { return os.Symlink("/proc/self/fd/0", p) })
	add(Case{ID: "special-loop", Kind: "special", What: "a folder holding a symlink to itself", Cmd: "breakdown", Inputs: one("dir"), Hosts: cli2, Exits: []int{0, 1, 2}, TimeS: 30, Reason: "page/worker: no file system"},
		map[string][]byte{"dir/a.json": kineto(20, nil)}, func(in string) error { return os.Symlink(".", filepath.Join(in, "dir", "loop")) })
	// (a pipe named on the command line is read as a stream, by design:
	// gputriage breakdown <(zcat t.json.gz))

	// ---- profile (network): run by the sweep against its own servers (a FIFO
	// in profile's output folder needs a stand-in server: TestBoundsProfileFIFO)
	add(Case{ID: "profile-redirect", Kind: "network", What: "profile's server answers 307 to another host", Cmd: "profile", Hosts: cli2, Exits: []int{2}, Want: "redirect", TimeS: 30, Reason: "page/worker: no profile"}, nil, nil)
	return nil
}

func selfList(n int) []byte {
	b := []byte{0x80, 2, ']', 'q', 0}
	for i := range n {
		if i%1000 == 0 {
			if i > 0 {
				b = append(b, 'e')
			}
			b = append(b, '(')
		}
		b = append(b, 'h', 0)
	}
	return append(b, 'e', '.')
}

// deepPickle nests n empty lists: EMPTY_LIST ×n, then APPEND ×(n-1).
func deepPickle(n int) []byte {
	b := []byte{0x80, 2}
	b = append(b, bytes.Repeat([]byte{']'}, n)...)
	b = append(b, bytes.Repeat([]byte{'a'}, n-1)...)
	return append(b, '.')
}

func frDump(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":"2.4","rank":0,"pg_config":{"0":{"name":"0","desc":"default_pg","ranks":"[0, 1]"}},"pg_status":{"0":{"last_enqueued_collective":%d,"last_started_collective":%d,"last_completed_collective":%d}},"entries":[`, n, n, n-1)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		state := "completed"
		if i == n {
			state = "started"
		}
		fmt.Fprintf(&b, `{"record_id":%d,"pg_id":0,"collective_seq_id":%d,"profiling_name":"nccl:all_reduce","state":"%s","frames":[`, i, i, state)
		for f := 0; f < 12; f++ {
			if f > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"forward_layer_%d","filename":"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py","line":%d}`, f, 1700+f)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return b.Bytes()
}

func crossing(n, streams int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		s := 7 + i%streams
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"gemm_kernel_%d","pid":0,"tid":%d,"ts":%d,"dur":%d,"args":{"device":0,"stream":%d}}`, i%97, s, 1000+i, n, s)
	}
	b.WriteString("]}")
	return b.Bytes()
}

func tiny(n int) []byte {
	var o bytes.Buffer
	w, _ := gzip.NewWriterLevel(&o, gzip.BestSpeed)
	w.Write([]byte(`{"traceEvents":[`))
	var b []byte
	for i := range n {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":1}`, i)
		w.Write(b)
	}
	w.Write([]byte("]}"))
	w.Close()
	return o.Bytes()
}

// genWanted tells whether gen writes case id's files: HOSTILE_GEN_ONLY
// (comma-separated id prefixes) regenerates a few cases of a big sweep.
func genWanted(id string) bool {
	only := os.Getenv("HOSTILE_GEN_ONLY")
	if only == "" {
		return true
	}
	for _, p := range strings.Split(only, ",") {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}
