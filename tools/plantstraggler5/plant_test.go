package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gputriage/gputriage/internal/fixture"
)

// The map is monotone and continuous but at its jump: no op reorders.
func TestMapMonotone(t *testing.T) {
	for _, m := range []tmap{jump(10, 5), {a: 10, s: 20, e: 30, d1: 7, d2: 3}, {a: 10, s: 10, e: 10, d1: 4, d2: 4, exclusive: true}} {
		prev := math.Inf(-1)
		for x := 0.0; x <= 40; x += 0.25 {
			y := m.at(x)
			if y < prev || y < x {
				t.Fatalf("%+v: f(%.2f) = %.2f after %.2f", m, x, y, prev)
			}
			prev = y
		}
	}
	// compressed over the collective: its new start and end
	m := tmap{a: 10, s: 20, e: 30, d1: 7, d2: 3}
	if m.at(20) != 27 || m.at(30) != 33 || m.at(35) != 38 || m.at(9) != 9 || m.at(15) != 22 {
		t.Errorf("map points %v %v %v %v %v", m.at(20), m.at(30), m.at(35), m.at(9), m.at(15))
	}
}

// dlrm_ctrl's key is the real DLRM job's, as ../shared keys it; every DLRM and mesh case plants
// to the files and instances keys.plants.json recorded.
func TestPlantedKeys(t *testing.T) {
	shared := fixture.Shared()
	ref := filepath.Join(shared, "traces2/dlrm_collectives.key.json")
	if _, err := os.Stat(ref); err != nil {
		fixture.Missing(t, "%s", ref)
	}
	var want Keys
	b, err := os.ReadFile("../../testdata/straggler-blind5/keys.plants.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range plan {
		if c.Base != "a100x4" { // the seeded A100 mesh takes minutes to plant
			names = append(names, c.Name)
		}
	}
	got, err := plantAll(shared, t.TempDir(), names)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*KeyCase{}
	for _, c := range want.Cases {
		byName[c.Name] = c
	}
	for _, c := range got.Cases {
		w := byName[c.Name]
		if w == nil || w.InstancesSHA256 != c.InstancesSHA256 || len(w.FileSHA256) != len(c.FileSHA256) {
			t.Errorf("%s: instances %s, key %v", c.Name, c.InstancesSHA256, w)
			continue
		}
		for i := range c.FileSHA256 {
			if c.FileSHA256[i] != w.FileSHA256[i] {
				t.Errorf("%s: %s hash %s, key %s", c.Name, c.Files[i], c.FileSHA256[i], w.FileSHA256[i])
			}
		}
		if c.Name != "dlrm_ctrl" {
			continue
		}
		var real struct {
			Instances []struct {
				Kind     string  `json:"kind"`
				Index    int     `json:"index"`
				Skew     float64 `json:"arrival_skew_us"`
				LastRank int     `json:"last_rank"`
				Transfer float64 `json:"transfer_us"`
			} `json:"instances"`
		}
		rb, _ := os.ReadFile(ref)
		if err := json.Unmarshal(rb, &real); err != nil {
			t.Fatal(err)
		}
		if len(real.Instances) != len(c.Instances) {
			t.Fatalf("dlrm_ctrl: %d instances, shared key %d", len(c.Instances), len(real.Instances))
		}
		for _, r := range real.Instances {
			found := false
			for _, in := range c.Instances {
				if in.Kind == r.Kind && in.Index == r.Index {
					found = true
					if math.Abs(in.Skew-r.Skew) > 0.5 || in.LastRank != r.LastRank || math.Abs(in.Transfer-r.Transfer) > 0.5 {
						t.Errorf("%s #%d: skew %.1f last %d transfer %.1f, shared key %.1f %d %.1f", r.Kind, r.Index, in.Skew, in.LastRank, in.Transfer, r.Skew, r.LastRank, r.Transfer)
					}
				}
			}
			if !found {
				t.Errorf("%s #%d not keyed", r.Kind, r.Index)
			}
		}
	}
}
