package plantstraggler4

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The scorer reads gputriage's collectives.json and ranks.json (the artifact contract,
// docs/artifacts.md) and holds them against the key:
//   - a plant expected named is scored per (plant, step): named when a stalls row, or the step
//     row's straggler or stall, gives the planted rank at one of the plant's instances in that
//     step; rank_only when the step row gives the rank at another collective; else missed;
//   - a plant expected not named (absorbed, a slow link, a clock offset) is named falsely when a
//     stalls row or a step row gives its rank at its instance (a clock-shifted rank: anywhere the
//     true key does not make it last by ≥ 0.5 ms);
//   - every instance: last rank, skew, every rank's wait, transfer and busbw within 2 % or 0.05
//     µs (busbw: 2 % or 0.001 GB/s; null against null);
//   - a false stall is a stalls row at an instance no plant made its rank last at (a knock-on —
//     the rank last there with ≥ 0.5 ms more skew than unplanted — is not false, nor required).

// Tol is the 2 %.
const Tol = 0.02

type outRow struct {
	PG        string  `json:"pg"`
	Kind      string  `json:"kind"`
	Index     int     `json:"index"`
	LastRank  int     `json:"last_rank"`
	SkewUS    float64 `json:"skew_us"`
	Transfer  float64 `json:"transfer_us"`
	Busbw     *float64
	BusbwRaw  json.RawMessage `json:"busbw_gbps"`
	RanksJSON []struct {
		Rank   int     `json:"rank"`
		WaitUS float64 `json:"wait_us"`
	} `json:"ranks"`
}

type outRanks struct {
	Straggler *struct {
		Rank *int `json:"rank"`
	} `json:"straggler"`
	Steps []struct {
		Step          string `json:"step"`
		StragglerRank *int   `json:"straggler_rank"`
		Collective    string `json:"collective"`
		StallRank     *int   `json:"stall_rank"`
		StallColl     string `json:"stall_collective"`
		WorstRank     *int   `json:"worst_rank"`
		WorstColl     string `json:"worst_collective"`
	} `json:"steps"`
	Stalls []struct {
		Rank  int    `json:"rank"`
		Kind  string `json:"kind"`
		Index int    `json:"index"`
		By    string `json:"by"`
		Step  string `json:"step"`
	} `json:"stalls"`
	Notes []string `json:"notes"`
}

// CaseScore is one case's outcome.
type CaseScore struct {
	Name, Base                 string
	Expected, Named, RankOnly  int
	Negatives, NegativesNamed  int
	Instances, InstancesWithin int
	FalseStalls                int
	Lines                      []string
}

// Score is the whole set's.
type Score struct{ Cases []CaseScore }

// ScoreDir scores WORKDIR/<case>/out against WORKDIR/keys.json.
func ScoreDir(dir string) (*Score, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "keys.json"))
	if err != nil {
		return nil, err
	}
	var kf KeyFile
	if err := json.Unmarshal(raw, &kf); err != nil {
		return nil, fmt.Errorf("keys.json: %w", err)
	}
	s := &Score{}
	for _, c := range kf.Cases {
		cs, err := ScoreCase(c, filepath.Join(dir, c.Name, "out"))
		if err != nil {
			return nil, err
		}
		s.Cases = append(s.Cases, cs)
	}
	return s, nil
}

func parseColl(s string) (string, int, bool) {
	f := strings.Fields(s)
	if len(f) < 2 || !strings.HasPrefix(f[1], "#") {
		return "", 0, false
	}
	i, err := strconv.Atoi(f[1][1:])
	return f[0], i, err == nil
}

func near(a, b, abs float64) bool {
	return math.Abs(a-b) <= math.Max(Tol*math.Abs(b), abs)
}

// ScoreCase scores one case's breakdown output folder.
func ScoreCase(k CaseKey, out string) (CaseScore, error) {
	cs := CaseScore{Name: k.Name, Base: k.Base}
	var coll struct {
		Rows []outRow `json:"rows"`
	}
	var rk outRanks
	for name, v := range map[string]any{"collectives.json": &coll, "ranks.json": &rk} {
		raw, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			return cs, fmt.Errorf("%s: %w", k.Name, err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return cs, fmt.Errorf("%s: %s: %w", k.Name, name, err)
		}
	}
	rows := map[string]*outRow{}
	for i := range coll.Rows {
		r := &coll.Rows[i]
		if len(r.BusbwRaw) > 0 && string(r.BusbwRaw) != "null" {
			var v float64
			if json.Unmarshal(r.BusbwRaw, &v) == nil {
				r.Busbw = &v
			}
		}
		rows[fmt.Sprintf("%s#%d", r.Kind, r.Index)] = r
	}
	// instances
	var bad []string
	for _, in := range k.Instances {
		cs.Instances++
		r := rows[fmt.Sprintf("%s#%d", in.Kind, in.Index)]
		why := ""
		switch {
		case r == nil:
			why = "no row"
		case r.LastRank != in.LastRank:
			why = fmt.Sprintf("last rank %d, key %d", r.LastRank, in.LastRank)
		case !near(r.SkewUS, in.SkewUS, 0.05):
			why = fmt.Sprintf("skew %.3f, key %.3f µs", r.SkewUS, in.SkewUS)
		case !near(r.Transfer, in.TransferUS, 0.05):
			why = fmt.Sprintf("transfer %.3f, key %.3f µs", r.Transfer, in.TransferUS)
		case (r.Busbw == nil) != (in.BusbwGBps == nil):
			why = fmt.Sprintf("busbw %v, key %v", fmtp(r.Busbw), fmtp(in.BusbwGBps))
		case r.Busbw != nil && !near(*r.Busbw, *in.BusbwGBps, 0.001):
			why = fmt.Sprintf("busbw %.3f, key %.3f GB/s", *r.Busbw, *in.BusbwGBps)
		}
		if why == "" && r != nil {
			wait := map[int]float64{}
			for _, x := range r.RanksJSON {
				wait[x.Rank] = x.WaitUS
			}
			for _, x := range in.Ranks {
				if w, ok := wait[x.Rank]; !ok || !near(w, x.WaitUS, 0.05) {
					why = fmt.Sprintf("rank %d wait %.3f, key %.3f µs", x.Rank, w, x.WaitUS)
					break
				}
			}
		}
		if why == "" {
			cs.InstancesWithin++
		} else {
			bad = append(bad, fmt.Sprintf("%s #%d: %s", in.Kind, in.Index, why))
		}
	}
	if len(bad) > 0 {
		more := ""
		if len(bad) > 3 {
			more = fmt.Sprintf(" (+%d more)", len(bad)-3)
			bad = bad[:3]
		}
		cs.Lines = append(cs.Lines, "  off: "+strings.Join(bad, "; ")+more)
	}

	stallAt := func(rank int, kind string, idx int) bool {
		for _, s := range rk.Stalls {
			if s.Rank == rank && s.Kind == kind && s.Index == idx {
				return true
			}
		}
		return false
	}
	stepNames := func(rank int, kind string, idx int) bool {
		for _, st := range rk.Steps {
			if st.StragglerRank != nil && *st.StragglerRank == rank {
				if kd, i, ok := parseColl(st.Collective); ok && kd == kind && i == idx {
					return true
				}
			}
			if st.StallRank != nil && *st.StallRank == rank {
				if kd, i, ok := parseColl(st.StallColl); ok && kd == kind && i == idx {
					return true
				}
			}
		}
		return false
	}
	stepRank := func(step string, rank int) string {
		for _, st := range rk.Steps {
			if st.Step != step {
				continue
			}
			if (st.StragglerRank != nil && *st.StragglerRank == rank) || (st.StallRank != nil && *st.StallRank == rank) {
				return ""
			}
			who := "none"
			if st.StragglerRank != nil {
				who = fmt.Sprintf("rank %d at %s", *st.StragglerRank, st.Collective)
			}
			return who
		}
		return "no step row"
	}
	planted := map[string]bool{} // rank/kind#index made last by a plant
	type group struct {
		pl   PlantKey
		idxs []int
	}
	groups := map[string]*group{}
	var order []string
	for _, p := range k.Plants {
		if p.Expect == "named" {
			planted[fmt.Sprintf("%d/%s#%d", p.Rank, p.Kind, p.Index)] = true
			key := fmt.Sprintf("%s r%d %s %s", p.Method, p.Rank, p.Kind, p.Step)
			if groups[key] == nil {
				groups[key] = &group{pl: p}
				order = append(order, key)
			}
			groups[key].idxs = append(groups[key].idxs, p.Index)
			continue
		}
		cs.Negatives++
		falsely := ""
		if p.Method == "clock" {
			for _, s := range rk.Stalls {
				if s.Rank == p.Rank && !trulyLast(k, p.Rank, s.Kind, s.Index) {
					falsely = fmt.Sprintf("stall at %s #%d", s.Kind, s.Index)
				}
			}
			for _, st := range rk.Steps {
				if st.StragglerRank != nil && *st.StragglerRank == p.Rank {
					if kd, i, ok := parseColl(st.Collective); ok && !trulyLast(k, p.Rank, kd, i) {
						falsely = fmt.Sprintf("%s's straggler at %s", st.Step, st.Collective)
					}
				}
			}
		} else if p.Rank >= 0 && (stallAt(p.Rank, p.Kind, p.Index) || stepNames(p.Rank, p.Kind, p.Index)) {
			falsely = fmt.Sprintf("named at %s #%d", p.Kind, p.Index)
		} else if p.Rank < 0 {
			for _, s := range rk.Stalls {
				if s.Kind == p.Kind && s.Index == p.Index {
					falsely = fmt.Sprintf("stall on rank %d at %s #%d", s.Rank, s.Kind, s.Index)
				}
			}
		}
		if falsely != "" {
			cs.NegativesNamed++
			cs.Lines = append(cs.Lines, fmt.Sprintf("  NEGATIVE NAMED: %s rank %d (%s): %s", p.Method, p.Rank, descr(p), falsely))
		}
	}
	for _, key := range order {
		g := groups[key]
		cs.Expected++
		ok := false
		for _, i := range g.idxs {
			if stallAt(g.pl.Rank, g.pl.Kind, i) || stepNames(g.pl.Rank, g.pl.Kind, i) {
				ok = true
			}
		}
		if ok {
			cs.Named++
			continue
		}
		who := stepRank(g.pl.Step, g.pl.Rank)
		if who == "" {
			cs.RankOnly++
			cs.Lines = append(cs.Lines, fmt.Sprintf("  RANK ONLY: %s rank %d at %s %v (%s): the step names the rank at another collective", g.pl.Method, g.pl.Rank, g.pl.Kind, g.idxs, g.pl.Step))
			continue
		}
		cs.Lines = append(cs.Lines, fmt.Sprintf("  MISSED: %s rank %d at %s %v (%s, late %.0f µs): step straggler %s", g.pl.Method, g.pl.Rank, g.pl.Kind, g.idxs, g.pl.Step, g.pl.LatenessUS, who))
	}
	for _, s := range rk.Stalls {
		if !planted[fmt.Sprintf("%d/%s#%d", s.Rank, s.Kind, s.Index)] && !madeLate(k, s.Rank, s.Kind, s.Index) {
			cs.FalseStalls++
			cs.Lines = append(cs.Lines, fmt.Sprintf("  FALSE STALL: rank %d at %s #%d (by %s)", s.Rank, s.Kind, s.Index, s.By))
		}
	}
	return cs, nil
}

// madeLate: a knock-on of a plant: the rank is last there and the skew grew ≥ 0.5 ms over the
// unplanted base.
func madeLate(k CaseKey, rank int, kind string, idx int) bool {
	for i, in := range k.Instances {
		if in.Kind == kind && in.Index == idx && i < len(k.BaseInstances) {
			return in.LastRank == rank && in.SkewUS-k.BaseInstances[i].SkewUS >= NamedMinUS
		}
	}
	return false
}

func trulyLast(k CaseKey, rank int, kind string, idx int) bool {
	for _, in := range k.Instances {
		if in.Kind == kind && in.Index == idx {
			if in.LastRank != rank {
				return false
			}
			other := math.Inf(-1)
			var mine float64
			for _, r := range in.Ranks {
				if r.Rank == rank {
					mine = r.StartUS
				} else {
					other = math.Max(other, r.StartUS)
				}
			}
			return mine-other >= NamedMinUS
		}
	}
	return false
}

func descr(p PlantKey) string {
	if p.Method == "clock" {
		return fmt.Sprintf("%+.0f µs", p.DeltaUS)
	}
	return fmt.Sprintf("%s #%d", p.Kind, p.Index)
}

func fmtp(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.3f", *v)
}

// Text is the score as the golden holds it.
func (s *Score) Text() string {
	var b strings.Builder
	type tot struct{ cases, exp, named, rankOnly, neg, negNamed, inst, within, fs int }
	sums := map[string]*tot{}
	var bases []string
	for _, c := range s.Cases {
		fmt.Fprintf(&b, "%s: named %d/%d, instances %d/%d within 2%%, false stalls %d, negatives named falsely %d/%d\n",
			c.Name, c.Named, c.Expected, c.InstancesWithin, c.Instances, c.FalseStalls, c.NegativesNamed, c.Negatives)
		for _, l := range c.Lines {
			b.WriteString(l + "\n")
		}
		t := sums[c.Base]
		if t == nil {
			t = &tot{}
			sums[c.Base] = t
			bases = append(bases, c.Base)
		}
		t.cases++
		t.exp += c.Expected
		t.named += c.Named
		t.rankOnly += c.RankOnly
		t.neg += c.Negatives
		t.negNamed += c.NegativesNamed
		t.inst += c.Instances
		t.within += c.InstancesWithin
		t.fs += c.FalseStalls
	}
	sort.Strings(bases)
	all := &tot{}
	for _, name := range bases {
		t := sums[name]
		fmt.Fprintf(&b, "== %s (%d cases): named %d/%d (rank only %d), instances %d/%d, false stalls %d, negatives named falsely %d/%d\n",
			name, t.cases, t.named, t.exp, t.rankOnly, t.within, t.inst, t.fs, t.negNamed, t.neg)
		all.cases += t.cases
		all.exp += t.exp
		all.named += t.named
		all.rankOnly += t.rankOnly
		all.neg += t.neg
		all.negNamed += t.negNamed
		all.inst += t.inst
		all.within += t.within
		all.fs += t.fs
	}
	fmt.Fprintf(&b, "== all (%d cases): named %d/%d (rank only %d), instances %d/%d, false stalls %d, negatives named falsely %d/%d\n",
		all.cases, all.named, all.exp, all.rankOnly, all.within, all.inst, all.fs, all.negNamed, all.neg)
	return b.String()
}
