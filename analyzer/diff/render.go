package diff

import (
	"github.com/gputriage/gputriage/analyzer/limits"
	"math"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/internal/escape"
)

// Units as every artifact writes them (analyzer/internal/units).
type (
	us    = units.US
	ratio = units.Ratio
)

func cell(s string) string         { return units.Cell(s) }
func text(s string) string         { return units.Text(s) }
func short(s string, n int) string { return units.Short(s, n) }

func pct(r ratio) string { return units.Pct(float64(r)) }

// pp writes a share delta in percentage points with a sign.
func pp(r ratio) string {
	v := math.Round(float64(r)*1000) / 10
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if v > 0 {
		s = "+" + s
	}
	if s == "-0.0" {
		s = "0.0"
	}
	return s + " pp"
}

func times(r ratio) string {
	if r == 0 {
		return "—"
	}
	return strconv.FormatFloat(math.Round(float64(r)*100)/100, 'f', 2, 64) + "×"
}

func signedInt(n int64) string {
	if n > 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// JSON returns diff.json.
// Verdict is the comparison in one word, for a CI step summary.
func (r *Result) Verdict() string {
	switch {
	case r.Refused:
		return "REFUSED (not comparable)"
	case r.Regression:
		return "REGRESSION"
	case r.Forced:
		return "compared with --force (not comparable)"
	}
	return "ok"
}

func (r *Result) JSON() []byte {
	return units.JSON(r)
}

// Markdown returns diff.md: the verdict, then the stage, category and
// kernel tables.
func (r *Result) Markdown() []byte {
	var b strings.Builder
	b.WriteString("## Run comparison (A → B): " + r.Verdict() + "\n\n")
	side := func(tag string, s SideInfo) {
		arch := s.ObservedArch
		if arch == "" {
			arch = "unknown"
		}
		b.WriteString("- " + tag + ": " + escape.CodeSpan(s.Name) + " — " + text(arch))
		if s.DeviceName != "" {
			b.WriteString(" (" + text(s.DeviceName) + ")")
		}
		b.WriteString(", " + strconv.FormatInt(s.Launches, 10) + " GPU ops of " + strconv.Itoa(s.Kernels) + " kernels, " +
			s.KernelTimeUS.String() + " us kernel time, " + s.BusyUS.String() + " us busy\n")
	}
	side("A", r.A)
	side("B", r.B)
	b.WriteString("\n")
	if r.Refused {
		b.WriteString("**Refused:** " + text(r.Reason) + ".\n")
		return []byte(b.String())
	}
	if r.Forced {
		b.WriteString("**Not comparable, forced:** " + text(r.Reason) + ". Read every delta below with that in mind.\n\n")
	}
	if len(r.Unverified) > 0 && r.SameInput {
		b.WriteString("Both sides are the same input: comparable by construction (" + text(strings.Join(r.Unverified, ", ")) + " unknown).\n\n")
	}
	if len(r.Gate) > 0 {
		b.WriteString("### Gate (--fail-on)\n\n| Rule | Measured | Δ (us) | Change | Result |\n| --- | --- | ---: | ---: | --- |\n")
		for _, g := range r.Gate {
			res := "pass"
			if g.Failed {
				res = "**FAIL**"
			}
			b.WriteString("| `" + cell(g.Text) + "` | " + text(g.Subject) + " | " + g.DeltaUS.Signed() + " | " + pct(g.Change) + " | " + res + " |\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("Kernel time " + r.Total.AUS.String() + " → " + r.Total.BUS.String() + " us (" + r.Total.DUS.Signed() + " us, " +
		times(r.Total.Ratio) + "); busy " + r.Busy.AUS.String() + " → " + r.Busy.BUS.String() + " us (" + r.Busy.DUS.Signed() +
		" us, " + times(r.Busy.Ratio) + "); GPU ops " + strconv.FormatInt(r.Total.ALaun, 10) + " → " + strconv.FormatInt(r.Total.BLaun, 10) +
		"; " + strconv.Itoa(r.NewKernels) + " new and " + strconv.Itoa(r.Removed) + " removed kernels.\n\n")

	b.WriteString("### Stages\n\n| Stage | Window A (us) | Window B (us) | Δ window | B/A | Kernel time A | Kernel time B | Δ kernel time | Ops A | Ops B |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range r.Stages {
		name := text(s.Stage)
		if s.Status != "both" {
			name += " (" + text(s.Status) + ")"
		}
		k := s.KernelUS
		b.WriteString("| " + strings.Join([]string{name, s.AWindow.String(), s.BWindow.String(), s.DWindow.Signed(), times(s.WindowX),
			k.AUS.String(), k.BUS.String(), k.DUS.Signed(), strconv.FormatInt(k.ALaun, 10), strconv.FormatInt(k.BLaun, 10)}, " | ") + " |\n")
	}
	b.WriteString("\n### Categories\n\n| Category | A (us) | B (us) | Δ (us) | Share A | Share B | Δ share | Launches A | Launches B |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, c := range r.Categories {
		b.WriteString("| " + strings.Join([]string{text(c.Category), c.AUS.String(), c.BUS.String(), c.DUS.Signed(), pct(c.AShare), pct(c.BShare),
			pp(c.DShare), strconv.FormatInt(c.ALaun, 10), strconv.FormatInt(c.BLaun, 10)}, " | ") + " |\n")
	}
	distinct := len(r.Kernels)
	if r.KernelsTruncated {
		distinct = limits.KernelRows - 1 + r.MergedKernels
	}
	b.WriteString("\n### Kernels (largest |Δ| first, top " + strconv.Itoa(min(r.opt.Limit, len(r.Kernels))) + " of " + strconv.Itoa(distinct) + ")\n\n")
	b.WriteString("| Kernel | Category | Status | A (us) | B (us) | Δ (us) | Share A | Share B | Launches A | Launches B | Δ launches |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, k := range r.Kernels[:min(r.opt.Limit, len(r.Kernels))] {
		b.WriteString("| " + strings.Join([]string{"`" + cell(short(k.Kernel, 90)) + "`", text(k.Category), text(k.Status), k.AUS.String(), k.BUS.String(),
			k.DUS.Signed(), pct(k.AShare), pct(k.BShare), strconv.FormatInt(k.ALaun, 10), strconv.FormatInt(k.BLaun, 10), signedInt(k.DLaun)}, " | ") + " |\n")
	}
	return []byte(b.String())
}
