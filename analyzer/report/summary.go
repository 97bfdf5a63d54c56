package report

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/internal/escape"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/timeline"

	"github.com/gputriage/gputriage/analyzer/internal/units"

	"github.com/gputriage/gputriage/analyzer/breakdown"
)

// TopRows is how many kernels per stage the summary lists.
const TopRows = 15

// Summary writes profile_summary.md, what a human reads first.
func Summary(a *Analysis) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# gputriage profile summary\n\n")
	for _, fi := range a.TraceFiles {
		f := &a.Store.Files[fi]
		if f.Source != nil {
			w("- Trace: `%s` (%s, %d records)\n", mdCode(f.Name), f.Source.Format, f.Events)
		} else {
			w("- Trace: `%s` (%s MB of JSON, %d events)\n", mdCode(f.Name), mb(f.Bytes), f.Events)
		}
		if f.Partial() {
			w("  - **Partial input**: %s. Everything before that point is analysed.\n", mdText(f.Problem))
		}
	}
	dev := a.Arch.DeviceName
	if dev == "" {
		dev = "unnamed device"
	}
	w("- Device: %s · observed arch **%s** · `arch_match` **%s** against target %s\n", mdText(dev), mdText(a.Arch.ObservedArch), mdText(a.Arch.ArchMatch), mdText(a.Target))
	w("  - %s\n", mdText(a.Arch.Reason))
	for _, n := range transferNotes(a) {
		w("  - %s\n", n)
	}
	if a.ROCmVersion != "" {
		w("- ROCm (HIP runtime) %s\n", a.ROCmVersion)
	}
	if a.CUDAVersion != "" {
		w("- CUDA runtime %s\n", a.CUDAVersion)
	}
	if d := a.Distributed; d != nil {
		w("- Distributed: %s rank %d of %d\n", mdText(d.Backend), d.Rank, d.WorldSize)
	}
	if a.CrossVerdict != "" {
		w("\n**Across ranks:** %s\n", mdText(a.CrossVerdict))
	}
	if len(a.PerRank) > 0 {
		w("%s", perRankMarkdown(a.PerRank))
		if a.FiguresRank != nil {
			w("\nThe sections below are rank %d's own figures (its trace alone, as in `ranks/%d/`), not a sum over the ranks; the Ranks section compares the ranks.\n", *a.FiguresRank, *a.FiguresRank)
		}
	}
	bd := a.Breakdown
	if len(bd.Stages) == 0 {
		w("\nNo GPU kernels, copies or fills in the trace: nothing to break down (a CPU-only or empty profile).\n")
		return []byte(b.String())
	}

	w("\n## Stages\n\n| Stage | GPU ops | GPU op time (ms) | GPU window (ms) | Avg parallelism | Top categories |\n|---|---:|---:|---:|---:|---|\n")
	for _, s := range bd.Stages {
		var tops []string
		for i, c := range s.Categories {
			if i == 3 {
				break
			}
			tops = append(tops, fmt.Sprintf("%s %s", c.Name, pct(c.Share)))
		}
		w("| %s | %d | %s | %s | %.2f× | %s |\n", mdText(s.Stage), s.KernelCount, ms(s.KernelTime), ms(s.Window), round(s.AvgParallelism, 2), strings.Join(tops, ", "))
	}

	for _, s := range bd.Stages {
		w("\n## %s: category share\n\n| Category | GPU time (ms) | Share |\n|---|---:|---:|\n", mdText(s.Stage))
		for _, c := range s.Categories {
			w("| %s | %s | %s |\n", mdText(c.Name), ms(c.GPUTime), pct(c.Share))
		}
		w("\n## %s: top kernels\n\n| Kernel | Category | Provider | GPU time (ms) | Share | Launches | Python location (site share) | CPU op |\n|---|---|---|---:|---:|---:|---|---|\n", mdText(s.Stage))
		n := 0
		for _, r := range bd.Rows {
			if r.Stage != s.Stage {
				continue
			}
			if n == TopRows {
				break
			}
			n++
			loc := "–"
			if r.PythonLocation != "" {
				loc = fmt.Sprintf("`%s` (%s)", mdCode(r.PythonLocation), pct(r.SiteShare))
			}
			op := "–"
			if r.CPUOp != "" {
				op = "`" + mdCode(short(r.CPUOp, 60)) + "`"
			}
			w("| `%s` | %s | %s | %s | %s | %d | %s | %s |\n", mdCode(short(r.Kernel, 110)), mdText(r.Category), mdText(r.Provider), ms(r.GPUTime), pct(r.Share), r.Launches, loc, op)
		}
	}

	for _, t := range summaryTimelines(a) {
		if t.Stage != "" {
			w("\n## GPU timeline, %s (TraceLens definitions, window: %s; `%s`)\n\n| | ms | %% of total |\n|---|---:|---:|\n", mdText(t.Stage), t.Window, mdCode(path.Base(strings.ReplaceAll(t.File, "\\", "/"))))
		} else {
			w("\n## GPU timeline (TraceLens definitions, window: %s)\n\n| | ms | %% of total |\n|---|---:|---:|\n", t.Window)
		}
		row := func(name string, v int64) {
			share := 0.0
			if t.Total > 0 {
				share = float64(v) / float64(t.Total)
			}
			w("| %s | %s | %s |\n", name, ms(v), pct(share))
		}
		row("computation", t.Computation)
		row("exposed communication", t.ExposedComm)
		row("exposed memcpy", t.ExposedMemcpy)
		row("busy", t.Busy)
		row("idle", t.Idle)
		row("total", t.Total)
	}

	if a.CrossRanks != "" {
		w("\n%s", a.CrossRanks)
	} else if rk := rankSummary(a); rk != nil {
		w("\n## Ranks\n\n| Rank | File | Kernel time, kernels only (ms) | Collective (ms) | Collective share | Exposed comm (ms) |\n|---:|---|---:|---:|---:|---:|\n")
		for _, r := range rk.Rows {
			w("| %d | `%s` | %s | %s | %s | %s |\n", r.Rank, mdCode(r.File), ms(int64(r.KernelTime)), ms(int64(r.Collective)), pct(float64(r.CollectiveOf)), ms(int64(r.ExposedComm)))
		}
		w("\nRank %d spends the most time inside collectives (%s ms more than rank %d): it waits for rank %d, the slowest to reach each collective. Look at rank %d's compute and host-side gaps first.\n",
			rk.MostWaitingRank, ms(int64(rk.CollectiveSkew)), rk.SlowestRank, rk.SlowestRank, rk.SlowestRank)
	}
	if a.MappingTrace != "" {
		w("\nKernels are mapped to code through the mapping trace `%s`.\n", mdCode(a.MappingTrace))
	}

	for _, sec := range a.Sections {
		w("\n%s", sec)
	}
	w("\n## Takeaways\n\n")
	// The step figures lead: what a step costs, and how much of it the GPU works.
	for _, t := range a.First {
		w("- %s\n", t)
	}
	// Why the GPU idles comes first: it decides whether kernel tuning matters.
	if a.Idle != nil {
		for _, t := range a.Idle.Takeaways() {
			w("- %s\n", t)
		}
	}
	if a.Launch != nil {
		if t := a.Launch.Takeaway(); t != "" {
			w("- launch: %s\n", t)
		}
	}
	for _, t := range a.Lead {
		w("- %s\n", t)
	}
	for _, s := range bd.Stages {
		for _, t := range takeaways(s, bd, a.Idle != nil) {
			w("- %s: %s\n", mdText(s.Stage), t)
		}
	}
	return []byte(b.String())
}

// why says the idle attribution already explained a mostly idle GPU.
func takeaways(s breakdown.Stage, bd *breakdown.Result, why bool) []string {
	var out []string
	if len(s.Categories) > 0 {
		c := s.Categories[0]
		t := fmt.Sprintf("%s dominates with %s of GPU time", mdText(c.Name), pct(c.Share))
		if len(s.Categories) > 1 {
			t += fmt.Sprintf("; with %s the top two hold %s", mdText(s.Categories[1].Name), pct(c.Share+s.Categories[1].Share))
		}
		out = append(out, t+".")
	}
	for _, c := range s.Categories {
		if c.Name == "communication" && c.Share >= 0.10 {
			out = append(out, fmt.Sprintf("communication is %s of GPU time: check overlap with compute and rank skew before tuning kernels.", pct(c.Share)))
		}
		if c.Name == "other" && c.Share > 0.02 {
			out = append(out, fmt.Sprintf("%s of GPU time is unclassified (`other`): see the kernel table.", pct(c.Share)))
		}
	}
	if s.AvgParallelism >= 1.15 {
		out = append(out, fmt.Sprintf("kernels overlap (%.2f× average parallelism): multi-stream execution is already in use.", round(s.AvgParallelism, 2)))
	} else if s.AvgParallelism > 0 && s.AvgParallelism < 0.5 && !why {
		out = append(out, fmt.Sprintf("the GPU is busy only %s of the stage window: look for launch overhead, host syncs or gaps before kernel tuning.", pct(s.AvgParallelism)))
	}
	if s.GraphKernels > 0 && !mapped(bd) {
		out = append(out, fmt.Sprintf("%d GPU ops come from %d graph launches; their Python call sites need a graph-off or capture mapping trace (`gputriage triage GRAPH_OFF GRAPH_ON`).", s.GraphKernels, bd.GraphLaunches))
	}
	if bd.HasPython && bd.PythonCoverage < 0.7 {
		out = append(out, fmt.Sprintf("only %s of GPU time maps to a Python call site.", pct(bd.PythonCoverage)))
	}
	return out
}

func mb(n int64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }

func short(s string, n int) string { return units.Short(s, n) }

// mdCode makes s safe inside a Markdown table cell in backticks.
func mdCode(s string) string { return escape.MarkdownCode(s) }

// mdText makes s safe as Markdown table/list text.
func mdText(s string) string { return escape.MarkdownText(s) }

// mapped reports whether a mapping trace supplied the graph rows' locations.
func mapped(bd *breakdown.Result) bool {
	for _, r := range bd.Rows {
		if r.MappedBy != "" {
			return true
		}
	}
	return false
}

// summaryTimelines is the TraceLens timelines the summary prints: one per
// stage when the traces are a stage folder's files (each file one stage's
// work: prefill and decode are separate profiling sessions, one window
// over both would be mostly the gap between them), the --stage one alone
// when a stage is asked for; else the first trace's.
func summaryTimelines(a *Analysis) []timeline.Timeline {
	if len(a.Timelines) == 0 {
		return nil
	}
	first := []timeline.Timeline{a.Timelines[0]}
	first[0].Stage = "" // the heading names no stage
	if len(a.Timelines) < 2 {
		return first
	}
	var staged []timeline.Timeline
	seen := map[string]bool{}
	for _, t := range a.Timelines {
		if t.Stage == "" || a.StageFilter != "" && t.Stage != a.StageFilter {
			continue
		}
		seen[t.Stage] = true
		staged = append(staged, t)
	}
	if len(seen) < 2 && !(a.StageFilter != "" && len(staged) > 0) {
		return first
	}
	slices.SortStableFunc(staged, func(x, y timeline.Timeline) int {
		if d := callsite.Rank(x.Stage) - callsite.Rank(y.Stage); d != 0 {
			return d
		}
		return strings.Compare(x.Stage, y.Stage)
	})
	return staged
}
