package trace

import "strconv"

// Importer adds the records of a file in another profiler's format (the
// ROCm profilers' JSON, CSV and database rows) to a Store, so every
// analysis reads them as it reads a Kineto trace. It counts against the
// same budget; once a limit is reached it keeps nothing more and the file
// is incomplete.
type Importer struct {
	s       *Store
	idx     uint16
	stopped bool
}

// NewImport starts a file named name in store s.
func (s *Store) NewImport(name string) *Importer {
	s.Files = append(s.Files, File{Name: name, Header: map[string][]byte{}, Complete: true, SawEvents: true})
	return &Importer{s: s, idx: uint16(len(s.Files) - 1)}
}

// File returns the file's record in the store.
func (im *Importer) File() *File { return &im.s.Files[im.idx] }

// Index is the file's index in the store.
func (im *Importer) Index() uint16 { return im.idx }

// Store is the store records go to.
func (im *Importer) Store() *Store { return im.s }

// Stopped reports whether a limit ended the file.
func (im *Importer) Stopped() bool { return im.stopped }

// Name interns a name, cut to the string limit.
func (im *Importer) Name(v string) uint32 {
	if max := im.s.Budget.Limits.StringBytes; int64(len(v)) > max {
		im.File().LongNames++
		n := int(max)
		for n > 0 && v[n]&0xC0 == 0x80 {
			n--
		}
		v = v[:n]
	}
	return im.s.Intern(v)
}

// Track interns a thread or queue key, as "pid tid" for Kineto.
func (im *Importer) Track(a, b int64) uint32 {
	return im.s.Intern(strconv.FormatInt(a, 10) + " " + strconv.FormatInt(b, 10))
}

// keep counts one record against the budget; false once a limit is hit.
func (im *Importer) keep(what string) bool {
	if im.stopped {
		return false
	}
	f, b := im.File(), im.s.Budget
	f.Events++
	switch {
	case b.Records >= b.Limits.Records:
		im.Stop(what + " " + strconv.FormatInt(f.Events, 10) + " exceeds the limit of " + strconv.FormatInt(b.Limits.Records, 10) +
			" records kept over all files (--max-records): the rest of the file is not read")
		return false
	case b.NameBytes > b.Limits.NameBytes:
		im.Stop("the names kept exceed the limit of " + strconv.FormatInt(b.Limits.NameBytes, 10) + " bytes (--max-name-bytes): the rest of the file is not read")
		return false
	}
	b.Records++
	f.Kept++
	return true
}

// Stop ends the file for a reason found in it: it is incomplete.
func (im *Importer) Stop(msg string) {
	if im.stopped {
		return
	}
	im.stopped = true
	f := im.File()
	f.Complete = false
	if f.Problem == "" {
		f.Problem = msg
	}
}

// Problem records what was wrong with part of the file (it stays usable).
func (im *Importer) Problem(msg string) {
	f := im.File()
	f.BadEvents++
	if f.Problem == "" {
		f.Problem = msg
	}
}

// inRange applies the Kineto reader's time range (docs/limits.md,
// "Values") to an imported record: a start outside 0 … MaxTS or a
// duration beyond MaxDur (an end minus a start of ±9·10¹⁸ ns) is skipped
// and counted, so no later sum or delta wraps around.
func (im *Importer) inRange(ts, dur int64) bool {
	f := im.File()
	switch {
	case ts < 0 || ts > MaxTS:
		f.Events++
		f.Numbers.TSRange++
		return false
	case dur > MaxDur:
		f.Events++
		f.Numbers.DurRange++
		return false
	}
	return true
}

// GPU adds a kernel, copy or fill; its File is set here.
func (im *Importer) GPU(o GPUOp) bool {
	if !im.inRange(o.TS, o.Dur) {
		return !im.stopped
	}
	if !im.keep("record") {
		return false
	}
	if o.Dur < 0 {
		o.Dur = 0
		im.File().NegDur++
	}
	o.File = im.idx
	im.s.GPU = append(grow(im.s.GPU), o)
	return true
}

// CPU adds a host-side span (a runtime API call, a marker range).
func (im *Importer) CPU(sp Span) bool {
	if !im.inRange(sp.TS, sp.Dur) {
		return !im.stopped
	}
	if !im.keep("record") {
		return false
	}
	if sp.Dur < 0 {
		sp.Dur = 0
		im.File().NegDur++
	}
	sp.File = im.idx
	im.s.CPU = append(grow(im.s.CPU), sp)
	return true
}

// Source is what a ROCm profiler file says about its run beyond its
// records: the tool's format, the process, the agents, copy sizes.
type Source struct {
	Format   string
	Hostname string
	Pid      int64
	// InitNS and FiniNS are the process window (rocprofv3), 0 if unknown.
	InitNS, FiniNS int64
	Agents         []Agent // GPU agents, by Device
	// Copies with a byte count and their bytes (RPD has sizes only on the
	// API side, so graph-launched copies have none).
	CopiesWithSize, CopyBytes int64
}

// Agent is one GPU of a ROCm profiler file.
type Agent struct {
	Device  int64 // the GPU ordinal used as GPUOp.Device (HIP device index)
	Node    int64 // absolute node id (KFD)
	Logical int64 // logical node id
	Arch    string
	Product string
	CUs     int64
	Wave    int64
	MemB    int64
}
