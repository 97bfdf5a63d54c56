package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// KeyCase is a planted case as the key holds it, computed from the written files.
type KeyCase struct {
	Name            string     `json:"name"`
	Base            string     `json:"base"`
	Note            string     `json:"note"`
	Files           []string   `json:"files"`
	FileSHA256      []string   `json:"file_sha256"`
	InstanceCount   int        `json:"instance_count"`
	InstancesSHA256 string     `json:"instances_sha256"`
	Plants          []*Plant   `json:"plants"`
	KnockOns        []KnockOn  `json:"knock_ons"`
	Instances       []Instance `json:"instances,omitempty"`
}

// KnockOn is an instance no plant targeted whose skew grew by ≥ 0.5 ms (a delay carried on).
type KnockOn struct {
	ID       string  `json:"id"`
	LastRank int     `json:"last_rank"`
	Skew     float64 `json:"skew_us"`
	SkewBase float64 `json:"skew_base_us"`
}

// Keys is keys.json.
type Keys struct {
	Tool  string     `json:"tool"`
	Cases []*KeyCase `json:"cases"`
}

func selected(names []string) []Case {
	if len(names) == 0 {
		return plan
	}
	var out []Case
	for _, c := range plan {
		for _, n := range names {
			if c.Name == n {
				out = append(out, c)
			}
		}
	}
	return out
}

// baseJob loads a base, caching a seeded one's written files under out/_base (the jitter is slow).
func baseJob(shared, out, base string) (*job, []string, error) {
	if base != "a100x4" {
		return loadBase(shared, base)
	}
	dir := filepath.Join(out, "_base", base)
	names := make([]string, 4)
	for r := range names {
		names[r] = fmt.Sprintf("rank%d.nccl_data.json.gz", r)
	}
	if _, err := os.Stat(filepath.Join(dir, names[3])); err != nil {
		j, _, err := loadBase(shared, base)
		if err != nil {
			return nil, nil, err
		}
		os.MkdirAll(dir, 0o755)
		for r, t := range j.ranks {
			if err := t.write(filepath.Join(dir, names[r])); err != nil {
				return nil, nil, err
			}
		}
	}
	ranks := make([]*rankTrace, 4)
	for r := range ranks {
		t, err := readTrace(filepath.Join(dir, names[r]))
		if err != nil {
			return nil, nil, err
		}
		ranks[r] = t
	}
	return newJob(ranks), names, nil
}

func plantCmd(args []string) error {
	fs := flag.NewFlagSet("plant", flag.ExitOnError)
	shared := fs.String("shared", defaultShared(), "the shared testdata folder")
	out := fs.String("out", "", "folder for the planted traces and keys.json")
	plantsKey := fs.String("plants-key", "", "also write the key without instances here (keys.plants.json)")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("plant: -out is required")
	}
	keys, err := plantAll(*shared, *out, fs.Args())
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(*out, "keys.json"), keys); err != nil {
		return err
	}
	if *plantsKey != "" {
		short := Keys{Tool: keys.Tool}
		for _, c := range keys.Cases {
			cc := *c
			cc.Instances = nil
			short.Cases = append(short.Cases, &cc)
		}
		return writeJSON(*plantsKey, short)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func plantAll(shared, out string, names []string) (*Keys, error) {
	keys := &Keys{Tool: "tools/plantstraggler5"}
	for _, c := range selected(names) {
		kc, err := plantCase(shared, out, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		fmt.Fprintf(os.Stderr, "planted %s: %d instances\n", c.Name, kc.InstanceCount)
		keys.Cases = append(keys.Cases, kc)
	}
	return keys, nil
}

func plantCase(shared, out string, c Case) (*KeyCase, error) {
	j, names, err := baseJob(shared, out, c.Base)
	if err != nil {
		return nil, err
	}
	baseOverlap := map[int]int{}
	for r, t := range j.ranks {
		baseOverlap[r] = overlaps(t)
	}
	baseSkew := map[string]float64{}
	for _, in := range j.instances() {
		baseSkew[in.id()] = in.Skew
	}
	plants := make([]*Plant, len(c.Plants))
	for i, p := range c.Plants {
		cp := *p
		plants[i] = &cp
		if err := j.plant(plants[i]); err != nil {
			return nil, err
		}
	}
	if err := check(j, baseOverlap); err != nil {
		return nil, err
	}
	dir := filepath.Join(out, c.Name)
	os.MkdirAll(dir, 0o755)
	kc := &KeyCase{Name: c.Name, Base: c.Base, Note: c.Note, Plants: plants, KnockOns: []KnockOn{}}
	written := make([]*rankTrace, len(j.ranks))
	for r, t := range j.ranks {
		path := filepath.Join(dir, names[r])
		if err := t.write(path); err != nil {
			return nil, err
		}
		b, _ := os.ReadFile(path)
		sum := sha256.Sum256(b)
		kc.Files = append(kc.Files, filepath.Join(c.Name, names[r]))
		kc.FileSHA256 = append(kc.FileSHA256, hex.EncodeToString(sum[:]))
		if written[r], err = readTrace(path); err != nil {
			return nil, err
		}
	}
	// The key: every instance from the written files.
	w := newJob(written)
	kc.Instances = w.instances()
	kc.InstanceCount = len(kc.Instances)
	b, _ := json.Marshal(kc.Instances)
	sum := sha256.Sum256(b)
	kc.InstancesSHA256 = hex.EncodeToString(sum[:])
	byID := map[string]*Instance{}
	for i := range kc.Instances {
		byID[kc.Instances[i].id()] = &kc.Instances[i]
	}
	target := map[string]bool{}
	for _, p := range plants {
		id := (&Instance{PG: p.PG, Kind: p.Kind, Index: p.Index}).id()
		target[id] = true
		in := byID[id]
		p.SkewBase, p.Skew, p.Step = baseSkew[id], in.Skew, in.Step
		if p.Method == "slowlink" {
			p.Expect = "not_named"
			continue
		}
		other := math.Inf(-1)
		for _, rt := range in.Ranks {
			if rt.Rank == p.Rank {
				continue
			}
			other = max(other, rt.Start)
		}
		for _, rt := range in.Ranks {
			if rt.Rank == p.Rank {
				p.Lateness = math.Round((rt.Start-other)*1000) / 1000
			}
		}
		ref := w.find(p.PG, p.Kind, p.Index)
		if k := kernelBefore(w.ranks[p.Rank], ref.ops[p.Rank]); k != nil {
			p.KernelFirst = k.name()
			p.Site = siteOf(w.ranks[p.Rank], k)
		}
		switch {
		case p.Lateness >= 500:
			p.Expect = "named"
		case in.LastRank != p.Rank && plantedAt(plants, id, in.LastRank):
			p.Expect = "secondary" // another plant came later still at its instance
		default:
			p.Expect = "not_named"
		}
	}
	for _, in := range kc.Instances {
		if target[in.id()] {
			continue
		}
		if d := in.Skew - baseSkew[in.id()]; d >= 500 {
			kc.KnockOns = append(kc.KnockOns, KnockOn{ID: in.id(), LastRank: in.LastRank, Skew: in.Skew, SkewBase: baseSkew[in.id()]})
		}
	}
	sort.Slice(kc.KnockOns, func(a, b int) bool { return kc.KnockOns[a].ID < kc.KnockOns[b].ID })
	return kc, nil
}

func plantedAt(plants []*Plant, id string, rank int) bool {
	for _, p := range plants {
		if p.Rank == rank && (&Instance{PG: p.PG, Kind: p.Kind, Index: p.Index}).id() == id {
			return true
		}
	}
	return false
}
