package analyzer

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/arch"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// traceRef is one trace file of a job.
type traceRef struct {
	st *trace.Store
	fi int
}

// device says which GPU a trace file ran on, from its deviceProperties:
// "" when the file does not say.
func (j *Job) device(r traceRef) string {
	devs := arch.ParseDevices(r.st.Files[r.fi].Header["deviceProperties"])
	if len(devs) == 0 {
		return ""
	}
	rel := arch.Decide(arch.Evidence{Devices: devs}, j.opts.TargetArch)
	if rel.ObservedArch == "unknown" {
		return devs[0].Name
	}
	return devs[0].Name + " (" + rel.ObservedArch + ")"
}

// RunGroup is one run among a job's inputs: its device and trace files.
type RunGroup struct {
	Device string   `json:"device"`
	Files  []string `json:"files"`
}

// sglangProfile is the profile id of SGLang's file naming,
// <id>-TP-<rank>[-EXTEND|-DECODE].trace.json.gz: one id, one run.
var sglangProfile = regexp.MustCompile(`^(.+?)-TP-\d+`)

// separateRuns groups the trace files into runs, by device (a B200 trace
// beside an MI300X one) and, for breakdown, by SGLang profile id; several
// runs are refused (one report over both would mix devices, versions and
// takeaways) and listed in runs so that a host can analyse each on its
// own. Files that do not name their device join any run.
func (j *Job) separateRuns(refs []traceRef) ([]RunGroup, error) {
	groups := map[string]*RunGroup{}
	var order []string
	for _, r := range refs {
		d := j.device(r)
		if d == "" {
			continue
		}
		key := d
		name := r.st.Files[r.fi].Name
		if j.opts.Command == "breakdown" {
			if m := sglangProfile.FindStringSubmatch(path.Base(strings.ReplaceAll(name, "\\", "/"))); m != nil {
				key = d + " profile " + m[1]
			}
		}
		g := groups[key]
		if g == nil {
			g = &RunGroup{Device: d}
			groups[key] = g
			order = append(order, key)
		}
		g.Files = append(g.Files, name)
	}
	if len(order) < 2 {
		return nil, nil
	}
	slices.Sort(order)
	var parts []string
	var runs []RunGroup
	for i, k := range order {
		runs = append(runs, *groups[k])
		parts = append(parts, fmt.Sprintf("run %d on %s: %s", i+1, groups[k].Device, strings.Join(groups[k].Files, ", ")))
	}
	return runs, fmt.Errorf("the inputs are %d runs (%s); analyse each run on its own (with -o, the CLI writes one subfolder per run)",
		len(order), strings.Join(parts, "; "))
}

// sameDevice refuses a mapping trace recorded on another device than the
// formal trace: its kernels and launch sequence are another machine's.
func (j *Job) sameDevice(formal, mapping *trace.Store) error {
	if formal == nil || mapping == nil || formal == mapping {
		return nil
	}
	f, m := j.device(traceRef{formal, 0}), j.device(traceRef{mapping, 0})
	if f != "" && m != "" && f != m {
		return fmt.Errorf("mapping trace %s ran on %s, the formal trace %s on %s: a mapping trace must come from the same device and arch; refused",
			mapping.Files[0].Name, m, formal.Files[0].Name, f)
	}
	return nil
}
