package plantstraggler6

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type plantKey struct {
	PlantSpec
	Step      string   `json:"step"`
	Lateness  float64  `json:"lateness_us"` // its start − the latest other start (key instance)
	Skew      float64  `json:"skew_us"`
	LastRank  int      `json:"last_rank"`
	Kernels   []string `json:"kernels,omitempty"`
	AddedUS   float64  `json:"added_us"`
	HostPoint float64  `json:"host_point_us,omitempty"`
	Expect    string   `json:"expect"` // named, secondary, not_named
}

type CaseKey struct {
	Name      string             `json:"name"`
	Base      string             `json:"base"`
	Note      string             `json:"note"`
	Files     []string           `json:"files"`
	SHA       []string           `json:"file_sha256"`
	Clock     map[string]float64 `json:"clock_offset_us,omitempty"`
	MinLate   float64            `json:"min_late_us,omitempty"`
	Count     int                `json:"instance_count"`
	Hash      string             `json:"instances_sha256"`
	Check     string             `json:"check"`
	Plants    []plantKey         `json:"plants"`
	Instances []*keyInst         `json:"-"`
}

type KeyFile struct {
	Tool  string     `json:"tool"`
	Cases []*CaseKey `json:"cases"`
}

func seedOf(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64() >> 1)
}

// Set is a plan of cases over its bases (the sixth set's, or another set's
// made with this package's planting and key).
type Set struct {
	Tool  string
	Bases map[string]Base
	Plan  []CaseSpec
}

func (s *Set) plantCase(cs CaseSpec, shared, work string) (*CaseKey, error) {
	b, ok := s.Bases[cs.Base]
	if !ok {
		return nil, fmt.Errorf("%s: no base %q", cs.Name, cs.Base)
	}
	lb, err := cachedBase(b, shared)
	if err != nil {
		return nil, err
	}
	lb.restore()
	docs, names := lb.docs, lb.names
	orig := make([]int, len(docs))
	ranks := make([]*rankModel, len(docs))
	for r, d := range docs {
		ranks[r] = newRank(d)
		orig[r] = overlaps(ranks[r])
	}
	ins := matchInstances(ranks)
	pre := map[*gpuOp][]func(){}
	if b.Jitter > 0 {
		for r, rm := range ranks {
			jitterRank(rm, rand.New(rand.NewSource(seedOf(fmt.Sprintf("%s/%d", b.Name, r)))), b.Jitter, b.JitterMaxQueue, pre)
		}
	}
	ck := &CaseKey{Name: cs.Name, Base: cs.Base, Note: cs.Note}
	for _, p := range cs.Plants {
		var in *instance
		for _, x := range ins {
			if x.pg == p.PG && x.kind == p.Kind && x.index == p.Index {
				in = x
			}
		}
		if in == nil {
			return nil, fmt.Errorf("%s: no instance %s %s #%d", cs.Name, p.PG, p.Kind, p.Index)
		}
		pk := plantKey{PlantSpec: p}
		if p.Method == "slow" {
			in.slow = p.Factor
			ck.Plants = append(ck.Plants, pk)
			continue
		}
		rm := ranks[p.Rank]
		op := in.ops[p.Rank]
		switch p.Method {
		case "host":
			pk.HostPoint = rm.hostPoint(op)
			T, d := pk.HostPoint, p.Delta
			pre[op] = append(pre[op], func() { rm.pauseHost(T, d) })
			pk.AddedUS = p.Delta
		case "longer", "extra":
			k, err := rm.kernelBefore(op)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cs.Name, err)
			}
			pk.Kernels = []string{str(k.e["name"])}
			if p.Method == "longer" {
				d := p.Delta
				pre[op] = append(pre[op], func() { rm.longer(k, d) })
				pk.AddedUS = p.Delta
			} else {
				n := p.N
				pk.AddedUS = float64(n) * (k.end - k.start + 2)
				pre[op] = append(pre[op], func() { rm.extraKernels(k, n, 2) })
			}
		default:
			return nil, fmt.Errorf("%s: method %q", cs.Name, p.Method)
		}
		ck.Plants = append(ck.Plants, pk)
	}
	settle(ranks, ins, pre)
	dir := filepath.Join(work, "traces", cs.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var checks []string
	written := make([]*doc, len(ranks))
	for r, rm := range ranks {
		rm.apply()
		written[r] = &doc{top: rm.d.top, events: rm.d.events} // Edit may drop events of the copy
	}
	if cs.Edit != nil {
		cs.Edit(written)
	}
	// The key and the check read the events as written (json.Number text),
	// by their own reading of a trace, not the planter's maps.
	for r := range ranks {
		nr := newRank(written[r])
		if o := overlaps(nr); o > orig[r] {
			checks = append(checks, fmt.Sprintf("rank %d: %d stream overlaps (original %d)", r, o, orig[r]))
		}
		if n := beforeLaunch(nr); n > 0 {
			checks = append(checks, fmt.Sprintf("rank %d: %d ops before their launch", r, n))
		}
	}
	ck.Instances = computeKey(written)
	if cs.After != nil {
		cs.After(written)
	}
	for r, d := range written {
		if off := cs.Clock[r]; off != 0 {
			shiftClock(d, off)
			if ck.Clock == nil {
				ck.Clock = map[string]float64{}
			}
			ck.Clock[fmt.Sprint(r)] = off
		}
		p := filepath.Join(dir, names[r])
		sum, err := d.write(p)
		if err != nil {
			return nil, err
		}
		ck.Files = append(ck.Files, filepath.Join(cs.Name, names[r]))
		ck.SHA = append(ck.SHA, sum)
	}
	neg := 0
	for _, in := range ck.Instances {
		if in.Transfer < 0 {
			neg++
		}
	}
	if neg > 0 {
		checks = append(checks, fmt.Sprintf("%d instances with transfer < 0", neg))
	}
	ck.Check = "ok"
	if len(checks) > 0 {
		ck.Check = strings.Join(checks, "; ")
	}
	ck.Count = len(ck.Instances)
	ck.Hash = instancesHash(ck.Instances)
	minLate := 500.0
	if cs.MinLate > 0 {
		minLate, ck.MinLate = cs.MinLate, cs.MinLate
	}
	for i := range ck.Plants {
		pk := &ck.Plants[i]
		for _, in := range ck.Instances {
			if in.PG != pk.PG || in.Kind != pk.Kind || in.Index != pk.Index {
				continue
			}
			pk.Step, pk.Skew, pk.LastRank = in.Step, in.Skew, in.LastRank
			mine, other := 0.0, math.Inf(-1)
			for _, r := range in.Ranks {
				if r.Rank == pk.Rank {
					mine = r.Start
				} else {
					other = math.Max(other, r.Start)
				}
			}
			pk.Lateness = mine - other
		}
		if pk.Method == "slow" {
			pk.Lateness, pk.LastRank = 0, -1
		}
		switch {
		case pk.Method == "slow":
			pk.Expect = "not_named"
		case pk.LastRank != pk.Rank && pk.Lateness > -pk.Skew/2 && isPlantedRank(ck, pk, pk.LastRank):
			pk.Expect = "secondary"
		case pk.LastRank == pk.Rank && pk.Lateness >= minLate:
			pk.Expect = "named"
		default:
			pk.Expect = "not_named"
		}
	}
	return ck, nil
}

func isPlantedRank(ck *CaseKey, at *plantKey, rank int) bool {
	for _, p := range ck.Plants {
		if p.Rank == rank && p.PG == at.PG && p.Kind == at.Kind && p.Index == at.Index {
			return true
		}
	}
	return false
}

func overlaps(rm *rankModel) int {
	by := map[float64][]*gpuOp{}
	for _, o := range rm.ops {
		by[o.stream] = append(by[o.stream], o)
	}
	n := 0
	for _, l := range by {
		sort.SliceStable(l, func(i, j int) bool { return l[i].start < l[j].start })
		for i := 1; i < len(l); i++ {
			if l[i].start < l[i-1].end-0.0015 {
				n++
			}
		}
	}
	return n
}

func beforeLaunch(rm *rankModel) int {
	n := 0
	for _, o := range rm.ops {
		if !math.IsNaN(o.launch) && o.start < o.launch-0.0015 {
			n++
		}
	}
	return n
}

// PlantAll plants and keys the sixth set's cases (all, or those named).
func PlantAll(shared, work string, only []string) (*KeyFile, error) {
	return Sixth.PlantAll(shared, work, only)
}

// PlantAll plants and keys the plan's cases (all, or those named) from the
// traces under shared into work/traces; work/keys.json holds every case planted there.
func (s *Set) PlantAll(shared, work string, only []string) (*KeyFile, error) {
	kf := &KeyFile{Tool: s.Tool}
	want := map[string]bool{}
	for _, n := range only {
		want[n] = true
	}
	for _, cs := range s.Plan {
		if len(want) > 0 && !want[cs.Name] {
			continue
		}
		ck, err := s.plantCase(cs, shared, work)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "planted %s: %d instances, check %s\n", cs.Name, ck.Count, ck.Check)
		for _, p := range ck.Plants {
			fmt.Fprintf(os.Stderr, "  rank %d %s %s %s #%d Δ%.0f → step %s lateness %.1f skew %.1f last %d expect %s\n",
				p.Rank, p.Method, p.PG, p.Kind, p.Index, p.AddedUS, p.Step, p.Lateness, p.Skew, p.LastRank, p.Expect)
		}
		if err := writeInstances(work, ck); err != nil {
			return nil, err
		}
		b, _ := json.MarshalIndent(ck, "", " ")
		if err := os.WriteFile(filepath.Join(work, "traces", ck.Name, "case.key.json"), b, 0o644); err != nil {
			return nil, err
		}
		if err := s.writeKeys(work); err != nil {
			return nil, err
		}
	}
	if err := collectKeys(s, work, want, kf); err != nil {
		return nil, err
	}
	return kf, s.writeKeys(work)
}

// writeKeys writes work/keys.json: every case planted in work so far, in plan order.
func (s *Set) writeKeys(work string) error {
	all := &KeyFile{Tool: s.Tool}
	for _, cs := range s.Plan {
		b, err := os.ReadFile(filepath.Join(work, "traces", cs.Name, "case.key.json"))
		if err != nil {
			continue
		}
		ck := &CaseKey{}
		json.Unmarshal(b, ck)
		all.Cases = append(all.Cases, ck)
	}
	b, _ := json.MarshalIndent(all, "", " ")
	return os.WriteFile(filepath.Join(work, "keys.json"), b, 0o644)
}

// collectKeys reads back the named cases (all when none) planted in work.
func collectKeys(s *Set, work string, want map[string]bool, kf *KeyFile) error {
	for _, cs := range s.Plan {
		b, err := os.ReadFile(filepath.Join(work, "traces", cs.Name, "case.key.json"))
		if err != nil {
			continue
		}
		ck := &CaseKey{}
		if err := json.Unmarshal(b, ck); err != nil {
			return err
		}
		ib, err := os.ReadFile(filepath.Join(work, "traces", cs.Name, "instances.key.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(ib, &ck.Instances); err != nil {
			return err
		}
		if len(want) == 0 || want[cs.Name] {
			kf.Cases = append(kf.Cases, ck)
		}
	}
	return nil
}

func writeInstances(work string, ck *CaseKey) error {
	b, _ := json.Marshal(ck.Instances)
	return os.WriteFile(filepath.Join(work, "traces", ck.Name, "instances.key.json"), b, 0o644)
}

// ReadKeys reads work/keys.json and each case's instances beside its traces.
func ReadKeys(path string) (*KeyFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kf := &KeyFile{}
	if err := json.Unmarshal(b, kf); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	for _, ck := range kf.Cases {
		ib, err := os.ReadFile(filepath.Join(dir, "traces", ck.Name, "instances.key.json"))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(ib, &ck.Instances); err != nil {
			return nil, err
		}
	}
	return kf, nil
}

// RunAll runs `bin breakdown` on every case into work/out/<case>.
func RunAll(bin, work string, kf *KeyFile) error {
	for _, ck := range kf.Cases {
		out := filepath.Join(work, "out", ck.Name)
		os.RemoveAll(out)
		var files []string
		for _, f := range ck.Files {
			files = append(files, filepath.Join(work, "traces", f))
		}
		cmd := exec.Command(bin, append([]string{"breakdown", "-q", "-o", out}, files...)...)
		cmd.Stdout = nil
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", ck.Name, err, b)
		}
	}
	return nil
}

// List prints a base's instances of the sixth set.
func List(shared, baseName string) error { return Sixth.List(shared, baseName) }

// List prints a base's instances (for writing the plan).
func (s *Set) List(shared, baseName string) error {
	b, ok := s.Bases[baseName]
	if !ok {
		return fmt.Errorf("no base %q", baseName)
	}
	docs, _, err := loadBase(b, shared)
	if err != nil {
		return err
	}
	ranks := []*rankModel{newRank(docs[0])}
	for _, in := range matchInstances(ranks) {
		o := in.ops[0]
		k, kerr := ranks[0].kernelBefore(o)
		kb := "-"
		if kerr == nil {
			kb = fmt.Sprintf("%.40s %.0fus", str(k.e["name"]), k.end-k.start)
		}
		fmt.Printf("%-28s start %.0f dur %.1f lat %.1f before: %s\n", in.label(), o.start, o.end-o.start, o.start-o.launch, kb)
	}
	return nil
}

// loadedBase keeps a base's ranks in memory across its cases: each case starts
// from the original times (restore), not from a fresh parse and clone.
type loadedBase struct {
	docs  []*doc
	names []string
	n     []int
	ts    [][]any
	dur   [][]any
}

var baseCache = map[string]*loadedBase{}

func cachedBase(b Base, shared string) (*loadedBase, error) {
	if lb := baseCache[b.Name]; lb != nil {
		return lb, nil
	}
	for k := range baseCache { // one base in memory at a time
		delete(baseCache, k)
	}
	docs, names, err := loadBase(b, shared)
	if err != nil {
		return nil, err
	}
	lb := &loadedBase{docs: docs, names: names}
	for _, d := range docs {
		lb.n = append(lb.n, len(d.events))
		t := make([]any, len(d.events))
		du := make([]any, len(d.events))
		for i, e := range d.events {
			t[i], du[i] = e["ts"], e["dur"]
		}
		lb.ts = append(lb.ts, t)
		lb.dur = append(lb.dur, du)
	}
	baseCache[b.Name] = lb
	return lb, nil
}

func (lb *loadedBase) restore() {
	for r, d := range lb.docs {
		d.events = d.events[:lb.n[r]]
		for i, e := range d.events {
			if lb.ts[r][i] != nil {
				e["ts"] = lb.ts[r][i]
			}
			if lb.dur[r][i] != nil {
				e["dur"] = lb.dur[r][i]
			}
		}
	}
}
