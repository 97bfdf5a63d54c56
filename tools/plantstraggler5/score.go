package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// What gputriage wrote (only the fields scored).
type gtRow struct {
	PG       string     `json:"pg"`
	Kind     string     `json:"kind"`
	Index    int        `json:"index"`
	Ranks    []RankTime `json:"ranks"`
	Skew     float64    `json:"skew_us"`
	LastRank int        `json:"last_rank"`
	Transfer float64    `json:"transfer_us"`
	BusBW    *float64   `json:"busbw_gbps"`
}

type gtStep struct {
	Step            string  `json:"step"`
	StragglerRank   *int    `json:"straggler_rank"`
	Collective      string  `json:"collective"`
	StallRank       *int    `json:"stall_rank"`
	StallCollective string  `json:"stall_collective"`
	Reason          string  `json:"reason"`
	Lateness        float64 `json:"lateness_us"`
}

type gtStall struct {
	Rank   int    `json:"rank"`
	Step   string `json:"step"`
	PG     string `json:"pg"`
	Kind   string `json:"kind"`
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

type gtRanks struct {
	Straggler *struct {
		Rank     int    `json:"rank"`
		Reason   string `json:"reason"`
		Evidence []struct {
			Text string `json:"text"`
		} `json:"evidence"`
	} `json:"straggler"`
	Steps  []gtStep  `json:"steps"`
	Stalls []gtStall `json:"stalls"`
}

// Score is one case's outcome.
type Score struct {
	Case                                       string
	Expected, Named, RankOnly, Secondary       int
	SecondaryNamed                             int
	CauseRight, KernelsNamed, KernelsExpected  int
	SiteNamed, SiteExpected                    int
	Instances, InstOK                          int
	SkewOK, WaitOK, TransferOK, BusOK, BusKeys int
	Unmatched                                  int
	FalseStalls, Negative, NegativeFalse       int
	Lines                                      []string
}

func near(a, b, abs float64) bool {
	return math.Abs(a-b) <= max(abs, 0.02*math.Abs(b))
}

var collRe = regexp.MustCompile(`^(\w+) #(\d+)(?: \(pg (\S+))?`)

// refers says whether a step row's collective string names the instance (kind, index, pg).
func refers(s string, row *gtRow) bool {
	m := collRe.FindStringSubmatch(s)
	if m == nil || row == nil {
		return false
	}
	i, _ := strconv.Atoi(m[2])
	return m[1] == row.Kind && i == row.Index && (m[3] == "" || m[3] == row.PG)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// match finds gputriage's row for a key instance: same kind and ranks, starts within 50 µs.
func match(in *Instance, rows []gtRow) *gtRow {
	var best *gtRow
	bestD := math.Inf(1)
	for i := range rows {
		r := &rows[i]
		if r.Kind != in.Kind || len(r.Ranks) != len(in.Ranks) {
			continue
		}
		d, ok := 0.0, true
		for k := range in.Ranks {
			var rt *RankTime
			for x := range r.Ranks {
				if r.Ranks[x].Rank == in.Ranks[k].Rank {
					rt = &r.Ranks[x]
				}
			}
			if rt == nil {
				ok = false
				break
			}
			d = max(d, math.Abs(rt.Start-in.Ranks[k].Start))
		}
		if ok && d < bestD && d <= 50 {
			best, bestD = r, d
		}
	}
	return best
}

func scoreCase(kc *KeyCase, res string) (*Score, error) {
	s := &Score{Case: kc.Name}
	var coll struct {
		Rows []gtRow `json:"rows"`
	}
	var rk gtRanks
	if err := readJSON(filepath.Join(res, "collectives.json"), &coll); err != nil {
		return nil, err
	}
	if err := readJSON(filepath.Join(res, "ranks.json"), &rk); err != nil {
		return nil, err
	}
	rowOf := map[string]*gtRow{}
	for i := range kc.Instances {
		in := &kc.Instances[i]
		s.Instances++
		row := match(in, coll.Rows)
		if row == nil {
			s.Unmatched++
			s.Lines = append(s.Lines, fmt.Sprintf("  instance %s: not found in collectives.json", in.id()))
			continue
		}
		rowOf[in.id()] = row
		skewOK := near(row.Skew, in.Skew, 0.05) && (in.Skew < 1 || row.LastRank == in.LastRank)
		waitOK := true
		for _, kr := range in.Ranks {
			for _, gr := range row.Ranks {
				if gr.Rank == kr.Rank && !near(gr.Wait, kr.Wait, 0.05) {
					waitOK = false
				}
			}
		}
		trOK := near(row.Transfer, in.Transfer, 0.05)
		busOK := true
		if in.BusBW != nil {
			s.BusKeys++
			busOK = row.BusBW != nil && near(*row.BusBW, *in.BusBW, 0.001)
		} else if row.BusBW != nil {
			busOK = false
		}
		count := func(ok bool, n *int) {
			if ok {
				*n++
			}
		}
		count(skewOK, &s.SkewOK)
		count(waitOK, &s.WaitOK)
		count(trOK, &s.TransferOK)
		count(busOK, &s.BusOK)
		if skewOK && waitOK && trOK && busOK {
			s.InstOK++
		} else {
			s.Lines = append(s.Lines, fmt.Sprintf("  instance %s off: skew %.3f vs %.3f (last %d vs %d), transfer %.3f vs %.3f, busbw %s vs %s, waits ok %v",
				in.id(), row.Skew, in.Skew, row.LastRank, in.LastRank, row.Transfer, in.Transfer, fnum(row.BusBW), fnum(in.BusBW), waitOK))
		}
	}
	stallAt := func(rank int, row *gtRow) *gtStall {
		for i, st := range rk.Stalls {
			if row != nil && st.Rank == rank && st.Kind == row.Kind && st.Index == row.Index && st.PG == row.PG {
				return &rk.Stalls[i]
			}
		}
		return nil
	}
	// The plants.
	expected := 0
	for _, p := range kc.Plants {
		id := (&Instance{PG: p.PG, Kind: p.Kind, Index: p.Index}).id()
		row := rowOf[id]
		if p.Expect == "not_named" {
			continue
		}
		reason, named, rankOnly := "", false, false
		if st := stallAt(p.Rank, row); st != nil {
			named, reason = true, st.Reason
		}
		for _, step := range rk.Steps {
			if step.Step != p.Step {
				continue
			}
			if step.StragglerRank != nil && *step.StragglerRank == p.Rank {
				if refers(step.Collective, row) {
					named = true
					if reason == "" {
						reason = step.Reason
					}
				} else {
					rankOnly = true
				}
			}
			if step.StallRank != nil && *step.StallRank == p.Rank && refers(step.StallCollective, row) {
				named = true
			}
		}
		verdict := "missed"
		switch {
		case named:
			verdict = "named"
		case rankOnly:
			verdict = "rank only"
		}
		if p.Expect == "secondary" {
			s.Secondary++
			if named {
				s.SecondaryNamed++
			}
			s.Lines = append(s.Lines, fmt.Sprintf("  secondary rank %d at %s (%s): %s", p.Rank, id, p.Step, verdict))
			continue
		}
		expected++
		s.Expected++
		switch verdict {
		case "named":
			s.Named++
		case "rank only":
			s.RankOnly++
		}
		cause := ""
		if named {
			host := strings.Contains(reason, "host")
			gpu := strings.Contains(reason, "GPU busier") || strings.Contains(reason, "more work") || strings.Contains(reason, "busier")
			if (p.Method == "host" && host) || (p.Method != "host" && gpu) {
				s.CauseRight++
				cause = "cause right"
			} else {
				cause = fmt.Sprintf("cause wrong (%q)", trunc(reason, 120))
			}
			if len(p.Kernels) > 0 {
				s.KernelsExpected++
				if strings.Contains(reason, shortKernel(p.Kernels[0])) {
					s.KernelsNamed++
					cause += ", kernel named"
				} else {
					cause += ", kernel not named"
				}
			}
		}
		if rk.Straggler != nil && rk.Straggler.Rank == p.Rank && len(p.Site) > 0 {
			s.SiteExpected++
			txt := ""
			for _, e := range rk.Straggler.Evidence {
				txt += e.Text + "\n"
			}
			hit := false
			for _, site := range p.Site {
				if strings.Contains(txt, site) {
					hit = true
				}
			}
			if hit {
				s.SiteNamed++
			}
			cause += fmt.Sprintf(", site %v named %v", p.Site, hit)
		}
		s.Lines = append(s.Lines, fmt.Sprintf("  plant %s rank %d at %s (%s, late %.0f µs): %s %s", p.Method, p.Rank, id, p.Step, p.Lateness, verdict, cause))
	}
	// False namings.
	knock := map[string]int{}
	for _, k := range kc.KnockOns {
		knock[k.ID] = k.LastRank
	}
	idOf := map[*gtRow]string{}
	for id, r := range rowOf {
		idOf[r] = id
	}
	planted := map[string]map[int]bool{}
	for _, p := range kc.Plants {
		id := (&Instance{PG: p.PG, Kind: p.Kind, Index: p.Index}).id()
		if planted[id] == nil {
			planted[id] = map[int]bool{}
		}
		if p.Expect != "not_named" {
			planted[id][p.Rank] = true
		}
	}
	if expected == 0 {
		s.Negative = 1
	}
	for _, st := range rk.Stalls {
		var id string
		for r, rid := range idOf {
			if r.Kind == st.Kind && r.Index == st.Index && r.PG == st.PG {
				id = rid
			}
		}
		if planted[id][st.Rank] {
			continue
		}
		if lr, ok := knock[id]; ok && lr == st.Rank {
			continue
		}
		s.FalseStalls++
		s.Lines = append(s.Lines, fmt.Sprintf("  false stall: rank %d at %s %s #%d (%s)", st.Rank, st.PG, st.Kind, st.Index, trunc(st.Reason, 100)))
	}
	if s.Negative == 1 && s.FalseStalls > 0 {
		s.NegativeFalse = 1
	}
	return s, nil
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// shortKernel is the part of a kernel name a reason would quote (its first 24 characters after
// "void ").
func shortKernel(n string) string {
	n = strings.TrimPrefix(n, "void ")
	if len(n) > 24 {
		n = n[:24]
	}
	return n
}

func scoreCmd(args []string) error {
	fs := flag.NewFlagSet("score", flag.ExitOnError)
	key := fs.String("key", "", "keys.json written by plant")
	res := fs.String("results", "", "folder with one gputriage -o folder per case")
	fs.Parse(args)
	var keys Keys
	if err := readJSON(*key, &keys); err != nil {
		return err
	}
	return report(&keys, *res, fs.Args())
}

func report(keys *Keys, res string, names []string) error {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var tot Score
	tot.Case = "all"
	for _, kc := range keys.Cases {
		if len(want) > 0 && !want[kc.Name] {
			continue
		}
		s, err := scoreCase(kc, filepath.Join(res, kc.Name))
		if err != nil {
			return fmt.Errorf("%s: %w", kc.Name, err)
		}
		fmt.Printf("%s: named %d/%d (rank only %d, secondary %d/%d), instances %d/%d (skew %d, waits %d, transfer %d, busbw %d; unmatched %d), false stalls %d%s\n",
			s.Case, s.Named, s.Expected, s.RankOnly, s.SecondaryNamed, s.Secondary, s.InstOK, s.Instances, s.SkewOK, s.WaitOK, s.TransferOK, s.BusOK, s.Unmatched, s.FalseStalls,
			map[bool]string{true: " [negative]", false: ""}[s.Negative == 1])
		for _, l := range s.Lines {
			fmt.Println(l)
		}
		tot.Expected += s.Expected
		tot.Named += s.Named
		tot.RankOnly += s.RankOnly
		tot.Secondary += s.Secondary
		tot.SecondaryNamed += s.SecondaryNamed
		tot.CauseRight += s.CauseRight
		tot.KernelsNamed += s.KernelsNamed
		tot.KernelsExpected += s.KernelsExpected
		tot.SiteNamed += s.SiteNamed
		tot.SiteExpected += s.SiteExpected
		tot.Instances += s.Instances
		tot.InstOK += s.InstOK
		tot.SkewOK += s.SkewOK
		tot.WaitOK += s.WaitOK
		tot.TransferOK += s.TransferOK
		tot.BusOK += s.BusOK
		tot.BusKeys += s.BusKeys
		tot.Unmatched += s.Unmatched
		tot.FalseStalls += s.FalseStalls
		tot.Negative += s.Negative
		tot.NegativeFalse += s.NegativeFalse
	}
	fmt.Printf("TOTAL: named %d/%d (rank only %d), secondary %d/%d, cause right %d/%d, kernels named %d/%d, site named %d/%d; instances within 2 %% %d/%d (skew %d, waits %d, transfer %d, busbw %d of which %d keyed), unmatched %d; false stalls %d; negatives named falsely %d/%d\n",
		tot.Named, tot.Expected, tot.RankOnly, tot.SecondaryNamed, tot.Secondary, tot.CauseRight, tot.Named, tot.KernelsNamed, tot.KernelsExpected,
		tot.SiteNamed, tot.SiteExpected, tot.InstOK, tot.Instances, tot.SkewOK, tot.WaitOK, tot.TransferOK, tot.BusOK, tot.BusKeys, tot.Unmatched, tot.FalseStalls, tot.NegativeFalse, tot.Negative)
	return nil
}

func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	bin := fs.String("bin", "", "the gputriage binary")
	work := fs.String("work", "", "work folder (planted traces, gputriage outputs)")
	shared := fs.String("shared", defaultShared(), "the shared testdata folder")
	fs.Parse(args)
	traces := filepath.Join(*work, "traces")
	var keys *Keys
	if err := readJSON(filepath.Join(traces, "keys.json"), &keys); err != nil || keys == nil {
		var err error
		if keys, err = plantAll(*shared, traces, nil); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(traces, "keys.json"), keys); err != nil {
			return err
		}
	}
	names := fs.Args()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, kc := range keys.Cases {
		if len(want) > 0 && !want[kc.Name] {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(traces, kc.Name, "*.gz"))
		sort.Strings(files)
		out := filepath.Join(*work, "out", kc.Name)
		cmd := exec.Command(*bin, append([]string{"breakdown", "-q", "-o", out}, files...)...)
		cmd.Stdout, cmd.Stderr = nil, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", kc.Name, err)
		}
	}
	return report(keys, filepath.Join(*work, "out"), names)
}
