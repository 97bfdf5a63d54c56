package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/rocprof"
	"github.com/gputriage/gputriage/internal/sqlrows"
	"github.com/ncruces/go-sqlite3"
)

// rocpdTable is make bench's row for a rocpd database of ≥ 1 M kernel
// dispatches (issue 20): the 908 run's database with its dispatches
// repeated, shifted in time, read end to end by each engine (host query +
// row stream + every analysis), beside the sqlite3 CLI counting the same
// view and dumping the same rows in the same run.
func rocpdTable(t *testing.T) string {
	copies := 23 // 43,915 × 23 = 1,010,045 dispatches
	if s := os.Getenv("GPUTRIAGE_BENCH_ROCPD_COPIES"); s != "" {
		fmt.Sscan(s, &copies)
	}
	db := filepath.Join(t.TempDir(), "big_results.db")
	t0 := time.Now()
	n, err := genRocpd(filepath.Join(shared, "rocprof", "908_results.rocpd.db.gz"), db, copies)
	if err != nil {
		t.Fatalf("generating the rocpd database: %v", err)
	}
	st, _ := os.Stat(db)
	t.Logf("rocpd: %d dispatches, %d MB, generated in %.1fs", n, st.Size()>>20, time.Since(t0).Seconds())

	var b strings.Builder
	fmt.Fprintf(&b, "\n## rocpd database (issue 20)\n\nThe 908 MI350X run's rocpd database with its dispatches repeated %d× (shifted in time): %d kernel dispatches, %d MB. "+
		"End to end = host query (internal/sqlrows, github.com/ncruces/go-sqlite3) + row stream + every analysis + artifacts; rows/s counts dispatches. "+
		"Reference, same run: the `sqlite3` CLI on the same file.\n\n", copies, n, st.Size()>>20)
	b.WriteString("| reader | seconds | dispatches/s | memory | what memory means |\n|---|---:|---:|---:|---|\n")
	if _, err := exec.LookPath("sqlite3"); err != nil {
		b.WriteString("| sqlite3 CLI | – | – | – | not installed (apt-get install sqlite3) |\n")
	} else {
		var q string
		for _, x := range rocprof.Queries() {
			if x.Name == "rocpd.kernels" {
				q = x.SQL
			}
		}
		for _, ref := range []struct{ what, sql string }{
			{"sqlite3 CLI: `SELECT count(*) FROM kernels`", "SELECT count(*) FROM kernels"},
			{"sqlite3 CLI: the kernels query of the row stream, to /dev/null", q},
		} {
			t0 := time.Now()
			cmd := exec.Command("sqlite3", db, ref.sql)
			var out []byte
			var err error
			if strings.HasPrefix(ref.sql, "SELECT count") {
				out, err = cmd.Output()
			} else if devnull, derr := os.OpenFile(os.DevNull, os.O_WRONLY, 0); derr == nil {
				cmd.Stdout = devnull
				err = cmd.Run()
				devnull.Close()
			} else {
				err = derr
			}
			secs := time.Since(t0).Seconds()
			if err != nil {
				t.Fatalf("sqlite3: %v", err)
			}
			if strings.HasPrefix(ref.sql, "SELECT count") && strings.TrimSpace(string(out)) != fmt.Sprint(n) {
				t.Errorf("sqlite3 counts %s dispatches, the generator %d", out, n)
			}
			rss := cmd.ProcessState.SysUsage()
			fmt.Fprintf(&b, "| %s | %.2f | %.0f | %s | peak RSS |\n", ref.what, secs, float64(n)/secs, maxRSS(rss))
		}
	}
	for _, kind := range []string{"native", "wasm"} {
		var eng engine = &native{}
		var we *wasmEngine
		if kind == "wasm" {
			m, err := Module()
			if err != nil {
				t.Fatal(err)
			}
			if we, err = newWasmEngine(m); err != nil {
				t.Fatal(err)
			}
			eng = we
		}
		o, _ := json.Marshal(analyzer.Options{})
		var secs float64
		var res *analyzer.Result
		heap := peakHeap(func() {
			t0 := time.Now()
			eng.Begin(o)
			f, err := os.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := push(eng, "big_results.db", f, nil); err != nil {
				t.Fatal(err)
			}
			res, _ = eng.Finish()
			secs = time.Since(t0).Seconds()
		})
		if res == nil || res.ExitCode != analyzer.ExitOK {
			t.Fatalf("%s: %+v", kind, res)
		}
		if kt, _ := res.Artifact("kernel_table.json"); !strings.Contains(kt, "ncclDevKernel_Generic_1") {
			t.Errorf("%s: the kernel table lacks the run's top kernel", kind)
		}
		mem, what := float64(heap)/(1<<20), "Go heap in use (peak)"
		if we != nil {
			mem, what = float64(we.MemoryBytes())/(1<<20), "wasm linear memory"
			we.Close()
		}
		t.Logf("rocpd %s: %.2fs, %.0f dispatches/s, %.0f MiB", kind, secs, float64(n)/secs, mem)
		fmt.Fprintf(&b, "| gputriage breakdown, %s engine | %.2f | %.0f | %.0f MiB | %s |\n", kind, secs, float64(n)/secs, mem, what)
	}
	return b.String()
}

// TestRocpdBench runs only the rocpd row (GPUTRIAGE_BENCH_ROCPD=1; make
// bench runs it inside TestBenchmarks).
func TestRocpdBench(t *testing.T) {
	if os.Getenv("GPUTRIAGE_BENCH_ROCPD") == "" {
		t.Skip("set GPUTRIAGE_BENCH_ROCPD=1 (or run make bench)")
	}
	t.Log("\n" + rocpdTable(t))
}

// genRocpd writes a copy of a rocpd database whose kernel dispatches are
// repeated copies times in all, each repetition shifted past the last; it
// returns the dispatches the kernels view then holds.
func genRocpd(gz, out string, copies int) (int64, error) {
	in, err := os.Open(gz)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(f, zr); err != nil {
		return 0, err
	}
	f.Close()
	db, err := sqlite3.Open(out)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var table string
	var span, maxID, n int64
	if err := sqlrows.Each(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_kernel_dispatch_%'", func(s *sqlite3.Stmt) { table = s.ColumnText(0) }); err != nil || table == "" {
		return 0, fmt.Errorf("no rocpd_kernel_dispatch table (%v)", err)
	}
	if err := sqlrows.Each(db, "SELECT max(end) - min(start) + 1000000000, max(id) FROM `"+table+"`", func(s *sqlite3.Stmt) { span, maxID = s.ColumnInt64(0), s.ColumnInt64(1) }); err != nil {
		return 0, err
	}
	cols := "guid, nid, pid, tid, agent_id, kernel_id, queue_id, stream_id, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id, extdata"
	sql := fmt.Sprintf("WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < %d) "+
		"INSERT INTO `%s` (id, dispatch_id, start, end, %s) SELECT id + n * %d, dispatch_id + n * %d, start + n * %d, end + n * %d, %s FROM `%s`, k ORDER BY n, id",
		copies-1, table, cols, maxID, maxID, span, span, cols, table)
	if err := db.Exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN; " + sql + "; COMMIT"); err != nil {
		return 0, err
	}
	err = sqlrows.Each(db, "SELECT count(*) FROM kernels", func(s *sqlite3.Stmt) { n = s.ColumnInt64(0) })
	return n, err
}
