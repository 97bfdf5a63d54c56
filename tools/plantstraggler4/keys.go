package plantstraggler4

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
)

// NamedMinUS: a plant must make its rank last by at least this much to be expected named.
const NamedMinUS = 500

// PlantKey is one planted instance's verdict.
type PlantKey struct {
	Method     string   `json:"method"`
	Rank       int      `json:"rank"`
	Kind       string   `json:"kind,omitempty"`
	Index      int      `json:"index"`
	Step       string   `json:"step,omitempty"`
	DeltaUS    float64  `json:"delta_us,omitempty"`
	Factor     float64  `json:"factor,omitempty"`
	LatenessUS float64  `json:"lateness_us"` // rank's start − latest other start (true clock)
	SkewBaseUS float64  `json:"skew_base_us"`
	SkewUS     float64  `json:"skew_us"`
	BusbwBase  *float64 `json:"busbw_base_gbps"`
	Busbw      *float64 `json:"busbw_gbps"`
	Expect     string   `json:"expect"` // named | not_named
}

// CaseKey is a case's key: the plants' verdicts, the instances they changed and a hash of all.
type CaseKey struct {
	Name             string        `json:"name"`
	Base             string        `json:"base"`
	Note             string        `json:"note"`
	Files            []string      `json:"files"`
	FileSHA256       []string      `json:"file_sha256"`
	ClockUS          []float64     `json:"clock_offset_us"`
	InstanceCount    int           `json:"instance_count"`
	InstancesSHA256  string        `json:"instances_sha256"`
	Plants           []PlantKey    `json:"plants"`
	ChangedInstances []KeyInstance `json:"changed_instances"`
	Instances        []KeyInstance `json:"instances,omitempty"`      // full key only
	BaseInstances    []KeyInstance `json:"base_instances,omitempty"` // full key only: unplanted
}

// Key builds a case's key from its planted and base instances.
func (p *Planted) Key(full bool) CaseKey {
	k := CaseKey{Name: p.Case.Name, Base: p.Case.Base, Note: p.Case.Note, FileSHA256: p.FileSHA,
		InstanceCount: len(p.Instances)}
	for _, f := range p.Files {
		k.Files = append(k.Files, lastTwo(f))
	}
	for _, c := range p.Clock {
		k.ClockUS = append(k.ClockUS, float64(c)/1000)
	}
	raw, _ := json.Marshal(p.Instances)
	sum := sha256.Sum256(raw)
	k.InstancesSHA256 = hex.EncodeToString(sum[:])
	find := func(in []KeyInstance, kind string, idx int) *KeyInstance {
		for i := range in {
			if in[i].Kind == kind && in[i].Index == idx {
				return &in[i]
			}
		}
		return nil
	}
	for _, pl := range p.Case.Plants {
		if pl.Method == "clock" {
			k.Plants = append(k.Plants, PlantKey{Method: pl.Method, Rank: pl.Rank, Index: -1, DeltaUS: pl.DeltaUS, Expect: "not_named"})
			continue
		}
		for _, idx := range pl.Index {
			now, was := find(p.Instances, pl.Kind, idx), find(p.Base, pl.Kind, idx)
			pk := PlantKey{Method: pl.Method, Rank: pl.Rank, Kind: pl.Kind, Index: idx, DeltaUS: pl.DeltaUS,
				Factor: pl.Factor, Expect: "not_named"}
			if now != nil {
				pk.Step, pk.SkewUS, pk.Busbw = now.Step, now.SkewUS, now.BusbwGBps
				var mine float64
				other := math.Inf(-1)
				for _, r := range now.Ranks {
					if r.Rank == pl.Rank {
						mine = r.StartUS
					} else {
						other = math.Max(other, r.StartUS)
					}
				}
				if pl.Rank >= 0 {
					pk.LatenessUS = round3(mine - other)
				} else {
					pk.LatenessUS = 0
				}
				if pl.Method != "xfer" && now.LastRank == pl.Rank && pk.LatenessUS >= NamedMinUS {
					pk.Expect = "named"
				}
			}
			if was != nil {
				pk.SkewBaseUS, pk.BusbwBase = was.SkewUS, was.BusbwGBps
			}
			k.Plants = append(k.Plants, pk)
		}
	}
	for i, in := range p.Instances {
		if i < len(p.Base) && changed(in, p.Base[i]) && len(k.ChangedInstances) < 12 {
			k.ChangedInstances = append(k.ChangedInstances, in)
		}
	}
	if full {
		k.Instances, k.BaseInstances = p.Instances, p.Base
	}
	return k
}

func changed(a, b KeyInstance) bool {
	if a.Kind != b.Kind || a.Index != b.Index || a.LastRank != b.LastRank {
		return true
	}
	return math.Abs(a.SkewUS-b.SkewUS) > 0.0005 || math.Abs(a.TransferUS-b.TransferUS) > 0.0005
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func lastTwo(p string) string {
	n := 0
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			n++
			if n == 2 {
				return p[i+1:]
			}
		}
	}
	return p
}

// KeyFile is keys.json / keys.plants.json.
type KeyFile struct {
	Tool  string    `json:"tool"`
	Cases []CaseKey `json:"cases"`
}
