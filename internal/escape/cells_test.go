package escape

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/cells.json")

// cellInputs are strings the page shows in table cells and copies as TSV:
// site/test/tsv.mjs checks site/render/tsv.js against what Go makes of
// them (testdata/cells.json, written by this test with -update).
var cellInputs = []string{
	"plain", "Cijk_Alik", "=HYPERLINK(\"http://x\",\"y\")", "-2+3+cmd|' /C calc'!A0", "+1+1", "@SUM(A1)", "-2.5", "-12.5", "1e5", "-inf", "-0x1p3",
	"a\tb\nc\rd", "\x1b]0;title\x07\x1b[2J", "\u202etxt.exe", "\u2066x\u2069", "\u202a\u202b\u202c\u202d", "del\x7f", "c1\u0085\u009b",
	"\x00nul", "=\x1b", "\x1b=1", "é ü 漢字 🙂", "\u00a0nbsp", "zero\u200bwidth",
	"alm\u061cx", "lrm\u200erlm\u200f", "bom\ufeffmid", "line\u2028para\u2029sep",
}

func TestCellsGolden(t *testing.T) {
	type row struct {
		In      string `json:"in"`
		Cell    string `json:"cell"`
		Visible string `json:"visible"`
		Line    string `json:"line"`
	}
	var rows []row
	for _, s := range cellInputs {
		rows = append(rows, row{s, Cell(s), Visible(s), Line(s)})
	}
	got, _ := json.MarshalIndent(rows, "", "  ")
	got = append(got, '\n')
	const path = "testdata/cells.json"
	if *update {
		os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is not what Go makes (go test ./internal/escape -run TestCellsGolden -update): %v", path, err)
	}
}
