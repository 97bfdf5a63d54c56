// Command plantstraggler4 plants the fourth blind straggler set and scores gputriage on it.
//
//	plantstraggler4 plant SHARED_TESTDATA WORKDIR [CASE...]   writes WORKDIR/<case>/*.json.gz, WORKDIR/keys.json, WORKDIR/keys.plants.json
//	plantstraggler4 score WORKDIR                              reads WORKDIR/<case>/out/{collectives,ranks}.json, prints the score
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	ps "github.com/gputriage/gputriage/tools/plantstraggler4"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: plantstraggler4 plant SHARED_TESTDATA WORKDIR [CASE...] | score WORKDIR")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "plant":
		if len(os.Args) < 4 {
			err = fmt.Errorf("plant needs SHARED_TESTDATA WORKDIR")
			break
		}
		err = plant(os.Args[2], os.Args[3], os.Args[4:])
	case "score":
		var s *ps.Score
		s, err = ps.ScoreDir(os.Args[2])
		if err == nil {
			fmt.Print(s.Text())
		}
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "plantstraggler4:", err)
		os.Exit(1)
	}
}

func plant(shared, dir string, only []string) error {
	want := map[string]bool{}
	for _, c := range only {
		want[c] = true
	}
	var full, plants []ps.CaseKey
	for _, c := range ps.Cases {
		if len(want) > 0 && !want[c.Name] {
			continue
		}
		p, err := ps.PlantCase(shared, dir, c)
		if err != nil {
			return err
		}
		if errs := ps.Check(p.Files, p.Clock); len(errs) > 0 {
			for _, e := range errs {
				fmt.Fprintln(os.Stderr, c.Name+":", e)
			}
			return fmt.Errorf("%s: %d consistency errors", c.Name, len(errs))
		}
		full = append(full, p.Key(true))
		plants = append(plants, p.Key(false))
		fmt.Fprintln(os.Stderr, "planted", c.Name)
	}
	for name, v := range map[string]any{"keys.json": ps.KeyFile{Tool: "tools/plantstraggler4", Cases: full}, "keys.plants.json": ps.KeyFile{Tool: "tools/plantstraggler4", Cases: plants}} {
		raw, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(raw, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
