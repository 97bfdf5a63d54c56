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
	"runtime"
	"slices"
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
			if hs := os.Getenv("HOSTILE_HOSTS"); hs != "" && !has(strings.Split(hs, ","), host) || !has(c.Hosts, host) || !claim(dir, c.ID, host) {
				continue
			}
			r := runOne(dir, bin, c, host)
			fmt.Printf("%-24s %-6s exit %2d  %6.1f s (%5.1f s CPU)  %6.0f MB %s\n", c.ID, host, r.Exit, r.Seconds, r.CPUSeconds, r.RSSMB, r.Error)
		}
	}
	return nil
}

// claim tells whether this runner should run case id on host: always,
// unless HOSTILE_SINCE (Unix seconds) is set; then only if no runner has
// claimed it since (DIR/out/<id>/<host>.claim), so that several runners
// (HOSTILE_REVERSE=1 runs the list from its end) share one sweep.
func claim(dir, id, host string) bool {
	since, err := strconv.ParseInt(os.Getenv("HOSTILE_SINCE"), 10, 64)
	if err != nil {
		return true
	}
	p := filepath.Join(dir, "out", id, host+".claim")
	if fi, err := os.Stat(filepath.Join(dir, "out", id, host, "run.json")); err == nil && fi.ModTime().Unix() >= since {
		return false
	}
	if fi, err := os.Stat(p); err == nil && fi.ModTime().Unix() >= since {
		return false
	}
	if fi, err := os.Stat(p); err == nil && fi.ModTime().Unix() < since {
		os.Remove(p) // an earlier sweep's
	}
	os.MkdirAll(filepath.Dir(p), 0o755)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err == nil {
		f.Close()
	}
	return err == nil
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
	for i, a := range args {
		// argv is C strings, no NUL can reach a program (Go's exec
		// refuses it): the rest of the value is passed
		args[i] = strings.ReplaceAll(a, "\x00", "")
	}
	// The run is stopped at twice its limit in CPU seconds (RLIMIT_CPU: what
	// the check judges, whatever the machine's load) and, only as a guard
	// against a hang (a run blocked on a FIFO uses no CPU), at a wall-clock
	// limit scaled by the machine's load (hangGuard).
	guard := hangGuard(c.TimeS)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	timeFile := filepath.Join(out, "time.txt")
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -t "$1"; shift; exec "$@"`, "sh", strconv.Itoa(2 * c.TimeS), "/usr/bin/time", "-v", "-o", timeFile, bin}, args...)...)
	cmd.Dir = filepath.Join(dir, "cases", c.ID, "in")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var lastCPU float64 // the tree's CPU seconds when the hang guard fired (time -v writes nothing then)
	cmd.Cancel = func() error {
		lastCPU = treeCPU(cmd.Process.Pid)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	so, _ := os.Create(filepath.Join(out, "stdout"))
	se, _ := os.Create(filepath.Join(out, "stderr"))
	cmd.Stdout, cmd.Stderr = so, se
	t0 := time.Now()
	err := cmd.Run()
	so.Close()
	se.Close()
	r := Run{Seconds: time.Since(t0).Seconds(), Exit: cmd.ProcessState.ExitCode()}
	// user+sys of the whole tree /usr/bin/time waited for (its rusage), and
	// its peak RSS
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
	if ctx.Err() != nil {
		if r.CPUSeconds == 0 {
			r.CPUSeconds = lastCPU
		}
		r.Exit, r.TimedOut, r.Stop = -1, true, StopHang
		r.Error = fmt.Sprintf("hang guard: no end after %.0f s wall clock (%.1f s CPU)", guard.Seconds(), r.CPUSeconds)
	} else if err != nil && r.Exit < 0 {
		r.Error = err.Error()
	}
	if r.CPUSeconds >= float64(2*c.TimeS)-0.5 && !r.TimedOut {
		r.Exit, r.TimedOut, r.Stop = -1, true, StopCPU
		r.Error = fmt.Sprintf("over CPU budget: stopped at %d s CPU (%.0f s wall)", 2*c.TimeS, r.Seconds)
	}
	if n := hits.Load(); n > 0 {
		r.Error = fmt.Sprintf("%d requests reached the redirect's other host", n)
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	os.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
	return r
}

// hangGuard is the wall-clock limit of a run whose CPU limit is timeS: twice
// that, times the larger of HOSTILE_WALL_FACTOR (default 3) and twice the
// machine's load per core when the run starts (a run gets about cores/load of
// a core), capped at 20. It only catches runs that never end; time is judged
// on CPU seconds.
func hangGuard(timeS int) time.Duration {
	f := 3.0
	if n, err := strconv.Atoi(os.Getenv("HOSTILE_WALL_FACTOR")); err == nil && n > 0 {
		f = float64(n)
	}
	if l := loadPerCore(); 2*l > f {
		f = min(2*l, 20)
	}
	return time.Duration(float64(2*timeS)*f) * time.Second
}

// loadPerCore is the one-minute load average over the cores (0 when unknown).
func loadPerCore() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	l, _ := strconv.ParseFloat(f[0], 64)
	return l / float64(runtime.NumCPU())
}

// ordered lists the cases of only in its order (all cases when empty; a
// prefix's cases in the list's order), so a re-run can put the slow ones
// first.
func ordered(cases []Case, only string) []Case {
	if os.Getenv("HOSTILE_REVERSE") != "" {
		cases = slices.Clone(cases)
		slices.Reverse(cases)
	}
	if only == "" {
		return cases
	}
	var out []Case
	seen := map[string]bool{}
	for _, o := range strings.Split(only, ",") {
		for _, c := range cases {
			if !seen[c.ID] && selected(o, c.ID) {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// treeCPU sums user+sys seconds of pid and its descendants from /proc
// (USER_HZ 100), for a run killed before it could report its own rusage.
func treeCPU(root int) float64 {
	kids := map[int][]int{}
	cpu := map[int]float64{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		kids[ppid] = append(kids[ppid], pid)
		cpu[pid] = (u + s) / 100
	}
	sum, todo := 0.0, []int{root}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], kids[p]...)
		sum += cpu[p]
	}
	return sum
}
