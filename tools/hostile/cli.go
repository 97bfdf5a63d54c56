package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// runCLI runs each case natively and under --engine wasm, from the case's
// in/ folder with relative names (as the page names dropped files), under
// /usr/bin/time -v, killed at twice the case's time limit.
func runCLI(dir, bin, only string) error {
	cases, err := loadCases(dir)
	if err != nil {
		return err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	// the runs start in each case's in/ folder: /usr/bin/time -o needs an absolute path
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	for _, c := range ordered(cases, only) {
		for _, host := range []string{"native", "wasm"} {
			if !has(c.Hosts, host) {
				continue
			}
			r := runOne(dir, bin, c, host)
			fmt.Printf("%-24s %-6s exit %2d  %6.1f s (%5.1f s CPU)  %6.0f MB %s\n", c.ID, host, r.Exit, r.Seconds, r.CPUSeconds, r.RSSMB, r.Error)
		}
	}
	return nil
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

var (
	reRSS = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	reCPU = regexp.MustCompile(`(User|System) time \(seconds\): ([0-9.]+)`)
)

func runOne(dir, bin string, c Case, host string) Run {
	out := filepath.Join(dir, "out", c.ID, host)
	os.RemoveAll(out)
	os.MkdirAll(out, 0o755)
	art := filepath.Join(out, "art")
	args := []string{c.Cmd, "-q", "-o", art, "--engine", host}
	var hits atomic.Int64
	if c.Cmd == "profile" {
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		defer other.Close()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		defer srv.Close()
		args = append(args, "--url", srv.URL, "--timeout", "5s")
	}
	args = append(append(args, c.Args...), c.Inputs...)
	// The run is stopped at twice its limit in CPU seconds (RLIMIT_CPU: what
	// the check judges, whatever the machine's load) and, as a backstop, at
	// wallFactor times that in wall-clock seconds.
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(2*c.TimeS*wallFactor())*time.Second)
	defer cancel()
	timeFile := filepath.Join(out, "time.txt")
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -t "$1"; shift; exec "$@"`, "sh", strconv.Itoa(2 * c.TimeS), "/usr/bin/time", "-v", "-o", timeFile, bin}, args...)...)
	cmd.Dir = filepath.Join(dir, "cases", c.ID, "in")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	so, _ := os.Create(filepath.Join(out, "stdout"))
	se, _ := os.Create(filepath.Join(out, "stderr"))
	cmd.Stdout, cmd.Stderr = so, se
	t0 := time.Now()
	err := cmd.Run()
	so.Close()
	se.Close()
	r := Run{Seconds: time.Since(t0).Seconds(), Exit: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		r.Exit, r.TimedOut, r.Error = -1, true, fmt.Sprintf("killed after %d s wall clock", 2*c.TimeS*wallFactor())
	} else if err != nil && r.Exit < 0 {
		r.Error = err.Error()
	}
	if b, err := os.ReadFile(timeFile); err == nil {
		for _, m := range reCPU.FindAllSubmatch(b, -1) {
			v, _ := strconv.ParseFloat(string(m[2]), 64)
			r.CPUSeconds += v
		}
		if m := reRSS.FindSubmatch(b); m != nil {
			kb, _ := strconv.ParseFloat(string(m[1]), 64)
			r.RSSMB = kb / 1024
		}
	}
	if r.CPUSeconds >= float64(2*c.TimeS)-0.5 && !r.TimedOut {
		r.Exit, r.TimedOut, r.Error = -1, true, fmt.Sprintf("stopped at its CPU limit of %d s (%.0f s wall)", 2*c.TimeS, r.Seconds)
	}
	if n := hits.Load(); n > 0 {
		r.Error = fmt.Sprintf("%d requests reached the redirect's other host", n)
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	os.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
	return r
}

// wallFactor is how many times the CPU limit a run may take in wall-clock
// seconds (HOSTILE_WALL_FACTOR, default 3: a machine shared by other jobs).
func wallFactor() int {
	if n, err := strconv.Atoi(os.Getenv("HOSTILE_WALL_FACTOR")); err == nil && n > 0 {
		return n
	}
	return 3
}

// ordered lists the cases of only in its order (all cases when empty), so
// a re-run can put the slow ones first.
func ordered(cases []Case, only string) []Case {
	if only == "" {
		return cases
	}
	byID := map[string]Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	var out []Case
	for _, id := range strings.Split(only, ",") {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out
}
