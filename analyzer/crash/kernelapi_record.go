package crash

import (
	"strconv"
	"strings"
)

// kapiRecord assembles one call record from the rows after its "API Call:"
// line (level 3 arguments, level 5 statistics, the Output record). It keeps
// only the open record and decides no class: a finished record is a fact
// (kapiCallRecord) handed to kernelAPIFact.endCall.
type kapiRecord struct {
	open    bool
	call    string
	ev      Evidence
	section byte // 'i' inputs, 'o' output, 0 before either
	cur     *kapiArg
	args    []string
	inBad   bool
	outBad  string
	done    bool
	level   int
}

// kapiCallRecord is one finished call record.
type kapiCallRecord struct {
	call      string
	ev        Evidence
	args      []string // summarised, at most 16
	done      bool     // an Output record followed the call
	inputsBad bool     // an input had NaN/Inf
	badOutput string   // the first NaN/Inf output: "return: nan_count=3"
	level     int      // 3 with argument rows, 5 with statistics, else 0
}

type kapiArg struct {
	name, value, shape, dtype, contiguous string
	nan, inf                              int
}

// start opens the record of a call line.
func (r *kapiRecord) start(call string, ev Evidence) {
	*r = kapiRecord{open: true, call: call, ev: ev, args: r.args[:0]}
}

// row reads one line of the open record: consumed is false when the line
// belongs to the record-start logic; done is the record it finished.
func (r *kapiRecord) row(t string) (consumed bool, done *kapiCallRecord) {
	w := extractKAPIRow(t)
	switch w.kind {
	case rowBoundary:
		return false, nil
	case rowRule:
		if r.section == 'o' {
			return true, r.finish()
		}
		return true, nil
	case rowSkip:
		return true, nil
	case rowInputs:
		r.flushArg()
		r.section = 'i'
		r.level = max(r.level, 3)
		return true, nil
	case rowOutput:
		r.flushArg()
		r.section = 'o'
		r.done = true
		return true, nil
	}
	if r.section == 0 {
		// level 1: the record is the call line alone
		return false, r.finish()
	}
	switch {
	case r.section == 'o' && r.cur == nil && w.kind == rowOther && strings.HasSuffix(t, "("):
		// FlashInfer prints the return value unnamed under "Output value:"
		// ("  Tensor(" and its fields, _log_function_outputs)
		r.cur = &kapiArg{name: "return", value: t}
		return true, nil
	case w.kind == rowArg:
		r.flushArg()
		r.cur = &kapiArg{name: w.name, value: w.value}
		r.fields(w.fields)
		return true, nil
	case r.cur != nil:
		r.fields(w.fields)
		return true, nil
	case w.kind == rowClose:
		return true, nil
	}
	// anything else ends the record (the program's next output line)
	return false, r.finish()
}

// finish closes the record; nil when none was open.
func (r *kapiRecord) finish() *kapiCallRecord {
	if !r.open {
		return nil
	}
	r.flushArg()
	c := &kapiCallRecord{call: r.call, ev: r.ev, args: r.args, done: r.done, inputsBad: r.inBad, badOutput: r.outBad, level: r.level}
	r.open, r.section, r.cur, r.inBad, r.outBad = false, 0, nil, false, ""
	return c
}

func (r *kapiRecord) fields(f kapiArgFields) {
	a := r.cur
	if f.shape != "" {
		a.shape = f.shape
	}
	if f.dtype != "" {
		a.dtype = f.dtype
	}
	if f.contiguous != "" {
		a.contiguous = f.contiguous
	}
	if f.hasNaN {
		a.nan = f.nan
		r.level = max(r.level, 5)
	}
	if f.hasInf {
		a.inf = f.inf
	}
}

func (r *kapiRecord) flushArg() {
	a := r.cur
	if a == nil {
		return
	}
	r.cur = nil
	bad := ""
	if a.nan > 0 {
		bad = "nan_count=" + strconv.Itoa(a.nan)
	}
	if a.inf > 0 {
		bad = strings.TrimSpace(bad + " inf_count=" + strconv.Itoa(a.inf))
	}
	switch r.section {
	case 'i':
		if bad != "" {
			r.inBad = true
		}
		if len(r.args) < 16 {
			r.args = append(r.args, a.summary())
		}
	case 'o':
		if bad != "" && r.outBad == "" {
			r.outBad = a.name + ": " + bad
		}
	}
}

func (a *kapiArg) summary() string {
	var b strings.Builder
	b.WriteString(a.name)
	b.WriteString(": ")
	if a.shape != "" || a.dtype != "" {
		b.WriteString("Tensor")
		if a.shape != "" {
			b.WriteString(" shape=" + a.shape)
		}
		if a.dtype != "" {
			b.WriteString(" dtype=" + a.dtype)
		}
		if a.contiguous != "" {
			b.WriteString(" contiguous=" + a.contiguous)
		}
		if a.nan > 0 || a.inf > 0 {
			b.WriteString(" nan_count=" + strconv.Itoa(a.nan) + " inf_count=" + strconv.Itoa(a.inf))
		}
	} else if v := strings.TrimSuffix(a.value, "("); v != "" {
		b.WriteString(clip(v, 80))
	} else {
		b.WriteString("…")
	}
	return b.String()
}
