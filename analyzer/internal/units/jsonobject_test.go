package units

import (
	"fmt"
	"testing"
)

// JSONObject writes JSON's bytes for the same struct, whatever the members
// and rows hold (nested lists and objects, empty ones, HTML characters,
// nil lists and pointers), for any number of rows.
func TestJSONObjectSameBytes(t *testing.T) {
	type row struct {
		Name  string         `json:"name"`
		List  []int          `json:"list"`
		Empty []int          `json:"empty"`
		Map   map[string]any `json:"map"`
		P     *int           `json:"p"`
	}
	type head struct {
		A string `json:"a"`
		B []int  `json:"b"`
	}
	seven := 7
	for _, n := range []int{-1, 0, 1, 3, listChunk + 2} {
		var rs []row // nil: null, as JSON writes it
		if n >= 0 {
			rs = make([]row, n)
		}
		for i := range rs {
			rs[i] = row{Name: fmt.Sprintf("<k%d> & \"x\"\n\u2028", i), List: []int{i, 2}, Empty: []int{}, Map: map[string]any{"a": []any{map[string]int{"b": i}}}}
		}
		rs2 := append([]row(nil), rs...)
		if len(rs2) > 0 {
			rs2[0].P = &seven
		}
		want := string(JSON(struct {
			Tool  string   `json:"tool"`
			Notes []string `json:"notes"`
			Rows  []row    `json:"rows"`
			Head  *head    `json:"head"`
			Nil   *head    `json:"nil"`
			Empty []string `json:"empty"`
			More  []row    `json:"more"`
			Last  float64  `json:"last"`
		}{"t", []string{"n", `"rows": ["`}, rs, &head{"<a>", []int{1, 2}}, nil, []string{}, rs2, 1.5}))
		got := JSONObject(Member{"tool", "t"}, Member{"notes", []string{"n", `"rows": ["`}}, Member{"rows", Rows(rs)},
			Member{"head", &head{"<a>", []int{1, 2}}}, Member{"nil", (*head)(nil)}, Member{"empty", Rows([]string{})}, Member{"more", Rows(rs2)}, Member{"last", 1.5})
		if got != want {
			t.Errorf("%d rows:\ngot  %.400q\nwant %.400q", n, got, want)
		}
	}
	if got, want := JSONObject(), string(JSON(struct{}{})); got != want {
		t.Errorf("no members: %q, want %q", got, want)
	}
}
