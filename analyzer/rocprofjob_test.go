package analyzer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/internal/sqlrows"
)

// The same MI350X run as rocprofv3 JSON, as a rocpd database and as
// rocprofv3 CSV (../shared/testdata/rocprof) must give the same analysis:
// every artifact equal but for the fields that name the source.

func rocFixture(t *testing.T, rel string) []byte {
	t.Helper()
	p := filepath.Join(fixture.Shared, "rocprof", rel)
	if _, err := os.Stat(p); err != nil && os.Getenv("CI") != "" {
		t.Fatalf("fixture missing under CI: %v", err)
	}
	return fixture.ReadPath(t, p)
}

// rocJob runs a breakdown over named inputs, pushed in odd-sized chunks.
func rocJob(t *testing.T, inputs map[string][]byte, order []string) *Result {
	t.Helper()
	j, err := New(Options{Command: "breakdown"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range order {
		j.BeginFile(name)
		b := inputs[name]
		for len(b) > 0 {
			n := min(len(b), 1<<20+7)
			if _, err := j.Write(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
		j.EndFile()
	}
	return j.Finish()
}

// dbStream is the row stream the CLI feeds for a database.
func dbStream(t *testing.T, rel string) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(p, rocFixture(t, rel), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := sqlrows.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var runIDLine = regexp.MustCompile(`"run_id": "[^"]*"`)

// sourceless drops the fields that name or describe the source file.
func sourceless(t *testing.T, name, text, src string) string {
	t.Helper()
	text = runIDLine.ReplaceAllString(text, `"run_id": ""`)
	if name == "profile_metadata.json" {
		var m map[string]any
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatal(err)
		}
		for _, f := range m["files"].([]any) {
			delete(f.(map[string]any), "bytes")
			delete(f.(map[string]any), "source")
		}
		b, _ := json.MarshalIndent(m, "", " ")
		text = string(b)
	}
	if name == "profile_summary.md" {
		text = regexp.MustCompile(`\(rocprofv3 JSON|\(rocprofv3 CSV|\(rocpd`).ReplaceAllString(text, "(FORMAT")
	}
	return strings.ReplaceAll(text, src, "SOURCE")
}

func TestRocprofRenderingsAgree(t *testing.T) {
	js := map[string][]byte{"908_results.json": rocFixture(t, "908_results.json.gz")}
	db := map[string][]byte{"908_results.rocpd.db": dbStream(t, "908_results.rocpd.db.gz")}
	csv := map[string][]byte{}
	csvOrder := []string{"run/908_kernel_trace.csv", "run/908_agent_info.csv", "run/908_hip_api_trace.csv", "run/908_memory_copy_trace.csv"}
	for _, n := range csvOrder {
		rel := strings.TrimPrefix(n, "run/")
		if strings.HasSuffix(rel, "kernel_trace.csv") {
			rel += ".gz"
		}
		csv[n] = rocFixture(t, rel)
	}
	want := rocJob(t, js, []string{"908_results.json"})
	if want.ExitCode != ExitOK || len(want.Artifacts) < 5 {
		t.Fatalf("JSON: exit %d %s, %d artifacts", want.ExitCode, want.Error, len(want.Artifacts))
	}
	for _, f := range want.Files {
		if f.Kind != "trace" || f.Partial {
			t.Fatalf("JSON file %+v", f)
		}
	}
	for _, c := range []struct {
		name string
		res  *Result
		src  string
	}{
		{"rocpd", rocJob(t, db, []string{"908_results.rocpd.db"}), "908_results.rocpd.db"},
		{"CSV", rocJob(t, csv, csvOrder), "run/908_*.csv"},
	} {
		if c.res.ExitCode != ExitOK {
			t.Fatalf("%s: exit %d %s", c.name, c.res.ExitCode, c.res.Error)
		}
		if len(c.res.Artifacts) != len(want.Artifacts) {
			t.Fatalf("%s: %d artifacts, want %d", c.name, len(c.res.Artifacts), len(want.Artifacts))
		}
		for i, a := range c.res.Artifacts {
			w := want.Artifacts[i]
			got, exp := sourceless(t, a.Name, a.Text, c.src), sourceless(t, w.Name, w.Text, "908_results.json")
			if a.Name != w.Name || got != exp {
				t.Errorf("%s: %s differs from the JSON rendering's", c.name, a.Name)
				os.WriteFile(filepath.Join(t.TempDir(), a.Name), []byte(got), 0o644)
			}
		}
	}
	// The artifacts say what was read: the agents, the process window.
	meta, _ := want.Artifact("profile_metadata.json")
	for _, s := range []string{`"observed_arch": "gfx950"`, `"arch_match": "exact"`, `"format": "rocprofv3 JSON"`, `"process_init_ns": 63855948165371`, `"product_name": "AMD Instinct MI350X"`} {
		if !strings.Contains(meta, s) {
			t.Errorf("profile_metadata.json lacks %s", s)
		}
	}
}

// A database given to a host that cannot query it is refused by name.
func TestSQLiteWithoutRows(t *testing.T) {
	res := rocJob(t, map[string][]byte{"x.db": append([]byte("SQLite format 3\x00"), make([]byte, 600)...)}, []string{"x.db"})
	if res.ExitCode != ExitUsage || len(res.Files) != 1 || !strings.Contains(res.Files[0].Problem, "SQLite database") {
		t.Fatalf("%+v", res.Files)
	}
}

// RPD's autograd hook (ext_autogradapi) records each PyTorch op as a
// UserMarker call: read as CPU ops, they name the kernels launched inside
// them. Key, computed with Python's sqlite3 from the file: all 256 launches
// of the MT256x224x128 F8 GEMMs are called inside an aten::_scaled_mm range
// on their thread.
func TestRPDAutogradOps(t *testing.T) {
	res := rocJob(t, map[string][]byte{"mytrace.rpd": dbStream(t, "mytrace.rpd.gz")}, []string{"mytrace.rpd"})
	csv, ok := res.Artifact("kernel_table.csv")
	if !ok {
		t.Fatalf("no kernel_table.csv: %s", res.Error)
	}
	launches, cpuOp := 0, 0
	for _, line := range strings.Split(csv, "\n") {
		f := strings.Split(line, ",")
		if len(f) < 12 || !strings.HasPrefix(f[1], "Cijk_Alik_Bljk_F8HS_BH_BiasSH_AS_SAB_SAV_UserArgs_MT256x224x128") {
			continue
		}
		n := 0
		for _, c := range f[4] {
			n = n*10 + int(c-'0')
		}
		launches += n
		if f[9] == "aten::_scaled_mm" && f[10] == "1" {
			cpuOp += n
		}
	}
	if launches != 256 || cpuOp != 256 {
		t.Errorf("MT256x224x128 GEMMs: %d launches, %d under aten::_scaled_mm; want 256 and 256", launches, cpuOp)
	}
}
