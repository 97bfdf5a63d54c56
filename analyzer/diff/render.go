package diff

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// us is a duration in ns written as µs with exactly three decimals.
type us int64

func (u us) MarshalJSON() ([]byte, error) { return []byte(u.String()), nil }

func (u us) String() string {
	n := int64(u)
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	f := strconv.FormatInt(n%1000, 10)
	return sign + strconv.FormatInt(n/1000, 10) + "." + strings.Repeat("0", 3-len(f)) + f
}

// signed writes a delta with an explicit sign.
func (u us) signed() string {
	if u > 0 {
		return "+" + u.String()
	}
	return u.String()
}

// ratio is a share or a ratio written with 6 decimals.
type ratio float64

func (r ratio) MarshalJSON() ([]byte, error) {
	x := float64(r)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = 0
	}
	return []byte(strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)), nil
}

func pct(r ratio) string {
	return strconv.FormatFloat(math.Round(float64(r)*1000)/10, 'f', 1, 64) + " %"
}

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
func (r *Result) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return []byte(`{"error":"encoding failed"}` + "\n")
	}
	return buf.Bytes()
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func short(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

// Markdown returns diff.md: the verdict, then the stage, category and
// kernel tables.
func (r *Result) Markdown() []byte {
	var b strings.Builder
	b.WriteString("## Run comparison (A → B)\n\n")
	side := func(tag string, s SideInfo) {
		arch := s.ObservedArch
		if arch == "" {
			arch = "unknown"
		}
		b.WriteString("- " + tag + ": `" + cell(s.Name) + "` — " + arch)
		if s.DeviceName != "" {
			b.WriteString(" (" + cell(s.DeviceName) + ")")
		}
		b.WriteString(", " + strconv.FormatInt(s.Launches, 10) + " GPU ops of " + strconv.Itoa(s.Kernels) + " kernels, " +
			s.KernelTimeUS.String() + " us kernel time, " + s.BusyUS.String() + " us busy\n")
	}
	side("A", r.A)
	side("B", r.B)
	b.WriteString("\n")
	if r.Refused {
		b.WriteString("**Refused:** " + r.Reason + ".\n")
		return []byte(b.String())
	}
	if r.Forced {
		b.WriteString("**Not comparable, forced:** " + r.Reason + ". Read every delta below with that in mind.\n\n")
	}
	if len(r.Unverified) > 0 {
		b.WriteString("Not verified (unknown on at least one side): " + strings.Join(r.Unverified, ", ") + ".\n\n")
	}
	b.WriteString("Kernel time " + r.Total.AUS.String() + " → " + r.Total.BUS.String() + " us (" + r.Total.DUS.signed() + " us, " +
		times(r.Total.Ratio) + "); busy " + r.Busy.AUS.String() + " → " + r.Busy.BUS.String() + " us (" + r.Busy.DUS.signed() +
		" us, " + times(r.Busy.Ratio) + "); GPU ops " + strconv.FormatInt(r.Total.ALaun, 10) + " → " + strconv.FormatInt(r.Total.BLaun, 10) +
		"; " + strconv.Itoa(r.NewKernels) + " new and " + strconv.Itoa(r.Removed) + " removed kernels.\n\n")

	b.WriteString("### Stages\n\n| Stage | Window A (us) | Window B (us) | Δ window | B/A | Kernel time A | Kernel time B | Δ kernel time | Ops A | Ops B |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range r.Stages {
		name := s.Stage
		if s.Status != "both" {
			name += " (" + s.Status + ")"
		}
		k := s.KernelUS
		b.WriteString("| " + strings.Join([]string{name, s.AWindow.String(), s.BWindow.String(), s.DWindow.signed(), times(s.WindowX),
			k.AUS.String(), k.BUS.String(), k.DUS.signed(), strconv.FormatInt(k.ALaun, 10), strconv.FormatInt(k.BLaun, 10)}, " | ") + " |\n")
	}
	b.WriteString("\n### Categories\n\n| Category | A (us) | B (us) | Δ (us) | Share A | Share B | Δ share | Launches A | Launches B |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, c := range r.Categories {
		b.WriteString("| " + strings.Join([]string{c.Category, c.AUS.String(), c.BUS.String(), c.DUS.signed(), pct(c.AShare), pct(c.BShare),
			pp(c.DShare), strconv.FormatInt(c.ALaun, 10), strconv.FormatInt(c.BLaun, 10)}, " | ") + " |\n")
	}
	b.WriteString("\n### Kernels (largest |Δ| first, top " + strconv.Itoa(min(r.opt.Limit, len(r.Kernels))) + " of " + strconv.Itoa(len(r.Kernels)) + ")\n\n")
	b.WriteString("| Kernel | Category | Status | A (us) | B (us) | Δ (us) | Share A | Share B | Launches A | Launches B | Δ launches |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, k := range r.Kernels[:min(r.opt.Limit, len(r.Kernels))] {
		b.WriteString("| " + strings.Join([]string{"`" + cell(short(k.Kernel, 90)) + "`", k.Category, k.Status, k.AUS.String(), k.BUS.String(),
			k.DUS.signed(), pct(k.AShare), pct(k.BShare), strconv.FormatInt(k.ALaun, 10), strconv.FormatInt(k.BLaun, 10), signedInt(k.DLaun)}, " | ") + " |\n")
	}
	return []byte(b.String())
}
