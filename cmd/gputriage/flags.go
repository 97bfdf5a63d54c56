package main

// The command line: one flag.FlagSet per subcommand, built from shared
// groups, so a subcommand's -h lists only its own flags, a bool takes
// =false, and a flag of another subcommand is refused by name.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/identity"
	"github.com/gputriage/gputriage/analyzer/limits"
)

type flags struct {
	out, format, target, stage, engine string
	parsers                            int // block parsers per big file; -1 = GOMAXPROCS
	quiet, gzip, force, mergeRanks     bool
	inputs, mapping, formal            []string
	compare                            [2]analyzer.RunIdentity
	run                                analyzer.RunIdentity // the run's identity (flags, then --run FILE)
	runFile                            string
	failOn                             []string
	peakTFLOPS, peakGBPS               float64
	modelConfigFile                    string
	modelConfig                        []byte // --model-config's content, checked
	limits                             limits.Limits
}

// command is one analysis subcommand: its synopsis and its flag groups.
type command struct {
	synopsis string
	groups   []func(*flag.FlagSet, *flags)
}

var commands = map[string]command{
	"breakdown": {"gputriage breakdown [flags] TRACE...\n\nCategory share, kernel table, GPU timeline per stage (several rank files: per-rank\ncollective time and skew).",
		[]func(*flag.FlagSet, *flags){outputFlags, targetFlags, roofFlags, mergeFlags, identityFlags, engineFlags, limitFlags}},
	"triage": {"gputriage triage [flags] TRACE...\n\nBreakdown + overlap and fuse opportunity tables; give a graph-off (mapping) and a\ngraph-on (formal) trace to map graph replays to code (roles found automatically).",
		[]func(*flag.FlagSet, *flags){outputFlags, targetFlags, roofFlags, roleFlags, mergeFlags, identityFlags, engineFlags, limitFlags}},
	"overlap": {"gputriage overlap --mapping GRAPH_OFF --formal GRAPH_ON [flags]\n\nThe triage tables with explicit roles.",
		[]func(*flag.FlagSet, *flags){outputFlags, targetFlags, roofFlags, roleFlags, identityFlags, engineFlags, limitFlags}},
	"diff": {"gputriage diff [flags] A B\n\nPer-category and per-kernel deltas from run A to run B (each a trace, a profile\nfolder, an artifact folder or its profile_metadata.json). Refuses (exit 3) when the\narchs or seed 004's comparison fields differ or are unknown, unless --force; exit 4\nwhen a --fail-on threshold is exceeded.",
		[]func(*flag.FlagSet, *flags){outputFlags, targetFlags, compareFlags, identityFlags, engineFlags, limitFlags}},
	"diagnose": {"gputriage diagnose [flags] LOG...\n\nCrash / hang evidence → a diagnosis.",
		[]func(*flag.FlagSet, *flags){outputFlags, identityFlags, engineFlags, limitFlags}},
	"extract": {"gputriage extract [flags] RANK_TRACE -o DIR\n\nOne rank of a multi-GPU job: its breakdown artifacts and DIR/rank_summary.json (the map\nstep; run one per rank).",
		[]func(*flag.FlagSet, *flags){outputFlags, targetFlags, roofFlags, identityFlags, engineFlags, limitFlags}},
	"ranks": {"gputriage ranks [flags] SUMMARY_OR_DIR...\n\nThe cross-rank view (collectives.json, ranks.json, the straggler) from rank_summary.json\nfiles alone (the reduce step): the same bytes as breakdown over the traces.",
		[]func(*flag.FlagSet, *flags){outputFlags, targetFlags, identityFlags, engineFlags, limitFlags}},
	"perfetto-fix": {"gputriage perfetto-fix [--gzip] -o DIR TRACE\n\nRewrite overlapping GPU lanes so Perfetto renders them (DIR/perfetto_fixed_trace.json[.gz]).",
		[]func(*flag.FlagSet, *flags){fixFlags, engineFlags, limitFlags}},
}

func outputFlags(fs *flag.FlagSet, f *flags) {
	fs.StringVar(&f.out, "o", "", "write the artifacts into `DIR`")
	fs.StringVar(&f.out, "out", "", "the same as -o")
	fs.StringVar(&f.format, "format", "md", "`FORMAT` printed on stdout: md or json (diff also junit)")
	quietFlags(fs, f)
}

func quietFlags(fs *flag.FlagSet, f *flags) {
	fs.BoolVar(&f.quiet, "q", false, "no progress line")
	fs.BoolVar(&f.quiet, "quiet", false, "the same as -q")
}

func fixFlags(fs *flag.FlagSet, f *flags) {
	fs.StringVar(&f.out, "o", "", "write perfetto_fixed_trace.json into `DIR`")
	fs.StringVar(&f.out, "out", "", "the same as -o")
	fs.BoolVar(&f.gzip, "gzip", false, "write .json.gz")
	quietFlags(fs, f)
}

func targetFlags(fs *flag.FlagSet, f *flags) {
	fs.StringVar(&f.target, "target-arch", analyzer.DefaultTarget, "`ARCH` the results are judged against (gfxNNN, smNN or a product name: MI300X, MI355X, H100, …)")
	fs.StringVar(&f.stage, "stage", "", "keep only this `STAGE` (prefill, decode, …)")
}

func mergeFlags(fs *flag.FlagSet, f *flags) {
	fs.BoolVar(&f.mergeRanks, "merge-ranks", false, "with a job's rank files: also write ranks_merged_trace.json, one Perfetto process per rank on the common clock")
}

func roofFlags(fs *flag.FlagSet, f *flags) {
	fs.Var(positive{&f.peakTFLOPS}, "peak-tflops", "roofline compute roof in `TFLOP/s`, every dtype (default: the device table's peak for the trace's GPU)")
	fs.Var(positive{&f.peakGBPS}, "peak-gbps", "roofline memory roof in `GB/s` (default: the device table's)")
	fs.StringVar(&f.modelConfigFile, "model-config", "", "the model's Hugging Face config.json `FILE`: hidden size, heads, experts, top_k, dtype for roofline ops whose dimensions the trace lacks (each row says what came from it)")
}

func roleFlags(fs *flag.FlagSet, f *flags) {
	fs.Func("mapping", "a graph-off or capture trace `FILE`; repeatable (it is an input: do not list it again)", func(v string) error {
		f.mapping, f.inputs = append(f.mapping, v), append(f.inputs, v)
		return nil
	})
	fs.Func("formal", "a graph-on trace `FILE`; repeatable (likewise)", func(v string) error {
		f.formal, f.inputs = append(f.formal, v), append(f.inputs, v)
		return nil
	})
}

func compareFlags(fs *flag.FlagSet, f *flags) {
	fs.BoolVar(&f.force, "force", false, "compare even when the runs are not comparable")
	fs.Func("fail-on", "`RULE`: total:+5%, busy:+2%, category:gemm:+10%, kernel:NAME:+50us; repeatable; exit 4 when B is slower than A by more", func(v string) error {
		f.failOn = append(f.failOn, v)
		return nil
	})
	for s, side := range []string{"a", "b"} {
		id := &f.compare[s]
		for _, field := range []string{"base_image", "resource_class", "server_flags", "benchmark_config_hash", "gpu_device_ids"} {
			field := field
			fs.Func(side+"-"+strings.ReplaceAll(field, "_", "-"), fmt.Sprintf("run %s's %s", strings.ToUpper(side), field), func(v string) error {
				if field == "gpu_device_ids" {
					ids, err := identity.ParseIDs(v)
					if err != nil {
						return err
					}
					id.GPUDeviceIDs = append(id.GPUDeviceIDs, ids...)
					return nil
				}
				return id.Set(field, v)
			})
		}
	}
}

func identityFlags(fs *flag.FlagSet, f *flags) {
	for _, field := range identity.Fields {
		field := field
		help := "the run's " + field + " (seed 004), written as given"
		if field == "preflight_passed" {
			fs.Var(boolField{&f.run, field}, "preflight-passed", "the run passed its preflight checks (--preflight-passed=false: it did not)")
			continue
		}
		fs.Func(strings.ReplaceAll(field, "_", "-"), help, func(v string) error { return f.run.Set(field, v) })
	}
	fs.StringVar(&f.runFile, "run", "", "the run's identity as a JSON object in `FILE` (field names with underscores); a flag wins over it")
}

func engineFlags(fs *flag.FlagSet, f *flags) {
	fs.StringVar(&f.engine, "engine", "native", "`ENGINE`: native (the analyzer linked in) or wasm (gputriage.wasm under wazero, the module the page runs)")
	fs.Func("parsers", "read a big trace in blocks on `N` cores (default: every core where it pays; 0: one reader)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("must be 0 or more")
		}
		f.parsers = n
		return nil
	})
}

func limitFlags(fs *flag.FlagSet, f *flags) {
	for _, l := range limits.Flags {
		l := l
		fs.Func(l.Name, "resource limit `N`: "+l.Help+" (sizes take k, M, G; docs/limits.md)", func(v string) error {
			n, err := limits.ParseSize(v)
			if err != nil {
				return err
			}
			l.Set(&f.limits, n)
			return nil
		})
	}
}

// positive is a float flag that must be > 0.
type positive struct{ p *float64 }

func (v positive) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v positive) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x <= 0 {
		return fmt.Errorf("%q is not a positive number", s)
	}
	*v.p = x
	return nil
}

// boolField is an identity field that is a bool flag (alone: true).
type boolField struct {
	id    *analyzer.RunIdentity
	field string
}

func (b boolField) String() string   { return "" }
func (b boolField) IsBoolFlag() bool { return true }
func (b boolField) Set(s string) error {
	return b.id.Set(b.field, s)
}

func newFlags() *flags {
	return &flags{format: "md", target: analyzer.DefaultTarget, engine: "native", parsers: -1}
}

// flagSet is cmd's flag set, writing into f.
func flagSet(cmd string, f *flags) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for _, g := range commands[cmd].groups {
		g(fs, f)
	}
	return fs
}

// parseFlags reads cmd's arguments: flags before, between and after the
// inputs (after "--" everything is an input).
func parseFlags(cmd string, args []string) (flags, error) {
	f := newFlags()
	fs := flagSet(cmd, f)
	if err := parseInterleaved(fs, args, func(a string) { f.inputs = append(f.inputs, a) }); err != nil {
		return *f, explainFlagErr(cmd, err)
	}
	return *f, f.check()
}

// parseInterleaved runs fs over args, handing each non-flag argument to pos
// and going on after it (the flag package alone stops at the first).
func parseInterleaved(fs *flag.FlagSet, args []string, pos func(string)) error {
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			for _, a := range rest {
				pos(a)
			}
			return nil
		}
		if len(rest) == 0 {
			return nil
		}
		pos(rest[0])
		args = rest[1:]
	}
}

// check validates what single flags cannot, and reads --run.
func (f *flags) check() error {
	if f.runFile != "" {
		if err := f.readRun(); err != nil {
			return err
		}
	}
	if f.modelConfigFile != "" {
		if err := f.readModelConfig(); err != nil {
			return err
		}
	}
	if f.format != "md" && f.format != "json" && f.format != "junit" {
		return fmt.Errorf("--format must be md or json (or junit for diff), not %q", f.format)
	}
	if f.engine != "wasm" && f.engine != "native" {
		return fmt.Errorf("--engine must be wasm or native, not %q", f.engine)
	}
	return nil
}

var errHelp = flag.ErrHelp

// explainFlagErr names the subcommands a refused flag belongs to.
func explainFlagErr(cmd string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return errors.New(strings.Replace(msg, "flag -", "flag --", 1))
	}
	name := strings.TrimPrefix(msg, undefined)
	var owners []string
	for c := range commands {
		if flagSet(c, newFlags()).Lookup(name) != nil {
			owners = append(owners, c)
		}
	}
	if profileFlagSet(&profileOpts{}, newFlags()).Lookup(name) != nil && !slices.Contains(owners, "triage") {
		owners = append(owners, "profile")
	}
	sort.Strings(owners)
	if len(owners) == 0 {
		return fmt.Errorf("unknown flag --%s (gputriage %s -h lists its flags)", name, cmd)
	}
	return fmt.Errorf("--%s does not apply to %s (it is a flag of %s; gputriage %s -h lists its flags)", name, cmd, strings.Join(owners, ", "), cmd)
}

// help writes cmd's usage: its synopsis and its flags, long names with "--".
func help(w io.Writer, synopsis string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\nFlags:\n", synopsis)
	fs.VisitAll(func(fl *flag.Flag) {
		name, usage := flag.UnquoteUsage(fl)
		dash := "--"
		if len(fl.Name) == 1 {
			dash = "-"
		}
		head := "  " + dash + fl.Name
		if name == "value" || name == "string" || name == "int" || name == "duration" {
			name = "VALUE"
		}
		if name != "" {
			head += " " + name
		}
		if len(head) < 28 {
			fmt.Fprintf(w, "%-28s%s", head, usage)
		} else {
			fmt.Fprintf(w, "%s\n%28s%s", head, "", usage)
		}
		if fl.DefValue != "" && fl.DefValue != "false" {
			fmt.Fprintf(w, " (default %s)", fl.DefValue)
		}
		fmt.Fprintln(w)
	})
	fmt.Fprint(w, exitStatus)
}

const exitStatus = `
Exit status: 0 ok, 1 input partial or damaged (results still written), 2 usage error or unreadable
input, 3 (diff) runs not comparable, 4 (diff) a --fail-on threshold exceeded.
`
