// Package collectives answers "which rank makes the others wait": each
// rank's collective kernels are reduced to a compact Summary (the map step,
// one per trace file), the summaries are matched across ranks per process
// group and kind in issue order, and every matched instance gets its
// arrival skew, per-rank wait, transfer time and bandwidths (the reduce
// step). Only the summaries cross between the two, so a job of many
// machines can run the map where the traces are and the reduce anywhere.
package collectives

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// SummaryVersion identifies the Summary encoding (gputriage extract).
const SummaryVersion = "gputriage.rank_summary/1"

// Summary is one rank's collectives and what the reduce needs to explain
// them. Times are ns on the trace's clock; integers only, so a summary
// written and read back reduces to the same bytes.
type Summary struct {
	Version string `json:"version"`
	File    string `json:"file"`
	Rank    int    `json:"rank"`
	World   int    `json:"world_size"`
	Device  string `json:"device,omitempty"`
	// ClockBase is the trace's baseTimeNanoseconds (Kineto writes times
	// relative to it), 0 if absent: ranks are put on one clock with it.
	ClockBase int64 `json:"clock_base_ns"`
	// Digest fingerprints the trace file (the run id of a reduce).
	Digest string `json:"digest,omitempty"`
	// Kernel is the rank's summed kernel time, Comm the collective
	// kernels' part of it, Exposed the collective time no compute kernel
	// overlapped.
	KernelNS  int64 `json:"kernel_ns"`
	CommNS    int64 `json:"comm_ns"`
	ExposedNS int64 `json:"exposed_comm_ns"`
	// Busy is the union of the rank's kernel intervals, Window its first
	// kernel start to last kernel end: the GPU idles Window − Busy.
	BusyNS   int64  `json:"busy_ns"`
	WindowNS int64  `json:"window_ns"`
	Steps    []Step `json:"steps"`
	Ops      []Op   `json:"ops"`
	Partial  bool   `json:"partial,omitempty"`
	// left is how many collectives ExtractFirst did not keep.
	left int
}

// Step is one step window of the rank (ProfilerStep#N, else a top-level
// annotation holding collectives), named alike on every rank.
type Step struct {
	Name  string `json:"name"`
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
}

// Op is one collective kernel on one rank, in issue order.
type Op struct {
	Kind   string `json:"kind"`
	PG     string `json:"pg"`
	PGDesc string `json:"pg_desc,omitempty"`
	Seq    int64  `json:"seq"`   // -1: the trace has none
	Bytes  int64  `json:"bytes"` // -1: unknown
	Dtype  string `json:"dtype,omitempty"`
	Group  int    `json:"group_size"` // 0: unknown
	Start  int64  `json:"start_ns"`
	End    int64  `json:"end_ns"`
	Launch int64  `json:"launch_ns"` // host launch call start, -1 unknown
	Stream int    `json:"stream"`
	Step   int    `json:"step"` // index in Summary.Steps, -1 none
	// Busy is the rank's non-collective kernel time between the previous
	// collective's end and this one's start; Top its largest kernels.
	Busy int64    `json:"busy_ns"`
	Top  []Kernel `json:"top,omitempty"`
	// Delay is how long the kernel waited after both its launch and the
	// end of the rank's last GPU op before it (kernel, copy or fill, any
	// stream): time its GPU held it with none of the rank's traced work
	// running. -1: no launch.
	Delay int64 `json:"gpu_delay_ns"`
	// Before is the site of the op that ran on the GPU just before it.
	Before Site `json:"before"`
	// Dir is "send" or "recv" for a point-to-point op (Collective name
	// send/recv: pipeline parallel), matched to its peer, not to the group.
	Dir string `json:"dir,omitempty"`
	gpu int32  // index in the store's GPU slice (Extract's; -1 when read back)
}

// Kernel is a kernel name's time and count in a window.
type Kernel struct {
	Name string `json:"name"`
	NS   int64  `json:"ns"`
	N    int    `json:"n"`
}

// Site names where a kernel came from: its kernel, CPU op, innermost
// annotation (a layer's record_function) and Python call site when known.
type Site struct {
	Kernel     string `json:"kernel,omitempty"`
	Op         string `json:"op,omitempty"`
	Annotation string `json:"annotation,omitempty"`
	Python     string `json:"python,omitempty"`
}

// String is the site as one phrase.
func (s Site) String() string {
	var parts []string
	if s.Annotation != "" {
		parts = append(parts, s.Annotation)
	}
	if s.Python != "" {
		parts = append(parts, s.Python)
	}
	if s.Op != "" {
		parts = append(parts, s.Op)
	}
	if len(parts) == 0 && s.Kernel != "" {
		parts = append(parts, short(s.Kernel, 80))
	}
	return strings.Join(parts, " · ")
}

// topKernels is how many of a window's kernels an Op keeps.
const topKernels = 4

// IsCollective reports a collective kernel by name: NCCL/RCCL (facts.py's
// "name contains nccl", plus RCCL's own prefix), RCCL's MSCCL kernels
// (mscclKernel_Sum_hip_bfloat16_Simple_false: MSCCL_KERNEL_ENTRY_NAME in
// RCCL's src/include/msccl/msccl_kernel.h) and the custom all-reduce
// kernels (customFrags).
func IsCollective(name string) bool {
	for i := 0; i+4 <= len(name); i++ {
		c := name[i] | 0x20
		if (c == 'n' || c == 'r' || c == 's' && i > 0 && name[i-1]|0x20 == 'm') && name[i+1]|0x20 == 'c' && name[i+2]|0x20 == 'c' && name[i+3]|0x20 == 'l' {
			return true
		}
	}
	return customAllReduce(strings.ToLower(name))
}

// Extract reduces file fi of st (rank rank of world) to its Summary. joins
// must index st.
func Extract(st *trace.Store, fi int, rank, world int, joins *callsite.Joins) *Summary {
	return ExtractFirst(st, fi, rank, world, joins, -1)
}

// ExtractFirst is Extract keeping the first keep collectives (all when
// keep < 0) and counting the rest (Match's bound says how many it left
// out): a job's ranks match no more than limits.CollectiveOps in all, and
// each op past them would cost its window's sweep and ~500 B only to be
// dropped. The totals and steps still cover every collective.
func ExtractFirst(st *trace.Store, fi int, rank, world int, joins *callsite.Joins, keep int) *Summary {
	s := &Summary{Version: SummaryVersion, File: st.Files[fi].Name, Rank: rank, World: world, Steps: []Step{}, Ops: []Op{},
		Partial: st.Files[fi].Partial()}
	file := uint16(fi)
	// Collective metadata by kernel (recent PyTorch) and by External id
	// (record_param_comms, every version that writes it).
	onGPU := map[int32]*trace.Comm{}
	byExt := map[int64]*trace.Comm{}
	for i := range st.Comms {
		c := &st.Comms[i]
		if c.OnGPU {
			if st.GPU[c.Op].File == file {
				onGPU[c.Op] = c
			}
		} else if sp := &st.CPU[c.Op]; sp.File == file && sp.Ext != trace.None {
			byExt[sp.Ext] = c
		}
	}
	pgs := pgConfig(st.Files[fi].Header["distributedInfo"])
	var coll, compute, copies []int32
	isColl := map[uint32]bool{}
	for i := range st.GPU {
		o := &st.GPU[i]
		if o.File == file && (o.Kind == trace.KindMemcpy || o.Kind == trace.KindMemset) {
			copies = append(copies, int32(i))
		}
		if o.File != file || o.Kind != trace.KindKernel {
			continue
		}
		s.KernelNS = units.AddSat(s.KernelNS, o.Dur) // records × 10¹² ns can pass int64
		c, ok := isColl[o.Name]
		if !ok {
			c = IsCollective(st.Name(o.Name))
			isColl[o.Name] = c
		}
		if c || onGPU[int32(i)] != nil {
			coll = append(coll, int32(i))
			s.CommNS = units.AddSat(s.CommNS, o.Dur)
		} else {
			compute = append(compute, int32(i))
		}
	}
	byStart := func(a, b int32) int {
		x, y := &st.GPU[a], &st.GPU[b]
		return cmp.Or(cmp.Compare(x.TS, y.TS), cmp.Compare(a, b))
	}
	slices.SortFunc(compute, byStart)
	slices.SortFunc(coll, byStart)
	s.ExposedNS = exposed(st, coll, compute)
	all := append(slices.Clone(coll), compute...)
	slices.SortFunc(all, byStart)
	// every GPU op, copies and fills too: what an op's Delay waits behind
	ops0 := append(slices.Clone(all), copies...)
	slices.SortFunc(ops0, byStart)
	var lo, hi int64
	for n, iv := range union(st, all) {
		s.BusyNS += iv[1] - iv[0]
		if n == 0 {
			lo = iv[0]
		}
		hi = max(hi, iv[1])
	}
	s.WindowNS = hi - lo
	s.Steps = steps(st, file, joins, coll)
	sites := callsite.NewSites(joins)

	// Busy windows: compute kernels between the previous collective's end
	// and this one's start, in start order (a sweep over both lists).
	if keep >= 0 && len(coll) > keep {
		s.left = len(coll) - keep
		coll = coll[:keep]
	}
	ops := make([]Op, len(coll))
	prevEnd := int64(-1 << 62)
	k := 0
	// lastEnd: the latest end of the rank's GPU ops that start before the
	// op (a sweep over ops0, in start order like coll)
	lastEnd, a := int64(-1<<62), 0
	var custom map[int64]customMsg // built at the first custom all-reduce
	// In chunks that yield: the module cannot end a collection inside one
	// long loop, and each op allocates its window's kernels.
	callsite.Chunks(len(coll), func(clo, chi int) {
		for n := clo; n < chi; n++ {
			gi := coll[n]
			o := &st.GPU[gi]
			op := &ops[n]
			*op = Op{Seq: -1, Bytes: -1, Launch: -1, Delay: -1, Start: o.TS, End: o.End(), Stream: int(o.Stream), Step: -1, gpu: gi}
			for a < len(ops0) && st.GPU[ops0[a]].TS < o.TS {
				lastEnd = max(lastEnd, st.GPU[ops0[a]].End())
				a++
			}
			c := onGPU[gi]
			if c == nil && o.Ext != trace.None {
				c = byExt[o.Ext]
			}
			op.Kind = kindOfKernel(st.Name(o.Name))
			if c != nil {
				if kd := kindOfArg(st.Name(c.Coll)); kd != "" {
					op.Kind = kd
				}
				op.Dir = p2pDir(st.Name(c.Coll))
				op.PG, op.PGDesc, op.Dtype = st.Name(c.PG), st.Name(c.PGDesc), st.Name(c.Dtype)
				op.PG, op.PGDesc = pgs.name(op.PG, op.PGDesc, st.Name(c.PGRanks))
				if c.Seq != trace.None {
					op.Seq = c.Seq
				}
				if c.Group > 0 {
					op.Group = int(c.Group)
				}
				if sz := dtypeSize(op.Dtype); sz > 0 && max(c.InN, c.OutN) >= 0 {
					op.Bytes = max(c.InN, c.OutN) * sz
				}
			}
			if op.Bytes < 0 && op.Kind == "custom_allreduce" && o.Ext != trace.None {
				if custom == nil {
					custom = customMessages(st, file) // custombytes.go
				}
				if m, ok := custom[o.Ext]; ok {
					op.Bytes = m.bytes
					if op.Dtype == "" {
						op.Dtype = m.dtype
					}
				}
			}
			if l := joins.Launch(file, o.Corr); l >= 0 {
				op.Launch = st.CPU[l].TS
				op.Delay = max(0, o.TS-max(op.Launch, lastEnd))
			}
			at := op.Launch
			if at < 0 {
				at = o.TS
			}
			op.Step = stepAt(s.Steps, at)
			// the window
			lo := prevEnd
			top := map[uint32]*Kernel{}
			for k < len(compute) && st.GPU[compute[k]].End() <= lo {
				k++
			}
			var last int32 = -1
			for q := k; q < len(compute); q++ {
				x := &st.GPU[compute[q]]
				if x.TS >= o.TS {
					break
				}
				last = compute[q]
				d := min(x.End(), o.TS) - max(x.TS, lo)
				if d <= 0 {
					continue
				}
				op.Busy += d
				t := top[x.Name]
				if t == nil {
					t = &Kernel{Name: st.Name(x.Name)}
					top[x.Name] = t
				}
				t.NS += d
				t.N++
			}
			if last < 0 && k > 0 {
				last = compute[k-1]
			}
			op.Top = topOf(top)
			if last >= 0 {
				op.Before = siteOf(st, file, joins, sites, last)
			}
			prevEnd = max(prevEnd, o.End())
		}
	})
	s.Ops = ops
	return s
}

// topOf is a window's kernels, largest first (ties by name), cut to topKernels.
func topOf(m map[uint32]*Kernel) []Kernel {
	if len(m) == 0 {
		return nil
	}
	out := make([]Kernel, 0, len(m))
	for _, k := range m {
		out = append(out, *k)
	}
	slices.SortFunc(out, func(a, b Kernel) int { return cmp.Or(cmp.Compare(b.NS, a.NS), strings.Compare(a.Name, b.Name)) })
	if len(out) > topKernels {
		out = out[:topKernels]
	}
	return out
}

// siteOf names where GPU op gi came from.
func siteOf(st *trace.Store, file uint16, joins *callsite.Joins, sites *callsite.Sites, gi int32) Site {
	o := &st.GPU[gi]
	site := Site{Kernel: st.Name(o.Name)}
	if c := joins.ByExt(file, o.Ext); c >= 0 {
		site.Op = st.Name(st.CPU[c].Name)
	}
	if l := joins.Launch(file, o.Corr); l >= 0 {
		sp := &st.CPU[l]
		if p := sites.At(file, sp.Track, sp.TS); p != 0 {
			site.Python = st.Name(p)
		}
		site.Annotation = annotationAt(st, joins, file, sp.Track, sp.TS)
	}
	return site
}

// annotationAt is the innermost user annotation open at t on a thread that
// is neither a step nor a communication wrapper (nccl:all_reduce): the
// record_function a model puts around a layer.
func annotationAt(st *trace.Store, joins *callsite.Joins, file uint16, track uint32, t int64) string {
	n := joins.CPUNest(file, track)
	if n == nil {
		return ""
	}
	for p := n.At(st.CPU, t); p >= 0; p = n.Parent[p] {
		sp := &st.CPU[n.Pos[p]]
		if sp.Kind != trace.KindUserAnnotation || sp.End() < t {
			continue
		}
		name := st.Name(sp.Name)
		if commWrapper(name) || strings.HasPrefix(name, "ProfilerStep#") {
			continue
		}
		return name
	}
	return ""
}

// commWrapper reports annotations PyTorch puts around a collective itself.
func commWrapper(name string) bool {
	l := strings.ToLower(name)
	return strings.HasPrefix(l, "nccl:") || strings.HasPrefix(l, "rccl:") || strings.HasPrefix(l, "gloo:") || strings.HasPrefix(l, "c10d::")
}

// steps finds the rank's step windows: ProfilerStep#N annotations when the
// trace has them, else the top-level user annotations that launch at least
// one collective; a name used more than once is numbered (decode_step#3).
func steps(st *trace.Store, file uint16, joins *callsite.Joins, coll []int32) []Step {
	var prof, top []Step
	var anns []int32
	for i := range st.CPU {
		sp := &st.CPU[i]
		if sp.File == file && sp.Kind == trace.KindUserAnnotation {
			anns = append(anns, int32(i))
		}
	}
	slices.SortFunc(anns, func(a, b int32) int {
		x, y := &st.CPU[a], &st.CPU[b]
		return cmp.Or(cmp.Compare(x.TS, y.TS), cmp.Compare(y.End(), x.End()), cmp.Compare(a, b))
	})
	var end int64 = -1 << 62
	for _, i := range anns {
		sp := &st.CPU[i]
		name := st.Name(sp.Name)
		if strings.HasPrefix(name, "ProfilerStep#") {
			prof = append(prof, Step{Name: name, Start: sp.TS, End: sp.End()})
			continue
		}
		if sp.TS >= end && !commWrapper(name) && sp.Dur > 0 {
			top = append(top, Step{Name: name, Start: sp.TS, End: sp.End()})
			end = sp.End()
		}
	}
	if len(prof) > 0 {
		return prof
	}
	// keep the top-level annotations that hold a collective launch
	var launches []int64
	for _, gi := range coll {
		o := &st.GPU[gi]
		at := o.TS
		if l := joins.Launch(file, o.Corr); l >= 0 {
			at = st.CPU[l].TS
		}
		launches = append(launches, at)
	}
	slices.Sort(launches)
	var out []Step
	count := map[string]int{}
	for _, s := range top {
		j, _ := slices.BinarySearch(launches, s.Start)
		if j < len(launches) && launches[j] <= s.End {
			count[s.Name]++
			out = append(out, s)
		}
	}
	seen := map[string]int{}
	for i := range out {
		if count[out[i].Name] > 1 {
			n := seen[out[i].Name]
			seen[out[i].Name]++
			out[i].Name += "#" + itoa(n)
		}
	}
	if out == nil {
		out = []Step{}
	}
	return out
}

// stepAt is the index of the step holding t, or -1.
func stepAt(steps []Step, t int64) int {
	i, _ := slices.BinarySearchFunc(steps, t, func(s Step, t int64) int { return cmp.Compare(s.Start, t) })
	// steps[i-1] starts at or before t
	if i < len(steps) && steps[i].Start == t {
		return i
	}
	if i > 0 && steps[i-1].End >= t {
		return i - 1
	}
	return -1
}

// exposed is the collective time no compute kernel overlaps: the union of
// collective intervals minus the union of compute intervals.
func exposed(st *trace.Store, coll, compute []int32) int64 {
	cu := union(st, coll)
	ku := union(st, compute)
	var total int64
	j := 0
	for _, c := range cu {
		covered := int64(0)
		for j < len(ku) && ku[j][1] <= c[0] {
			j++
		}
		for q := j; q < len(ku) && ku[q][0] < c[1]; q++ {
			covered += min(ku[q][1], c[1]) - max(ku[q][0], c[0])
		}
		total += c[1] - c[0] - covered
	}
	return total
}

func union(st *trace.Store, idx []int32) [][2]int64 {
	var out [][2]int64
	for _, i := range idx {
		o := &st.GPU[i]
		if n := len(out); n > 0 && o.TS <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], o.End())
			continue
		}
		out = append(out, [2]int64{o.TS, o.End()})
	}
	return out
}

// ParseSummary decodes a rank summary (rank_summary.json), refusing
// anything else.
func ParseSummary(b []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("not a rank summary: %v", err)
	}
	if s.Version != SummaryVersion {
		return nil, fmt.Errorf("not a rank summary (version %q, want %q: rank_summary.json from gputriage extract)", s.Version, SummaryVersion)
	}
	if err := s.checkTimes(); err != nil {
		return nil, fmt.Errorf("rank summary %s: %v", s.File, err)
	}
	for i := range s.Ops {
		if st := s.Ops[i].Step; st < -1 || st >= len(s.Steps) {
			return nil, fmt.Errorf("rank summary %s: op %d names step %d of %d", s.File, i, st, len(s.Steps))
		}
	}
	if s.Steps == nil {
		s.Steps = []Step{}
	}
	if s.Ops == nil {
		s.Ops = []Op{}
	}
	return &s, nil
}

// checkTimes refuses a summary whose times or totals leave the trace
// reader's range (a start up to trace.MaxTS, an end up to MaxDur past it;
// the clock base too), as diff refuses such an artifact folder: then a
// time on the common clock is below 8.1·10¹⁸ ns, every difference of two
// fits in int64, and sums over ranks saturate (units.AddSat) instead of
// wrapping.
func (s *Summary) checkTimes() error {
	const max = trace.MaxTS + trace.MaxDur
	bad := func(what string, v int64, lo int64) error {
		if v < lo || v > max {
			return fmt.Errorf("%s %d is outside 0 … 4.000000001·10¹⁸ ns: refused (a rank summary from gputriage extract holds trace times)", what, v)
		}
		return nil
	}
	for _, c := range []struct {
		what string
		v    int64
	}{{"clock_base_ns", s.ClockBase}, {"kernel_ns", s.KernelNS}, {"comm_ns", s.CommNS}, {"exposed_comm_ns", s.ExposedNS}, {"busy_ns", s.BusyNS}, {"window_ns", s.WindowNS}} {
		if err := bad(c.what, c.v, 0); err != nil {
			return err
		}
	}
	// each value's name is written only for the one refused: a name per
	// value was five Sprintf calls per op of every summary
	for i, st := range s.Steps {
		if err := cmp.Or(bad("start_ns", st.Start, 0), bad("end_ns", st.End, 0)); err != nil {
			return fmt.Errorf("step %d %v", i, err)
		}
	}
	for i := range s.Ops {
		o := &s.Ops[i]
		err := cmp.Or(bad("start_ns", o.Start, 0), bad("end_ns", o.End, 0),
			bad("launch_ns", o.Launch, -1), bad("busy_ns", o.Busy, 0),
			bad("gpu_delay_ns", o.Delay, -1))
		for _, k := range o.Top {
			err = cmp.Or(err, bad("top kernel ns", k.NS, 0))
		}
		if err != nil {
			return fmt.Errorf("op %d %v", i, err)
		}
	}
	return nil
}

// pgs is a trace's process groups from distributedInfo.pg_config
// ({pg_name, pg_desc, ranks}, PyTorch ≥ 2.2), looked up by name and by
// ranks: a map each, built once (a scan per collective was quadratic: 50 k
// groups and 50 k unnamed collectives per rank took 24 s and 1.3 GB under
// wasm). The first group of a name or of a rank list wins, as the scan did.
type pgs struct {
	byName, byRanks map[string]pgEntry
}

type pgEntry struct{ name, desc string }

func pgConfig(info []byte) pgs {
	var d struct {
		PGs []struct {
			Name  string `json:"pg_name"`
			Desc  string `json:"pg_desc"`
			Ranks []int  `json:"ranks"`
		} `json:"pg_config"`
	}
	if json.Unmarshal(info, &d) != nil || len(d.PGs) == 0 {
		return pgs{}
	}
	p := pgs{byName: map[string]pgEntry{}, byRanks: map[string]pgEntry{}}
	for _, g := range d.PGs {
		e := pgEntry{g.Name, g.Desc}
		if _, ok := p.byName[g.Name]; !ok {
			p.byName[g.Name] = e
		}
		if rk := intsText(g.Ranks); rk != "" {
			if _, ok := p.byRanks[rk]; !ok {
				p.byRanks[rk] = e
			}
		}
	}
	return p
}

// name is a collective's process group: its Process Group Name, else the
// group pg_config lists with its Process Group Ranks, else those ranks
// themselves ("ranks 0,2,4,6"): a mesh's groups stay apart when a trace
// carries no names. The description comes from pg_config when missing.
func (p pgs) name(name, desc, ranks string) (string, string) {
	rk := canonRanks(ranks)
	var g pgEntry
	var ok bool
	if name != "" {
		g, ok = p.byName[name]
	} else if rk != "" {
		g, ok = p.byRanks[rk]
	}
	if ok {
		if desc == "" {
			desc = g.desc
		}
		return g.name, desc
	}
	if name == "" && rk != "" {
		name = "ranks " + rk
	}
	return name, desc
}

// canonRanks is "[0, 1, 2]" (as PyTorch writes it, or an array) as "0,1,2".
func canonRanks(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			b = append(b, c)
		case c == ',':
			b = append(b, c)
		}
	}
	return string(b)
}

func intsText(v []int) string {
	var b []byte
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}
