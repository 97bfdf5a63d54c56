package analyzer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/diff"
	"github.com/gputriage/gputriage/analyzer/identity"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// artifactDoc is a gputriage artifact given to diff in place of traces.
type artifactDoc struct {
	file int
	name string
	body []byte
}

// isArtifact reports a JSON document written by gputriage.
func isArtifact(b []byte) bool {
	var h struct {
		Tool string `json:"tool"`
	}
	return json.Unmarshal(b, &h) == nil && h.Tool == "gputriage"
}

// artifactStart tells a gputriage artifact by how every one begins
// (`{"tool": "gputriage"`, the writer's first key), for documents too big
// to keep whole (a 30 MB collectives.json).
func artifactStart(b []byte) bool {
	for _, tok := range []string{"{", `"tool"`, ":", `"gputriage"`} {
		b = bytes.TrimLeft(b, " \t\r\n")
		if !bytes.HasPrefix(b, []byte(tok)) {
			return false
		}
		b = b[len(tok):]
	}
	return true
}

func (j *Job) side(file int) int {
	if file < j.opts.SplitA {
		return 0
	}
	return 1
}

func (j *Job) sideStore(file int) *trace.Store {
	s := j.side(file)
	if j.sides[s] == nil {
		j.sides[s] = trace.NewStore()
		j.sides[s].Budget = j.budget
	}
	return j.sides[s]
}

// liveFiles are a store's trace files (not sidecars or artifacts).
func liveFiles(st *trace.Store) []int {
	var out []int
	for i := range st.Files {
		if !st.Files[i].Ignore {
			out = append(out, i)
		}
	}
	return out
}

// diff compares run A with run B: traces (one or several files per run),
// or a run's artifacts (profile_metadata.json with kernel_table.json, …).
// A refusal (the runs are not comparable) is an answer, stated in every
// artifact, with exit code ExitRefused; an exceeded --fail-on threshold
// gives ExitRegression.
func (j *Job) diff(stores []*trace.Store) ([]Artifact, int, error) {
	var ths []diff.Threshold
	for _, s := range j.opts.FailOn {
		t, err := diff.ParseThreshold(s)
		if err != nil {
			return nil, 0, err
		}
		ths = append(ths, t)
	}
	var sides [2]diff.Side
	var ids [2]identity.Identity
	var files [2][]int
	if j.opts.SplitA == 0 {
		if len(stores) != 2 {
			return nil, 0, fmt.Errorf("diff needs exactly two traces (run A, then run B), got %d", len(stores))
		}
		j.sides = [2]*trace.Store{stores[0], stores[1]}
		// The store of each trace was made as its file was read: find them.
		for i, f := range j.files {
			if f.Kind == "trace" {
				s := 0
				if len(files[0]) > 0 {
					s = 1
				}
				files[s] = append(files[s], i)
			}
		}
	} else {
		for i := range j.files {
			files[j.side(i)] = append(files[j.side(i)], i)
		}
	}
	for s := range 2 {
		// What the user gave for this run (its own flags first, then the
		// flags for both); what the run recorded (its artifacts) wins, and a
		// given value that differs from it is a conflict, never a silent
		// overwrite.
		given := j.opts.Compare[s]
		given.Fill(j.opts.Run)
		id := identity.Identity{}
		var recorded *identity.Identity
		st := j.sides[s]
		var docs []artifactDoc
		for _, d := range j.docs {
			if j.side(d.file) == s {
				docs = append(docs, d)
			}
		}
		switch {
		case st != nil && len(liveFiles(st)) > 0:
			a := j.analyzeTraces(st, liveFiles(st), nil)
			sides[s] = diff.Side{Name: st.Files[liveFiles(st)[0]].Name, Store: st, Breakdown: a.Breakdown,
				ObservedArch: a.Arch.ObservedArch, ArchMatch: a.Arch.ArchMatch, DeviceName: a.Arch.DeviceName,
				IdleNS: a.Idle.Total.Idle, Runtime: runtimeOf(a.ROCmVersion, a.CUDAVersion), Framework: a.Framework}
			if n := a.Idle.Steps.Steps; n > 0 {
				sides[s].Steps, sides[s].StepNS = n, a.Idle.Steps.Window/int64(n)
			}
		case len(docs) > 0:
			side, sid, err := sideFromArtifacts(docs)
			if err != nil {
				return nil, 0, err
			}
			sides[s] = side
			recorded = &sid
		default:
			return nil, 0, fmt.Errorf("diff: run %c has no trace and no gputriage artifact", 'A'+s)
		}
		if recorded != nil {
			id = *recorded
			sides[s].Conflicts = conflicts(given, *recorded)
		}
		id.Fill(given)
		// Sidecars (server_args.json) fill what is still unknown; the
		// user's values win over them.
		for _, fi := range files[s] {
			if sc, ok := j.sidecars[fi]; ok {
				id.Fill(sc)
			}
		}
		ids[s] = id
		sd := &sides[s]
		sd.BaseImage, sd.ResourceClass, sd.ServerFlags = id.BaseImage, id.ResourceClass, id.ServerFlags
		sd.BenchmarkConfigHash, sd.GPUDeviceIDs = id.BenchmarkConfigHash, id.GPUDeviceIDs
	}
	same := j.sameContent(files[0], files[1])
	if same {
		// One run compared with itself: what is known of either side is
		// known of both.
		ids[0].Fill(ids[1])
		ids[1].Fill(ids[0])
		for s := range 2 {
			sd := &sides[s]
			sd.BaseImage, sd.ResourceClass, sd.ServerFlags = ids[s].BaseImage, ids[s].ResourceClass, ids[s].ServerFlags
			sd.BenchmarkConfigHash, sd.GPUDeviceIDs = ids[s].BenchmarkConfigHash, ids[s].GPUDeviceIDs
		}
	}
	r := diff.Compare(sides[0], sides[1], diff.Options{Force: j.opts.Force, SameInput: same, FailOn: ths})
	if u := r.UnknownRules(); len(u) > 0 {
		return nil, 0, fmt.Errorf("--fail-on %s: names nothing either run has (check the kernel, category or stage name; step needs step annotations in both runs)", strings.Join(u, ", "))
	}
	code := ExitOK
	switch {
	case r.Refused:
		code = ExitRefused
	case r.Regression:
		code = ExitRegression
	}
	arts := []Artifact{{"diff.md", string(r.Markdown())}, {"diff.json", string(r.JSON())}, {"diff_junit.xml", string(r.JUnit())}}
	return arts, code, nil
}

// sameContent reports two sets of inputs with the same bytes.
func (j *Job) sameContent(a, b []int) bool {
	if len(a) == 0 || len(a) != len(b) || len(j.digests) < len(j.files) {
		return false
	}
	da, db := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		da[i], db[i] = j.digests[a[i]], j.digests[b[i]]
	}
	slices.Sort(da)
	slices.Sort(db)
	return slices.Equal(da, db)
}

// sideFromArtifacts rebuilds a run from its artifacts: kernel_table.json
// (required: the kernel times), breakdown.json (stage windows),
// gpu_timeline.json (busy time), profile_metadata.json (arch and identity).
func sideFromArtifacts(docs []artifactDoc) (diff.Side, identity.Identity, error) {
	var s diff.Side
	var id identity.Identity
	byName := map[string][]byte{}
	for _, d := range docs {
		byName[path.Base(strings.ReplaceAll(d.name, "\\", "/"))] = d.body
	}
	kt, ok := byName["kernel_table.json"]
	if !ok {
		var names []string
		for _, d := range docs {
			names = append(names, d.name)
		}
		return s, id, fmt.Errorf("diff: %s: no kernel_table.json among this run's artifacts (give the artifact folder, or the traces)", strings.Join(names, ", "))
	}
	var table struct {
		Rows []struct {
			Stage    string  `json:"stage"`
			Kernel   string  `json:"kernel"`
			Category string  `json:"category"`
			Launches int64   `json:"launches"`
			GPUTime  float64 `json:"gpu_time_us"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(kt, &table); err != nil {
		return s, id, fmt.Errorf("diff: kernel_table.json: %v", err)
	}
	bd := &breakdown.Result{}
	var t times
	for _, r := range table.Rows {
		bd.Rows = append(bd.Rows, breakdown.Row{Stage: r.Stage, Kernel: r.Kernel, Category: r.Category,
			Launches: t.count(r.Launches), GPUTime: t.ns(r.GPUTime)})
	}
	if err := t.err("kernel_table.json"); err != nil {
		return s, id, err
	}
	if b, ok := byName["breakdown.json"]; ok {
		var x struct {
			Stages []struct {
				Stage       string  `json:"stage"`
				KernelCount int64   `json:"kernel_count"`
				KernelTime  float64 `json:"kernel_time_us"`
				Window      float64 `json:"window_us"`
			} `json:"stages"`
		}
		if json.Unmarshal(b, &x) == nil {
			var t times
			for _, st := range x.Stages {
				bd.Stages = append(bd.Stages, breakdown.Stage{Stage: st.Stage, KernelCount: t.count(st.KernelCount),
					KernelTime: t.ns(st.KernelTime), Window: t.ns(st.Window)})
			}
			if err := t.err("breakdown.json"); err != nil {
				return s, id, err
			}
		}
	}
	s.Breakdown = bd
	if b, ok := byName["gpu_timeline.json"]; ok {
		var x struct {
			Busy  float64 `json:"busy_time_us"`
			Total float64 `json:"total_time_us"`
		}
		if json.Unmarshal(b, &x) == nil {
			var t times
			s.BusyNS, s.SpanNS = t.ns(x.Busy), t.ns(x.Total)
			if err := t.err("gpu_timeline.json"); err != nil {
				return s, id, err
			}
		}
	}
	s.Name = "kernel_table.json"
	if b, ok := byName["profile_metadata.json"]; ok {
		var m struct {
			ObservedArch string  `json:"observed_arch"`
			ArchMatch    string  `json:"arch_match"`
			DeviceName   *string `json:"device_name"`
			Source       *string `json:"source_trace_path"`
			ROCm         *string `json:"rocm_version"`
			CUDA         *string `json:"cuda_version"`
			Framework    *string `json:"framework"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&m); err != nil {
			return s, id, fmt.Errorf("diff: profile_metadata.json: %v", err)
		}
		json.Unmarshal(b, &id) // the metadata carries the identity under the same names
		s.ObservedArch, s.ArchMatch = m.ObservedArch, m.ArchMatch
		if m.DeviceName != nil {
			s.DeviceName = *m.DeviceName
		}
		if m.Source != nil {
			s.Name = *m.Source
		}
		var rocm, cuda string
		if m.ROCm != nil {
			rocm = *m.ROCm
		}
		if m.CUDA != nil {
			cuda = *m.CUDA
		}
		s.Runtime = runtimeOf(rocm, cuda)
		if m.Framework != nil {
			s.Framework = *m.Framework
		}
	}
	if b, ok := byName["idle.json"]; ok {
		var x struct {
			Total struct {
				Idle float64 `json:"gpu_idle_us"`
			} `json:"total"`
			Steps *struct {
				Window float64 `json:"window_us"`
				Steps  int     `json:"steps"`
			} `json:"steps"`
		}
		if json.Unmarshal(b, &x) == nil {
			var t times
			s.IdleNS = t.ns(x.Total.Idle)
			if x.Steps != nil && x.Steps.Steps > 0 {
				s.Steps, s.StepNS = x.Steps.Steps, t.ns(x.Steps.Window)/int64(x.Steps.Steps)
			}
			if err := t.err("idle.json"); err != nil {
				return s, id, err
			}
		}
	}
	return s, id, nil
}

// conflicts are the comparison fields given with a value other than the
// one the run recorded.
func conflicts(given, recorded identity.Identity) []diff.Mismatch {
	var out []diff.Mismatch
	f := func(name, g, r string) {
		if g != "" && r != "" && g != r {
			out = append(out, diff.Mismatch{Field: name, A: g, B: r})
		}
	}
	f("base_image", given.BaseImage, recorded.BaseImage)
	f("resource_class", given.ResourceClass, recorded.ResourceClass)
	f("server_flags", given.ServerFlags, recorded.ServerFlags)
	f("benchmark_config_hash", given.BenchmarkConfigHash, recorded.BenchmarkConfigHash)
	gi, ri := fmt.Sprint(given.GPUDeviceIDs), fmt.Sprint(recorded.GPUDeviceIDs)
	if len(given.GPUDeviceIDs) > 0 && len(recorded.GPUDeviceIDs) > 0 && gi != ri {
		out = append(out, diff.Mismatch{Field: "gpu_device_ids", A: gi, B: ri})
	}
	return out
}

// runtimeOf names the GPU runtime a trace recorded.
func runtimeOf(rocm, cuda string) string {
	switch {
	case rocm != "":
		return "ROCm " + rocm
	case cuda != "":
		return "CUDA " + cuda
	}
	return ""
}

// times turns an artifact's microseconds (3 decimals) back into
// nanoseconds, checking each value and the file's sum against
// limits.MaxArtifactNS: then every sum and delta diff computes stays inside
// int64 (1e20 µs converted to int64 differs between native and wasm, and
// its deltas wrapped around).
type times struct {
	sum, nsum int64 // of absolute values, saturating at the limit
	bad       float64
	n         int64
}

func (t *times) ns(us float64) int64 {
	const max = limits.MaxArtifactNS
	if !(us*1000 > -max && us*1000 < max) { // also NaN
		t.bad = us
		return 0
	}
	var v int64
	if us < 0 {
		v = -int64(-us*1000 + 0.5)
	} else {
		v = int64(us*1000 + 0.5)
	}
	if t.sum < max {
		if t.sum += v; v < 0 {
			t.sum -= 2 * v
		}
		if t.sum >= max && t.bad == 0 {
			t.bad = us
		}
	}
	return v
}

// count checks a count (launches, kernels) the same way.
func (t *times) count(n int64) int64 {
	if n < 0 || n >= limits.MaxArtifactNS || t.nsum+n >= limits.MaxArtifactNS {
		t.n = n
		return 0
	}
	t.nsum += n
	return n
}

func (t *times) err(file string) error {
	switch {
	case t.bad != 0:
		return fmt.Errorf("diff: %s: time %g µs is out of range (the file's times must add up to less than %d µs)", file, t.bad, int64(limits.MaxArtifactNS/1000))
	case t.n != 0:
		return fmt.Errorf("diff: %s: count %d is out of range (the file's counts must add up to less than %d)", file, t.n, int64(limits.MaxArtifactNS))
	}
	return nil
}
