package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// SchemaVersion is the version of steps.json's layout.
const SchemaVersion = "0.1.0"

// num is a figure written with at most 3 decimals (NaN/Inf as 0).
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return []byte(strconv.FormatFloat(units.Round(v, 3), 'f', -1, 64)), nil
}

type distJSON struct {
	Count int `json:"count"`
	Min   num `json:"min"`
	P50   num `json:"p50"`
	P90   num `json:"p90"`
	P99   num `json:"p99"`
	Max   num `json:"max"`
	Mean  num `json:"mean"`
	Std   num `json:"std"`
}

func dj(d Dist) distJSON {
	return distJSON{d.Count, num(d.Min), num(d.P50), num(d.P90), num(d.P99), num(d.Max), num(d.Mean), num(d.Std)}
}

type kernelJSON struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Total num    `json:"total_us"`
	Min   num    `json:"min_us"`
	P50   num    `json:"p50_us"`
	Max   num    `json:"max_us"`
	Mean  num    `json:"mean_us"`
	Std   num    `json:"std_us"`
}

type bucketJSON struct {
	Below *num `json:"below_us"` // null: the open last bucket
	Count int  `json:"count"`
	Time  num  `json:"time_us"`
}

type stageJSON struct {
	Stage        string       `json:"stage"`
	StepName     *string      `json:"step_name"`
	Steps        int          `json:"steps"`
	SteadyFrom   int          `json:"steady_from"`
	Wall         distJSON     `json:"wall_us"`
	Busy         distJSON     `json:"busy_us"`
	Idle         distJSON     `json:"idle_us"`
	Host         distJSON     `json:"host_us"`
	Tokens       *num         `json:"tokens_per_step"`
	TokensSource *string      `json:"tokens_source"`
	TokensPerS   *distJSON    `json:"tokens_per_s"`
	KernelNames  int          `json:"kernel_names"`
	Kernels      []kernelJSON `json:"kernels"`
	Short        []bucketJSON `json:"short_kernels"`
}

type rowJSON struct {
	Stage  string `json:"stage"`
	Figure string `json:"figure"`
	distJSON
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// JSON writes steps.json: per stage the step figures, and the same
// figures flat in rows (steps.csv).
func (r *Result) JSON(tool string, partial bool) []byte {
	out := struct {
		Tool          string      `json:"tool"`
		SchemaVersion string      `json:"schema_version"`
		Partial       bool        `json:"partial"`
		FiguresRank   *int        `json:"figures_rank,omitempty"`
		Stages        []stageJSON `json:"stages"`
		Rows          []rowJSON   `json:"rows"`
	}{Tool: tool, SchemaVersion: SchemaVersion, Partial: partial, FiguresRank: r.FiguresRank, Stages: []stageJSON{}, Rows: []rowJSON{}}
	for _, s := range r.Stages {
		x := stageJSON{Stage: s.Stage, StepName: strp(s.Name), Steps: s.Steps, SteadyFrom: s.SteadyFrom,
			Wall: dj(s.Wall), Busy: dj(s.Busy), Idle: dj(s.Idle), Host: dj(s.Host), KernelNames: s.KernelsTotal,
			Kernels: []kernelJSON{}, Short: []bucketJSON{}, TokensSource: strp(s.TokensSource)}
		if s.Tokens > 0 {
			t := num(s.Tokens)
			d := dj(s.TokensPerS)
			x.Tokens, x.TokensPerS = &t, &d
		}
		for _, k := range s.Kernels {
			x.Kernels = append(x.Kernels, kernelJSON{k.Name, k.Dist.Count, num(k.Total), num(k.Dist.Min), num(k.Dist.P50), num(k.Dist.Max), num(k.Dist.Mean), num(k.Dist.Std)})
		}
		for _, b := range s.Short {
			bj := bucketJSON{Count: b.Count, Time: num(b.Time)}
			if b.UpTo > 0 {
				v := num(b.UpTo)
				bj.Below = &v
			}
			x.Short = append(x.Short, bj)
		}
		out.Stages = append(out.Stages, x)
		if s.Steps > 0 {
			for _, f := range []struct {
				n string
				d Dist
			}{{"wall_us", s.Wall}, {"busy_us", s.Busy}, {"idle_us", s.Idle}, {"host_us", s.Host}} {
				out.Rows = append(out.Rows, rowJSON{s.Stage, f.n, dj(f.d)})
			}
			if s.Tokens > 0 {
				out.Rows = append(out.Rows, rowJSON{s.Stage, "tokens_per_s", dj(s.TokensPerS)})
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	return buf.Bytes()
}

// Lead is the summary's first line for a stage with steps: "step p50 1.726
// ms (p90 …, max …; 32 steady steps of 32), GPU busy 96.4 %, 0.062 ms
// idle: 12 % host-bound in X; 4636 tokens/s". culprit names where the
// host-bound idle went ("" = not known).
func (s *Stage) Lead(culprit string) string {
	if s.Steps == 0 || s.Wall.Count == 0 {
		return ""
	}
	var b strings.Builder
	noun := "steady steps"
	if s.Wall.Count == 1 {
		noun = "steady step"
	}
	fmt.Fprintf(&b, "step p50 %s ms (p90 %s, max %s ms; %d %s of %d", ms(s.Wall.P50), ms(s.Wall.P90), ms(s.Wall.Max), s.Wall.Count, noun, s.Steps)
	if s.SteadyFrom > 0 {
		fmt.Fprintf(&b, ", the first %d warm-up", s.SteadyFrom)
	}
	b.WriteString(")")
	if tw := s.Wall.Mean * float64(s.Wall.Count); tw > 0 {
		fmt.Fprintf(&b, ", GPU busy %.1f %%", 100*s.Busy.Mean/s.Wall.Mean)
	}
	fmt.Fprintf(&b, ", %s ms idle", ms(s.Idle.P50))
	if s.Idle.Mean > 0 {
		fmt.Fprintf(&b, ": %.0f %% host-bound", 100*s.Host.Mean/s.Idle.Mean)
		if culprit != "" && s.Host.Mean > 0 {
			fmt.Fprintf(&b, " in %s", culprit)
		}
	}
	if s.Tokens > 0 {
		fmt.Fprintf(&b, "; %.0f tokens/s (%.0f tokens a step)", s.TokensPerS.P50, s.Tokens)
	}
	return b.String()
}

func ms(us float64) string { return strconv.FormatFloat(units.Round(us/1e3, 3), 'f', 3, 64) }

// Markdown is the summary's step section.
func (r *Result) Markdown() []byte {
	var b strings.Builder
	have := false
	for _, s := range r.Stages {
		if s.Steps > 0 {
			have = true
		}
	}
	if !have {
		return nil
	}
	b.WriteString("## Steps\n\nPer stage over the steady steps (warm-up steps, slower than 1.5 × the median at the start, left out); ms.\n\n")
	b.WriteString("| Stage | Steps (steady) | Figure | p50 | p90 | p99 | min | max | mean | std |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Stages {
		if s.Steps == 0 {
			continue
		}
		for _, f := range []struct {
			n string
			d Dist
		}{{"wall", s.Wall}, {"GPU busy", s.Busy}, {"idle", s.Idle}, {"host-bound idle", s.Host}} {
			fmt.Fprintf(&b, "| %s | %d (%d) | %s | %s | %s | %s | %s | %s | %s | %s |\n", s.Stage, s.Steps, s.Wall.Count, f.n,
				ms(f.d.P50), ms(f.d.P90), ms(f.d.P99), ms(f.d.Min), ms(f.d.Max), ms(f.d.Mean), ms(f.d.Std))
		}
	}
	return []byte(b.String())
}
