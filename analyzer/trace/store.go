// Package trace reads PyTorch profiler (Kineto) chrome-trace JSON, ROCm and
// CUDA, current and legacy schema, from pushed chunks into a compact,
// columnar event store: names interned once, one small record per kept event.
package trace

import (
	"cmp"
	"maps"
	"slices"
	"unsafe"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// Kind is what an event is, with legacy (2021) category names folded in.
type Kind uint8

const (
	KindOther Kind = iota
	KindKernel
	KindMemcpy
	KindMemset
	KindSync
	KindGPUAnnotation
	KindCPUOp
	KindUserAnnotation
	KindRuntime
	KindDriver
	KindPython
)

// IsGPUWork reports whether k is work on a GPU stream (kernel, copy, fill).
func (k Kind) IsGPUWork() bool { return k == KindKernel || k == KindMemcpy || k == KindMemset }

// String returns the current Kineto category name of k.
func (k Kind) String() string {
	switch k {
	case KindKernel:
		return "kernel"
	case KindMemcpy:
		return "gpu_memcpy"
	case KindMemset:
		return "gpu_memset"
	case KindSync:
		return "cuda_sync"
	case KindGPUAnnotation:
		return "gpu_user_annotation"
	case KindCPUOp:
		return "cpu_op"
	case KindUserAnnotation:
		return "user_annotation"
	case KindRuntime:
		return "cuda_runtime"
	case KindDriver:
		return "cuda_driver"
	case KindPython:
		return "python_function"
	}
	return "other"
}

// kindOf maps a category to a Kind, filtering on length first: a plain string
// switch costs a runtime call per case in wasm, on every event.
func kindOf(cat []byte) Kind {
	c := string(cat) // no allocation: only compared
	switch len(cat) {
	case 6:
		switch c {
		case "kernel", "Kernel":
			return KindKernel
		case "Memcpy":
			return KindMemcpy
		case "Memset":
			return KindMemset
		case "cpu_op":
			return KindCPUOp
		}
	case 7:
		if c == "Runtime" {
			return KindRuntime
		}
	case 8:
		if c == "Operator" {
			return KindCPUOp
		}
	case 9:
		if c == "cuda_sync" {
			return KindSync
		}
	case 10:
		switch c {
		case "gpu_memcpy":
			return KindMemcpy
		case "gpu_memset":
			return KindMemset
		}
	case 11:
		if c == "cuda_driver" {
			return KindDriver
		}
	case 12:
		if c == "cuda_runtime" {
			return KindRuntime
		}
	case 15:
		switch c {
		case "python_function":
			return KindPython
		case "user_annotation":
			return KindUserAnnotation
		}
	case 19:
		if c == "gpu_user_annotation" {
			return KindGPUAnnotation
		}
	}
	return KindOther
}

// None marks an absent id (External id, correlation).
const None = -1

// GPUOp is one kernel, copy or fill on a GPU stream. Times are ns.
type GPUOp struct {
	TS, Dur int64
	Corr    int64 // correlation with the launching runtime call, or None
	Ext     int64 // External id of the launching CPU op, or None
	Name    uint32
	Track   uint32 // interned "pid tid" of the event
	Device  int64
	Stream  int64
	File    uint16
	Kind    Kind
}

// Span is a CPU-side interval (op, annotation, runtime call, Python frame) or
// a GPU annotation range. Times are ns.
type Span struct {
	TS, Dur int64
	Corr    int64
	Ext     int64
	Name    uint32
	Track   uint32
	// Kernel is the kernel a ROCm runtime launch names (its args.kernel), 0
	// if none: capture traces launch without executing, so this is the only
	// record of what a captured graph will run.
	Kernel uint32
	File   uint16
	Kind   Kind
}

// Shapes holds the record_shapes arguments of one cpu_op: the raw JSON
// arrays of its Input Dims, Input type and Concrete Inputs, interned (ops of
// one signature share the strings), and its with_flops estimate.
type Shapes struct {
	CPU                   int32 // index of the op in Store.CPU
	Dims, Types, Concrete uint32
	Flops                 int64 // args.flops, or None
}

// Comm holds the collective metadata PyTorch records (record_param_comms
// and, on recent versions, the collective's kernel): names interned, counts
// None when absent. Kept aside like Shapes: traces pay only per collective.
type Comm struct {
	Op                      int32 // index in Store.GPU (OnGPU) or Store.CPU
	Coll, PG, PGDesc, Dtype uint32
	PGRanks                 uint32 // "Process Group Ranks" as written ([0, 1])
	OnGPU                   bool
	InN, OutN, Group, Seq   int64
}

// End returns the span's end time.
func (s *Span) End() int64 { return s.TS + s.Dur }

// End returns the op's end time.
func (o *GPUOp) End() int64 { return o.TS + o.Dur }

// File describes one input file as read.
type File struct {
	Name      string
	Bytes     int64
	Events    int64   // elements of traceEvents seen
	Kept      int64   // events kept in the store
	BadEvents int64   // elements that were not parseable objects
	NegDur    int64   // negative durations clamped to 0
	Numbers   Numbers // ts/dur values that could not be used
	LongNames int64   // names cut to the string limit
	// DeepHeaders are header values dropped for nesting deeper than the
	// depth limit.
	DeepHeaders []string
	Complete    bool
	SawEvents   bool              // the document had a traceEvents array
	Ignore      bool              // not a trace after all (set by the caller)
	Problem     string            // what was wrong, if anything
	Header      map[string][]byte // raw JSON of the small top-level values
	// Source is set by the readers of the ROCm profilers' own formats.
	Source *Source
}

// Partial reports whether analysis of the file may miss data.
func (f *File) Partial() bool {
	return !f.Complete || f.BadEvents > 0 || f.NegDur > 0 || f.Numbers.Any() || f.LongNames > 0 || len(f.DeepHeaders) > 0
}

// Store holds everything the analyses keep from one job's trace files.
type Store struct {
	Names  []string
	index  map[string]uint32
	alias  map[string]uint32 // raw (escaped / invalid UTF-8) spelling → id
	GPU    []GPUOp
	CPU    []Span // cpu_op, user_annotation, runtime and driver calls
	Python []Span
	Annot  []Span // gpu_user_annotation ranges
	// Shapes of the cpu_ops that carry them, in Store.CPU order: kept
	// aside so traces without record_shapes pay nothing per span.
	Shapes []Shapes
	// Comms of the kernels and cpu_ops that carry collective metadata, in
	// the order read.
	Comms []Comm
	Files []File
	cache *[cacheSize]cacheEntry
	// Budget is what the job may keep, shared by its stores.
	Budget *Budget
}

// Budget counts what a job's stores keep against its limits.
type Budget struct {
	limits.Limits
	Records   int64 // events kept
	NameBytes int64 // bytes of distinct names kept
}

// NewBudget returns a budget for l (zero fields: defaults).
func NewBudget(l limits.Limits) *Budget {
	l, _ = l.Normalized()
	return &Budget{Limits: l}
}

// NewStore returns an empty store. Name id 0 is the empty string.
func NewStore() *Store {
	return &Store{index: map[string]uint32{"": 0}, alias: map[string]uint32{}, Names: []string{""}, cache: new([cacheSize]cacheEntry),
		Budget: NewBudget(limits.Limits{})}
}

// Name returns the string of an interned id.
func (s *Store) Name(id uint32) string { return s.Names[id] }

// Intern returns the id of a decoded string.
func (s *Store) Intern(v string) uint32 {
	if id, ok := s.index[v]; ok {
		return id
	}
	id := uint32(len(s.Names))
	s.Budget.NameBytes += int64(len(v))
	s.Names = append(s.Names, v)
	s.index[v] = id
	return id
}

// internRaw interns the raw body of a JSON string, decoding it only the first
// time a spelling is seen. A small direct-mapped cache in front of the map
// saves hashing long kernel names on every event (hashing is slow in wasm).
func (s *Store) internRaw(raw []byte, scratch *[]byte) uint32 {
	slot := cacheSlot(raw)
	if c := s.cache[slot]; c.id != 0 && c.raw == string(raw) {
		return c.id
	}
	id := s.internSlow(raw, scratch)
	if id != 0 {
		s.cache[slot] = cacheEntry{raw: s.rawOf(raw, id), id: id}
	}
	return id
}

// rawOf returns a string equal to raw without allocating when the interned
// name itself is that spelling.
func (s *Store) rawOf(raw []byte, id uint32) string {
	if n := s.Names[id]; n == string(raw) {
		return n
	}
	return string(raw)
}

type cacheEntry struct {
	raw string
	id  uint32
}

const cacheSize = 1024

func cacheSlot(b []byte) int {
	n := len(b)
	h := uint32(n) * 2654435761
	if n > 0 {
		h ^= uint32(b[0]) << 8
		h ^= uint32(b[n-1]) << 16
		h ^= uint32(b[n/2]) << 24
		h ^= uint32(b[n/3])
		h ^= uint32(b[2*n/3]) << 4
		h *= 2246822519
	}
	return int(h>>22) & (cacheSize - 1)
}

func (s *Store) internSlow(raw []byte, scratch *[]byte) uint32 {
	if id, ok := s.index[string(raw)]; ok {
		return id
	}
	if id, ok := s.alias[string(raw)]; ok {
		return id
	}
	if plain(raw) {
		return s.Intern(string(raw))
	}
	*scratch = unquote((*scratch)[:0], raw)
	id := s.Intern(string(*scratch))
	s.alias[string(raw)] = id
	return id
}

// ShapesOf returns the shape arguments of CPU span i, or nil.
func (s *Store) ShapesOf(i int32) *Shapes {
	lo, hi := 0, len(s.Shapes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.Shapes[m].CPU < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.Shapes) && s.Shapes[lo].CPU == i {
		return &s.Shapes[lo]
	}
	return nil
}

// BytesKept estimates the memory held by the store's records (not names).
func (s *Store) BytesKept() int64 {
	// The records' own sizes (GPUOp 64 B with its 64-bit ids, Span 48 B).
	gpuOp, span := int64(unsafe.Sizeof(GPUOp{})), int64(unsafe.Sizeof(Span{}))
	shapes, comm := int64(unsafe.Sizeof(Shapes{})), int64(unsafe.Sizeof(Comm{}))
	return int64(cap(s.GPU))*gpuOp + int64(cap(s.CPU)+cap(s.Python)+cap(s.Annot))*span + int64(cap(s.Shapes))*shapes + int64(cap(s.Comms))*comm
}

// Sub returns a store holding only file fi's records, as if it had been
// read alone: the per-rank analyses of a rank folder read into one store.
// File fi keeps its index (the sub-store's other files are empty, ignored
// placeholders), so its records need no rewriting: when they lie in one run
// (a folder's files are read one after the other, so they do) the
// sub-store's record slices are views into s's, not copies — no analysis
// writes to a store's records. Only the shapes and collective metadata,
// whose indices shift, are copied. Names are shared up to s's length (an
// analysis interning a new one appends to its own copy).
func (s *Store) Sub(fi int) *Store {
	f := uint16(fi)
	files := make([]File, fi+1)
	for i := range files {
		files[i] = File{Name: s.Files[i].Name, Complete: true, Ignore: true}
	}
	files[fi] = s.Files[fi]
	sub := &Store{
		Names: slices.Clip(s.Names),
		index: maps.Clone(s.index),
		alias: maps.Clone(s.alias),
		Files: files,
		cache: new([cacheSize]cacheEntry),
	}
	// its own count: sub-stores may be analysed side by side
	b := *s.Budget
	sub.Budget = &b
	gLo, gHi, gOK := fileRange(s.GPU, f, func(o *GPUOp) uint16 { return o.File })
	cLo, cHi, cOK := fileRange(s.CPU, f, func(o *Span) uint16 { return o.File })
	if gOK && cOK {
		s.subRange(sub, f, gLo, gHi, cLo, cHi)
	} else {
		s.subFiltered(sub, f)
	}
	return sub
}

// fileRange is where file f's records lie in in, when they are one run (a
// store's files are read one after the other, so they are): ok is false
// when another file's records come between.
func fileRange[T any](in []T, f uint16, file func(*T) uint16) (lo, hi int, ok bool) {
	lo, hi = -1, -1
	for i := range in {
		if file(&in[i]) == f {
			if lo < 0 {
				lo = i
			} else if hi != i {
				return 0, 0, false
			}
			hi = i + 1
		}
	}
	if lo < 0 {
		return 0, 0, true
	}
	return lo, hi, true
}

// view is in[lo:hi] with no room to grow into the next file's records;
// non-nil, as filtering makes it.
func view[T any](in []T, lo, hi int) []T {
	if lo == hi {
		return []T{}
	}
	return in[lo:hi:hi]
}

// subRange fills sub from the runs of file f's GPU ops and CPU spans:
// views, and indices into them shifted rather than looked up.
func (s *Store) subRange(sub *Store, f uint16, gLo, gHi, cLo, cHi int) {
	sub.GPU, sub.CPU = view(s.GPU, gLo, gHi), view(s.CPU, cLo, cHi)
	spans := func(in []Span) []Span {
		lo, hi, ok := fileRange(in, f, func(o *Span) uint16 { return o.File })
		if !ok {
			return filterSpans(in, f)
		}
		return view(in, lo, hi)
	}
	sub.Python, sub.Annot = spans(s.Python), spans(s.Annot)
	// shapes are in CPU span order (ShapesOf searches them)
	lo, _ := slices.BinarySearchFunc(s.Shapes, int32(cLo), func(sh Shapes, c int32) int { return cmp.Compare(sh.CPU, c) })
	hi, _ := slices.BinarySearchFunc(s.Shapes, int32(cHi), func(sh Shapes, c int32) int { return cmp.Compare(sh.CPU, c) })
	if lo < hi {
		sub.Shapes = slices.Clone(s.Shapes[lo:hi])
	}
	for i := range sub.Shapes {
		sub.Shapes[i].CPU -= int32(cLo)
	}
	for _, c := range s.Comms {
		lo, hi := cLo, cHi
		if c.OnGPU {
			lo, hi = gLo, gHi
		}
		if int(c.Op) >= lo && int(c.Op) < hi {
			c.Op -= int32(lo)
			sub.Comms = append(sub.Comms, c)
		}
	}
}

func filterSpans(in []Span, f uint16) []Span {
	n := 0
	for i := range in {
		if in[i].File == f {
			n++
		}
	}
	out := make([]Span, 0, n)
	for _, sp := range in {
		if sp.File == f {
			out = append(out, sp)
		}
	}
	return out
}

// subFiltered fills sub with file f's records wherever they lie.
func (s *Store) subFiltered(sub *Store, f uint16) {
	// sized first: appending would copy each rank's records several times
	count := func(n int, file func(i int) uint16) (k int) {
		for i := range n {
			if file(i) == f {
				k++
			}
		}
		return k
	}
	sub.GPU = make([]GPUOp, 0, count(len(s.GPU), func(i int) uint16 { return s.GPU[i].File }))
	sub.CPU = make([]Span, 0, count(len(s.CPU), func(i int) uint16 { return s.CPU[i].File }))
	gpu := make([]int32, len(s.GPU)) // old index → new, -1 when another file's
	for i := range s.GPU {
		gpu[i] = -1
		if o := s.GPU[i]; o.File == f {
			gpu[i] = int32(len(sub.GPU))
			sub.GPU = append(sub.GPU, o)
		}
	}
	cpu := make([]int32, len(s.CPU))
	for i := range s.CPU {
		cpu[i] = -1
		if c := s.CPU[i]; c.File == f {
			cpu[i] = int32(len(sub.CPU))
			sub.CPU = append(sub.CPU, c)
		}
	}
	sub.Python, sub.Annot = filterSpans(s.Python, f), filterSpans(s.Annot, f)
	for _, sh := range s.Shapes {
		if n := cpu[sh.CPU]; n >= 0 {
			sh.CPU = n
			sub.Shapes = append(sub.Shapes, sh)
		}
	}
	for _, c := range s.Comms {
		idx := cpu
		if c.OnGPU {
			idx = gpu
		}
		if n := idx[c.Op]; n >= 0 {
			c.Op = n
			sub.Comms = append(sub.Comms, c)
		}
	}
}

// HeaviestDevices returns, per file with kernels, the device whose kernels
// take longest (ties: the lower device id): the one GPU a per-file
// analysis of a multi-device trace looks at.
func (s *Store) HeaviestDevices() map[uint16]int64 {
	type fd struct {
		file uint16
		dev  int64
	}
	sum := map[fd]int64{}
	for i := range s.GPU {
		if o := &s.GPU[i]; o.Kind == KindKernel {
			sum[fd{o.File, o.Device}] += o.Dur
		}
	}
	best := map[uint16]int64{}
	bt := map[uint16]int64{}
	for k, v := range sum {
		if t, ok := bt[k.file]; !ok || v > t || v == t && k.dev < best[k.file] {
			best[k.file], bt[k.file] = k.dev, v
		}
	}
	return best
}
