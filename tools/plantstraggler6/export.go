package plantstraggler6

import "math"

// Doc is one rank's trace as another set's Prepare and Edit hooks see it.
type Doc = doc

// Events: the trace's events (maps of the decoded JSON; numbers are json.Number).
func (d *doc) Events() []map[string]any { return d.events }

// SetEvents replaces the events (Edit: a cut trace).
func (d *doc) SetEvents(ev []map[string]any) { d.events = ev }

// Top: the trace's top-level object (distributedInfo, baseTimeNanoseconds…).
func (d *doc) Top() map[string]any { return d.top }

// IsCollKernel: a collective kernel (nccl/rccl/msccl or a custom all-reduce).
func IsCollKernel(e map[string]any) bool { return isCollKernel(e) }

// Args: the event's args, created when absent.
func Args(e map[string]any) map[string]any { return args(e) }

// Num reads a JSON number (NaN when absent).
func Num(v any) float64 { return numOr(v, math.NaN()) }

// Str reads a JSON string.
func Str(v any) string { return str(v) }

// CollsInIssueOrder: the rank's collective kernels by their launch (issue order).
func CollsInIssueOrder(d *Doc) []map[string]any {
	rm := newRank(d)
	out := make([]map[string]any, len(rm.colls))
	for i, o := range rm.colls {
		out[i] = o.e
	}
	return out
}

// shiftClock adds off µs to every time of the rank (host and GPU alike).
func shiftClock(d *doc, off float64) {
	for _, e := range d.events {
		if str(e["ph"]) == "M" {
			continue
		}
		if t, ok := num(e["ts"]); ok {
			e["ts"] = jnum(t + off)
		}
	}
}
