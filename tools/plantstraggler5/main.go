// Command plantstraggler5 plants stragglers into real multi-rank traces, keys every collective
// instance by the issue-19 definitions (its own reading of the traces, no analyzer code) and scores
// gputriage's collectives.json / ranks.json against the key.
//
//	go run ./tools/plantstraggler5 describe BASE                # base instances, for planning
//	go run ./tools/plantstraggler5 plant -out DIR [CASE...]      # planted traces + DIR/keys.json
//	go run ./tools/plantstraggler5 score -key DIR/keys.json -results RESDIR [CASE...]
//	go run ./tools/plantstraggler5 run -bin GPUTRIAGE -work DIR [CASE...]   # plant, breakdown, score
//
// BASE is dlrm, dmesh or a100x4 (base.go); the cases are in plan.go.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: plantstraggler5 describe|plant|score|run ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "describe":
		err = describe(os.Args[2:])
	case "plant":
		err = plantCmd(os.Args[2:])
	case "score":
		err = scoreCmd(os.Args[2:])
	case "run":
		err = runCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "plantstraggler5:", err)
		os.Exit(1)
	}
}

func defaultShared() string {
	for _, p := range []string{"../shared/testdata", "../../shared/testdata", "/work/wt/shared/testdata"} {
		if _, err := os.Stat(filepath.Join(p, dlrmGlob[:strings.Index(dlrmGlob, "/")])); err == nil {
			return p
		}
	}
	return "../shared/testdata"
}

func describe(args []string) error {
	fs := flag.NewFlagSet("describe", flag.ExitOnError)
	shared := fs.String("shared", defaultShared(), "the shared testdata folder")
	fs.Parse(args)
	j, _, err := loadBase(*shared, fs.Arg(0))
	if err != nil {
		return err
	}
	for i, in := range j.instances() {
		ref := j.inst[i]
		fmt.Printf("%-22s %-16s skew %9.3f last %d transfer %9.3f busbw %s\n", in.id(), in.Step, in.Skew, in.LastRank, in.Transfer, fnum(in.BusBW))
		for _, r := range ref.sortedRanks() {
			o := ref.ops[r]
			k := kernelBefore(j.ranks[r], o)
			kn, gap := "-", 0.0
			if k != nil {
				kn, gap = k.name(), o.k.ts-k.end
			}
			inflight := ""
			for _, g := range j.ranks[r].evs {
				if g.gpu && g.hasDur && g.ts < o.issue && g.end > o.issue && g != o.k {
					inflight += fmt.Sprintf(" inflight(%.30s until +%.0f)", g.name(), g.end-o.issue)
				}
			}
			fmt.Printf("    r%d start %.3f launch→start %.1f before %.50s (gap %.1f)%s\n", r, o.k.ts, o.k.ts-o.issue, kn, gap, inflight)
		}
	}
	return nil
}

func fnum(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%.3f", *p)
}
