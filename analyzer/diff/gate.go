package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// Threshold is one --fail-on rule: how much B may be slower than A before
// the diff counts as a regression. Scope is total (kernel time), busy,
// category or kernel; Name the category or kernel (canonical name, or a
// substring of it); the limit is a percentage of A's time or an absolute
// number of microseconds.
type Threshold struct {
	Text    string  `json:"rule"`
	Scope   string  `json:"scope"`
	Name    string  `json:"name,omitempty"`
	Percent float64 `json:"percent,omitempty"`
	US      float64 `json:"us,omitempty"`
}

// GateResult is a threshold and what the comparison did against it.
type GateResult struct {
	Threshold
	Subject string `json:"subject"` // what was measured ("total", "category gemm", "kernel …")
	DeltaUS us     `json:"delta_us"`
	Change  ratio  `json:"change"` // delta / A
	Failed  bool   `json:"failed"`
	missing bool   // names nothing either run has
}

// ParseThreshold reads "total:+5%", "busy:+2%", "category:gemm:+10%",
// "kernel:NAME:+50us", "window:+20%" (every stage's window, or
// window:STAGE:…), "idle:+10%" (GPU idle time) and "step:+5%" (mean step
// time) ("+" optional: only slowdowns count). Kernel time alone cannot see
// a host-bound regression: graph-on → eager raised a decode window 11×
// with kernel time +1.8 %.
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{Text: s}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return t, fmt.Errorf("--fail-on %q: want SCOPE:LIMIT, e.g. total:+5%%, category:gemm:+10%%, kernel:NAME:+50us", s)
	}
	head, lim := s[:i], strings.TrimPrefix(strings.TrimSpace(s[i+1:]), "+")
	scope, name, _ := strings.Cut(head, ":")
	t.Scope, t.Name = strings.ToLower(strings.TrimSpace(scope)), strings.TrimSpace(name)
	switch t.Scope {
	case "window":
	case "total", "busy", "idle", "step":
		if t.Name != "" {
			return t, fmt.Errorf("--fail-on %q: %s takes no name", s, t.Scope)
		}
	case "category", "kernel":
		if t.Name == "" {
			return t, fmt.Errorf("--fail-on %q: %s needs a name (%s:NAME:LIMIT)", s, t.Scope, t.Scope)
		}
	default:
		return t, fmt.Errorf("--fail-on %q: scope must be total, busy, idle, window, step, category or kernel", s)
	}
	var err error
	switch {
	case strings.HasSuffix(lim, "%"):
		t.Percent, err = strconv.ParseFloat(strings.TrimSuffix(lim, "%"), 64)
	case strings.HasSuffix(lim, "us"):
		t.US, err = strconv.ParseFloat(strings.TrimSuffix(lim, "us"), 64)
	default:
		err = fmt.Errorf("no unit")
	}
	if err != nil || t.Percent < 0 || t.US < 0 {
		return t, fmt.Errorf("--fail-on %q: limit must be a non-negative percentage (5%%) or microseconds (50us)", s)
	}
	return t, nil
}

// gate checks every threshold; a named category, kernel or stage absent
// from both runs fails and is marked missing (a usage error: a misspelt
// name must not pass silently, nor read as a regression).
func gate(r *Result, da, db sideData, ths []Threshold) []GateResult {
	out := []GateResult{}
	for _, t := range ths {
		g := GateResult{Threshold: t, Subject: t.Scope}
		var d Delta
		found := true
		switch t.Scope {
		case "total":
			d = r.Total
		case "busy":
			d = r.Busy
		case "idle":
			d = Delta{AUS: da.info.IdleUS, BUS: db.info.IdleUS, DUS: subUS(db.info.IdleUS, da.info.IdleUS)}
			found = da.info.IdleUS > 0 || db.info.IdleUS > 0
		case "step":
			d = Delta{AUS: da.info.StepUS, BUS: db.info.StepUS, DUS: subUS(db.info.StepUS, da.info.StepUS)}
			found = da.info.Steps > 0 && db.info.Steps > 0
			g.Subject = "mean step time"
		case "window":
			found = false
			for _, s := range r.Stages {
				if t.Name == "" || strings.EqualFold(s.Stage, t.Name) {
					d.AUS, d.BUS = addUS(d.AUS, s.AWindow), addUS(d.BUS, s.BWindow)
					d.DUS = subUS(d.BUS, d.AUS)
					found = true
				}
			}
			g.Subject = "window"
			if t.Name != "" {
				g.Subject = "window " + t.Name
			}
		case "category":
			found = false
			for _, c := range r.Categories {
				if strings.EqualFold(c.Category, t.Name) {
					d, found = c.Delta, true
				}
			}
			g.Subject = "category " + t.Name
		case "kernel":
			// Every kernel whose canonical name contains the text, summed.
			found = false
			for _, k := range r.allKernels {
				if strings.Contains(k.Kernel, t.Name) {
					d.AUS += k.AUS
					d.BUS += k.BUS
					d.DUS += k.DUS
					found = true
				}
			}
			g.Subject = "kernel " + t.Name
		}
		g.DeltaUS = d.DUS
		if d.AUS > 0 {
			g.Change = ratio(float64(d.DUS) / float64(d.AUS))
		}
		switch {
		case !found:
			g.Failed, g.missing, g.Subject = true, true, g.Subject+" (not in either run)"
		case t.Percent > 0 || t.US == 0:
			g.Failed = d.DUS > 0 && (d.AUS == 0 || float64(d.DUS) > float64(d.AUS)*t.Percent/100)
		default:
			g.Failed = float64(d.DUS) > t.US*1000
		}
		out = append(out, g)
	}
	return out
}
