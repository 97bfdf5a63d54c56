package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gputriage/gputriage/internal/fixture"
)

// TestCrashHeldoutDefeats checks what score_crash.py cannot express: a held-out
// case keyed with no_culprit_ranks (a truncated paste without a world size)
// must not name any of those ranks as culprits, in rank or ranks.
func TestCrashHeldoutDefeats(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "crash-heldout")
	b, err := os.ReadFile(filepath.Join(dir, "answers.json"))
	if err != nil {
		fixture.Missing(t, "%v", err)
	}
	var a struct {
		Entries []struct {
			File           string `json:"file"`
			NoCulpritRanks []int  `json:"no_culprit_ranks"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range a.Entries {
		if len(e.NoCulpritRanks) == 0 {
			continue
		}
		n++
		_, diag := runDiagnose(t, filepath.Join(dir, e.File))
		var d struct {
			Findings []struct {
				Class   string `json:"class"`
				Culprit *struct {
					Rank  *int  `json:"rank"`
					Ranks []int `json:"ranks"`
				} `json:"culprit"`
			} `json:"findings"`
		}
		if err := json.Unmarshal(diag, &d); err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		banned := map[int]bool{}
		for _, r := range e.NoCulpritRanks {
			banned[r] = true
		}
		for _, f := range d.Findings {
			if f.Culprit == nil {
				continue
			}
			rs := f.Culprit.Ranks
			if f.Culprit.Rank != nil {
				rs = append(rs, *f.Culprit.Rank)
			}
			for _, r := range rs {
				if banned[r] {
					t.Errorf("%s: %s names rank %d as culprit; the paste cannot prove it", e.File, f.Class, r)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no held-out case keyed with no_culprit_ranks")
	}
}
