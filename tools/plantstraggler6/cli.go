package plantstraggler6

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// Main runs a set's command line (list, plant, run, score); the exit code.
// Traces are read from $SHARED_TESTDATA, else ../shared/testdata.
func (s *Set) Main(args []string) int {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: list|plant|run|score …")
		return 2
	}
	shared := os.Getenv("SHARED_TESTDATA")
	if shared == "" {
		shared = "../shared/testdata"
	}
	var err error
	switch args[0] {
	case "list":
		if len(args) < 2 {
			return 2
		}
		err = s.List(shared, args[1])
	case "plant", "run", "score":
		fs := flag.NewFlagSet(args[0], flag.ExitOnError)
		work := fs.String("work", filepath.Join(os.TempDir(), filepath.Base(s.Tool)), "work directory")
		bin := fs.String("bin", "", "gputriage binary (run)")
		res := fs.String("results", "", "results directory (score; default WORK/out)")
		fs.Parse(args[1:])
		if *res == "" {
			*res = filepath.Join(*work, "out")
		}
		var kf *KeyFile
		switch args[0] {
		case "plant":
			_, err = s.PlantAll(shared, *work, fs.Args())
		case "run":
			kf, err = s.PlantAll(shared, *work, fs.Args())
			if err == nil {
				err = RunAll(*bin, *work, kf)
			}
		case "score":
			kf, err = ReadKeys(filepath.Join(*work, "keys.json"))
		}
		if err == nil && kf != nil {
			var text string
			text, err = ScoreAll(kf, *res)
			fmt.Print(text)
		}
	default:
		err = fmt.Errorf("unknown command %q", args[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, filepath.Base(s.Tool)+":", err)
		return 1
	}
	return 0
}
