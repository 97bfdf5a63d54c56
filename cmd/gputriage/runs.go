package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/report"
)

// withCaptures places the capture traces of a profiler folder: triage maps
// graph replays through them (--mapping), breakdown leaves them out (they
// record the capture, not the timing), saying so.
func (f *flags) withCaptures(cmd string, files, captures []string, stderr io.Writer) []string {
	if len(captures) == 0 {
		return files
	}
	switch cmd {
	case "triage", "overlap":
		f.mapping = append(f.mapping, captures...)
		return append(files, captures...)
	}
	fmt.Fprintf(stderr, "gputriage %s: %d capture trace(s) under capture_traces/ left out: they map graph replays to code (use triage), they are not ranks\n", cmd, len(captures))
	return files
}

var slugBad = regexp.MustCompile(`[^a-z0-9]+`)

// splitRuns analyses each run of a refused multi-run job on its own, into
// DIR/<n>-<device>/, and writes DIR/index.json naming them. Files that
// belong to no run (logs, traces that do not name their device, sidecars)
// go with every run.
func splitRuns(eng engine, opts []byte, cmd string, res *analyzer.Result, files []string, f flags, stdin io.Reader, stdout, stderr io.Writer) int {
	inRun := map[string]bool{}
	for _, r := range res.Runs {
		for _, n := range r.Files {
			inRun[n] = true
		}
	}
	var shared []string
	for _, n := range files {
		if !inRun[n] {
			shared = append(shared, n)
		}
	}
	type entry struct {
		Dir      string   `json:"dir"`
		Device   string   `json:"device"`
		RunID    string   `json:"run_id"`
		ExitCode int      `json:"exit_code"`
		Files    []string `json:"files"`
	}
	var entries []entry
	code := analyzer.ExitOK
	fmt.Fprintf(stderr, "gputriage %s: %d runs: one subfolder each under %s (index.json)\n", cmd, len(res.Runs), f.out)
	for i, r := range res.Runs {
		dir := fmt.Sprintf("%d-%s", i+1, strings.Trim(slugBad.ReplaceAllString(strings.ToLower(r.Device), "-"), "-"))
		runFiles := append(slices.Clone(r.Files), shared...)
		if err := eng.Begin(opts); err != nil {
			fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
			return analyzer.ExitUsage
		}
		prog := newProgress(stderr, f.quiet)
		for _, name := range runFiles {
			if err := pushPath(eng, name, stdin, prog); err != nil {
				fmt.Fprintf(stderr, "gputriage %s: %s: %v\n", cmd, name, err)
				return analyzer.ExitUsage
			}
		}
		prog.done()
		rr, err := eng.Finish()
		if err != nil {
			fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
			return analyzer.ExitUsage
		}
		if rr.Error != "" {
			fmt.Fprintf(stderr, "gputriage %s: %s: %s\n", cmd, dir, rr.Error)
		}
		if err := writeArtifacts(filepath.Join(f.out, dir), rr); err != nil {
			fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
			return analyzer.ExitUsage
		}
		e := entry{Dir: dir, Device: r.Device, ExitCode: rr.ExitCode, Files: runFiles}
		if m, ok := rr.Artifact("profile_metadata.json"); ok {
			var x struct {
				RunID string `json:"run_id"`
			}
			json.Unmarshal([]byte(m), &x)
			e.RunID = x.RunID
		}
		entries = append(entries, e)
		if rr.ExitCode > code {
			code = rr.ExitCode
		}
		printResult(stdout, rr, f.format)
	}
	h := fnv.New64a()
	for _, e := range entries {
		h.Write([]byte(e.RunID + ","))
	}
	idx := struct {
		Tool          string  `json:"tool"`
		SchemaVersion string  `json:"schema_version"`
		RunID         string  `json:"run_id"`
		Partial       bool    `json:"partial"`
		Runs          []entry `json:"runs"`
	}{report.Tool, report.Version, fmt.Sprintf("runs-%016x", h.Sum64()), code == analyzer.ExitPartial, entries}
	b, _ := json.MarshalIndent(idx, "", "  ")
	if err := os.WriteFile(filepath.Join(f.out, "index.json"), append(b, '\n'), 0o644); err != nil {
		fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
		return analyzer.ExitUsage
	}
	// The folder's manifest lists index.json and every run's files.
	names := []string{"index.json"}
	for _, e := range entries {
		for _, mf := range readManifest(filepath.Join(f.out, e.Dir)).Files {
			names = append(names, e.Dir+"/"+mf.Name)
		}
		names = append(names, e.Dir+"/"+manifestName)
	}
	if err := writeManifest(f.out, idx.RunID, names); err != nil {
		fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
		return analyzer.ExitUsage
	}
	return code
}
