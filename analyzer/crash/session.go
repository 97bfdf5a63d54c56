package crash

import (
	"bytes"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"unsafe"

	"github.com/gputriage/gputriage/analyzer/limits"
)

const (
	maxLineBytes = 64 << 10 // longer lines are cut (flagged long_lines_cut)
	maxFiles     = 4096
)

// Session accumulates the evidence of one incident: any number of files,
// each pushed as bytes in chunks of any size.
type Session struct {
	files []*fileState
	cur   *fileState

	partial  []byte // unterminated line carried between chunks
	dropping bool   // current line exceeded maxLineBytes; skip to '\n'

	b       *builder
	parsers []parser

	lastLaunch   launchConfig
	limits       deviceLimits
	lastModule   string // code object path of the last "Loading … .hsaco" line (launch.go)
	lastModuleEv Evidence
	sideMax      int64  // bytes of a side document (limits.SideDocBytes)
	sideOver     bool   // the last file ended was a side document over sideMax
	fileProblem  string // why the last file ended could not be read ("" when it was)

	gates       []uint64 // gate() of each parser
	gateUnion   uint64   // union of gates
	statefulSet uint64   // parsers whose active() may be true (bit i = s.parsers[i])
	maybeActive uint64   // stateful parsers that may be active now
	refiners    []int    // parsers implementing refiner

	ln line // the line handed to the parsers (reused; parsers keep copies)

	emit func([]byte) // s.writeDecoded, bound once

	// a line that may continue on the next one (wrapjoin.go): its text so
	// far, its number, the start of its last physical line, its parts
	held      []byte
	heldNo    int
	heldLast  int
	heldParts int
	// heldWidest: the file's longest line before the held line's last
	heldWidest int
	heldWrap   deliveryFacts // the held line's delivery wrappers (delivery.go)

	wrap  deliveryFacts // the delivery wrappers of the line being read
	hosts []string      // wrapper names kept (ownHost)
}

type fileState struct {
	idx     int
	info    InputInfo
	formats map[string]bool
	quality map[string]bool
	side    *sideDoc
	dec     logDecoder
	fmtSeen uint64 // kwFmt* bits of the formats recorded by prefix stripping
	help    bool   // inside a command's usage / --help text (helptext.go)
	// helpDesc counts the lines since a usage line whose block a
	// description paragraph interrupted (0: none); a section header
	// within helpDescMax lines resumes the block
	helpDesc int
	mdTable  bool   // inside a Markdown table's rows (helptext.go)
	docDiff  bool   // a diff's added lines are a document's markup (docdiff.go)
	problem  string // why the file could not be read (an unreadable pickle)
	// tbCarry: the lines after a ranked record that opened a traceback
	// are tbRank's (tbcarry.go)
	tbCarry bool
	tbRank  int
	widest  int // longest line so far (wrapjoin.go)
	// srunRanks: an srun label stood before a known log shape, so the
	// file's bare "N: " labels are task ranks (delivery.go)
	srunRanks bool
}

// parser is implemented by every format parser.
type parser interface {
	beginFile(s *Session)
	line(l *line)
	endFile()
	gate() uint64       // keyword bits (prefilter.go) without which line(l) does nothing while idle
	active(no int) bool // the parser must see line no whatever it contains
}

// New returns an empty session.
func New() *Session { return newSession(newParsers) }

// newSession builds a session with the given parser set (tests fuzz one
// parser at a time).
func newSession(mk func(*Session) []parser) *Session {
	s := &Session{b: newBuilder(), limits: defaultLimits(), sideMax: limits.DefaultSideDoc, wrap: noDelivery, heldWrap: noDelivery}
	s.parsers = mk(s)
	return s
}

// BeginFile starts a new input file; name is used in evidence.
func (s *Session) BeginFile(name string) {
	if s.cur != nil {
		s.EndFile()
	}
	if len(s.files) >= maxFiles {
		// keep a bounded list: reuse the last slot's counters under a shared name
		s.cur = s.files[len(s.files)-1]
		return
	}
	f := &fileState{idx: len(s.files), info: InputInfo{Name: name}, formats: map[string]bool{}, quality: map[string]bool{}}
	f.side = newSideDoc(s.sideMax)
	s.files = append(s.files, f)
	s.cur = f
	s.partial = s.partial[:0]
	s.dropping = false
	for _, p := range s.parsers {
		p.beginFile(s)
	}
	s.maybeActive = ^uint64(0)
}

// SetSideDocLimit sets the bytes a side document may have (decoded whole
// at EndFile); a larger one is not read, which SideDocOver reports.
func (s *Session) SetSideDocLimit(n int64) { s.sideMax = n }

// SideDocOver reports whether the file EndFile last ended was a side
// document (JSON, a flight-recorder pickle) over the limit, left unread.
func (s *Session) SideDocOver() bool { return s.sideOver }

// FileProblem says why the file EndFile last ended could not be read ("" when
// it was), so the host flags that input partial instead of dropping it quietly.
func (s *Session) FileProblem() string { return s.fileProblem }

// NoteProblem records why the file EndFile last ended was not wholly read
// (InputInfo.Problem).
func (s *Session) NoteProblem(p string) {
	if n := len(s.files); n > 0 && s.cur == nil {
		s.files[n-1].info.Problem = p
	}
}

// Unread lists an input the session never saw, with why: a JSON side
// document over its limit is read by the host's JSON path, not here.
func (s *Session) Unread(name string, bytes int64, problem string) {
	if s.cur != nil {
		s.EndFile()
	}
	if len(s.files) >= maxFiles {
		return
	}
	f := &fileState{idx: len(s.files), info: InputInfo{Name: name, Bytes: bytes, Truncated: true, Problem: problem},
		formats: map[string]bool{}, quality: map[string]bool{"side_document_over_limit": true}}
	s.files = append(s.files, f)
}

// Write pushes the next chunk of the current file. It never fails.
func (s *Session) Write(p []byte) (int, error) {
	if s.cur == nil {
		s.BeginFile("input")
	}
	n := len(p)
	s.cur.info.Bytes += int64(n)
	if s.emit == nil {
		s.emit = s.writeDecoded
	}
	// side documents (JSON, flight-recorder pickles) take the bytes as
	// they are; only the line parsers read decoded text
	s.cur.side.write(p)
	s.cur.dec.write(p, s.emit)
	return n, nil
}

// yieldLines is how many lines the session reads between yields: the
// module is one thread that never preempts, so a collection started while
// one host push of many lines is read could not end before the push did,
// and whatever the extractors allocated meanwhile would count as live
// (callsite.Chunks does the same for the trace analyses).
const yieldLines = 4096

// writeDecoded takes UTF-8 bytes from the file's decoder (decode.go).
func (s *Session) writeDecoded(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.appendPartial(p)
			break
		}
		if s.cur.info.Lines%yieldLines == yieldLines-1 {
			runtime.Gosched() // the module: see yieldLines
		}
		if len(s.partial) == 0 && !s.dropping {
			s.handleLine(p[:i])
		} else {
			s.appendPartial(p[:i])
			s.handleLine(s.partial)
		}
		s.partial = s.partial[:0]
		s.dropping = false
		p = p[i+1:]
	}
}

func (s *Session) appendPartial(p []byte) {
	room := maxLineBytes - len(s.partial)
	if len(p) > room {
		if room > 0 {
			s.partial = append(s.partial, p[:room]...)
		}
		if !s.dropping {
			s.dropping = true
			s.cur.quality["long_lines_cut"] = true
		}
		return
	}
	s.partial = append(s.partial, p...)
}

func (s *Session) handleLine(b []byte) {
	if len(b) > maxLineBytes {
		b = b[:maxLineBytes]
		s.cur.quality["long_lines_cut"] = true
	}
	s.cur.info.Lines++
	no := s.cur.info.Lines
	// CRLF; colour codes and delivery wrappers (delivery.go) before
	// anything reads the line's shape; then keep the text after the last
	// carriage return.
	for len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = []byte(stripANSI(string(b)))
		for len(b) > 0 && b[len(b)-1] == '\r' { // "…\r\x1b[0m": a reset after the line end
			b = b[:len(b)-1]
		}
	}
	b, w := s.stripDelivery(b)
	if bytes.IndexByte(b, '\r') >= 0 {
		b = b[bytes.LastIndexByte(b, '\r')+1:]
	}
	if s.heldParts > 0 {
		if sep, ok := wrapJoin(s.held[s.heldLast:], b, s.heldWidest); ok && len(s.held)+len(b)+1 <= maxLineBytes {
			s.held = append(s.held, sep...)
			s.heldLast = len(s.held)
			s.held = append(s.held, b...)
			s.heldParts++
			s.heldWidest = max(s.heldWidest, len(s.held)-s.heldLast)
			if s.heldParts >= wrapMaxParts || !wrapCandidate(b) {
				s.flushHeld()
			}
			return
		}
		s.flushHeld()
	}
	widest := s.cur.widest
	s.cur.widest = max(widest, len(b))
	if wrapCandidate(b) && len(b)+1 >= widest {
		s.held = append(s.held[:0], b...)
		s.heldNo, s.heldLast, s.heldParts, s.heldWidest = no, 0, 1, widest
		s.heldWrap = w
		s.heldWrap.text = strings.Clone(w.text) // w.text aliases the input
		return
	}
	s.wrap = w
	s.readLine(b, no)
	s.wrap = noDelivery
}

// flushHeld reads the held line (wrapjoin.go).
func (s *Session) flushHeld() {
	if s.heldParts == 0 {
		return
	}
	s.heldParts = 0
	s.wrap = s.heldWrap
	s.readLine(s.held, s.heldNo)
	s.wrap = noDelivery
}

// readLine reads line no (b without its line end).
func (s *Session) readLine(b []byte, no int) {
	if len(b) > 0 && (b[0] == '"' || b[0] == '{' || b[0] == '[' || b[0] == ' ' || b[0] == '\t') {
		if text, ok := unwrapJSONField(b); ok {
			s.feedUnwrapped(text, no)
			return
		}
	}
	if s.helpLine(b) {
		return
	}
	s.cur.endCarry(b)
	mask := kwScan(b)
	// view aliases b: it is used only while this line is handled and
	// copied before a parser sees it.
	view := unsafe.String(unsafe.SliceData(b), len(b))
	if mask&kwSpecial != 0 && rewriteChanges(view) {
		raw := rewriteRaw(string(b))
		s.handleRaw(raw, true, kwScanString(raw), no)
		return
	}
	s.handleRaw(view, false, mask, no)
}

// handleRaw strips the prefixes of raw and hands the line to the parsers
// that want it (see prefilter.go); owned is false when raw aliases the
// caller's buffer. Lines no parser wants cost no allocation.
func (s *Session) handleRaw(raw string, owned bool, mask uint64, no int) {
	if mask&kwNCCL != 0 {
		if parts := splitGluedRecords(raw); parts != nil { // gluedrecords.go
			for _, p := range parts {
				s.handleRaw(p, owned, kwScanString(p), no)
			}
			return
		}
	}
	f := s.cur
	need := s.wanted(mask, no)
	if need == 0 && mask&(kwFmtDmesg|kwFmtHIP|kwFmtCompose)&^f.fmtSeen == 0 {
		return
	}
	l := &s.ln
	*l = line{file: f.idx, no: no, rank: -1, hipLevel: -1, raw: raw}
	if w := &s.wrap; w.text != "" {
		l.rank, l.host, l.worker, l.kernel = w.rank, w.host, w.worker, w.kernel
	}
	rest := s.stripPrefixes(l, raw) // records the formats of the prefixes
	f.carryRank(l, rest)
	if l.pid > 0 && l.rank >= 0 {
		// a prefix that names both ("(VllmWorker rank=2 pid=225)") ties the
		// pid to the rank for every parser's line, not only the incident's
		s.b.facts.inc.mapPID(l.pid, l.rank)
	}
	if l.pid == 0 {
		// a collector's pid (journald's: the unit's stream) is the line's
		// but ties no rank: every rank's lines may carry it
		l.pid = s.wrap.pid
	}
	if need == 0 {
		*l = line{}
		return
	}
	text := strings.TrimRight(rest, " \t")
	if a := len(raw) - len(rest); a > 0 {
		// The parsers test the text. A keyword found in raw lies wholly in
		// the text unless it also occurs within the first a+acMaxLen-1
		// bytes; only then look again without the prefixes.
		if kwScanString(raw[:min(len(raw), a+acMaxLen-1)])&kwParsers != 0 {
			mask = kwScanString(text) | mask&kwRawOnly
			need = s.wanted(mask, no)
		}
	}
	for _, i := range s.refiners {
		if need&(1<<uint(i)) != 0 && !s.parsers[i].active(no) && s.parsers[i].(refiner).skip(mask, text) {
			need &^= 1 << uint(i)
		}
	}
	if need == 0 {
		*l = line{}
		return
	}
	if quotedFormat(text) { // formatstring.go: a format string is no event
		*l = line{}
		return
	}
	l.text = text
	if s.wrap.text != "" {
		l.pre = strings.Clone(s.wrap.text)
	}
	if !owned {
		c := strings.Clone(raw)
		l.raw = c
		l.text = rebase(l.text, raw, c)
		l.worker = rebase(l.worker, raw, c)
		l.host = rebase(l.host, raw, c)
	}
	s.dispatch(l, need, no)
	s.maybeActive |= need & s.statefulSet
	*l = line{}
}

// dispatch hands a line to the parsers that want it. A reader that fails on
// a wording it was never tested on (an index past a match, say) costs that
// line, never the diagnosis: the input says so (InputInfo.Problem) and the
// rest of the file is still read.
func (s *Session) dispatch(l *line, need uint64, no int) {
	defer func() {
		if r := recover(); r != nil {
			s.readerFault(no)
		}
	}()
	for i, p := range s.parsers {
		if need&(1<<uint(i)) != 0 {
			p.line(l)
		}
	}
}

// readerFault records the first line a reader failed on.
func (s *Session) readerFault(no int) {
	if s.cur == nil || s.cur.problem != "" {
		return
	}
	// the host flags the input partial (FileProblem)
	s.cur.problem = fmt.Sprintf("line %d: a reader failed on it (a gputriage bug: please report it with that line); the line was skipped, the rest of the file read", no)
	s.cur.info.Problem = s.cur.problem
}

// wanted returns the set of parsers (bit i = s.parsers[i]) that must see a
// line with keyword mask at line number no.
func (s *Session) wanted(mask uint64, no int) uint64 {
	if mask&s.gateUnion == 0 && s.maybeActive == 0 && s.gates != nil {
		return 0
	}
	if s.gates == nil {
		s.gates = make([]uint64, len(s.parsers))
		for i, p := range s.parsers {
			s.gates[i] = p.gate()
			s.gateUnion |= s.gates[i]
			if _, ok := p.(stateless); !ok {
				s.statefulSet |= 1 << uint(i)
			}
			if _, ok := p.(refiner); ok {
				s.refiners = append(s.refiners, i)
			}
		}
	}
	var need uint64
	for i, g := range s.gates {
		if mask&g != 0 {
			need |= 1 << uint(i)
		}
	}
	for i := range s.parsers {
		bit := uint64(1) << uint(i)
		if s.maybeActive&bit == 0 {
			continue
		}
		if s.parsers[i].active(no) {
			need |= bit
		} else {
			// active turns true again only in the parser's own
			// line/beginFile/endFile, after which the bit is set again
			s.maybeActive &^= bit
		}
	}
	return need
}

// rebase returns the substring of c at the position sub has in old (c is a
// copy of old).
func rebase(sub, old, c string) string {
	if sub == "" {
		return ""
	}
	p, o := uintptr(unsafe.Pointer(unsafe.StringData(sub))), uintptr(unsafe.Pointer(unsafe.StringData(old)))
	if p < o || p+uintptr(len(sub)) > o+uintptr(len(old)) {
		return sub // not from old (a delivery wrapper's own copy)
	}
	off := p - o
	return c[off : off+uintptr(len(sub))]
}

// feedVirtual runs text lines that were embedded in a side document (for
// example the kernel_api_log string of crash_diagnostics.json) through the
// parsers, all attributed to line no of the current file.
//
// They take the path of a file's lines: cut at maxLineBytes and offered only
// to the parsers whose keywords they hold (a 1 MB exception message used to
// reach every parser's regular expressions whole, 72 s in the module; a
// message of 500 k newlines, every parser 500 k times).
func (s *Session) feedVirtual(text string, no int) {
	s.maybeActive = ^uint64(0)
	for len(text) > 0 {
		ln := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			ln, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if len(ln) > maxLineBytes {
			ln = ln[:maxLineBytes]
			s.cur.quality["long_lines_cut"] = true
		}
		for len(ln) > 0 && ln[len(ln)-1] == '\r' {
			ln = ln[:len(ln)-1]
		}
		if i := strings.LastIndexByte(ln, '\r'); i >= 0 {
			ln = ln[i+1:]
		}
		raw := rewriteRaw(ln)
		s.handleRaw(raw, true, kwScanString(raw), no)
	}
	s.maybeActive = ^uint64(0)
}

// feedUnwrapped reads the text of a JSON log field (jsonfield.go) as the
// lines it holds, each attributed to line no of the file.
func (s *Session) feedUnwrapped(text string, no int) {
	outer := s.wrap
	defer func() { s.wrap = outer }()
	for _, ln := range unwrappedLines(text) {
		if strings.IndexByte(ln, 0x1b) >= 0 {
			ln = stripANSI(ln)
		}
		b, w := s.stripDelivery([]byte(ln))
		ln = string(b)
		s.wrap = outer
		if w != noDelivery {
			s.wrap = w
		}
		if i := strings.LastIndexByte(ln, '\r'); i >= 0 {
			ln = ln[i+1:]
		}
		if len(ln) > maxLineBytes {
			ln = ln[:maxLineBytes]
		}
		if s.helpLine([]byte(ln)) {
			continue
		}
		raw := rewriteRaw(ln)
		s.handleRaw(raw, true, kwScanString(raw), no)
	}
}

// EndFile ends the current file.
func (s *Session) EndFile() {
	if s.cur == nil {
		return
	}
	if s.emit == nil {
		s.emit = s.writeDecoded
	}
	d := &s.cur.dec
	d.flush(s.emit)
	if d.enc != encUTF8 {
		s.cur.quality["decoded_"+d.enc.String()] = true
	}
	if d.nuls > 0 && !s.cur.side.json { // not for pickles (flight-recorder dumps)
		s.cur.quality["nul_bytes_skipped"] = true
	}
	if d.crOnly {
		s.cur.quality["cr_line_ends"] = true
	}
	d.head, d.out, d.odd = nil, nil, nil
	if len(s.partial) > 0 || s.dropping {
		s.cur.info.Truncated = true
		s.cur.quality["unterminated_last_line"] = true
		s.handleLine(s.partial)
		s.partial = s.partial[:0]
		s.dropping = false
	}
	s.flushHeld()
	if s.sideOver = s.cur.side.over; s.sideOver {
		s.cur.info.Truncated = true
		s.cur.quality["side_document_over_limit"] = true
	}
	if s.cur.side.finish(s) && s.cur.quality["unterminated_last_line"] && !s.cur.quality["long_lines_cut"] {
		// a complete JSON document that ends without a newline is whole
		s.cur.info.Truncated = false
		delete(s.cur.quality, "unterminated_last_line")
	}
	for _, p := range s.parsers {
		p.endFile()
	}
	s.fileProblem = s.cur.problem
	s.maybeActive = ^uint64(0)
	s.cur = nil
}

// Diagnosis assembles the diagnosis of everything pushed so far. It can be
// called more than once.
func (s *Session) Diagnosis() *Diagnosis {
	if s.cur != nil {
		s.EndFile()
	}
	d := s.b.diagnosis(s)
	for _, f := range s.files {
		info := f.info
		info.Formats = sortedKeys(f.formats)
		info.Quality = sortedKeys(f.quality)
		if info.Formats == nil {
			info.Formats = []string{}
		}
		if f.quality["long_lines_cut"] || f.quality["elided"] {
			info.Truncated = true
		}
		d.Inputs = append(d.Inputs, info)
	}
	if d.Inputs == nil {
		d.Inputs = []InputInfo{}
	}
	return d
}

// format records that the current file contains a recognised format.
func (s *Session) format(name string) {
	switch {
	case nvidiaFormats[name]:
		s.b.facts.vendorNV = true
	case amdFormat(name):
		s.b.facts.vendorAMD = true
	}
	if s.cur != nil {
		s.cur.formats[name] = true
		switch name {
		case "dmesg":
			s.cur.fmtSeen |= kwFmtDmesg
		case "amd_log_level":
			s.cur.fmtSeen |= kwFmtHIP
		case "docker_compose":
			s.cur.fmtSeen |= kwFmtCompose
		}
	}
}

// flag records a quality flag for the current file.
func (s *Session) flag(name string) {
	if s.cur != nil {
		s.cur.quality[name] = true
	}
}

func (s *Session) fileName(idx int) string {
	if idx >= 0 && idx < len(s.files) {
		return s.files[idx].info.Name
	}
	return ""
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}

// nvidiaFormats are the inputs only an NVIDIA system writes; amdFormat the
// ones only a ROCm system writes. Framework formats (tracebacks, NCCL
// lines, torchrun) say nothing about the vendor: ROCm PyTorch prints
// "CUDA error" too.
var nvidiaFormats = map[string]bool{"compute_sanitizer": true, "cuda_gdb": true, "cuda_gdb_info_kernels": true, "nvidia_xid": true, "nccl_cuda_build": true}

func amdFormat(name string) bool {
	for _, p := range []string{"rocr_", "rocgdb_", "rocm_", "clr_", "amd_log_level", "hsa_status", "dmesg_page_fault", "dmesg_gpu_reset", "dmesg_kfd", "dmesg_ras", "dmesg_amdgpu_oops", "llvm_offload", "rccl_build"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
