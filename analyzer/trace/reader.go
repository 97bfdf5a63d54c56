package trace

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
	"github.com/gputriage/gputriage/analyzer/internal/units"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// headerKeys are the top-level values worth keeping (all small).
var headerKeys = map[string]bool{
	"schemaVersion": true, "deviceProperties": true, "distributedInfo": true,
	"displayTimeUnit": true, "baseTimeNanoseconds": true, "traceName": false,
	"cupti_version": true, "cuda_runtime_version": true, "cuda_driver_version": true,
	"roctracer_version": true, "rocprofiler-sdk_version": true,
	"hip_runtime_version": true, "hip_driver_version": true,
	"record_shapes": true, "with_stack": true, "with_flops": true, "profile_memory": true,
	"with_modules": true, "vllm_version": true,
}

// Reader streams one file into a Store. Write never fails: a broken document
// stops reading and is reported by Close, keeping everything read before.
type Reader struct {
	s       *Store
	f       *File
	idx     uint16
	sc      scanner
	ev      rawEvent
	scratch []byte
	key     []byte

	lastPid, lastTid []byte
	lastTrack        uint32

	sizeHint int64 // expected decompressed bytes of the file, 0 = unknown
	restHint int64 // expected bytes of the files read into the store after it
	// base is each record slice's length when the file started: a folder's
	// files share one store, and only this file's records extrapolate.
	base [6]int
}

// SizeHint tells the reader how many (decompressed) bytes the file should
// hold. It is only a hint: once a few MiB have been read, each record slice
// is grown once to the size the whole file needs, instead of doubling, so a
// wasm module's never-shrinking memory does not keep the dead copies of a
// large trace's growth. A wrong hint costs efficiency, never correctness.
func (r *Reader) SizeHint(n int64) { r.sizeHint = n }

// RestHint tells the reader how many (decompressed) bytes the files read
// into the same store after this one should hold (a rank folder's other
// ranks): the record slices, shared by all files, are then grown once for
// all of them rather than copied again for every file. Only a hint.
func (r *Reader) RestHint(n int64) { r.restHint = max(n, 0) }

// NewReader starts a file named name in store s.
func (s *Store) NewReader(name string) *Reader {
	s.Files = append(s.Files, File{Name: name, Header: map[string][]byte{}})
	r := &Reader{s: s, idx: uint16(len(s.Files) - 1),
		base: [6]int{len(s.GPU), len(s.CPU), len(s.Python), len(s.Annot), len(s.Shapes), len(s.Comms)}}
	r.f = &s.Files[r.idx]
	r.sc.event = r.event
	r.sc.fast = r.fastEvent
	r.sc.header = r.header
	r.sc.maxEvent = s.Budget.Limits.EventBytes
	return r
}

// Write pushes the next chunk of the file's (decompressed) bytes.
func (r *Reader) Write(p []byte) (int, error) {
	r.f = &r.s.Files[r.idx] // Files may have grown
	r.f.Bytes += int64(len(p))
	r.sc.write(p)
	return len(p), nil
}

// File returns the file's record in the store.
func (r *Reader) File() *File { return &r.s.Files[r.idx] }

// StoppedAt reports where reading stopped, when it did (a limit, broken
// JSON): the bytes a host pushed after that depend on its chunking.
func (r *Reader) StoppedAt() (int64, bool) {
	return r.sc.stopAt, r.sc.st == stErr
}

// Close ends the file and records whether it was complete. A file whose
// reading stopped counts its bytes up to that point, whatever the host
// pushed past it.
func (r *Reader) Close() *File {
	r.f = &r.s.Files[r.idx]
	if at, ok := r.StoppedAt(); ok && at < r.f.Bytes {
		r.f.Bytes = at
	}
	r.f.Complete, r.f.Problem = r.sc.finish()
	r.f.SawEvents = r.sc.sawEvents
	if r.f.BadEvents > 0 && r.f.Problem == "" {
		r.f.Problem = "some traceEvents elements were not valid JSON objects and were skipped"
	}
	if len(r.f.DeepHeaders) > 0 {
		msg := fmt.Sprintf("%s nested deeper than %d levels (--max-depth): ignored", strings.Join(r.f.DeepHeaders, ", "), r.s.Budget.Limits.Depth)
		r.f.Problem = strings.TrimPrefix(r.f.Problem+"; "+msg, "; ")
	}
	if vp := r.f.valueProblems(); len(vp) > 0 {
		var parts []string
		for _, c := range vp {
			parts = append(parts, fmt.Sprintf("%d %s", c.Count, c.What))
		}
		r.f.Problem = strings.TrimPrefix(r.f.Problem+"; "+strings.Join(parts, "; "), "; ")
	}
	return r.f
}

func (r *Reader) header(key string, v []byte) {
	if !headerKeys[key] {
		return
	}
	if d := r.s.Budget.Limits.Depth; limits.Depth(v, d) > d {
		r.f.DeepHeaders = append(r.f.DeepHeaders, key)
		return
	}
	{
		r.f.Header[key] = append([]byte(nil), v...)
	}
}

// fastEvent parses an event straight from the chunk; events that straddle
// chunks or are malformed go through event() with their complete bytes.
func (r *Reader) fastEvent(b []byte) (int, bool) {
	end, st := parseEventAt(b, &r.ev)
	if st != parsed {
		return 0, false
	}
	r.f.Events++
	r.handle(b)
	return end, true
}

func (r *Reader) event(b []byte) {
	f := r.f
	f.Events++
	if !parseEvent(b, &r.ev) {
		if len(bytes.TrimSpace(b)) > 2 { // `{}` is a known harmless empty event
			f.BadEvents++
		}
		return
	}
	r.handle(b)
}

// cut bounds a name to the string limit (at a UTF-8 boundary), counting it.
func (r *Reader) cut(raw []byte) []byte {
	max := r.s.Budget.Limits.StringBytes
	if int64(len(raw)) <= max {
		return raw
	}
	r.f.LongNames++
	n := int(max)
	for n > 0 && raw[n]&0xC0 == 0x80 {
		n--
	}
	return raw[:n]
}

// Stopped reports whether the reader reads no more of the file (a limit
// was reached, or the document is broken): the host may stop pushing it.
func (r *Reader) Stopped() bool { return r.sc.st == stErr }

// Stop ends reading the file for a reason found outside it (a host-side
// limit); the file is incomplete with that problem.
func (r *Reader) Stop(msg string) {
	if r.sc.st != stErr {
		r.sc.stop(r.sc.off, msg)
	}
}

func (r *Reader) handle(raw []byte) {
	f := r.f
	e := &r.ev
	if e.ph != 'X' {
		return
	}
	k := kindOf(e.cat.get(raw))
	if k == KindOther {
		return
	}
	ts, dur, ok := f.times(e.ts.get(raw), e.dur.get(raw))
	if !ok {
		return
	}
	pid, tid := e.pid.get(raw), e.tid.get(raw)
	s := r.s
	b := s.Budget
	if b.Records >= b.Limits.Records {
		r.sc.stop(r.sc.evStart, limits.Exceeded("event "+strconv.FormatInt(f.Events, 10)+" of traceEvents", "max-records", b.Limits.Records, r.sc.evStart)+
			" (events kept over all files)")
		return
	}
	if b.NameBytes > b.Limits.NameBytes {
		r.sc.stop(r.sc.evStart, limits.Exceeded("the names kept", "max-name-bytes", b.Limits.NameBytes, r.sc.evStart))
		return
	}
	b.Records++
	name := s.internRaw(r.cut(e.name.get(raw)), &r.scratch)
	// Consecutive events mostly share a thread: reuse its id.
	track := r.lastTrack
	if track == 0 || string(pid) != string(r.lastPid) || string(tid) != string(r.lastTid) {
		r.key = append(append(append(r.key[:0], pid...), ' '), tid...)
		track = s.internRaw(r.key, &r.scratch)
		r.lastPid = append(r.lastPid[:0], pid...)
		r.lastTid = append(r.lastTid[:0], tid...)
		r.lastTrack = track
	}
	f.Kept++
	switch k {
	case KindKernel, KindMemcpy, KindMemset, KindSync:
		// Ids are kept at 64 bits (2^40+7 is not stream 7); one beyond
		// int64 is skipped and counted, never wrapped onto another.
		dev, stream, over := e.device, e.stream, e.idOver
		if dev == None && !over {
			var o bool
			if dev, _, o = jsontext.TrailingIntRange(pid); o {
				over = true
			}
		}
		if stream == None && !over {
			var o bool
			if stream, _, o = jsontext.TrailingIntRange(tid); o {
				over = true
			}
		}
		if over {
			f.Numbers.IDRange++
			f.Kept--
			b.Records--
			return
		}
		if e.coll.set && k == KindKernel {
			r.comm(raw, int32(len(s.GPU)), true)
		}
		*add(&s.GPU, r) = GPUOp{TS: ts, Dur: dur, Corr: e.corr, Ext: e.ext, Name: name,
			Track: track, Device: dev, Stream: stream, File: r.idx, Kind: k}
	case KindPython:
		*add(&s.Python, r) = Span{TS: ts, Dur: dur, Corr: None, Ext: None, Name: name,
			Track: track, File: r.idx, Kind: k}
	case KindGPUAnnotation:
		*add(&s.Annot, r) = Span{TS: ts, Dur: dur, Corr: e.corr, Ext: e.ext, Name: name,
			Track: track, File: r.idx, Kind: k}
	default:
		var kernel uint32
		if kn := e.kernel.get(raw); len(kn) > 0 && (k == KindRuntime || k == KindDriver) {
			kernel = s.internRaw(r.cut(kn), &r.scratch)
		}
		if dims := e.dims.get(raw); k == KindCPUOp && (len(dims) > 0 || e.flops != None) {
			*add(&s.Shapes, r) = Shapes{CPU: int32(len(s.CPU)), Dims: s.internJSON(dims),
				Types: s.internJSON(e.types.get(raw)), Concrete: s.internJSON(e.concrete.get(raw)), Flops: e.flops}
		}
		if e.coll.set && k == KindCPUOp {
			r.comm(raw, int32(len(s.CPU)), false)
		}
		*add(&s.CPU, r) = Span{TS: ts, Dur: dur, Corr: e.corr, Ext: e.ext, Name: name,
			Track: track, Kernel: kernel, File: r.idx, Kind: k}
	}
}

// comm keeps the collective metadata of the event being added as op.
func (r *Reader) comm(raw []byte, op int32, gpu bool) {
	e, s := &r.ev, r.s
	in := func(v span) uint32 {
		if !v.set {
			return 0
		}
		return s.internRaw(r.cut(v.get(raw)), &r.scratch)
	}
	*add(&s.Comms, r) = Comm{Op: op, OnGPU: gpu, Coll: in(e.coll), PG: in(e.pg), PGDesc: in(e.pgDesc), Dtype: in(e.dtype), PGRanks: in(e.pgRanks),
		InN: e.inN, OutN: e.outN, Group: e.group, Seq: e.seq}
}

// add appends a zero record to *p and returns it. The slice header is
// stored back only when it grows: `x = x[:n]` writes just the length, and
// with no pointer written there is no GC write barrier per event.
func add[T any](p *[]T, r *Reader) *T {
	if len(*p) == cap(*p) {
		*p = growHint(*p, r, r.baseOf(p))
	}
	*p = (*p)[:len(*p)+1]
	return &(*p)[len(*p)-1]
}

// internJSON interns a raw JSON value as written (no decoding: the
// analyses that read shapes parse it once per distinct string).
func (s *Store) internJSON(raw []byte) uint32 {
	if len(raw) == 0 {
		return 0
	}
	if id, ok := s.index[string(raw)]; ok {
		return id
	}
	return s.Intern(string(raw))
}

// grow doubles a full record slice. append's 1.25× growth for large slices
// leaves a trail of dead blocks that a wasm module (whose linear memory never
// shrinks, and whose heap is not compacted) keeps paying for: with doubling,
// the dead blocks sum to at most the live one and are reused.
func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(cap(s), 1024))
}

// hintAfter is how much of a file is read before its size hint is trusted
// to extrapolate record counts.
const hintAfter = 4 << 20

// growHint grows a full slice to what the whole file will need, when the
// reader has a size hint and has read enough to extrapolate; else doubles.
func growHint[T any](s []T, r *Reader, base int) []T {
	if len(s) < cap(s) {
		return s
	}
	if need, ok := r.hinted(len(s), base); ok && need > len(s) {
		return slices.Grow(s, need-len(s))
	}
	return grow(s)
}

// hinted is how many records a slice holding n, of which the first base
// came from earlier files, will need for the whole file, extrapolated from
// the size hint; false without a usable hint.
func (r *Reader) hinted(n, base int) (int, bool) {
	f := r.File()
	if r.sizeHint <= 0 || r.sizeHint <= f.Bytes {
		return 0, false
	}
	b := r.s.Budget
	if f.Bytes < hintAfter {
		return r.hintedFromEarlier(n, base)
	}
	// Records of this slice from this file so far, extrapolated with
	// 5 % headroom; other files' records are already in the slice and
	// say nothing about this one's (extrapolating them made a folder's
	// store grow to many times its records).
	own := int64(max(n-base, 0))
	left := float64(own) * float64(r.sizeHint-f.Bytes) / float64(f.Bytes)
	// The files still to come (RestHint) at the earlier files' rate when
	// there are earlier files (a file's start is no sample of a whole
	// file: profilers write the CPU side first), else at this one's.
	if prior := r.priorBytes(); base > 0 && prior >= hintAfter {
		left += float64(base) * float64(r.restHint) / float64(prior)
	} else {
		left += float64(own) * float64(r.restHint) / float64(f.Bytes)
	}
	need := own + min(units.Trunc(left*1.05), 15*own) // no overflow
	// A forged size hint must not allocate what the file does not
	// hold: grow at most 16× what was really read (dead blocks stay
	// ≤ 1/15 of the live one), and never past the record budget.
	need = min(need, 16*own, own+b.Limits.Records-b.Records+1)
	return int(min(int64(base)+need, 1<<31)), true
}

// hintedFromEarlier plans a file read after others into one store (a rank
// folder) before it has read enough of itself: from the earlier files'
// records per byte, so the shared slice, which holds every earlier file's
// records, is copied once for this file rather than at every doubling.
func (r *Reader) hintedFromEarlier(n, base int) (int, bool) {
	prior := r.priorBytes()
	if base == 0 || prior < hintAfter {
		return 0, false
	}
	own := int64(n - base)
	need := own + min(units.Trunc(float64(base)*float64(r.sizeHint-r.File().Bytes+r.restHint)/float64(prior)*1.05), int64(n))
	// never more than doubling would have taken; never past the budget
	b := r.s.Budget
	need = min(need, int64(n), own+b.Limits.Records-b.Records+1)
	return int(min(int64(base)+need, 1<<31)), true
}

// priorBytes is how many bytes the files read into the store before this
// one held.
func (r *Reader) priorBytes() (n int64) {
	for _, pf := range r.s.Files[:r.idx] {
		n += pf.Bytes
	}
	return n
}

// baseOf is the length record slice p had when the file started.
func (r *Reader) baseOf(p any) int {
	s := r.s
	switch p := p.(type) {
	case *[]GPUOp:
		return r.base[0]
	case *[]Span:
		switch p {
		case &s.CPU:
			return r.base[1]
		case &s.Python:
			return r.base[2]
		case &s.Annot:
			return r.base[3]
		}
	case *[]Shapes:
		return r.base[4]
	case *[]Comm:
		return r.base[5]
	}
	return 0
}
