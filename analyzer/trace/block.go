package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"

	"github.com/gputriage/gputriage/analyzer/internal/jsontext"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// Blocks: one file's traceEvents read in parallel. The host cuts the
// decompressed bytes between two elements of traceEvents; each block is
// read by a reader of its own (another goroutine, another wasm instance)
// that starts as if it sat inside the array, and the file's own reader
// merges the blocks in file order. Where the host guessed wrong — the part
// before a block did not end between two elements — Merge refuses, and the
// host reads the file again without blocks: the result is always the one a
// single reader gives, byte for byte.
//
// Names are interned per block; Merge interns a block's names in the
// order the block met them, which is the order a single reader would have
// given them ids, so every id (and every tie broken by id) is the same.

// ErrSplit is Merge's refusal: the block may not follow what was read so
// far, or a limit must be enforced event by event. Read the file again
// without blocks.
var ErrSplit = errors.New("the file cannot be read in blocks here: read it again without blocks")

// Splittable reports whether the reader sits between two elements of
// traceEvents (the only place a block may start), and whether the document
// is a bare array of events.
func (r *Reader) Splittable() (ok, bare bool) {
	return r.sc.st == stArr && r.sc.sawEvents, r.sc.bare
}

// NewBlockReader returns a reader for one block of a file, on a store of
// its own: the block starts between two elements of traceEvents (of a bare
// array when bare) at byte base of the decompressed file.
func NewBlockReader(l limits.Limits, base int64, bare bool) *Reader {
	s := NewStore()
	s.Budget = NewBudget(l)
	r := s.NewReader("")
	r.sc.st = stArr
	r.sc.sawEvents = true
	r.sc.bare = bare
	r.sc.off = base
	return r
}

// ResetBlock starts the next block on a reader from NewBlockReader: the
// store is emptied but keeps its memory, so a parser that reads block
// after block does not grow its columns (nor make garbage) each time.
func (r *Reader) ResetBlock(base int64, bare bool) {
	s := r.s
	clear(s.index)
	s.index[""] = 0
	clear(s.alias)
	clear(s.Names[1:]) // let the previous block's strings go
	s.Names = s.Names[:1]
	s.GPU, s.CPU, s.Python, s.Annot, s.Shapes, s.Comms = s.GPU[:0], s.CPU[:0], s.Python[:0], s.Annot[:0], s.Shapes[:0], s.Comms[:0]
	*s.cache = [cacheSize]cacheEntry{}
	s.Budget.Records, s.Budget.NameBytes = 0, 0
	s.Files[r.idx] = File{Header: map[string][]byte{}}
	r.f = &s.Files[r.idx]
	sc := &r.sc
	*sc = scanner{st: stArr, sawEvents: true, bare: bare, off: base, buf: sc.buf[:0], key: sc.key[:0],
		maxEvent: sc.maxEvent, event: sc.event, fast: sc.fast, header: sc.header}
	r.lastPid, r.lastTid, r.lastTrack = r.lastPid[:0], r.lastTid[:0], 0
}

// blockMagic starts an encoded block (and says which encoding).
const blockMagic = "gtblk3\n"

// AppendBlock encodes the block read by r (a reader from NewBlockReader,
// after its writes) for a Merge in another process or module instance.
func (r *Reader) AppendBlock(b []byte) []byte {
	s := r.s
	f := &s.Files[r.idx]
	b = append(b, blockMagic...)
	b = append(b, blockLayout[:]...)
	// where the block ended
	b = append(b, byte(r.sc.st), flag(r.sc.bare), flag(r.sc.sawEvents))
	b = binary.AppendVarint(b, r.sc.off)
	// the file's counts
	for _, v := range f.counts() {
		b = binary.AppendVarint(b, *v)
	}
	b = binary.AppendUvarint(b, uint64(len(f.DeepHeaders)))
	for _, h := range f.DeepHeaders {
		b = appendStr(b, h)
	}
	keys := make([]string, 0, len(f.Header))
	for k := range f.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendStr(b, k)
		b = appendStr(b, string(f.Header[k]))
	}
	// names, in id order
	b = binary.AppendUvarint(b, uint64(len(s.Names)-1))
	for _, n := range s.Names[1:] {
		b = appendStr(b, n)
	}
	// records, as their memory: both ends are the same build (blockLayout)
	b = appendRecords(b, s.GPU)
	b = appendRecords(b, s.CPU)
	b = appendRecords(b, s.Python)
	b = appendRecords(b, s.Annot)
	b = appendRecords(b, s.Shapes)
	b = appendRecords(b, s.Comms)
	return b
}

// blockLayout is the record sizes an encoded block was written with: the
// records travel as their memory (copying them is what makes blocks pay in
// wasm: a field-by-field varint encoding cost more than the parse saved),
// so a block from another build is refused.
var blockLayout = [4]byte{byte(unsafe.Sizeof(GPUOp{})), byte(unsafe.Sizeof(Span{})), byte(unsafe.Sizeof(Shapes{})), byte(unsafe.Sizeof(Comm{}))}

// appendRecords appends a record slice's count and memory. The record
// types hold no pointers.
func appendRecords[T GPUOp | Span | Shapes | Comm](b []byte, recs []T) []byte {
	b = binary.AppendUvarint(b, uint64(len(recs)))
	if len(recs) == 0 {
		return b
	}
	var z T
	return append(b, unsafe.Slice((*byte)(unsafe.Pointer(&recs[0])), len(recs)*int(unsafe.Sizeof(z)))...)
}

// records reads a record slice appended by appendRecords and appends its
// records to *p (growing it for the reader's file); it returns the new
// records, for the caller to map their name ids.
func records[T GPUOp | Span | Shapes | Comm](d *blockDecoder, p *[]T, r *Reader) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)/size) {
		d.bad, d.b = true, nil
		return nil
	}
	raw := d.b[:int(n)*size]
	d.b = d.b[len(raw):]
	old := len(*p)
	reserve(p, r, int(n))
	*p = (*p)[:old+int(n)]
	out := (*p)[old:]
	if n > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(raw)), raw)
	}
	return out
}

// reserve makes room for n more records in *p: sized from the file's size
// hint when there is one (Reader.hinted, as growHint), else doubled.
func reserve[T any](p *[]T, r *Reader, n int) {
	s := *p
	if cap(s)-len(s) >= n {
		return
	}
	want := len(s) + n
	grown := max(2*cap(s), want, 1024)
	if need, ok := r.hinted(want, r.baseOf(p)); ok {
		grown = max(want, need)
	}
	*p = slices.Grow(s, grown-len(s))
}

// counts are the File fields a block adds to its file.
func (f *File) counts() [12]*int64 {
	n := &f.Numbers
	return [12]*int64{&f.Bytes, &f.Events, &f.Kept, &f.BadEvents, &f.NegDur, &f.LongNames,
		&n.TSMissing, &n.TSInvalid, &n.TSRange, &n.DurInvalid, &n.DurRange, &n.IDRange}
}

func flag(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// blockDecoder reads an encoded block; the first malformed value sets bad.
type blockDecoder struct {
	b   []byte
	bad bool
}

func (d *blockDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *blockDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *blockDecoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *blockDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a record count, bounded by the bytes left (each record takes
// at least min bytes), so a damaged count cannot allocate.
func (d *blockDecoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/min) {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

// Merge appends an encoded block to the file r reads: the block's records
// follow the ones read so far, as if r had read the block's bytes itself.
// It returns ErrSplit when r did not stop between two elements of
// traceEvents (the host's cut was wrong) or when a limit would have
// stopped a single reader (the exact place is found only by reading event
// by event), and an error for a damaged encoding; r is unchanged then.
func (r *Reader) Merge(enc []byte) error {
	if ok, _ := r.Splittable(); !ok {
		return ErrSplit
	}
	d := blockDecoder{b: enc}
	if len(enc) < len(blockMagic) || string(enc[:len(blockMagic)]) != blockMagic {
		return errors.New("not an encoded trace block")
	}
	d.b = d.b[len(blockMagic):]
	if len(d.b) < len(blockLayout) || [4]byte(d.b[:4]) != blockLayout {
		return errors.New("a trace block of another build (record layout differs)")
	}
	d.b = d.b[len(blockLayout):]
	st, bare, saw := scanState(d.byte()), d.byte() == 1, d.byte() == 1
	end := d.varint()
	var counts [12]int64 // as File.counts
	for i := range counts {
		counts[i] = d.varint()
	}
	deep := make([]string, d.count(1))
	for i := range deep {
		deep[i] = d.str()
	}
	headers := make([][2]string, d.count(2))
	for i := range headers {
		headers[i] = [2]string{d.str(), d.str()}
	}
	if d.bad || st > stErr || bare != r.sc.bare || !saw {
		return errors.New("damaged trace block")
	}
	// A block that broke off (broken JSON, a limit) stopped where a single
	// reader would have stopped too, but the host pushed on past it: only
	// a single reader says how far.
	if st == stErr {
		return ErrSplit
	}
	if end != r.sc.off+counts[0] {
		return errors.New("damaged trace block: it does not start where the file's bytes so far end")
	}

	s, b := r.s, r.s.Budget
	// A single reader stops at the first event past a limit: the block
	// cannot say where that was.
	if b.Records+counts[2] > b.Limits.Records {
		return ErrSplit
	}
	// Names: decode them all before changing the store (a damaged block
	// must leave it as it was).
	names := make([]string, d.count(1)+1)
	for i := 1; i < len(names); i++ {
		names[i] = d.str()
	}
	if d.bad {
		return errors.New("damaged trace block")
	}
	newBytes := int64(0)
	for _, n := range names[1:] {
		if _, ok := s.index[n]; !ok {
			newBytes += int64(len(n))
		}
	}
	if b.NameBytes+newBytes > b.Limits.NameBytes {
		return ErrSplit
	}
	f := &s.Files[r.idx]
	f.Bytes += counts[0] // before the records: growHint extrapolates from it
	mark := s.mark()
	ids := make([]uint32, len(names))
	for i, n := range names[1:] {
		ids[i+1] = s.Intern(n)
	}
	file := r.idx
	ok := func(id uint32) uint32 {
		if id >= uint32(len(ids)) {
			d.bad = true
			return 0
		}
		return ids[id]
	}
	gpuBase := int32(len(s.GPU))
	gpu := records(&d, &s.GPU, r)
	for i := range gpu {
		o := &gpu[i]
		o.Name, o.Track, o.File = ok(o.Name), ok(o.Track), file
	}
	cpuBase := int32(len(s.CPU))
	for _, p := range []*[]Span{&s.CPU, &s.Python, &s.Annot} {
		spans := records(&d, p, r)
		for i := range spans {
			o := &spans[i]
			o.Name, o.Track, o.Kernel, o.File = ok(o.Name), ok(o.Track), ok(o.Kernel), file
		}
	}
	shapes := records(&d, &s.Shapes, r)
	for i := range shapes {
		o := &shapes[i]
		o.CPU += cpuBase
		o.Dims, o.Types, o.Concrete = ok(o.Dims), ok(o.Types), ok(o.Concrete)
	}
	comms := records(&d, &s.Comms, r)
	for i := range comms {
		o := &comms[i]
		if o.OnGPU {
			o.Op += gpuBase
		} else {
			o.Op += cpuBase
		}
		o.Coll, o.PG, o.PGDesc, o.Dtype, o.PGRanks = ok(o.Coll), ok(o.PG), ok(o.PGDesc), ok(o.Dtype), ok(o.PGRanks)
	}
	if d.bad || len(d.b) != 0 {
		s.rollback(mark)
		f.Bytes -= counts[0]
		return errors.New("damaged trace block")
	}
	b.Records += counts[2]
	for i, v := range f.counts() {
		if i > 0 { // Bytes: added above
			*v += counts[i]
		}
	}
	f.DeepHeaders = append(f.DeepHeaders, deep...)
	for _, h := range headers {
		f.Header[h[0]] = []byte(h[1])
	}
	// The reader now stands where the block ended.
	r.sc.st, r.sc.off = st, end
	return nil
}

// storeMark is a store's size, to undo a merge that met a damaged block.
type storeMark struct {
	names, gpu, cpu, python, annot, shapes, comms int
	nameBytes                                     int64
}

func (s *Store) mark() storeMark {
	return storeMark{len(s.Names), len(s.GPU), len(s.CPU), len(s.Python), len(s.Annot), len(s.Shapes), len(s.Comms), s.Budget.NameBytes}
}

func (s *Store) rollback(m storeMark) {
	for _, n := range s.Names[m.names:] {
		delete(s.index, n)
	}
	s.Names = s.Names[:m.names]
	s.GPU, s.CPU, s.Python = s.GPU[:m.gpu], s.CPU[:m.cpu], s.Python[:m.python]
	s.Annot, s.Shapes, s.Comms = s.Annot[:m.annot], s.Shapes[:m.shapes], s.Comms[:m.comms]
	s.Budget.NameBytes = m.nameBytes
	s.cache = new([cacheSize]cacheEntry)
}

// cutLook is how far past a cut the next element's "ph" key is looked for.
const cutLook = 512

// prettyLook is how far before a cut a newline says the document is
// pretty-printed.
const prettyLook = 4096

// NextCut returns the first place at or after from where a block may
// start: a '{' that follows "}" and "," (whitespace around them allowed)
// and whose next cutLook bytes hold a "ph" key, as every traceEvents
// element of a profiler does. Where the text since from has a newline (a
// pretty-printed document) the whitespace must hold one too: JSON strings
// cannot, so such a cut is never inside a kernel name. -1 if p holds none.
// It stays a guess that Merge checks: a header's array of objects or a
// nested array only costs the host a second, single-reader pass.
func NextCut(p []byte, from int) int {
	for i := max(from, 1); i < len(p); i++ {
		j := bytes.IndexByte(p[i:], '{')
		if j < 0 {
			return -1
		}
		i += j
		k := i - 1
		nl := false
		for k >= 0 && jsontext.IsSpace(p[k]) {
			nl = nl || p[k] == '\n'
			k--
		}
		if k < 1 || p[k] != ',' {
			continue
		}
		k--
		for k >= 0 && jsontext.IsSpace(p[k]) {
			nl = nl || p[k] == '\n'
			k--
		}
		if k < 0 || p[k] != '}' || !nl && bytes.IndexByte(p[max(0, k-prettyLook):k], '\n') >= 0 {
			continue
		}
		if bytes.Contains(p[i:min(len(p), i+cutLook)], []byte(`"ph"`)) {
			return i
		}
	}
	return -1
}
