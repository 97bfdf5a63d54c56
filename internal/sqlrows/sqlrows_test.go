package sqlrows

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/ncruces/go-sqlite3"
)

// EndlessView writes a database whose kernels view (the name rocpd gives
// its own) is an endless recursive CTE that yields no row, and returns its
// path: SQLite reading it runs for ever unless bounded.
func EndlessView(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "loop_results.db")
	db, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(`CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
		INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '3');
		CREATE VIEW kernels AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
			SELECT x AS id, x AS start, x + 1 AS end, x AS corr_id, 'k' AS name, 0 AS agent_type_index, 0 AS queue_id FROM c WHERE x < 0;`); err != nil {
		t.Fatal(err)
	}
	return path
}

// A view that never ends is stopped by limits.SQLiteSteps, naming it; the
// rows before it (the metadata) are written.
func TestWriteEndlessView(t *testing.T) {
	var out strings.Builder
	n, err := Write(&out, EndlessView(t))
	if err == nil || !strings.Contains(err.Error(), "query rocpd.kernels: SQLite stopped after") || !strings.Contains(err.Error(), "limits.SQLiteSteps") {
		t.Fatalf("%d rows, %v", n, err)
	}
	if n != 1 || !strings.Contains(out.String(), "@ rocpd.kernels\n") {
		t.Errorf("%d rows: %q", n, out.String())
	}
}

// The budget grows with the file and the rows, from a floor.
func TestStepsBudget(t *testing.T) {
	if limits.SQLiteSteps(0, 0) != limits.SQLiteStepsBase || limits.SQLiteSteps(256<<10, 10) != limits.SQLiteStepsBase+1024+40 {
		t.Fatal(limits.SQLiteSteps(256<<10, 10))
	}
}
