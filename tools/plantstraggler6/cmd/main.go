// Command plantstraggler6 plants stragglers into real multi-rank traces (the
// sixth blind set of issue 19), keys them by the definitions from the
// written files, and scores gputriage's collectives.json and ranks.json.
//
//	go run ./tools/plantstraggler6/cmd list BASE                 instances of a base (plan writing)
//	go run ./tools/plantstraggler6/cmd plant -work DIR [CASE…]   plant and key (DIR/traces, DIR/keys.json)
//	go run ./tools/plantstraggler6/cmd run -bin G -work DIR      plant, run `G breakdown`, score
//	go run ./tools/plantstraggler6/cmd score -work DIR [-results R] score existing outputs
//
// Traces are read from $SHARED_TESTDATA, else ../shared/testdata.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	ps "github.com/gputriage/gputriage/tools/plantstraggler6"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: plantstraggler6 list|plant|run|score …")
		os.Exit(2)
	}
	shared := os.Getenv("SHARED_TESTDATA")
	if shared == "" {
		shared = "../shared/testdata"
	}
	var err error
	switch os.Args[1] {
	case "list":
		err = ps.List(shared, os.Args[2])
	case "plant", "run", "score":
		fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
		work := fs.String("work", "/tmp/plantstraggler6", "work directory")
		bin := fs.String("bin", "", "gputriage binary (run)")
		res := fs.String("results", "", "results directory (score; default WORK/out)")
		fs.Parse(os.Args[2:])
		if *res == "" {
			*res = filepath.Join(*work, "out")
		}
		var kf *ps.KeyFile
		switch os.Args[1] {
		case "plant":
			_, err = ps.PlantAll(shared, *work, fs.Args())
		case "run":
			kf, err = ps.PlantAll(shared, *work, fs.Args())
			if err == nil {
				err = ps.RunAll(*bin, *work, kf)
			}
		case "score":
			kf, err = ps.ReadKeys(filepath.Join(*work, "keys.json"))
		}
		if err == nil && kf != nil {
			var text string
			text, err = ps.ScoreAll(kf, *res)
			fmt.Print(text)
		}
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "plantstraggler6:", err)
		os.Exit(1)
	}
}
