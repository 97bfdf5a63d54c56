package analyzer

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// stampIndented must give stampDecoded's bytes whenever it answers: on
// every JSON golden in the repository and on units.JSON of odd documents.
func TestStampIndentedEqualsDecoded(t *testing.T) {
	var docs []string
	root := filepath.Join("..")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || d.Name() == "dist" || d.Name() == ".git") {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".json") && strings.Contains(p, "testdata") {
			if b, err := os.ReadFile(p); err == nil && json.Valid(b) && bytes.HasPrefix(b, []byte("{")) {
				docs = append(docs, string(b))
			}
		}
		return nil
	})
	if len(docs) < 20 {
		t.Fatalf("only %d JSON goldens found", len(docs))
	}
	odd := []any{
		map[string]any{},
		map[string]any{"partial": true},
		map[string]any{"partial": false, "x": 1},
		map[string]any{"a<b": 1, "c": "<&>"},          // key json.Marshal escapes
		map[string]any{"k\"q": []any{"\n  \"z\": 1"}}, // escapes in keys and values
		map[string]any{"run_id": "old", "tool": "t", "rows": []any{map[string]any{"x": map[string]any{"y": []any{}}}}},
		map[string]any{"s": ",\n  \"fake\": 1", "t": "}\n"},
	}
	for _, v := range odd {
		docs = append(docs, string(units.JSON(v)))
	}
	answered := 0
	for i, d := range docs {
		for _, partial := range []bool{false, true} {
			want := stampDecoded(d, "run-x", partial)
			got, ok := stampIndented(d, "run-x", partial)
			if !ok {
				continue
			}
			answered++
			if got != want {
				t.Fatalf("doc %d (partial %v): fast stamp differs\n got: %.300q\nwant: %.300q", i, partial, got, want)
			}
		}
	}
	if answered < len(docs) { // most goldens are units.JSON's layout
		t.Fatalf("the fast path answered only %d of %d stamps", answered, 2*len(docs))
	}
}

func FuzzStampIndented(f *testing.F) {
	f.Add(`{"a":1,"partial":true,"b":{"c":[1,2,{"d":"e"}]}}`)
	f.Add(`{"tool":"x","run_id":"y","schema_version":"z"}`)
	f.Add(`{"s":",\n  \"x\": 1"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(doc), "", "  ") != nil || !strings.HasPrefix(buf.String(), "{") {
			return
		}
		buf.WriteByte('\n')
		d := buf.String()
		want := stampDecoded(d, "r", false)
		if got, ok := stampIndented(d, "r", false); ok && got != want {
			t.Fatalf("fast stamp differs\n got: %q\nwant: %q", got, want)
		}
	})
}
