package report

import (
	"fmt"
	"strings"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// RankLine is one rank's line in a rank folder's summary: the figures of
// its own analysis (ranks/<rank>/), kept small so that a rank's trace can
// be freed once its artifacts are written.
type RankLine struct {
	Rank, Steps                    int
	File, Dir, Launch, TopKernel   string
	KernelTime, Window, Busy, Idle int64 // ns
	ExposedComm                    int64 // ns
	TopShare, StepP50, StepP90     float64
}

// LineOf summarises a rank's analysis; dir is where its artifacts are.
func LineOf(a *Analysis, rank int, dir string) RankLine {
	l := RankLine{Rank: rank, Dir: dir}
	if len(a.TraceFiles) > 0 {
		l.File = a.Store.Files[a.TraceFiles[0]].Name
	}
	for _, s := range a.Breakdown.Stages {
		l.KernelTime += s.KernelTime
	}
	if len(a.Timelines) > 0 {
		t := a.Timelines[0]
		l.Window, l.Busy, l.Idle, l.ExposedComm = t.Total, t.Busy, t.Idle, t.ExposedComm
	}
	if len(a.Breakdown.Rows) > 0 {
		r := a.Breakdown.Rows[0]
		l.TopKernel, l.TopShare = r.Kernel, r.Share
	}
	if a.Launch != nil {
		l.Launch = a.Launch.Verdict.Verdict
	}
	if a.Steps != nil {
		// the stage with the most steps speaks for the rank
		for _, s := range a.Steps.Stages {
			if s.Wall.Count > l.Steps {
				l.Steps, l.StepP50, l.StepP90 = s.Wall.Count, s.Wall.P50, s.Wall.P90
			}
		}
	}
	return l
}

// perRankMarkdown is the summary's Per rank table.
func perRankMarkdown(ls []RankLine) string {
	var b strings.Builder
	b.WriteString("\n## Per rank\n\nEach rank analysed on its own; its breakdown, timeline, idle, launch and roofline artifacts are in the folder named. " +
		"GPU op figures count kernels, copies and fills, in the rank's GPU window (its breakdown.json stages and gpu_timeline.json); the Ranks section counts kernels only.\n\n" +
		"| Rank | Trace | GPU op time (ms) | GPU window (ms) | GPU busy (ms) | GPU idle (ms) | Exposed comm (ms) | Steps | Step p50 / p90 (ms) | Launch | Top kernel | Artifacts |\n" +
		"|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
	summarised := 0
	for _, l := range ls {
		st := "–"
		if l.Steps > 0 {
			st = fmt.Sprintf("%.3f / %.3f", l.StepP50/1e3, l.StepP90/1e3)
		}
		top := "–"
		if l.TopKernel != "" {
			top = fmt.Sprintf("`%s` (%s)", mdCode(short(l.TopKernel, 60)), pct(l.TopShare))
		}
		launch := l.Launch
		if launch == "" {
			launch = "–"
		}
		dir := "–"
		if l.Dir != "" {
			dir = "`" + mdCode(l.Dir) + "/`"
		} else {
			summarised++
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s |\n", l.Rank, mdCode(baseName(l.File)),
			ms(l.KernelTime), ms(l.Window), ms(l.Busy), ms(l.Idle), ms(l.ExposedComm), l.Steps, st, mdText(launch), top, dir)
	}
	if summarised > 0 {
		fmt.Fprintf(&b, "\n%d of %d ranks are summarised: their line here and their rows in breakdown.json and gpu_timeline.json, no folder of their own "+
			"(only the lowest %d ranks get one, limits.RankDirs; analyse a rank's trace alone for its artifacts).\n", summarised, len(ls), limits.RankDirs)
	}
	return b.String()
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
