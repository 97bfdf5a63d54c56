package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// artifactNames are the artifacts diff reads when a run is given as an
// artifact folder (or its profile_metadata.json).
var artifactNames = []string{"profile_metadata.json", "kernel_table.json", "breakdown.json", "gpu_timeline.json"}

// diffInputs expands diff's two arguments, run A then run B, each a trace,
// a profile folder, an artifact folder or a profile_metadata.json, into the
// files to push and how many of them are run A.
func diffInputs(args []string) ([]string, int, error) {
	if len(args) != 2 {
		return nil, 0, fmt.Errorf("give two runs, A then B (each a trace, a profile folder, an artifact folder or its profile_metadata.json), got %d arguments", len(args))
	}
	var out []string
	split := 0
	for i, a := range args {
		files, err := diffRun(a)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, files...)
		if i == 0 {
			split = len(files)
		}
	}
	return out, split, nil
}

func diffRun(a string) ([]string, error) {
	if a == "-" {
		return []string{a}, nil
	}
	st, err := os.Stat(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a, unwrapPathErr(err))
	}
	dir := ""
	switch {
	case st.IsDir():
		if _, err := os.Stat(filepath.Join(a, "kernel_table.json")); err == nil {
			dir = a
		}
	case filepath.Base(a) == "profile_metadata.json":
		dir = filepath.Dir(a)
	}
	if dir == "" {
		return expand([]string{a})
	}
	var files []string
	for _, n := range artifactNames {
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); err == nil {
			if err := regular(p); err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			files = append(files, p)
		}
	}
	return files, nil
}
