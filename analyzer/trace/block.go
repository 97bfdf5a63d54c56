package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

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

// blockMagic starts an encoded block (and says which encoding).
const blockMagic = "gtblk1\n"

// AppendBlock encodes the block read by r (a reader from NewBlockReader,
// after its writes) for a Merge in another process or module instance.
func (r *Reader) AppendBlock(b []byte) []byte {
	s := r.s
	f := &s.Files[r.idx]
	b = append(b, blockMagic...)
	// where the block ended
	b = append(b, byte(r.sc.st), flag(r.sc.bare), flag(r.sc.sawEvents))
	b = binary.AppendVarint(b, r.sc.off)
	errMsg := ""
	if r.sc.err != nil {
		errMsg = r.sc.err.Error()
	}
	b = appendStr(b, errMsg)
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
	// records
	b = binary.AppendUvarint(b, uint64(len(s.GPU)))
	for i := range s.GPU {
		o := &s.GPU[i]
		b = binary.AppendVarint(b, o.TS)
		b = binary.AppendVarint(b, o.Dur)
		b = binary.AppendVarint(b, o.Corr)
		b = binary.AppendVarint(b, o.Ext)
		b = binary.AppendUvarint(b, uint64(o.Name))
		b = binary.AppendUvarint(b, uint64(o.Track))
		b = binary.AppendVarint(b, int64(o.Device))
		b = binary.AppendVarint(b, int64(o.Stream))
		b = append(b, byte(o.Kind))
	}
	for _, spans := range [][]Span{s.CPU, s.Python, s.Annot} {
		b = binary.AppendUvarint(b, uint64(len(spans)))
		for i := range spans {
			o := &spans[i]
			b = binary.AppendVarint(b, o.TS)
			b = binary.AppendVarint(b, o.Dur)
			b = binary.AppendVarint(b, o.Corr)
			b = binary.AppendVarint(b, o.Ext)
			b = binary.AppendUvarint(b, uint64(o.Name))
			b = binary.AppendUvarint(b, uint64(o.Track))
			b = binary.AppendUvarint(b, uint64(o.Kernel))
			b = append(b, byte(o.Kind))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.Shapes)))
	for i := range s.Shapes {
		o := &s.Shapes[i]
		b = binary.AppendUvarint(b, uint64(o.CPU))
		b = binary.AppendUvarint(b, uint64(o.Dims))
		b = binary.AppendUvarint(b, uint64(o.Types))
		b = binary.AppendUvarint(b, uint64(o.Concrete))
		b = binary.AppendVarint(b, o.Flops)
	}
	return b
}

// counts are the File fields a block adds to its file.
func (f *File) counts() [11]*int64 {
	n := &f.Numbers
	return [11]*int64{&f.Bytes, &f.Events, &f.Kept, &f.BadEvents, &f.NegDur, &f.LongNames,
		&n.TSMissing, &n.TSInvalid, &n.TSRange, &n.DurInvalid, &n.DurRange}
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

// id reads a name id of the block and maps it to the merged store's.
func (d *blockDecoder) id(ids []uint32) uint32 {
	v := d.uvarint()
	if v >= uint64(len(ids)) {
		d.bad = true
		return 0
	}
	return ids[v]
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
	st, bare, saw := scanState(d.byte()), d.byte() == 1, d.byte() == 1
	end := d.varint()
	errMsg := d.str()
	var counts [11]int64
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
	if st == stErr || errMsg != "" {
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
	for i, n := 0, d.count(8); i < n && !d.bad; i++ {
		*add(&s.GPU, r) = GPUOp{TS: d.varint(), Dur: d.varint(), Corr: d.varint(), Ext: d.varint(),
			Name: d.id(ids), Track: d.id(ids), Device: int32(d.varint()), Stream: int32(d.varint()),
			File: file, Kind: Kind(d.byte())}
	}
	cpuBase := int32(len(s.CPU))
	for _, p := range []*[]Span{&s.CPU, &s.Python, &s.Annot} {
		for i, n := 0, d.count(8); i < n && !d.bad; i++ {
			*add(p, r) = Span{TS: d.varint(), Dur: d.varint(), Corr: d.varint(), Ext: d.varint(),
				Name: d.id(ids), Track: d.id(ids), Kernel: d.id(ids), File: file, Kind: Kind(d.byte())}
		}
	}
	for i, n := 0, d.count(5); i < n && !d.bad; i++ {
		*add(&s.Shapes, r) = Shapes{CPU: cpuBase + int32(d.uvarint()), Dims: d.id(ids), Types: d.id(ids),
			Concrete: d.id(ids), Flops: d.varint()}
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
	names, gpu, cpu, python, annot, shapes int
	nameBytes                              int64
}

func (s *Store) mark() storeMark {
	return storeMark{len(s.Names), len(s.GPU), len(s.CPU), len(s.Python), len(s.Annot), len(s.Shapes), s.Budget.NameBytes}
}

func (s *Store) rollback(m storeMark) {
	for _, n := range s.Names[m.names:] {
		delete(s.index, n)
	}
	s.Names = s.Names[:m.names]
	s.GPU, s.CPU, s.Python = s.GPU[:m.gpu], s.CPU[:m.cpu], s.Python[:m.python]
	s.Annot, s.Shapes = s.Annot[:m.annot], s.Shapes[:m.shapes]
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
