package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/fixture"
	"github.com/gputriage/gputriage/schemas"
	"github.com/ncruces/go-sqlite3"
)

// The ROCm profilers' own outputs (../shared/testdata/rocprof): each reads
// to the same bytes under both engines (databases are queried by this host
// and fed as rows to either), and every JSON artifact validates.
func TestRocprofInputs(t *testing.T) {
	dir := filepath.Join(shared, "rocprof")
	if _, err := os.Stat(dir); err != nil {
		fixture.Missing(t, "%v", err)
	}
	csv, _ := filepath.Glob(filepath.Join(dir, "908_*.csv*"))
	inputs := map[string][]string{
		"rocprofv3 JSON":  {filepath.Join(dir, "908_results.json.gz")},
		"rocprofv3 CSV":   csv,
		"rocpd":           {filepath.Join(dir, "908_results.rocpd.db.gz")},
		"RPD matmul":      {filepath.Join(dir, "matmul_result.rpd.gz")},
		"RPD mytrace":     {filepath.Join(dir, "mytrace.rpd.gz")},
		"rocprof-compute": {filepath.Join(dir, "rocprof_compute_23ed6f36.db.gz")},
	}
	for label, files := range inputs {
		t.Run(label, func(t *testing.T) {
			o := analyzer.Options{Command: "breakdown"}
			n := analyze(t, "native", o, files...)
			w := analyze(t, "wasm", o, files...)
			if n.ExitCode != analyzer.ExitOK {
				t.Fatalf("exit %d: %s %+v", n.ExitCode, n.Error, n.Files)
			}
			if len(n.Artifacts) != len(w.Artifacts) {
				t.Fatalf("native %d artifacts, wasm %d", len(n.Artifacts), len(w.Artifacts))
			}
			for i, a := range n.Artifacts {
				if a != w.Artifacts[i] {
					t.Errorf("%s differs between the engines", a.Name)
				}
				if strings.HasSuffix(a.Name, ".json") {
					if err := schemas.Validate(a.Name, []byte(a.Text)); err != nil {
						t.Error(err)
					}
				}
			}
			if s, _ := n.Artifact("profile_summary.md"); !strings.Contains(s, "records)") {
				t.Errorf("the summary does not name the format:\n%.300s", s)
			}
		})
	}
}

// A rocprofv3 output folder (<host>/<pid>_*.csv) is found and read as one run.
func TestRocprofFolder(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join(shared, "rocprof", "908_*.csv*"))
	if len(src) < 4 {
		fixture.Missing(t, "rocprof CSV fixtures: %d files", len(src))
	}
	host := filepath.Join(t.TempDir(), "run", "host1")
	os.MkdirAll(host, 0o755)
	for _, f := range src {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(host, filepath.Base(f)), b, 0o644)
	}
	files, err := expand([]string{filepath.Dir(host)})
	if err != nil || len(files) != len(src) {
		t.Fatalf("expand: %v %v", files, err)
	}
	r := analyze(t, "native", analyzer.Options{Command: "breakdown"}, files...)
	meta, _ := r.Artifact("profile_metadata.json")
	if r.ExitCode != analyzer.ExitOK || !strings.Contains(meta, `"format": "rocprofv3 CSV"`) || strings.Count(meta, `"source": {`) != 1 {
		t.Fatalf("exit %d %s\n%.600s", r.ExitCode, r.Error, meta)
	}
}

// A damaged database is refused with SQLite's own words, not as a read or
// gzip error (the page and the Worker word it the same way).
func TestRocprofDamagedDatabase(t *testing.T) {
	src := filepath.Join(shared, "rocprof", "908_results.rocpd.db.gz")
	if _, err := os.Stat(src); err != nil {
		fixture.Missing(t, "%v", err)
	}
	db := gunzipFile(t, src)
	cut := filepath.Join(t.TempDir(), "cut_results.db")
	os.WriteFile(cut, db[:64<<10], 0o644) // the header and schema pages, no more
	for _, eng := range []string{"native", "wasm"} {
		r := analyze(t, eng, analyzer.Options{Command: "breakdown"}, cut)
		const want = "not a readable SQLite database: sqlite3: database disk image is malformed"
		if r.ExitCode != analyzer.ExitUsage || !strings.Contains(r.Error, want) || strings.Contains(r.Error, "read error") {
			t.Errorf("%s: exit %d, error %q; want exit 2 and %q", eng, r.ExitCode, r.Error, want)
		}
	}
}

// A database whose kernels view is an endless recursive CTE (no row, no
// end) ran for ever on every host: SQLite's work is bounded
// (limits.SQLiteSteps), the file a flagged partial naming the bound, the
// same on both engines.
func TestRocprofEndlessView(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop_results.db")
	db, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
		INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '3');
		CREATE VIEW kernels AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
			SELECT x AS id, x AS start, x + 1 AS end, x AS corr_id, 'k' AS name, 0 AS agent_type_index, 0 AS queue_id FROM c WHERE x < 0;`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, eng := range []string{"native", "wasm"} {
		r := analyze(t, eng, analyzer.Options{Command: "breakdown"}, path)
		if r.ExitCode != analyzer.ExitPartial || !strings.Contains(r.Error+fmt.Sprint(r.Files), "limits.SQLiteSteps") {
			t.Errorf("%s: exit %d, error %q, files %+v", eng, r.ExitCode, r.Error, r.Files)
		}
		// said in the artifacts too (a Worker's zip answer has only them)
		for _, a := range []string{"profile_summary.md", "profile_metadata.json"} {
			if text, _ := r.Artifact(a); !strings.Contains(text, "SQLite stopped after") {
				t.Errorf("%s: %s does not say why the database is partial: %.600s", eng, a, text)
			}
		}
	}
}
