// Package diff compares two runs (gputriage diff, A → B): where GPU time
// moved, per category, per kernel and per stage, with new and removed
// kernels. Seed 004 forbids trusting a comparison whose runs differ in
// base_image, resource_class, gpu_device_ids, server_flags or
// benchmark_config_hash, and the project refuses to compare runs on
// different observed architectures: such a pair is refused (Result.Refused,
// with the reason) unless Options.Force, in which case the deltas are
// computed and the mismatches listed next to them.
//
// Kernels are matched by canonical name (kernels.Canonical, as in every
// table of the project), copies and fills by their activity name. All
// times are integer nanoseconds, every list is sorted with explicit
// tie-breaks: the output is deterministic.
package diff

import (
	"cmp"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Side is one run: its traces and what is known about how it ran.
type Side struct {
	Name      string            // label, e.g. the trace file name
	Store     *trace.Store      // for busy time and span; may be nil
	Breakdown *breakdown.Result // breakdown.Analyze(Store, …); computed from Store when nil

	// Architecture verdict (arch.Relevance of the run).
	ObservedArch string
	ArchMatch    string
	DeviceName   string

	// BusyNS and SpanNS stand in for Store when the run is read from its
	// artifacts (gpu_timeline.json).
	BusyNS, SpanNS int64
	// IdleNS is the GPU idle time of the run's windows, StepNS its mean
	// step time over Steps steps (idle.json; 0 = unknown).
	IdleNS, StepNS int64
	Steps          int

	// Observed facts, compared when both sides know them: the runtime
	// (e.g. "ROCm 7.2", "CUDA 12.4") and the serving framework (SGLang,
	// vLLM, xDiT).
	Runtime   string
	Framework string

	// Seed-004 comparison fields; "" / nil = unknown.
	BaseImage           string
	ResourceClass       string
	GPUDeviceIDs        []int
	ServerFlags         string
	BenchmarkConfigHash string
	// Conflicts are identity fields given (flags, --run) that differ from
	// what the run recorded: never overwritten silently, they refuse.
	Conflicts []Mismatch
}

// Options control the comparison.
type Options struct {
	Force bool // compare even when the runs are not comparable
	Limit int  // kernel rows in the Markdown table; 0 means 25
	// SameInput says both sides are the same bytes: one run compared with
	// itself, comparable by construction even where its fields are unknown.
	SameInput bool
	// FailOn are the regression thresholds of a CI gate (ParseThreshold).
	FailOn []Threshold
}

// Mismatch is a comparison field that differs between the runs.
type Mismatch struct {
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// SideInfo summarises one run.
type SideInfo struct {
	Name         string `json:"name"`
	ObservedArch string `json:"observed_arch"`
	DeviceName   string `json:"device_name"`
	KernelTimeUS us     `json:"kernel_time_us"` // summed over GPU activities (kernels, copies, fills)
	BusyUS       us     `json:"busy_us"`        // union of GPU activity intervals
	SpanUS       us     `json:"span_us"`        // first start → last end, summed over files
	Launches     int64  `json:"launches"`       // GPU activities
	Kernels      int    `json:"kernels"`        // distinct canonical names
	IdleUS       us     `json:"idle_us"`        // GPU idle time (idle.json's total)
	StepUS       us     `json:"step_us"`        // mean step time, 0 when the run has no step annotations
	Steps        int    `json:"steps"`
	Runtime      string `json:"runtime"`   // "ROCm 7.2", "CUDA 12.4", "" unknown
	Framework    string `json:"framework"` // "SGLang", "vLLM", "xDiT", "" none seen
}

// Delta is A → B of one quantity pair.
type Delta struct {
	AUS    us    `json:"a_us"`
	BUS    us    `json:"b_us"`
	DUS    us    `json:"delta_us"`
	Ratio  ratio `json:"ratio"` // B / A (0 when A is 0)
	AShare ratio `json:"a_share"`
	BShare ratio `json:"b_share"`
	DShare ratio `json:"delta_share"` // B share − A share
	ALaun  int64 `json:"a_launches"`
	BLaun  int64 `json:"b_launches"`
	DLaun  int64 `json:"delta_launches"`
}

// CategoryDelta is one kernel category.
type CategoryDelta struct {
	Category string `json:"category"`
	Delta
}

// KernelDelta is one canonical kernel (or copy / fill).
type KernelDelta struct {
	Kernel   string `json:"kernel"`
	Category string `json:"category"`
	Status   string `json:"status"` // both | new (only in B) | removed (only in A) | merged
	Delta
	// MergedKernels: on an OtherKernels row, how many kernels it sums (0 on the others).
	MergedKernels int `json:"merged_kernels"`
}

// OtherKernels names the rows of Kernels that sum the kernels beyond
// limits.KernelRows, one per category (status "merged"), as
// kernel_table.json's rows of the same name do.
const OtherKernels = "(other kernels)"

// StageDelta is one stage: kernel time, window (first start → last end)
// and activity count.
type StageDelta struct {
	Stage    string `json:"stage"`
	AWindow  us     `json:"a_window_us"`
	BWindow  us     `json:"b_window_us"`
	DWindow  us     `json:"delta_window_us"`
	WindowX  ratio  `json:"window_ratio"` // B / A
	Status   string `json:"status"`       // both | new | removed
	KernelUS Delta  `json:"kernel_time"`
}

// Result is the comparison A → B.
type Result struct {
	A          SideInfo        `json:"a"`
	B          SideInfo        `json:"b"`
	Refused    bool            `json:"refused"`
	Reason     string          `json:"reason,omitempty"`
	Forced     bool            `json:"forced"`
	Mismatches []Mismatch      `json:"mismatches"`
	Unverified []string        `json:"unverified"` // comparison fields unknown on at least one side
	Total      Delta           `json:"total"`
	Busy       Delta           `json:"busy"`
	Stages     []StageDelta    `json:"stages"`
	Categories []CategoryDelta `json:"categories"`
	Kernels    []KernelDelta   `json:"kernels"`
	NewKernels int             `json:"new_kernels"`
	Removed    int             `json:"removed_kernels"`
	// KernelsTruncated: Kernels holds the limits.KernelRows-1 largest
	// changes and OtherKernels rows sum the MergedKernels others (500 k
	// distinct names made a diff.json of every one).
	KernelsTruncated bool `json:"kernels_truncated"`
	MergedKernels    int  `json:"merged_kernels"`
	// SameInput: both sides are the same input.
	SameInput bool `json:"same_input"`
	// Gate is every --fail-on threshold with its verdict.
	Gate       []GateResult `json:"gate"`
	Regression bool         `json:"regression"` // a threshold was exceeded
	opt        Options
	unknown    []string
	allKernels []KernelDelta // Kernels before bound
}

type acc struct {
	t, n int64
	cat  string
}

type sideData struct {
	info    SideInfo
	total   int64
	kernels map[string]*acc
	cats    map[string]*acc
	stages  map[string]breakdown.Stage
}

func collect(s Side) sideData {
	b := s.Breakdown
	if b == nil && s.Store != nil {
		b = breakdown.Analyze(s.Store, breakdown.Options{})
	}
	d := sideData{info: SideInfo{Name: s.Name, ObservedArch: s.ObservedArch, DeviceName: s.DeviceName,
		IdleUS: us(s.IdleNS), StepUS: us(s.StepNS), Steps: s.Steps, Runtime: s.Runtime, Framework: s.Framework},
		kernels: map[string]*acc{}, cats: map[string]*acc{}, stages: map[string]breakdown.Stage{}}
	if b != nil {
		for _, r := range b.Rows {
			k := d.kernels[r.Kernel]
			if k == nil {
				k = &acc{cat: r.Category}
				d.kernels[r.Kernel] = k
			}
			k.t = units.AddSat(k.t, r.GPUTime)
			k.n = units.AddSat(k.n, r.Launches)
			c := d.cats[r.Category]
			if c == nil {
				c = &acc{}
				d.cats[r.Category] = c
			}
			c.t = units.AddSat(c.t, r.GPUTime)
			c.n = units.AddSat(c.n, r.Launches)
			d.total = units.AddSat(d.total, r.GPUTime)
			d.info.Launches = units.AddSat(d.info.Launches, r.Launches)
		}
		for _, st := range b.Stages {
			d.stages[st.Stage] = st
		}
	}
	d.info.KernelTimeUS = us(d.total)
	d.info.Kernels = len(d.kernels)
	if s.Store != nil {
		busy, span := union(s.Store)
		d.info.BusyUS, d.info.SpanUS = us(busy), us(span)
	} else {
		d.info.BusyUS, d.info.SpanUS = us(s.BusyNS), us(s.SpanNS)
	}
	return d
}

// union returns the length of the union of GPU activity intervals and the
// first-start → last-end span, per file, summed over files.
func union(st *trace.Store) (busy, span int64) {
	type iv struct {
		file     uint16
		from, to int64
	}
	var ivs []iv
	for i := range st.GPU {
		if o := &st.GPU[i]; o.Kind.IsGPUWork() {
			ivs = append(ivs, iv{o.File, o.TS, o.End()})
		}
	}
	slices.SortFunc(ivs, func(x, y iv) int {
		if c := cmp.Compare(x.file, y.file); c != 0 {
			return c
		}
		return cmp.Compare(x.from, y.from)
	})
	for i := 0; i < len(ivs); {
		f := ivs[i].file
		first, last := ivs[i].from, ivs[i].to
		curFrom, curTo := ivs[i].from, ivs[i].to
		for i++; i < len(ivs) && ivs[i].file == f; i++ {
			x := ivs[i]
			last = max(last, x.to)
			if x.from > curTo {
				busy = units.AddSat(busy, curTo-curFrom)
				curFrom, curTo = x.from, x.to
			} else {
				curTo = max(curTo, x.to)
			}
		}
		busy = units.AddSat(busy, curTo-curFrom)
		span = units.AddSat(span, last-first)
	}
	return busy, span
}

// comparable checks the comparison fields and the architectures.
func comparable(a, b Side) (mm []Mismatch, unverified []string) {
	field := func(name, x, y string) {
		switch {
		case x == "" || y == "":
			unverified = append(unverified, name)
		case x != y:
			mm = append(mm, Mismatch{name, x, y})
		}
	}
	field("observed_arch", known(a.ObservedArch), known(b.ObservedArch))
	// Observed facts: a difference refuses, an unknown one is no reason to.
	observed := func(name, x, y string) {
		if x != "" && y != "" && x != y {
			mm = append(mm, Mismatch{name, x, y})
		}
	}
	observed("device_name", a.DeviceName, b.DeviceName)
	observed("runtime", a.Runtime, b.Runtime)
	observed("framework", a.Framework, b.Framework)
	for _, c := range a.Conflicts {
		mm = append(mm, Mismatch{"run A " + c.Field + " (given vs recorded)", c.A, c.B})
	}
	for _, c := range b.Conflicts {
		mm = append(mm, Mismatch{"run B " + c.Field + " (given vs recorded)", c.A, c.B})
	}
	field("base_image", a.BaseImage, b.BaseImage)
	field("resource_class", a.ResourceClass, b.ResourceClass)
	field("gpu_device_ids", ids(a.GPUDeviceIDs), ids(b.GPUDeviceIDs))
	field("server_flags", a.ServerFlags, b.ServerFlags)
	field("benchmark_config_hash", a.BenchmarkConfigHash, b.BenchmarkConfigHash)
	return mm, unverified
}

func known(arch string) string {
	if arch == "unknown" {
		return ""
	}
	return arch
}

func ids(v []int) string {
	if len(v) == 0 {
		return ""
	}
	s := slices.Clone(v)
	slices.Sort(s)
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

func mkDelta(a, b *acc, at, bt int64) Delta {
	var d Delta
	if a != nil {
		d.AUS, d.ALaun = us(a.t), a.n
	}
	if b != nil {
		d.BUS, d.BLaun = us(b.t), b.n
	}
	d.DUS = subUS(d.BUS, d.AUS)
	d.DLaun = units.SubSat(d.BLaun, d.ALaun)
	if d.AUS > 0 {
		d.Ratio = ratio(float64(d.BUS) / float64(d.AUS))
	}
	if at > 0 {
		d.AShare = ratio(float64(d.AUS) / float64(at))
	}
	if bt > 0 {
		d.BShare = ratio(float64(d.BUS) / float64(bt))
	}
	d.DShare = d.BShare - d.AShare
	return d
}

// subUS and addUS saturate: the sums they take apart or add up (a window
// summed over files, every stage's window) may sit at int64's end.
func subUS(b, a us) us { return us(units.SubSat(int64(b), int64(a))) }
func addUS(a, b us) us { return us(units.AddSat(int64(a), int64(b))) }

func abs[T us | int64](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// Compare compares run a with run b (deltas are b − a).
func Compare(a, b Side, opt Options) *Result {
	if opt.Limit <= 0 {
		opt.Limit = 25
	}
	da, db := collect(a), collect(b)
	r := &Result{A: da.info, B: db.info, opt: opt, Mismatches: []Mismatch{}, Unverified: []string{},
		Stages: []StageDelta{}, Categories: []CategoryDelta{}, Kernels: []KernelDelta{}}
	mm, unv := comparable(a, b)
	r.Mismatches = append(r.Mismatches, mm...)
	r.Unverified = append(r.Unverified, unv...)
	r.SameInput = opt.SameInput
	// Seed 004: never compare without checking. A field that differs, or
	// that is unknown on a side, makes the comparison untrustworthy —
	// unless both sides are the very same input.
	var parts []string
	for _, m := range mm {
		parts = append(parts, m.Field+" ("+m.A+" vs "+m.B+")")
	}
	var reason string
	if len(parts) > 0 {
		reason = "the runs are not comparable: " + strings.Join(parts, ", ") + " differ"
	}
	if len(unv) > 0 && !opt.SameInput {
		if reason != "" {
			reason += "; "
		}
		reason += "cannot verify that the runs are comparable: " + strings.Join(unv, ", ") +
			" unknown on at least one side (give them with --a-…/--b-… flags, --run, or server_args.json beside the traces)"
	}
	if reason != "" {
		if opt.Force {
			r.Forced = true
			r.Reason = reason + "; compared anyway (--force)"
		} else {
			r.Refused = true
			r.Reason = reason + "; pass --force to compare anyway"
			r.Gate = []GateResult{}
			return r
		}
	}
	r.Total = mkDelta(&acc{t: da.total, n: da.info.Launches}, &acc{t: db.total, n: db.info.Launches}, da.total, db.total)
	r.Busy = Delta{AUS: da.info.BusyUS, BUS: db.info.BusyUS, DUS: subUS(db.info.BusyUS, da.info.BusyUS)}
	if da.info.BusyUS > 0 {
		r.Busy.Ratio = ratio(float64(db.info.BusyUS) / float64(da.info.BusyUS))
	}

	for _, name := range keys(da.cats, db.cats) {
		r.Categories = append(r.Categories, CategoryDelta{Category: name, Delta: mkDelta(da.cats[name], db.cats[name], da.total, db.total)})
	}
	slices.SortFunc(r.Categories, func(x, y CategoryDelta) int {
		if c := cmp.Compare(abs(y.DUS), abs(x.DUS)); c != 0 {
			return c
		}
		return strings.Compare(x.Category, y.Category)
	})
	for _, name := range keys(da.kernels, db.kernels) {
		ka, kb := da.kernels[name], db.kernels[name]
		k := KernelDelta{Kernel: name, Status: "both", Delta: mkDelta(ka, kb, da.total, db.total)}
		switch {
		case ka == nil:
			k.Status, k.Category = "new", kb.cat
			r.NewKernels++
		case kb == nil:
			k.Status, k.Category = "removed", ka.cat
			r.Removed++
		default:
			k.Category = kb.cat
		}
		r.Kernels = append(r.Kernels, k)
	}
	slices.SortFunc(r.Kernels, func(x, y KernelDelta) int {
		if c := cmp.Compare(abs(y.DUS), abs(x.DUS)); c != 0 {
			return c
		}
		if c := cmp.Compare(abs(y.DLaun), abs(x.DLaun)); c != 0 {
			return c
		}
		return strings.Compare(x.Kernel, y.Kernel)
	})
	r.allKernels = r.Kernels // the gate's kernel: rules see every kernel
	r.Kernels, r.MergedKernels = bound(r.Kernels, limits.KernelRows, da.total, db.total)
	r.KernelsTruncated = r.MergedKernels > 0
	for _, name := range stageKeys(da.stages, db.stages) {
		sa, oka := da.stages[name]
		sb, okb := db.stages[name]
		s := StageDelta{Stage: name, Status: "both", AWindow: us(sa.Window), BWindow: us(sb.Window)}
		s.DWindow = subUS(s.BWindow, s.AWindow)
		if sa.Window > 0 {
			s.WindowX = ratio(float64(sb.Window) / float64(sa.Window))
		}
		switch {
		case !oka:
			s.Status = "new"
		case !okb:
			s.Status = "removed"
		}
		s.KernelUS = mkDelta(&acc{t: sa.KernelTime, n: sa.KernelCount}, &acc{t: sb.KernelTime, n: sb.KernelCount}, da.total, db.total)
		r.Stages = append(r.Stages, s)
	}
	r.Gate = gate(r, da, db, opt.FailOn)
	for _, g := range r.Gate {
		r.Regression = r.Regression || g.Failed
		if g.missing {
			r.unknown = append(r.unknown, g.Text)
		}
	}
	return r
}

// UnknownRules are the --fail-on rules that name nothing either run has
// (a misspelt kernel, a stage or step neither run records): usage errors.
func (r *Result) UnknownRules() []string { return r.unknown }

func keys(a, b map[string]*acc) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func stageKeys(a, b map[string]breakdown.Stage) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(x, y string) int {
		if c := callsite.Rank(x) - callsite.Rank(y); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	return out
}

// bound keeps the n-1 largest changes of ks (sorted) and sums the rest into
// OtherKernels rows, one per category in name order: a diff of traces with
// 500 k distinct kernel names stays a table of at most n plus the
// categories' rows. It returns the rows and how many kernels were merged.
func bound(ks []KernelDelta, n int, at, bt int64) ([]KernelDelta, int) {
	if len(ks) <= n {
		return ks, 0
	}
	rest := ks[n-1:]
	byCat := map[string]*[2]acc{}
	count := map[string]int{}
	for _, k := range rest {
		c := byCat[k.Category]
		if c == nil {
			c = &[2]acc{}
			byCat[k.Category] = c
		}
		// back to integer nanoseconds: the sums stay exact
		c[0].t = units.AddSat(c[0].t, int64(k.AUS))
		c[0].n = units.AddSat(c[0].n, k.ALaun)
		c[1].t = units.AddSat(c[1].t, int64(k.BUS))
		c[1].n = units.AddSat(c[1].n, k.BLaun)
		count[k.Category]++
	}
	out := slices.Clone(ks[:n-1])
	cats := make([]string, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	for _, c := range cats {
		a := byCat[c]
		out = append(out, KernelDelta{Kernel: OtherKernels, Category: c, Status: "merged", Delta: mkDelta(&a[0], &a[1], at, bt), MergedKernels: count[c]})
	}
	return out, len(rest)
}
