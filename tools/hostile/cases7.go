package main

// The seventh sweep (issue 24, helper hostile7): input kinds no earlier
// cases*.go wrote — SQL of the database's own making (rocpd's views are
// the database's: an endless recursive CTE, a cross join of its tables),
// damaged SQLite headers not yet tried (a page size that is no power of
// two, WAL mode with no log), NaN and Infinity in every numeric field of a
// Kineto trace and of a rocprofv3 CSV, a crash log of a million lines of
// one wording and one of a single 60 MB line, and kernel names that differ
// only by Unicode normalization, width or invisible joiners (one answer on
// every engine: Go and JavaScript sort and compare them).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

var gen8Prefixes = []string{"s7-"}

// sqliteNew runs sql in a new database and returns its bytes.
func sqliteNew(sql string) ([]byte, error) {
	d, err := os.MkdirTemp("", "hostile-db-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(d)
	p := filepath.Join(d, "x.db")
	if o, err := exec.Command("sqlite3", p, sql).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sqlite3: %v: %s", err, o)
	}
	return os.ReadFile(p)
}

const rocpdMeta = `CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT); INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '3');`

func gen8(add adder, scale int) error {
	one := func(name string) []string { return []string{name} }
	// ---- SQL of the database's own making
	endless, err := sqliteNew(rocpdMeta + `CREATE VIEW kernels AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id, x AS start, x + 1 AS end, x AS corr_id, 'k' AS name, 0 AS agent_type_index, 0 AS queue_id FROM c WHERE x < 0;`)
	if err != nil {
		return err
	}
	add(Case{ID: "s7-sqlite-endless-view", Kind: "structure", What: "a rocpd database whose kernels view is an endless recursive CTE yielding no row", Cmd: "breakdown", Inputs: one("loop_results.db"), Hosts: all4, Exits: []int{1, 2}, Want: "limits.SQLiteSteps"},
		map[string][]byte{"loop_results.db": endless}, nil)
	cross, err := sqliteNew(rocpdMeta + fmt.Sprintf(`CREATE TABLE t(v INTEGER); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) INSERT INTO t SELECT x FROM c;
		CREATE VIEW kernels AS SELECT a.v AS id, a.v AS start, a.v + 1 AS end, a.v AS corr_id, 'k' AS name, 0 AS agent_type_index, 0 AS queue_id FROM t a, t b, t c WHERE a.v + b.v + c.v < 0;`, 2000*scale))
	if err != nil {
		return err
	}
	add(Case{ID: "s7-sqlite-cross-join", Kind: "structure", What: fmt.Sprintf("a rocpd database whose kernels view is a three-way cross join of a %d-row table filtered to nothing", 2000*scale), Cmd: "breakdown", Inputs: one("cross_results.db"), Hosts: all4, Exits: []int{1, 2}, Want: "limits.SQLiteSteps"},
		map[string][]byte{"cross_results.db": cross}, nil)
	rows, err := sqliteNew(rocpdMeta + `CREATE VIEW kernels AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id, x * 1000 AS start, x * 1000 + 500 AS end, x AS corr_id, 'k' AS name, 0 AS agent_type_index, 0 AS queue_id FROM c;`)
	if err != nil {
		return err
	}
	// the query orders by id: SQLite sorts the endless rows before the first
	// is out, so the work bound stops it, not --max-records
	add(Case{ID: "s7-sqlite-endless-rows", Kind: "records", What: "a rocpd database whose kernels view yields rows for ever", Cmd: "breakdown", Args: []string{"--max-records", "1000000"}, Inputs: one("rows_results.db"), Hosts: cli2, Exits: []int{1, 2}, Want: "limits.SQLiteSteps", Reason: "page/worker: no limit flags"},
		map[string][]byte{"rows_results.db": rows}, nil)
	// ---- damaged headers not yet tried
	if good, err := sqliteNew(rocpdMeta + `CREATE TABLE k(id INTEGER PRIMARY KEY, start INTEGER, end INTEGER, corr_id INTEGER, name TEXT, agent_type_index INTEGER, queue_id INTEGER); INSERT INTO k VALUES (1, 1000, 2000, 1, 'k', 0, 0); CREATE VIEW kernels AS SELECT * FROM k;`); err == nil {
		ps := bytes.Clone(good)
		ps[16], ps[17] = 0x03, 0xe8 // page size 1000: no power of two
		add(Case{ID: "s7-sqlite-pagesize", Kind: "structure", What: "a SQLite header whose page size is 1000 (no power of two)", Cmd: "breakdown", Inputs: one("ps_results.db"), Hosts: all4, Exits: []int{2}},
			map[string][]byte{"ps_results.db": ps}, nil)
		wal := bytes.Clone(good)
		wal[18], wal[19] = 2, 2 // WAL mode, and no -wal file beside it
		add(Case{ID: "s7-sqlite-wal", Kind: "structure", What: "a SQLite header in WAL mode with no log file", Cmd: "breakdown", Inputs: one("wal_results.db"), Hosts: all4, Exits: []int{0, 1, 2}},
			map[string][]byte{"wal_results.db": wal}, nil)
	} else {
		return err
	}
	// ---- NaN and Infinity in every numeric field
	var b strings.Builder
	b.WriteString(`{"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","totalGlobalMem":"NaN","computeMajor":"Infinity","numSms":"-Infinity"}],"traceEvents":[`)
	vals := []string{`"NaN"`, `"Infinity"`, `"-Infinity"`, `"nan"`, `"inf"`, `1e400`, `-1e400`, `"1e400"`}
	for i, v := range vals {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%[1]s,"dur":%[1]s,"args":{"External id":%[1]s,"Input Dims":[[%[1]s,4096],[4096,%[1]s]],"Input type":["c10::BFloat16","c10::BFloat16"]}}`, v)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%[1]s,"dur":%[1]s,"args":{"External id":%[1]s,"correlation":%[1]s}}`, v)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":"Cijk_gemm","pid":%[1]s,"tid":%[1]s,"ts":%[1]s,"dur":%[1]s,"args":{"device":%[1]s,"stream":%[1]s,"correlation":%[1]s,"External id":%[1]s,"grid":[%[1]s,1,1],"block":[%[1]s,1,1],"Collective name":"allreduce","In msg nelems":%[1]s,"Group size":%[1]s,"Seq":%[1]s}}`, v)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%[2]d","pid":1,"tid":1,"ts":%[1]s,"dur":%[1]s}`, v, i)
	}
	// and one good kernel so the trace has something
	b.WriteString(`,{"ph":"X","cat":"kernel","name":"good_kernel","pid":0,"tid":7,"ts":1000,"dur":10,"args":{"device":0,"stream":7}}]}`)
	add(Case{ID: "s7-nan-kineto", Kind: "numbers", What: "NaN, Infinity and 1e400 (as strings and numbers) in every numeric field of a Kineto trace", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": []byte(b.String())}, nil)
	var c strings.Builder
	c.WriteString(`"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"` + "\n")
	for i, v := range []string{"NaN", "Infinity", "-Infinity", "nan", "inf", "1e400", "-1e400", "0x10", "1_000", "+5", " 7", "٣"} {
		fmt.Fprintf(&c, `"KERNEL_DISPATCH","Agent %[1]s",%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,"k%[2]d",%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s,%[1]s`+"\n", v, i)
	}
	c.WriteString(`"KERNEL_DISPATCH","Agent 2",16,0,908,99,8,"good_kernel",99,63857982592000,63857982594840,0,0,8,0,32,512,1,1,512,1,1` + "\n")
	add(Case{ID: "s7-nan-rocprof-csv", Kind: "numbers", What: "NaN, Infinity, 1e400, hex, underscores, a sign, a space and an Arabic-Indic digit in every numeric column of a rocprofv3 kernel trace CSV", Cmd: "breakdown", Inputs: one("908_kernel_trace.csv"), Hosts: all4, Exits: []int{0, 1, 2}},
		map[string][]byte{"908_kernel_trace.csv": []byte(c.String())}, nil)
	// ---- crash logs: a million lines of one wording; one line of 60 MB
	line := "RuntimeError: CUDA error: an illegal memory access was encountered\n"
	add(Case{ID: "s7-log-1m-same", Kind: "structure", What: fmt.Sprintf("%d M lines of one CUDA error wording", scale), Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4, Want: "illegal"},
		map[string][]byte{"server.log": bytes.Repeat([]byte(line), 1000000*scale)}, nil)
	giant := append(bytes.Repeat([]byte("x"), 30<<20), []byte(" torch.AcceleratorError: CUDA error: device-side assert triggered ")...)
	giant = append(giant, bytes.Repeat([]byte("y"), 30<<20)...)
	add(Case{ID: "s7-log-giant-line", Kind: "structure", What: "a crash log of one 60 MB line with an error wording in its middle", Cmd: "diagnose", Inputs: one("server.log"), Hosts: all4},
		map[string][]byte{"server.log": giant}, nil)
	// ---- Unicode: names equal under NFC/NFKC or to the eye, distinct bytes
	names := []string{"gemm_caf\u00e9_kernel", "gemm_cafe\u0301_kernel", "gemm_\uff43afe_kernel", "gemm_c\u200dafe_kernel", "gemm_\u0441afe_kernel", "gemm_cafe_kernel", "gemm_CAFE_kernel", "gemm_\u212a_kernel", "gemm_k_kernel", "gemm_\U0001d5c4_kernel", "gemm_\u00df_kernel", "gemm_ss_kernel", "gemm_\u0130_kernel", "gemm_i\u0307_kernel"}
	var u strings.Builder
	u.WriteString(`{"traceEvents":[`)
	for i := range 40 * len(names) {
		if i > 0 {
			u.WriteString(",")
		}
		// equal times: every order between them is a tie the engines must break alike
		fmt.Fprintf(&u, `{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":7,"ts":%d,"dur":10,"args":{"device":0,"stream":7}}`, jsonString(names[i%len(names)]), 1000+i*20)
	}
	u.WriteString("]}")
	add(Case{ID: "s7-unicode-kernels", Kind: "engine", What: "kernel names equal under Unicode normalization, case folding or to the eye (é / e+U+0301, fullwidth, ZWJ, Cyrillic, Kelvin sign, ß/ss, İ/i+U+0307), equal times", Cmd: "triage", Inputs: one("t.json"), Hosts: all4},
		map[string][]byte{"t.json": []byte(u.String())}, nil)
	return nil
}
