package collectives

import (
	"fmt"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// Definitions is what collectives.json says its numbers mean.
const Definitions = "per matched instance: wait_us[r] = latest start − start[r]; skew_us = latest start − earliest start; " +
	"last_rank = the rank with the latest start; transfer_us = earliest end − latest start; algbw = bytes / transfer; " +
	"busbw = algbw × NCCL's factor (allreduce 2(n−1)/n; allgather, reducescatter, alltoall (n−1)/n; broadcast, reduce, sendrecv 1); " +
	"bytes = max(In, Out msg nelems) × dtype size"

// JSON writes collectives.json: its rows, like ranks.json's steps, are
// encoded one at a time (a job's 65 k instances are 25 MB of text).
func (r *Result) JSON(tool, version string) string {
	return units.JSONObject(
		units.Member{Key: "tool", Value: tool},
		units.Member{Key: "schema_version", Value: version},
		units.Member{Key: "partial", Value: r.Partial},
		units.Member{Key: "definitions", Value: Definitions},
		units.Member{Key: "link", Value: r.Link},
		units.Member{Key: "notes", Value: notes(r.Notes)},
		units.Member{Key: "rows", Value: units.Rows(r.Instances)})
}

// RanksJSON writes ranks.json.
func (r *Result) RanksJSON(tool, version string) string {
	ranks := make([]int, len(r.Ranks))
	for i, x := range r.Ranks {
		ranks[i] = x.Rank
	}
	return units.JSONObject(
		units.Member{Key: "tool", Value: tool},
		units.Member{Key: "schema_version", Value: version},
		units.Member{Key: "partial", Value: r.Partial},
		units.Member{Key: "rank_ids", Value: ranks},
		units.Member{Key: "straggler", Value: r.Straggler},
		units.Member{Key: "ranks", Value: units.Rows(r.Ranks)},
		units.Member{Key: "steps", Value: units.Rows(r.Steps)},
		units.Member{Key: "stalls", Value: units.Rows(stalls(r.Stalls))},
		units.Member{Key: "notes", Value: notes(r.Notes)})
}

func stalls(s []Stall) []Stall {
	if s == nil {
		return []Stall{}
	}
	return s
}

func notes(n []string) []string {
	if n == nil {
		return []string{}
	}
	return n
}

// Verdict is the one-line cross-rank answer the summary leads with.
func (r *Result) Verdict() string {
	if r.Straggler == nil || r.Straggler.Rank == nil {
		if len(r.Instances) == 0 {
			return ""
		}
		return fmt.Sprintf("%d collectives matched across %d ranks, no rank arrived late", len(r.Instances), len(r.Ranks))
	}
	r0 := fmt.Sprintf("rank %d ", *r.Straggler.Rank)
	return r0 + "is the straggler: it " + strings.TrimPrefix(r.Straggler.Reason, r0) + "."
}

// Markdown is the summary's Ranks section.
func (r *Result) Markdown() string {
	var b strings.Builder
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("## Ranks\n\n")
	if v := r.Verdict(); v != "" {
		w("%s\n\n", units.Text(v))
	}
	var clocks []string
	for _, x := range r.Ranks {
		if x.ClockAligned && x.ClockOffset != nil {
			clocks = append(clocks, fmt.Sprintf("rank %d %s ms", x.Rank, signedMS(int64(*x.ClockOffset))))
		}
	}
	if len(clocks) > 0 {
		w("Clocks aligned: %s ahead of the other ranks' clocks, by the end times of their collectives (an instance ends together on every rank); taken out before skew, wait and the straggler.\n\n", strings.Join(clocks, ", "))
	}
	// Kernels only (cat kernel, no copies or fills), in the first-to-last
	// kernel window: not the GPU op figures of a rank's own breakdown.
	w("Kernel figures count kernels only: their summed time, their union (busy) and the idle share of the first-to-last kernel window.\n\n")
	w("| Rank | File | Kernel time, kernels only (ms) | Kernel busy (ms) | Kernel-window idle | Collective (ms) | Exposed comm (ms) | Waiting in collectives (ms) | Lateness caused (ms) | Last at |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Ranks {
		w("| %d | `%s` | %s | %s | %s | %s | %s | %s | %s | %d |\n", x.Rank, units.Cell(x.File), ms(x.Kernel), ms(x.Busy), units.Pct(float64(x.IdleShare)), ms(x.Collective), ms(x.ExposedComm), ms(x.Wait), ms(x.Lateness), x.LastAt)
	}
	if s := r.Straggler; s != nil {
		w("\nMethod: %s.\n", units.Text(s.Method))
		for _, e := range s.Evidence {
			w("\n- %s", units.Text(e.Text))
		}
		w("\n")
	}
	if len(r.Steps) > 0 {
		w("\n| Step | Straggler | Lateness (ms) | Worst collective | Also late there (ms behind the earliest peer) | Instances | Largest skew (ms) | Last there | At |\n|---|---:|---:|---|---|---:|---:|---:|---|\n")
		for i, s := range r.Steps {
			if i == 20 {
				w("| … %d more steps in ranks.json | | | | | | | | |\n", len(r.Steps)-20)
				break
			}
			also := "–"
			if len(s.LateRanks) > 0 {
				also = lateText(s.LateRanks)
			}
			w("| `%s` | %d | %s | %s | %s | %d | %s | %d | %s |\n", units.Cell(s.Step), s.StragglerRank, ms(s.Lateness), units.Text(s.Collective), also, s.Instances,
				ms(s.WorstSkew), s.WorstRank, units.Text(s.WorstCollective))
		}
	}
	if len(r.Stalls) > 0 {
		w("\nStalls (a rank far later than it usually arrives at that collective, or late by far more GPU work before it than its peers ran):\n")
		for i := range r.Stalls {
			if i == 10 {
				w("\n- … %d more in ranks.json", len(r.Stalls)-10)
				break
			}
			w("\n- %s", units.Text(r.Stalls[i].text()))
		}
		w("\n")
	}
	// the largest skews
	top := topBySkew(r.Instances, 10)
	if len(top) > 0 {
		w("\n| Collective | Step | Skew (µs) | Last rank | Transfer (µs) | Bytes | busbw (GB/s) | of link peak |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
		for _, in := range top {
			bytes, bus, of := "–", "–", "–"
			if in.Bytes != nil {
				bytes = fmt.Sprint(*in.Bytes)
			}
			if in.BusBW != nil {
				bus = fmt.Sprintf("%.1f", *in.BusBW)
			}
			if in.OfPeak != nil {
				of = units.Pct(*in.OfPeak)
			}
			w("| %s | `%s` | %s | %d | %s | %s | %s | %s |\n", units.Text(in.Label()), units.Cell(in.Step), in.Skew, in.LastRank, in.Transfer, bytes, bus, of)
		}
	}
	for _, n := range r.Notes {
		w("\nNote: %s.\n", units.Text(n))
	}
	if r.Link != nil {
		w("\nLink peak: %s %s, %.1f GB/s per direction (%s).\n", units.Text(r.Link.Device), units.Text(r.Link.Fabric), r.Link.GBPS, units.Text(r.Link.Source))
	}
	return b.String()
}

func topBySkew(ins []Instance, n int) []*Instance {
	var out []*Instance
	for i := range ins {
		out = append(out, &ins[i])
	}
	// partial selection: stable by skew desc, then order
	for i := 0; i < len(out) && i < n; i++ {
		m := i
		for j := i + 1; j < len(out); j++ {
			if out[j].Skew > out[m].Skew {
				m = j
			}
		}
		out[i], out[m] = out[m], out[i]
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}
