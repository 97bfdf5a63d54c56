// Command gputriage analyses GPU profiler traces and crash evidence locally,
// with the analyzer linked in (the default) or, with --engine wasm, by
// running gputriage.wasm — the same module the web page loads — under wazero.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/internal/escape"
)

const usage = `gputriage — GPU profiler traces and crash evidence → answers, locally.

Usage:
  gputriage breakdown [flags] TRACE...       category share, kernel table, GPU timeline per stage
                                             (several ranks: collectives matched across ranks, the
                                             straggler: collectives.json, ranks.json; --merge-ranks:
                                             ranks_merged_trace.json for Perfetto)
  gputriage triage    [flags] TRACE...       breakdown + overlap and fuse opportunity tables; give a
                                             graph-off (mapping) and a graph-on (formal) trace to map
                                             graph replays to code (roles found automatically)
  gputriage overlap   --mapping GRAPH_OFF --formal GRAPH_ON [flags]
                                             the same with explicit roles
  gputriage diff [--force] [--fail-on RULE] [--a-base-image X --b-base-image Y …] A B
                                             per-category and per-kernel deltas from run A to run B
                                             (each a trace, a profile folder, an artifact folder or
                                             its profile_metadata.json); refuses (exit 3) when the
                                             archs or seed 004's comparison fields (base image,
                                             resource class, GPU ids, server flags, benchmark config
                                             hash) differ or are unknown, unless --force; exit 4 when
                                             a --fail-on threshold is exceeded
  gputriage diagnose  [flags] LOG...         crash / hang evidence → a diagnosis
  gputriage perfetto-fix [--gzip] -o DIR TRACE
                                             rewrite overlapping GPU lanes so Perfetto renders them
                                             (DIR/perfetto_fixed_trace.json[.gz])
  gputriage profile --url URL [--num-steps N] [--by-stage] [--probe N] [--output-dir DIR] [flags]
                                             trigger profiling on a running SGLang or vLLM server, wait
                                             for complete traces, then triage them (gputriage profile -h)
  gputriage extract [flags] RANK_TRACE -o DIR
                                             one rank of a multi-GPU job: its breakdown artifacts and
                                             DIR/rank_summary.json (the map step; run one per rank)
  gputriage ranks [flags] SUMMARY_OR_DIR...  the cross-rank view (collectives.json, ranks.json, the
                                             straggler) from rank_summary.json files alone (the reduce
                                             step): the same bytes as breakdown over the traces
  gputriage version

Inputs are files (.json or .json.gz, detected by content), directories (the
profiler's rank / stage files) or - for standard input.

Every command takes its own flags, before, between or after the inputs; "gputriage COMMAND -h"
lists them (bool flags take =false; a flag of another command is refused). The common ones:
  -o DIR               write the artifacts into DIR
  --format md|json     what to print on stdout (default md; diff also junit)
  --target-arch ARCH   architecture the results are judged against (default gfx950)
  --stage STAGE        keep only this stage (prefill, decode, …)
  --run FILE           the run's identity (seed 004's fields) as a JSON object
  --engine native|wasm the analyzer linked in (default) or gputriage.wasm under wazero
  -q                   no progress line
  --max-event-bytes N, --max-string-bytes N, --max-depth N, --max-records N,
  --max-name-bytes N, --max-ratio N, --max-hint-bytes N, --max-side-doc-bytes N
                       resource limits (sizes take k, M, G); defaults and meaning: docs/limits.md

Exit status: 0 ok, 1 input partial or damaged (results still written), 2 usage error or unreadable
input, 3 (diff) runs not comparable, 4 (diff) a --fail-on threshold exceeded.
`

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// terminal writes text with its control characters escaped.
type terminal struct{ w io.Writer }

func (t terminal) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, escape.Terminal(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Messages quote file names, paths and problems from the input: none
	// of their control characters reaches the terminal. The progress line
	// alone writes its own escape sequences, to the raw stream.
	rawStderr := stderr
	stderr = terminal{stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return analyzer.ExitUsage
	}
	cmd := args[0]
	switch cmd {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				help(stdout, c.synopsis, flagSet(args[1], newFlags()))
				return 0
			}
			if args[1] == "profile" {
				fmt.Fprint(stdout, profileUsage)
				return 0
			}
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "--version":
		fmt.Fprintln(stdout, "gputriage", version())
		return 0
	case "profile":
		return runProfile(args[1:], stdout, stderr, rawStderr)
	case "breakdown", "triage", "overlap", "diff", "diagnose", "perfetto-fix", "extract", "ranks":
	default:
		fmt.Fprintf(stderr, "gputriage: unknown command %q\n\n%s", cmd, usage)
		return analyzer.ExitUsage
	}
	f, err := parseFlags(cmd, args[1:])
	if err == errHelp {
		help(stdout, commands[cmd].synopsis, flagSet(cmd, newFlags()))
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
		return analyzer.ExitUsage
	}
	return runCommand(cmd, f, stdin, stdout, stderr, rawStderr)
}

// runCommand runs cmd on f's inputs and writes its artifacts and answer.
func runCommand(cmd string, f flags, stdin io.Reader, stdout, stderr, rawStderr io.Writer) int {
	if len(f.inputs) == 0 {
		fmt.Fprintf(stderr, "gputriage %s: no input files (give files, directories or - for stdin)\n", cmd)
		return analyzer.ExitUsage
	}
	var files []string
	var err error
	splitA := 0
	switch cmd {
	case "diff":
		files, splitA, err = diffInputs(f.inputs)
	case "ranks":
		files, err = summaryInputs(f.inputs)
	default:
		var captures []string
		files, captures, err = expandRoles(f.inputs)
		// The artifacts list files in the order they are fed; the page
		// feeds them sorted by name (its picker and drops have no order of
		// their own), so the CLI does too: the same files give the same
		// bytes on every host, whatever order the command line names them.
		slices.Sort(files)
		files = f.withCaptures(cmd, files, captures, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
		return analyzer.ExitUsage
	}
	if cmd == "overlap" && (len(f.mapping) == 0 || len(f.formal) == 0) {
		fmt.Fprintf(stderr, "gputriage overlap: give --mapping GRAPH_OFF_TRACE and --formal GRAPH_ON_TRACE (or use triage, which pairs them itself)\n")
		return analyzer.ExitUsage
	}
	if cmd == "perfetto-fix" {
		if len(files) != 1 || files[0] == "-" || f.out == "" {
			fmt.Fprintf(stderr, "gputriage perfetto-fix: give one trace file (not stdin: it is read twice) and -o DIR\n")
			return analyzer.ExitUsage
		}
	}
	opts, _ := json.Marshal(analyzer.Options{Command: cmd, TargetArch: f.target, Stage: f.stage, Mapping: f.mapping, Formal: f.formal,
		Force: f.force, MergeRanks: f.mergeRanks, Compare: f.compare, Run: f.run, SplitA: splitA, FailOn: f.failOn,
		PeakTFLOPS: f.peakTFLOPS, PeakGBPS: f.peakGBPS, ModelConfig: f.modelConfig, Limits: f.limits})

	// The native engine paces its collector like the wasm module: at 25 %
	// growth (the store's records are pointer-free, so collections are
	// cheap: tp_rank0's breakdown takes the same CPU time), with the job's
	// memory bound (docs/limits.md) as the soft limit. At the default GOGC
	// a capped job's heap doubled past it with garbage (20 M tiny events
	// peaked at 4.1 GB). GOGC and GOMEMLIMIT win.
	if l, err := f.limits.Normalized(); err == nil && f.engine == "native" {
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(25)
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(l.MemoryBound())
		}
	}

	// Blocks on every core by default (blocks.go: natively not for gzip
	// input on 2 cores, where gunzip has the second core already).
	parsers, auto := f.parsers, f.parsers < 0
	if auto {
		parsers = runtime.GOMAXPROCS(0)
	}
	if cmd == "perfetto-fix" {
		parsers = 0
	}
	var eng engine
	prog := newProgress(rawStderr, f.quiet)
	// A job whose blocks did not merge (blocks.go) runs again with one reader.
	for attempt := 0; ; attempt++ {
		if eng != nil {
			eng.Close()
			parsers = 0
			blockRestarts++
		}
		if eng, err = newEngine(f.engine, parsers, auto); err != nil {
			fmt.Fprintf(stderr, "gputriage: %v\n", err)
			return analyzer.ExitUsage
		}
		defer eng.Close()
		if err := eng.Begin(opts); err != nil {
			fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
			return analyzer.ExitUsage
		}
		if cmd == "perfetto-fix" {
			return perfettoFix(eng, files[0], f, prog, stdout, stderr)
		}
		if len(files) > 1 {
			if err := eng.ExpectBytes(expectBytes(files)); err != nil {
				fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
				return analyzer.ExitUsage
			}
		}
		restart := false
		for _, name := range files {
			err := pushPath(eng, name, stdin, prog)
			if errors.Is(err, errRestart) && attempt == 0 {
				restart = true
				break
			}
			if err != nil {
				fmt.Fprintf(stderr, "gputriage %s: %s: %v\n", cmd, name, err)
				return analyzer.ExitUsage
			}
		}
		if !restart {
			break
		}
	}
	prog.done()
	res, err := eng.Finish()
	if err != nil {
		fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
		return analyzer.ExitUsage
	}
	printProblems(stderr, res.Files)
	if res.ExitCode == analyzer.ExitUsage && res.Error != "" {
		fmt.Fprintf(stderr, "gputriage %s: %s\n", cmd, res.Error)
	}
	if len(res.Runs) > 1 && f.out != "" && (cmd == "breakdown" || cmd == "triage") {
		return splitRuns(eng, opts, cmd, res, files, f, stdin, stdout, stderr)
	}
	if f.out != "" {
		if err := writeArtifacts(f.out, res); err != nil {
			fmt.Fprintf(stderr, "gputriage %s: %v\n", cmd, err)
			return analyzer.ExitUsage
		}
	}
	printResult(stdout, res, f.format)
	switch res.ExitCode {
	case analyzer.ExitRefused:
		fmt.Fprintf(stderr, "gputriage diff: refused (exit 3): the runs are not comparable; see diff.md (--force compares anyway)\n")
	case analyzer.ExitRegression:
		fmt.Fprintf(stderr, "gputriage diff: regression (exit 4): a --fail-on threshold was exceeded; see diff.md\n")
	}
	return res.ExitCode
}

// newEngine returns an engine of kind; parsers > 1 reads big files in
// blocks on that many goroutines (auto: where it pays, blocks.go).
func newEngine(kind string, parsers int, auto bool) (engine, error) {
	if kind == "native" {
		return &native{parsers: parsers, autoParsers: auto}, nil
	}
	wasm, err := Module()
	if err != nil {
		return nil, err
	}
	e, err := newWasmEngine(wasm)
	if err != nil {
		return nil, err
	}
	e.parsers = parsers
	return e, nil
}

// expectBytes is the estimated decompressed size of files together (a
// folder read into one store plans its records once: Job.ExpectBytes).
func expectBytes(files []string) (n int64) {
	for _, name := range files {
		// regular files only: opening a pipe (<(zcat …)) to peek would
		// cut its writer off
		if st, err := os.Stat(name); name == "-" || err != nil || !st.Mode().IsRegular() {
			continue
		}
		if fh, err := os.Open(name); err == nil {
			n += sizeHint(fh)
			fh.Close()
		}
	}
	return n
}

func pushPath(eng engine, name string, stdin io.Reader, prog *progress) error {
	if name == "-" {
		prog.start("stdin", -1)
		return push(eng, "stdin", stdin, prog.update)
	}
	if err := argument(name); err != nil {
		return err
	}
	fh, err := os.Open(name)
	if err != nil {
		return unwrapPathErr(err)
	}
	defer fh.Close()
	size := int64(-1)
	if st, err := fh.Stat(); err == nil {
		size = st.Size()
	}
	prog.start(name, size)
	return push(eng, name, fh, prog.update)
}

func printResult(w io.Writer, res *analyzer.Result, format string) {
	if format == "json" {
		out := struct {
			ExitCode  int                        `json:"exit_code"`
			Error     string                     `json:"error,omitempty"`
			Files     []analyzer.FileResult      `json:"files"`
			Artifacts map[string]json.RawMessage `json:"artifacts"`
		}{res.ExitCode, res.Error, res.Files, map[string]json.RawMessage{}}
		for _, a := range res.Artifacts {
			if strings.HasSuffix(a.Name, ".json") {
				out.Artifacts[a.Name] = json.RawMessage(res.Text(a))
			} else {
				b, _ := json.Marshal(a.Text)
				out.Artifacts[a.Name] = b
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		w.Write(buf.Bytes())
		return
	}
	if format == "junit" {
		if x, ok := res.Artifact("diff_junit.xml"); ok {
			// encoding/xml replaces C0 controls but passes C1 controls and
			// bidi overrides from kernel and file names through.
			io.WriteString(w, escape.Terminal(x))
			return
		}
	}
	for _, a := range res.Artifacts {
		// a rank's own summary (ranks/<rank>/) stays in its file
		if strings.HasSuffix(a.Name, ".md") && !strings.Contains(a.Name, "/") {
			// Names in the summaries come from the input: no escape
			// sequence of theirs reaches the terminal.
			io.WriteString(w, escape.Terminal(a.Text))
			if !strings.HasSuffix(a.Text, "\n") {
				io.WriteString(w, "\n")
			}
		}
	}
}

// progress prints one updating line on stderr when it is a terminal.
type progress struct {
	w     io.Writer
	on    bool
	name  string
	size  int64
	t0    time.Time
	last  time.Time
	wrote bool
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok && !quiet && escapesOK(os.Getenv) {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) start(name string, size int64) {
	// the name is the input's: its escape sequences must not reach the
	// terminal, nor a newline break the line \r rewrites
	p.name, p.size, p.t0 = escape.Line(filepath.Base(name)), size, time.Now()
}

func (p *progress) update(n int64) {
	if !p.on || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	mbps := float64(n) / 1e6 / max(time.Since(p.t0).Seconds(), 1e-3)
	if p.size > 0 {
		fmt.Fprintf(p.w, "\r\033[K%s: %.1f / %.1f MB (%.0f%%) %.0f MB/s", p.name, float64(n)/1e6, float64(p.size)/1e6, 100*float64(n)/float64(p.size), mbps)
	} else {
		fmt.Fprintf(p.w, "\r\033[K%s: %.1f MB %.0f MB/s", p.name, float64(n)/1e6, mbps)
	}
	p.wrote = true
}

func (p *progress) done() {
	if p.wrote {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// commit is set by the build tool (go run ./build: -ldflags -X
// main.commit=…) where the toolchain does not stamp vcs.revision.
var commit string

func version() string {
	info, _ := debug.ReadBuildInfo()
	if commit != "" {
		if info == nil {
			info = &debug.BuildInfo{}
		}
		info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.revision", Value: commit})
	}
	return versionOf(info)
}

// versionOf is the release and, when the binary was built from a git
// checkout, the commit it was built from (the Go toolchain's vcs.revision
// build setting; "+dirty" when the tree had changes).
func versionOf(info *debug.BuildInfo) string {
	v := "0.1.0"
	if info == nil {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if rev == "" {
				rev = s.Value
			}
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return v
	}
	return v + " (commit " + rev[:min(12, len(rev))] + dirty + ")"
}

// escapesOK reports whether the terminal takes escape sequences:
// TERM=dumb terminals do not, and NO_COLOR (no-color.org) asks for none.
func escapesOK(getenv func(string) string) bool {
	return getenv("TERM") != "dumb" && getenv("NO_COLOR") == ""
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// printProblems says each file's problem; a problem shared by more than
// three files (an earlier run's 28 artifacts left beside the traces) is
// said once, naming the first files and how many more.
func printProblems(w io.Writer, files []analyzer.FileResult) {
	var order []string
	by := map[string][]string{}
	for _, fr := range files {
		if fr.Problem == "" {
			continue
		}
		if by[fr.Problem] == nil {
			order = append(order, fr.Problem)
		}
		by[fr.Problem] = append(by[fr.Problem], fr.Name)
	}
	for _, p := range order {
		names := by[p]
		if len(names) <= 3 {
			for _, n := range names {
				fmt.Fprintf(w, "gputriage: %s: %s\n", n, p)
			}
			continue
		}
		fmt.Fprintf(w, "gputriage: %s, %s and %d more files: %s\n", names[0], names[1], len(names)-2, p)
	}
}
