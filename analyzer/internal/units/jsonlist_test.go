package units

import (
	"bytes"
	"fmt"
	"testing"
)

// JSONList writes JSON's bytes for the same object, whatever the rows hold
// (nested lists and objects, empty ones, HTML characters, nil; a nil list).
func TestJSONListSameBytes(t *testing.T) {
	type row struct {
		Name  string         `json:"name"`
		List  []int          `json:"list"`
		Empty []int          `json:"empty"`
		Map   map[string]any `json:"map"`
		P     *int           `json:"p"`
	}
	type head struct {
		Tool  string   `json:"tool"`
		Notes []string `json:"notes"`
	}
	for _, n := range []int{-1, 0, 1, 3, listChunk + 2} {
		var rows []row // nil: null, as JSON writes it
		if n >= 0 {
			rows = make([]row, n)
		}
		for i := range rows {
			rows[i] = row{Name: fmt.Sprintf("<k%d> & \"x\"\n", i), List: []int{i, 2}, Empty: []int{}, Map: map[string]any{"a": []any{map[string]int{"b": i}}}}
		}
		h := head{"t", []string{"n", `"rows": ["`}}
		want := JSON(struct {
			Tool  string   `json:"tool"`
			Notes []string `json:"notes"`
			Rows  []row    `json:"rows"`
		}{h.Tool, h.Notes, rows})
		if got := JSONList(h, "rows", rows); !bytes.Equal(got, want) {
			t.Errorf("%d rows:\ngot  %.300q\nwant %.300q", n, got, want)
		}
	}
}
