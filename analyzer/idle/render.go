package idle

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"
)

func (a *analyzer) result() *Result {
	r := &Result{HasStacks: a.hasStacks}
	// The culprits of every window, and the ops of every culprit.
	a.culByAcc = make([][]int32, len(a.accs))
	for c := range a.culT {
		w := a.culTab.Key(int32(c)).A
		a.culByAcc[w] = append(a.culByAcc[w], int32(c))
	}
	a.fwByAcc = make([][]int32, len(a.accs))
	for f := range a.fwT {
		w := a.fwTab.Key(int32(f)).A
		a.fwByAcc[w] = append(a.fwByAcc[w], int32(f))
	}
	a.opsByCul = make([][]int32, len(a.culT))
	for o := range a.opT {
		c := a.opTab.Key(int32(o)).A
		a.opsByCul[c] = append(a.opsByCul[c], int32(o))
	}
	r.Total = a.window(&a.total)
	for _, s := range a.stages {
		if s != nil {
			r.Stages = append(r.Stages, a.window(s))
		}
	}
	slices.SortStableFunc(r.Stages, func(x, y Window) int {
		if d := callsite.Rank(x.Stage) - callsite.Rank(y.Stage); d != 0 {
			return d
		}
		return strings.Compare(x.Stage, y.Stage)
	})
	if a.steps.Steps > 0 {
		r.Steps = a.window(&a.steps)
	}
	for _, row := range a.rows {
		w := row.Window
		w.Culprits = nil
		r.Every = append(r.Every, w)
	}
	for i, row := range a.rows {
		if i == maxSteps {
			r.Omitted = len(a.rows) - maxSteps
			break
		}
		r.StepRows = append(r.StepRows, row.Window)
	}
	a.callers()
	for _, s := range a.syncAcc {
		r.Syncs = append(r.Syncs, *s)
	}
	slices.SortFunc(r.Syncs, func(x, y Sync) int {
		if x.IdleDuring != y.IdleDuring {
			return cmp.Compare(y.IdleDuring, x.IdleDuring)
		}
		if x.HostTime != y.HostTime {
			return cmp.Compare(y.HostTime, x.HostTime)
		}
		return strings.Compare(x.Call, y.Call)
	})
	r.Waits = a.waits
	return r
}

// window finishes an accumulator: culprits by sampled time, shares of the
// window's host-bound time.
func (a *analyzer) window(w *acc) Window {
	out := w.Window
	type kv struct {
		key uint32
		t   int64
		n   int32 // culprit number
	}
	var cs []kv
	for _, n := range a.culByAcc[w.id] {
		cs = append(cs, kv{uint32(a.culTab.Key(n).B), a.culT[n], n})
	}
	slices.SortFunc(cs, func(x, y kv) int {
		if x.t != y.t {
			return cmp.Compare(y.t, x.t)
		}
		return cmp.Compare(x.key, y.key)
	})
	for i, x := range cs {
		if i == maxCulprits {
			break
		}
		c := Culprit{Time: x.t}
		if out.HostBound > 0 {
			c.Share = float64(x.t) / float64(out.HostBound)
		}
		var op uint32
		if a.hasStacks {
			if x.key != 0 {
				c.Frame = FrameName(a.st.Name(x.key))
			}
			var best int64 = -1
			for _, o := range a.opsByCul[x.n] {
				id, t := uint32(a.opTab.Key(o).B), a.opT[o]
				if t > best || t == best && id < op {
					op, best = id, t
				}
			}
		} else {
			op = x.key
		}
		if op != 0 {
			c.CPUOp = a.st.Name(op)
		}
		out.Culprits = append(out.Culprits, c)
	}
	var fs []kv
	for _, n := range a.fwByAcc[w.id] {
		fs = append(fs, kv{uint32(a.fwTab.Key(n).B), a.fwT[n], n})
	}
	slices.SortFunc(fs, func(x, y kv) int {
		if x.t != y.t {
			return cmp.Compare(y.t, x.t)
		}
		return cmp.Compare(x.key, y.key)
	})
	for i, x := range fs {
		if i == maxCulprits {
			break
		}
		c := Culprit{Frame: FrameName(a.st.Name(x.key)), Time: x.t}
		if out.HostBound > 0 {
			c.Share = float64(x.t) / float64(out.HostBound)
		}
		out.Framework = append(out.Framework, c)
	}
	return out
}

// FrameName shortens a Python frame to its package-relative path: after
// site-packages/dist-packages, from a framework root (sglang/, vllm/, …),
// or the last two path elements of an absolute path; relative paths as
// recorded.
func FrameName(name string) string {
	for _, m := range []string{"/site-packages/", "/dist-packages/"} {
		if i := strings.LastIndex(name, m); i >= 0 && i < strings.Index(name, ".py(") {
			return name[i+len(m):]
		}
	}
	if strings.HasPrefix(name, "/") || len(name) > 2 && name[1] == ':' {
		return callsite.Short(name)
	}
	return name
}

type (
	us    = units.US
	ratio = units.Ratio
)

type culpritJSON struct {
	Frame *string `json:"frame"`
	CPUOp *string `json:"cpu_op"`
	US    us      `json:"us"`
	Share ratio   `json:"share"`
}

type windowJSON struct {
	Window         string        `json:"window"`
	Kind           string        `json:"kind"`
	Stage          string        `json:"stage,omitempty"`
	File           string        `json:"file,omitempty"`
	Steps          *int          `json:"steps,omitempty"`
	WindowUS       us            `json:"window_us"`
	BusyUS         us            `json:"gpu_busy_us"`
	IdleUS         us            `json:"gpu_idle_us"`
	HostBoundUS    us            `json:"host_bound_us"`
	HostBoundShare ratio         `json:"host_bound_share"`
	DeviceSideUS   us            `json:"device_side_us"`
	UnknownUS      us            `json:"unknown_us"`
	OutsideUS      *us           `json:"outside_steps_us,omitempty"`
	Culprits       []culpritJSON `json:"culprits,omitempty"`
	// Framework: host-bound time by the innermost serving-framework or
	// user frame (outside torch/, triton/, built-ins), with stacks.
	Framework []frameworkJSON `json:"framework_culprits,omitempty"`
}

type frameworkJSON struct {
	Frame string `json:"frame"`
	US    us     `json:"us"`
	Share ratio  `json:"share"`
}

func toJSON(w Window, culprits bool) windowJSON {
	x := windowJSON{Window: w.Name, Kind: w.Kind, Stage: w.Stage, File: w.File, WindowUS: us(w.Window), BusyUS: us(w.Busy),
		IdleUS: us(w.Idle), HostBoundUS: us(w.HostBound), HostBoundShare: ratio(w.HostBoundShare()),
		DeviceSideUS: us(w.DeviceSide), UnknownUS: us(w.Unknown)}
	if w.Kind != "step" {
		n := w.Steps
		x.Steps = &n
	}
	if w.Kind == "total" || w.Kind == "stage" {
		o := us(w.OutsideSteps)
		x.OutsideUS = &o
	}
	if culprits {
		x.Culprits = []culpritJSON{}
		for _, c := range w.Culprits {
			y := culpritJSON{US: us(c.Time), Share: ratio(c.Share)}
			if c.Frame != "" {
				f := c.Frame
				y.Frame = &f
			}
			if c.CPUOp != "" {
				op := c.CPUOp
				y.CPUOp = &op
			}
			x.Culprits = append(x.Culprits, y)
		}
		for _, c := range w.Framework {
			x.Framework = append(x.Framework, frameworkJSON{c.Frame, us(c.Time), ratio(c.Share)})
		}
	}
	return x
}

// JSON writes idle.json.
func (r *Result) JSON(tool, version string, partial bool) []byte {
	type sync struct {
		Call       string `json:"call"`
		Calls      int64  `json:"calls"`
		HostUS     us     `json:"host_us"`
		IdleDuring us     `json:"gpu_idle_during_us"`
		// Kind is what the call does: synchronize | free | malloc |
		// host-alloc | copy | item.
		Kind string `json:"kind"`
		// IdleShare is IdleDuring over the GPU idle time of all windows.
		IdleShare ratio `json:"gpu_idle_share"`
		// Caller is the CPU op the calls ran in for most of that time.
		Caller string `json:"caller,omitempty"`
	}
	type wait struct {
		Op          string `json:"op"`
		Stage       string `json:"stage"`
		US          us     `json:"device_side_us"`
		SubmittedUS us     `json:"submitted_before_start_us"`
		After       string `json:"after_call,omitempty"`
		HostIn      string `json:"host_blocked_in,omitempty"`
		// OutsideSteps: the wait lies (mostly) outside every step window.
		OutsideSteps bool `json:"outside_steps,omitempty"`
	}
	out := struct {
		Tool          string       `json:"tool"`
		SchemaVersion string       `json:"schema_version"`
		Partial       bool         `json:"partial"`
		FiguresRank   *int         `json:"figures_rank,omitempty"`
		HasStacks     bool         `json:"python_stacks"`
		Total         windowJSON   `json:"total"`
		Stages        []windowJSON `json:"stages"`
		Steps         *windowJSON  `json:"steps,omitempty"`
		StepRows      []windowJSON `json:"step_rows"`
		StepsOmitted  int          `json:"step_rows_omitted"`
		Syncs         []sync       `json:"syncs"`
		Waits         []wait       `json:"longest_device_waits"`
	}{Tool: tool, SchemaVersion: version, Partial: partial, FiguresRank: r.FiguresRank, HasStacks: r.HasStacks, Total: toJSON(r.Total, true),
		Stages: []windowJSON{}, StepRows: []windowJSON{}, StepsOmitted: r.Omitted, Syncs: []sync{}, Waits: []wait{}}
	for _, w := range r.Stages {
		out.Stages = append(out.Stages, toJSON(w, true))
	}
	if r.Steps.Steps > 0 {
		s := toJSON(r.Steps, true)
		out.Steps = &s
	}
	for _, w := range r.StepRows {
		out.StepRows = append(out.StepRows, toJSON(w, false))
	}
	for _, s := range r.Syncs {
		out.Syncs = append(out.Syncs, sync{s.Call, s.Calls, us(s.HostTime), us(s.IdleDuring), s.Kind, ratio(frac(s.IdleDuring, r.Total.Idle)), s.Caller})
	}
	for _, w := range r.Waits {
		out.Waits = append(out.Waits, wait{w.Op, w.Stage, us(w.Time), us(w.Submitted), w.After, w.HostIn, w.OutsideSteps})
	}
	return units.JSON(out)
}

// Takeaways say why the GPU of each stage window idles, first the windows
// where it idles most of the time.
func (r *Result) Takeaways() []string {
	var out []string
	for _, w := range r.Stages {
		if t := r.takeaway(w); t != "" {
			out = append(out, w.Stage+": "+t)
		}
	}
	said := strings.Join(out, "\n")
	if t := r.blocked(said); t != "" {
		if len(out) == 1 {
			out[0] += " " + t
		} else {
			out = append(out, "idle: "+t)
		}
	}
	return out
}

// blockedWhat says what a blocking call does, by kind.
var blockedWhat = map[string]string{
	kindSync:      "waits for the device",
	kindFree:      "frees memory: each call waits for the device, an implicit synchronization",
	kindMalloc:    "allocates device memory and may wait for the device",
	kindHostAlloc: "allocates pinned host memory and may wait for the device",
	kindCopy:      "a synchronous copy: the host waits for it",
	kindItem:      "reads a GPU value on the host: a stream synchronization",
}

// blocked names the host calls that block on the device and held the
// host during a tenth or more of the GPU idle time.
func (r *Result) blocked(said string) string {
	w := r.Total
	if w.Window <= 0 || w.Idle*5 < w.Window {
		return ""
	}
	var parts []string
	for _, s := range r.Syncs {
		share := frac(s.IdleDuring, w.Idle)
		if share < 0.10 || len(parts) == 2 {
			break
		}
		if strings.Contains(said, "blocked in "+units.Text(s.Call)) {
			continue // the longest wait already names it
		}
		calls := "calls"
		if s.Calls == 1 {
			calls = "call"
		}
		p := fmt.Sprintf("`%s` (%s) during %s of the GPU idle time (%s ms over %d %s",
			units.Cell(s.Call), blockedWhat[s.Kind], units.Pct(share), ms(s.IdleDuring), s.Calls, calls)
		if s.Caller != "" {
			p += ", called from `" + units.Cell(s.Caller) + "`"
		}
		parts = append(parts, p+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "The host was blocked in " + strings.Join(parts, " and in ") + "."
}

func (r *Result) takeaway(w Window) string {
	if w.Window <= 0 || w.Idle*5 < w.Window { // idle under 20 %: not the story
		return ""
	}
	idle := float64(w.Idle) / float64(w.Window)
	cls := w.HostBound + w.DeviceSide
	if cls == 0 {
		return fmt.Sprintf("GPU idle %s of the window; the trace has no launch calls to tell host-bound from device-side idle.", units.Pct(idle))
	}
	hb := w.HostBoundShare()
	top := ""
	culprits, prep := w.Culprits, "in"
	if fw := w.Framework; len(fw) > 0 && len(culprits) > 0 && culprits[0].Frame != "" && !callsite.Meaningful(culprits[0].Frame) {
		// the innermost frame is torch's or Triton's: name the framework
		// (or user) code the host was running under
		culprits, prep = fw, "under"
	}
	for i, c := range culprits {
		name := "outside any profiled CPU op"
		switch {
		case c.Frame != "":
			name = prep + " `" + units.Cell(c.Frame) + "`"
		case c.CPUOp != "":
			name = "in `" + units.Cell(c.CPUOp) + "`"
		}
		if i == 0 {
			lead := ", largest part "
			if c.Share >= 0.5 {
				lead = ", mostly "
			}
			top = fmt.Sprintf("%s%s (%s of it)", lead, name, units.Pct(c.Share))
			if c.Share >= 0.5 || len(culprits) == 1 {
				break
			}
			continue
		}
		top += fmt.Sprintf(", then %s (%s)", name, units.Pct(c.Share))
		break
	}
	outside := ""
	if w.Steps > 0 && 2*w.OutsideSteps > w.Idle {
		// Most of the idle time is not in a step: say so before any
		// split that reads like a step's cost.
		outside = fmt.Sprintf(" (%s ms of it outside the step windows: warm-up, or the scheduler waiting between steps, not step time)", ms(w.OutsideSteps))
	}
	if hb >= 0.5 {
		return fmt.Sprintf("GPU idle %s%s: %s host-bound (the next op was not yet submitted)%s.", units.Pct(idle), outside, units.Pct(hb), top)
	}
	t := fmt.Sprintf("GPU idle %s%s: %s device-side (work already submitted), %s host-bound%s.", units.Pct(idle), outside, units.Pct(1-hb), units.Pct(hb), top)
	for _, x := range r.Waits {
		if x.Stage != w.Stage {
			continue
		}
		t += fmt.Sprintf(" Longest wait: %s ms", ms(x.Time))
		if x.OutsideSteps && w.Steps > 0 {
			t += " outside the step windows"
		}
		t += fmt.Sprintf(" before `%s`", units.Cell(units.Short(x.Op, 80)))
		if x.After != "" {
			t += fmt.Sprintf(", launched after `%s` (an event wait)", units.Cell(x.After))
		}
		if x.HostIn != "" {
			t += fmt.Sprintf(", while the host was blocked in %s", units.Text(x.HostIn))
		}
		t += "."
		break
	}
	return t
}

func ms(ns int64) string { return fmt.Sprintf("%.1f", float64(ns)/1e6) }
