package plantstraggler6

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type outRank struct {
	Rank  int     `json:"rank"`
	Start float64 `json:"start_us"`
	End   float64 `json:"end_us"`
	Wait  float64 `json:"wait_us"`
}

type outRow struct {
	PG       string    `json:"pg"`
	Kind     string    `json:"kind"`
	Index    int       `json:"index"`
	Step     string    `json:"step"`
	Ranks    []outRank `json:"ranks"`
	Skew     float64   `json:"skew_us"`
	LastRank int       `json:"last_rank"`
	Transfer float64   `json:"transfer_us"`
	Busbw    *float64  `json:"busbw_gbps"`
}

type lateRank struct {
	Rank     int     `json:"rank"`
	Lateness float64 `json:"lateness_us"`
}

type outStep struct {
	Step            string     `json:"step"`
	Straggler       *int       `json:"straggler_rank"`
	Collective      string     `json:"collective"`
	StallRank       *int       `json:"stall_rank"`
	StallCollective string     `json:"stall_collective"`
	Reason          string     `json:"reason"`
	LateRanks       []lateRank `json:"late_ranks"`
}

type outStall struct {
	Rank      int        `json:"rank"`
	Step      string     `json:"step"`
	PG        string     `json:"pg"`
	Kind      string     `json:"kind"`
	Index     int        `json:"index"`
	By        string     `json:"by"`
	Reason    string     `json:"reason"`
	LateRanks []lateRank `json:"late_ranks"`
}

type outRanks struct {
	Steps  []outStep  `json:"steps"`
	Stalls []outStall `json:"stalls"`
}

// Score of one case.
type caseScore struct {
	Name         string   `json:"name"`
	Base         string   `json:"base"`
	Expected     int      `json:"expected"`
	Named        int      `json:"named"`
	RankOnly     int      `json:"rank_only"`
	Secondary    int      `json:"secondary"`
	SecondaryNmd int      `json:"secondary_named"`
	CauseRight   int      `json:"cause_right"`
	Instances    int      `json:"instances"`
	Within       int      `json:"within"`
	Metric       [4]int   `json:"metric_within"` // skew, waits, transfer, busbw
	BusbwKeyed   int      `json:"busbw_keyed"`
	Unmatched    int      `json:"unmatched"`
	FalseStalls  int      `json:"false_stalls"`
	Negative     bool     `json:"negative"`
	NamedFalsely bool     `json:"named_falsely"`
	Lines        []string `json:"lines"`
}

func close2(a, b, abs float64) bool {
	d := math.Abs(a - b)
	return d <= abs+1e-6 || d <= 0.02*math.Abs(b)
}

// matchRow finds the key instance's row by its ranks and starts (≤ 50 µs);
// where two instances start together on every rank (two process groups'
// collectives launched back to back), the row of the same kind and group.
func matchRow(in *keyInst, rows []outRow) *outRow {
	var first *outRow
	for i := range rows {
		r := &rows[i]
		if len(r.Ranks) != len(in.Ranks) {
			continue
		}
		ok := true
		for _, kr := range in.Ranks {
			found := false
			for _, rr := range r.Ranks {
				if rr.Rank == kr.Rank && math.Abs(rr.Start-kr.Start) <= 50 {
					found = true
				}
			}
			if !found {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if r.Kind == in.Kind && r.PG == in.PG {
			return r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

func label(pg, kind string, idx int) string {
	return fmt.Sprintf("%s/%s #%d", pg, kind, idx)
}

// collIs: a step row's collective string names this row's instance.
func collIs(s string, r *outRow) bool {
	if r == nil || s == "" {
		return false
	}
	if !strings.HasSuffix(s, fmt.Sprintf("%s #%d", r.Kind, r.Index)) {
		return false
	}
	return r.PG == "" || strings.Contains(s, r.PG)
}

func scoreCase(ck *CaseKey, dir string) (*caseScore, error) {
	cs := &caseScore{Name: ck.Name, Base: ck.Base}
	var coll struct {
		Rows []outRow `json:"rows"`
	}
	var rk outRanks
	for f, v := range map[string]any{"collectives.json": &coll, "ranks.json": &rk} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, f, err)
		}
	}
	rowOf := map[*keyInst]*outRow{}
	for _, in := range ck.Instances {
		cs.Instances++
		r := matchRow(in, coll.Rows)
		if r == nil {
			cs.Unmatched++
			continue
		}
		rowOf[in] = r
		ok := [4]bool{close2(r.Skew, in.Skew, 0.05) && (in.Skew < 0.5 || r.LastRank == in.LastRank), true, close2(r.Transfer, in.Transfer, 0.05), true}
		for _, kr := range in.Ranks {
			for _, rr := range r.Ranks {
				if rr.Rank == kr.Rank && !close2(rr.Wait, kr.Wait, 0.05) {
					ok[1] = false
				}
			}
		}
		if in.Busbw != nil {
			cs.BusbwKeyed++
			ok[3] = r.Busbw != nil && close2(*r.Busbw, *in.Busbw, 0.001)
		}
		all := true
		for i, v := range ok {
			if v {
				cs.Metric[i]++
			} else {
				all = false
			}
		}
		if all {
			cs.Within++
		}
	}
	instOf := func(p plantKey) *keyInst {
		for _, in := range ck.Instances {
			if in.PG == p.PG && in.Kind == p.Kind && in.Index == p.Index {
				return in
			}
		}
		return nil
	}
	cs.Negative = true
	planted := map[string]bool{} // rank@row
	for _, p := range ck.Plants {
		if p.Method != "slow" {
			cs.Negative = false
		}
		in := instOf(p)
		row := rowOf[in]
		if row != nil {
			planted[fmt.Sprintf("%d@%s", p.Rank, label(row.PG, row.Kind, row.Index))] = true
		}
		switch p.Expect {
		case "named":
			cs.Expected++
		case "secondary":
			cs.Secondary++
		}
		how, reason := "missed", ""
		for _, s := range rk.Stalls {
			if row != nil && s.Rank == p.Rank && s.PG == row.PG && s.Kind == row.Kind && s.Index == row.Index {
				how, reason = "stall ("+s.By+")", s.Reason
				break
			}
		}
		if how == "missed" {
			for _, st := range rk.Steps {
				if st.Step != p.Step {
					continue
				}
				if st.Straggler != nil && *st.Straggler == p.Rank && collIs(st.Collective, row) {
					how, reason = "step straggler", st.Reason
				} else if st.StallRank != nil && *st.StallRank == p.Rank && collIs(st.StallCollective, row) {
					how, reason = "step stall", st.Reason
				} else if (st.Straggler != nil && *st.Straggler == p.Rank) || (st.StallRank != nil && *st.StallRank == p.Rank) {
					how = "rank only (" + st.Collective + ")"
				}
			}
		}
		sec := false
		if p.Expect == "secondary" && row != nil {
			for _, s := range rk.Stalls {
				if s.PG == row.PG && s.Kind == row.Kind && s.Index == row.Index {
					for _, l := range s.LateRanks {
						sec = sec || l.Rank == p.Rank
					}
				}
			}
			for _, st := range rk.Steps {
				if collIs(st.Collective, row) || collIs(st.StallCollective, row) {
					for _, l := range st.LateRanks {
						sec = sec || l.Rank == p.Rank
					}
				}
			}
			if sec {
				cs.SecondaryNmd++
			}
		}
		named := strings.HasPrefix(how, "stall") || strings.HasPrefix(how, "step")
		if p.Expect == "named" && named {
			cs.Named++
			r := strings.ToLower(reason)
			if (p.Method == "host" && strings.Contains(r, "host")) || (p.Method != "host" && (strings.Contains(r, "gpu") || strings.Contains(r, "work") || strings.Contains(r, "kernel"))) {
				cs.CauseRight++
			}
		}
		if p.Expect == "named" && strings.HasPrefix(how, "rank only") {
			cs.RankOnly++
		}
		line := fmt.Sprintf("%s: rank %d %s Δ%.0f at %s (%s) lateness %.1f µs, expect %s → %s", ck.Name, p.Rank, p.Method, p.AddedUS, label(p.PG, p.Kind, p.Index), p.Step, p.Lateness, p.Expect, how)
		if p.Expect == "secondary" {
			line += fmt.Sprintf(" [late_ranks: %v]", sec)
		}
		if reason != "" {
			line += " — " + reason
		}
		cs.Lines = append(cs.Lines, line)
	}
	for _, s := range rk.Stalls {
		id := fmt.Sprintf("%d@%s", s.Rank, label(s.PG, s.Kind, s.Index))
		if planted[id] {
			continue
		}
		// A knock-on: the key has that rank last there by ≥ 0.5 ms after a plant on it.
		knock := false
		for in, r := range rowOf {
			if r.PG == s.PG && r.Kind == s.Kind && r.Index == s.Index && in.LastRank == s.Rank && in.Skew >= 500 {
				for _, p := range ck.Plants {
					knock = knock || (p.Rank == s.Rank && p.Method != "slow")
				}
			}
		}
		if knock {
			cs.Lines = append(cs.Lines, fmt.Sprintf("%s: knock-on stall rank %d at %s (%s)", ck.Name, s.Rank, label(s.PG, s.Kind, s.Index), s.By))
			continue
		}
		cs.FalseStalls++
		cs.Lines = append(cs.Lines, fmt.Sprintf("%s: FALSE stall rank %d at %s (%s) %s", ck.Name, s.Rank, label(s.PG, s.Kind, s.Index), s.By, s.Reason))
	}
	if cs.Negative && len(rk.Stalls) > 0 {
		cs.NamedFalsely = true
	}
	return cs, nil
}

// ScoreAll scores every case's outputs under results: one line per plant and
// per false or knock-on stall, then the table by base.
func ScoreAll(kf *KeyFile, results string) (string, error) {
	var all []*caseScore
	var w strings.Builder
	for _, ck := range kf.Cases {
		cs, err := scoreCase(ck, filepath.Join(results, ck.Name))
		if err != nil {
			return "", err
		}
		all = append(all, cs)
	}
	type agg struct {
		cases, exp, named, rankOnly, sec, secN, cause, inst, within, busK, unm, fs, neg, negF int
		m                                                                                     [4]int
	}
	by := map[string]*agg{}
	var order []string
	tot := &agg{}
	for _, cs := range all {
		a := by[cs.Base]
		if a == nil {
			a = &agg{}
			by[cs.Base] = a
			order = append(order, cs.Base)
		}
		for _, x := range []*agg{a, tot} {
			x.cases++
			x.exp += cs.Expected
			x.named += cs.Named
			x.rankOnly += cs.RankOnly
			x.sec += cs.Secondary
			x.secN += cs.SecondaryNmd
			x.cause += cs.CauseRight
			x.inst += cs.Instances
			x.within += cs.Within
			x.busK += cs.BusbwKeyed
			x.unm += cs.Unmatched
			x.fs += cs.FalseStalls
			for i := range x.m {
				x.m[i] += cs.Metric[i]
			}
			if cs.Negative {
				x.neg++
				if cs.NamedFalsely {
					x.negF++
				}
			}
		}
		for _, l := range cs.Lines {
			fmt.Fprintln(&w, l)
		}
	}
	sort.Strings(order)
	fmt.Fprintln(&w)
	fmt.Fprintln(&w, "| base | cases | named / expected | rank only | secondary named | cause right | instances within 2 % (skew · waits · transfer · busbw, busbw keyed) | unmatched | false stalls | negatives named falsely |")
	fmt.Fprintln(&w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	row := func(n string, a *agg) {
		fmt.Fprintf(&w, "| %s | %d | %d / %d | %d | %d / %d | %d / %d | %d / %d (%d · %d · %d · %d, %d) | %d | %d | %d / %d |\n",
			n, a.cases, a.named, a.exp, a.rankOnly, a.secN, a.sec, a.cause, a.named, a.within, a.inst, a.m[0], a.m[1], a.m[2], a.m[3], a.busK, a.unm, a.fs, a.negF, a.neg)
	}
	for _, n := range order {
		row(n, by[n])
	}
	row("**all**", tot)
	return w.String(), nil
}
