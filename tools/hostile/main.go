// Command hostile is issue 24's attacker sweep: it writes hostile inputs of
// every kind (gen), runs them through the CLI natively and under --engine
// wasm with /usr/bin/time (cli; hosts.mjs runs the page and the Worker), and
// judges every case × host (check): nothing executed, nothing live, controls
// visible, within time and memory, one answer everywhere, partials flagged.
//
//	go run ./tools/hostile gen DIR [-scale N] [-only ID,PREFIX*]
//	go run ./tools/hostile cli DIR [-only ID,PREFIX*]
//	node tools/hostile/hosts.mjs DIR [page] [worker]
//	go run ./tools/hostile check DIR [-only ID,PREFIX*]  # the table (Markdown) on stdout
//
// See tools/hostile/README.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: hostile gen|cli|check DIR [flags]")
		os.Exit(2)
	}
	cmd, dir := os.Args[1], os.Args[2]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	scale := fs.Int("scale", 1, "multiply the structural sizes")
	only := fs.String("only", "", "comma-separated case ids or id prefixes ending in *")
	bin := fs.String("bin", "bin/gputriage", "the CLI")
	shared := fs.String("shared", "../shared", "the shared test data (its crash corpus)")
	fs.Parse(os.Args[3:])
	var err error
	switch cmd {
	case "gen":
		var cases []Case
		if cases, err = gen(dir, *shared, *scale, *only); err == nil {
			n := len(cases)
			if *only != "" {
				cases = mergeCases(dir, cases)
			}
			b, _ := json.MarshalIndent(cases, "", "  ")
			err = os.WriteFile(filepath.Join(dir, "cases.json"), b, 0o644)
			fmt.Printf("%d cases written, %d listed in %s\n", n, len(cases), dir)
		}
	case "cli":
		err = runCLI(dir, *bin, *only)
	case "check":
		err = check(dir, *only, os.Stdout)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

// Why a run was stopped (Run.Stop).
const (
	StopCPU  = "cpu"
	StopHang = "hang"
)

// mergeCases lists the cases of dir's cases.json (when there is one) with
// made in place of theirs and after them: gen -only adds to a sweep.
func mergeCases(dir string, made []Case) []Case {
	old, _ := loadCases(dir)
	byID := map[string]int{}
	for i, c := range made {
		byID[c.ID] = i
	}
	var out []Case
	for _, c := range old {
		if i, ok := byID[c.ID]; ok {
			c = made[i]
			delete(byID, c.ID)
		}
		out = append(out, c)
	}
	for _, c := range made {
		if _, ok := byID[c.ID]; ok {
			out = append(out, c)
		}
	}
	return out
}

func loadCases(dir string) ([]Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		return nil, err
	}
	var cs []Case
	return cs, json.Unmarshal(b, &cs)
}

// selected tells whether case id is in only: comma-separated ids, or id
// prefixes ending in '*' ("crash6-*"); all cases when only is empty.
func selected(only, id string) bool {
	if only == "" {
		return true
	}
	for _, o := range strings.Split(only, ",") {
		if o == id || strings.HasSuffix(o, "*") && strings.HasPrefix(id, strings.TrimSuffix(o, "*")) {
			return true
		}
	}
	return false
}

// Run is what one host did with one case (written as run.json beside the
// host's artifacts in DIR/out/<case>/<host>/).
type Run struct {
	Exit    int     `json:"exit"` // -1: killed at the time limit
	Seconds float64 `json:"seconds"`
	// CPUSeconds is user+sys (CLI: /usr/bin/time; Worker: workerd's, from
	// its start): the time limit is judged on it when set, since the wall
	// clock of a machine shared by many jobs says little.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	RSSMB      float64 `json:"rss_mb"` // peak; 0 when the host cannot tell
	Error      string  `json:"error,omitempty"`
	Partial    bool    `json:"partial,omitempty"`
	Note       string  `json:"note,omitempty"`
	TimedOut   bool    `json:"timed_out,omitempty"`
	// Stop says why a run was stopped: StopCPU (over twice its CPU budget)
	// or StopHang (the wall-clock hang guard; CPU seconds say how busy it was).
	Stop     string   `json:"stop,omitempty"`
	Problems []string `json:"problems,omitempty"` // what the host saw itself (the page's DOM)
}
