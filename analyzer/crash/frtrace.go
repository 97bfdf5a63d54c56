package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// The flight-recorder analyzer's text report (python -m
// torch.distributed.flight_recorder.fr_trace <dir> -p <prefix>, formerly
// tools/flight_recorder/fr_trace.py): when the per-rank dumps disagree it
// prints, per collective,
//
//	Not all ranks joining collective: sequence number: 31117
//	internal record id: 31116
//	group info: 0:default_pg
//	collective: nccl:all_reduce
//	missing ranks: {3, 4, 5, 6, 7}
//	world size: 8
//	expected ranks: {0, 1, …}
//	collective state: scheduled
//
// (pytorch/pytorch#140969's test plan; #141924 makes it print the missing
// ranks). The analyzer already compared the dumps: the missing ranks are
// the ranks that never joined the collective the others wait in.

// frTraceLine is one field of that report.
type frTraceLine struct {
	field string // start | missing | world | collective | group | state | culprit
	n     int    // sequence number / world size
	ranks []int  // missing ranks; the culprit rank
	text  string // collective / group / state value; the culprit's error type
}

var (
	// "…: sequence number: N" (#140969's test plan), "…, sequence number:
	// N" (the builder's logger_msg today), "… collective 5 at entry 4" (the
	// torchfrtrace tutorial, pytorch/tutorials#3163)
	reFRTraceStart = lazyre.New(`Not all ranks joining collective(?:(?::| ,|,)?\s*sequence number:?\s*(\d+)| (\d+) at entry \d+)`)
	// a mismatch the analyzer pinned on one rank: "error msg: Culprit rank
	// 6; Error type: COLLECTIVE_SIZE_MISMATCH, Expected input sizes: …"
	// (components/builder.py and types.py: f"Culprit rank {error[0]};
	// {str(error[1])}", MatchInfo's "Error type: {state.name}, {culprit}")
	reFRTraceCulprit = lazyre.New(`Culprit rank (\d+); Error type: ([A-Z_]+)`)
	reFRTraceField   = lazyre.New(`^\s*(missing ranks|world size|collective|group info|collective state):\s*(.*?)\s*$`)
)

// extractFRTraceLine reads one line of fr_trace's mismatch report.
func extractFRTraceLine(t string) (frTraceLine, bool) {
	if m := reFRTraceStart.FindStringSubmatch(t); m != nil {
		n := m[1]
		if n == "" {
			n = m[2]
		}
		return frTraceLine{field: "start", n: atoiDef(n, -1)}, true
	}
	if m := findIf(t, "Culprit rank ", reFRTraceCulprit); m != nil {
		return frTraceLine{field: "culprit", ranks: []int{atoiDef(m[1], -1)}, text: m[2]}, true
	}
	m := reFRTraceField.FindStringSubmatch(t)
	if m == nil {
		return frTraceLine{}, false
	}
	v := m[2]
	switch m[1] {
	case "missing ranks":
		var rs []int
		for _, f := range strings.FieldsFunc(strings.Trim(v, "{}[]()"), func(r rune) bool { return r == ',' || r == ' ' }) {
			if r, err := strconv.Atoi(f); err == nil && r >= 0 && len(rs) < maxRanks {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			return frTraceLine{}, false
		}
		return frTraceLine{field: "missing", ranks: rs}, true
	case "world size":
		return frTraceLine{field: "world", n: atoiDef(v, -1)}, true
	case "collective":
		return frTraceLine{field: "collective", text: v}, true
	case "group info":
		return frTraceLine{field: "group", text: v}, true
	default:
		return frTraceLine{field: "state", text: v}, true
	}
}

// frTraceRec is one "Not all ranks joining collective" report.
type frTraceRec struct {
	seq                int
	missing            []int
	culprits           []int  // ranks the analyzer blamed for a mismatch ("Culprit rank N; Error type: …")
	errType            string // the first culprit's error type (COLLECTIVE_SIZE_MISMATCH …)
	world              int
	coll, group, state string
	ev                 Evidence
	lines              int // lines read since the header
}

// frTraceField feeds the report's lines to the open record; false when
// the line is not part of it (the record stays open for a few lines: the
// stack trace and blank lines sit between the fields).
func (p *ncclParser) frTraceField(l *line) bool {
	f, ok := extractFRTraceLine(l.text)
	if !ok {
		if p.frt != nil {
			if p.frt.lines++; p.frt.lines > 16 {
				p.frt = nil
			}
		}
		return false
	}
	inc := &p.s.b.facts.inc
	if f.field == "culprit" && p.frt == nil {
		// the mismatch report without the "Not all ranks joining" header
		// ("Collective N at entry M errors" / "error msg: …")
		if len(inc.frTrace) >= maxRanks {
			return true
		}
		p.s.format("flight_recorder_report")
		p.frt = &frTraceRec{seq: -1, world: -1, ev: l.ev(p.s)}
		inc.frTrace = append(inc.frTrace, p.frt)
	}
	if f.field == "start" {
		p.s.format("flight_recorder_report")
		if len(inc.frTrace) >= maxRanks {
			p.frt = nil
			return true
		}
		p.frt = &frTraceRec{seq: f.n, world: -1, ev: l.ev(p.s)}
		inc.frTrace = append(inc.frTrace, p.frt)
		return true
	}
	r := p.frt
	if r == nil {
		return false
	}
	r.lines++
	switch f.field {
	case "missing":
		r.missing = f.ranks
	case "culprit":
		if r.errType == "" {
			r.errType = f.text
		}
		if len(f.ranks) == 1 && f.ranks[0] >= 0 && !containsInt(r.culprits, f.ranks[0]) && len(r.culprits) < maxRanks {
			r.culprits = append(r.culprits, f.ranks[0])
		}
	case "world":
		r.world = f.n
	case "collective":
		r.coll = f.text
	case "group":
		r.group = f.text
	case "state":
		r.state = f.text
	}
	return true
}

// frTraceCulprit: the ranks fr_trace reports missing from a collective.
// Several reports name the first one (the earliest sequence number is where
// the ranks diverged); a report missing every rank of the world says nothing.
func frTraceCulprit(inc *incidentFacts, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	var best *frTraceRec
	for _, r := range inc.frTrace {
		if len(r.missing) == 0 || (r.world > 0 && len(r.missing) >= r.world) {
			continue
		}
		if best == nil || r.seq < best.seq {
			best = r
		}
	}
	if best == nil {
		return frMismatchCulprit(inc, mk)
	}
	what := "flight-recorder analysis: rank(s) " + intsString(best.missing) + " never joined collective " + strconv.Itoa(best.seq)
	if best.coll != "" {
		what += " (" + best.coll + ")"
	}
	if best.world > 0 {
		what += " of a group of " + strconv.Itoa(best.world)
	}
	c := mk(best.missing[0], 0, "", what, "fr_trace report: missing ranks of the first collective not all ranks joined", best.ev)
	if len(best.missing) > 1 {
		c.Rank, c.Ranks = nil, best.missing
	}
	return c, true
}

// frMismatchCulprit: no rank missing, but the analyzer blamed a rank for a
// mismatch (sizes, type, state): the rank whose collective differs from
// the others' is the one they wait for (a desync).
func frMismatchCulprit(inc *incidentFacts, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	for _, r := range inc.frTrace {
		if len(r.culprits) == 0 {
			continue
		}
		what := "flight-recorder analysis: rank(s) " + intsString(r.culprits) + " issued a collective that does not match the others'"
		if r.errType != "" {
			what += " (" + r.errType + ")"
		}
		if r.seq >= 0 {
			what += " at collective " + strconv.Itoa(r.seq)
		}
		c := mk(r.culprits[0], 0, "", what, "fr_trace report: the culprit rank of a collective mismatch", r.ev)
		if len(r.culprits) > 1 {
			c.Rank, c.Ranks = nil, r.culprits
		}
		return c, true
	}
	return Culprit{}, false
}

// frTraceFinding: a report of a collective not all ranks joined is a
// collective hang (the watchdog's view from the dumps).
func (b *builder) frTraceFinding(work map[string]*agg) {
	recs := b.facts.inc.frTrace
	if len(recs) == 0 {
		return
	}
	a := work[ClassCollectiveTimeout]
	if a == nil {
		a = newAgg(ClassCollectiveTimeout, 0.75)
		work[ClassCollectiveTimeout] = a
	}
	a.f.Count++
	for _, r := range recs {
		a.evidence(r.ev)
		for _, x := range r.missing {
			a.rank(x)
		}
	}
	r := recs[0]
	switch {
	case r.seq < 0:
		a.addReason("flight-recorder analysis: ranks issued mismatching collectives (" + r.errType + ")")
	case len(r.missing) == 0 && len(r.culprits) > 0:
		a.addReason("flight-recorder analysis: collective " + strconv.Itoa(r.seq) + " mismatches across ranks (" + r.errType + ")")
	default:
		a.addReason("flight-recorder analysis: not all ranks joined collective " + strconv.Itoa(r.seq))
	}
	if r.coll != "" {
		a.setStr(&a.f.OpType, r.coll)
	}
	if r.state != "" {
		a.detail("flight_recorder_state", r.state)
	}
	if r.group != "" {
		a.detail("flight_recorder_group", r.group)
	}
}
