package trace

import "github.com/gputriage/gputriage/analyzer/internal/jsontext"

// rawEvent holds the fields of one traceEvents element that the analyses
// use, as spans of the element's bytes. It holds no pointers: resetting it
// for every event then costs no GC write barriers (as a 300-byte struct of
// slices it was a typed copy with barriers per event whenever the GC was
// marking, ~8 % of a big trace's parse in the module).
type rawEvent struct {
	ph       byte
	cat      span
	name     span
	pid, tid span
	ts, dur  span
	kernel   span // args.kernel of ROCm launches (raw string body)
	// record_shapes / with_flops arguments of cpu_ops (raw JSON values)
	dims, types, concrete span
	flops                 int64
	// collective metadata PyTorch writes on record_param_comms and on the
	// collective's kernel (raw bodies; numbers None when absent)
	coll, pg, pgDesc, dtype span
	// pgRanks: args "Process Group Ranks" as written ("[0, 1]" or an
	// array), the group when no name is (raw value)
	pgRanks               span
	inN, outN, group, seq int64
	ext                   int64
	corr                  int64
	stream                int64
	device                int64
	// idOver: args.stream or args.device is an integer outside int64
	idOver bool
}

// span is b[lo:hi] of the event's bytes; the zero span is absent (nil).
type span struct {
	lo, hi int
	set    bool
}

// get returns the bytes of s in b, or nil when absent.
func (s span) get(b []byte) []byte {
	if !s.set {
		return nil
	}
	return b[s.lo:s.hi]
}

// spanOf is the span of v, a value read from b. readString and readToken
// return raw bodies, always subslices of b (escapes are decoded later, at
// interning), so v's offset is what its capacity lacks from b's.
func spanOf(b, v []byte) span {
	if v == nil {
		return span{}
	}
	lo := cap(b) - cap(v)
	return span{lo: lo, hi: lo + len(v), set: true}
}

// Outcomes of parseEventAt.
const (
	parsed = iota
	incomplete
	malformed
)

// parseEvent extracts the used fields from one complete JSON object and
// reports false for anything that is not a well-formed object.
func parseEvent(b []byte, e *rawEvent) bool {
	_, st := parseEventAt(b, e)
	return st == parsed
}

// parseEventAt parses the object starting at b[0] and returns where it ends.
// Keys may come in any order; unknown keys and values are skipped without
// decoding. incomplete means b ends inside the object.
func parseEventAt(b []byte, e *rawEvent) (int, int) {
	end, ok := parseObject(b, e)
	switch {
	case ok:
		return end, parsed
	case end >= len(b):
		return end, incomplete
	}
	return end, malformed
}

func parseObject(b []byte, e *rawEvent) (int, bool) {
	*e = rawEvent{ext: None, corr: None, stream: None, device: None, flops: None, inN: None, outN: None, group: None, seq: None}
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i++
	for {
		i = jsontext.SkipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			return i + 1, true
		}
		if b[i] == ',' {
			i++
			continue
		}
		key, j, ok := readString(b, i)
		if !ok {
			return j, false
		}
		i = jsontext.SkipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = jsontext.SkipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		switch eventKey(key) {
		case kPh:
			v, j, ok := readString(b, i)
			if !ok {
				return j, false
			}
			if len(v) > 0 {
				e.ph = v[0]
			}
			i = j
		case kCat:
			var v []byte
			v, i, ok = readToken(b, i)
			e.cat = spanOf(b, v)
		case kName:
			var v []byte
			v, i, ok = readToken(b, i)
			e.name = spanOf(b, v)
		case kPid:
			var v []byte
			v, i, ok = readToken(b, i)
			e.pid = spanOf(b, v)
		case kTid:
			var v []byte
			v, i, ok = readToken(b, i)
			e.tid = spanOf(b, v)
		case kTs:
			var v []byte
			v, i, ok = readToken(b, i)
			e.ts = spanOf(b, v)
		case kDur:
			var v []byte
			v, i, ok = readToken(b, i)
			e.dur = spanOf(b, v)
		case kArgs:
			// Python frames and unkept categories need no args: skip them
			// without reading keys (they are most of a with_stack trace).
			if c := e.cat.get(b); c != nil && skipArgs(c) {
				i, ok = skipValue(b, i)
			} else {
				i, ok = parseArgs(b, i, e)
			}
		default:
			i, ok = skipValue(b, i)
		}
		if !ok {
			return i, false
		}
	}
}

func parseArgs(b []byte, i int, e *rawEvent) (int, bool) {
	if b[i] != '{' {
		return skipValue(b, i)
	}
	i++
	for {
		i = jsontext.SkipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			return i + 1, true
		}
		if b[i] == ',' {
			i++
			continue
		}
		key, j, ok := readString(b, i)
		if !ok {
			return i, false
		}
		i = jsontext.SkipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = jsontext.SkipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		if argKey(key) == kKernel {
			if b[i] == '"' {
				v, j, ok := readString(b, i)
				if !ok {
					return j, false
				}
				e.kernel, i = spanOf(b, v), j
				continue
			}
		}
		var dst *int64
		switch ak := argKey(key); ak {
		case kColl, kPG, kPGDesc, kDtype:
			v, j, ok := readToken(b, i)
			if !ok {
				return j, false
			}
			switch ak {
			case kColl:
				e.coll = spanOf(b, v)
			case kPG:
				e.pg = spanOf(b, v)
			case kPGDesc:
				e.pgDesc = spanOf(b, v)
			default:
				e.dtype = spanOf(b, v)
			}
			i = j
			continue
		case kInN:
			dst = &e.inN
		case kOutN:
			dst = &e.outN
		case kGroup:
			dst = &e.group
		case kSeq:
			dst = &e.seq
		case kPGRanks:
			j, ok := skipValue(b, i)
			if !ok {
				return j, false
			}
			e.pgRanks, i = span{lo: i, hi: j, set: true}, j
			continue
		case kDims, kTypes, kConcrete:
			j, ok := skipValue(b, i)
			if !ok {
				return j, false
			}
			switch ak {
			case kDims:
				e.dims = span{lo: i, hi: j, set: true}
			case kTypes:
				e.types = span{lo: i, hi: j, set: true}
			default:
				e.concrete = span{lo: i, hi: j, set: true}
			}
			i = j
			continue
		case kFlops:
			dst = &e.flops
		case kExt:
			dst = &e.ext
		case kCorr:
			dst = &e.corr
		case kStream:
			dst = &e.stream
		case kDevice:
			dst = &e.device
		}
		if dst == nil {
			if i, ok = skipValue(b, i); !ok {
				return i, false
			}
			continue
		}
		tok, j, ok := readToken(b, i)
		if !ok {
			return i, false
		}
		if v, ok, over := jsontext.ParseIntRange(tok); ok {
			*dst = v
		} else if over && (dst == &e.stream || dst == &e.device) {
			e.idOver = true
		}
		i = j
	}
}

// skipArgs reports categories whose args the analyses never read.
func skipArgs(cat []byte) bool {
	switch kindOf(cat) {
	case KindPython, KindOther:
		return true
	}
	return false
}

// Keys the reader uses. eventKey and argKey compare a few bytes by hand: a
// string switch costs a runtime call per case in Go's wasm code, where this
// loop runs for every key of every event.
const (
	kOther = iota
	kPh
	kCat
	kName
	kPid
	kTid
	kTs
	kDur
	kArgs
	kExt
	kCorr
	kStream
	kDevice
	kKernel
	kDims
	kTypes
	kConcrete
	kFlops
	kColl
	kPG
	kPGDesc
	kPGRanks
	kDtype
	kInN
	kOutN
	kGroup
	kSeq
)

func eventKey(k []byte) int {
	switch len(k) {
	case 2:
		switch {
		case k[0] == 'p' && k[1] == 'h':
			return kPh
		case k[0] == 't' && k[1] == 's':
			return kTs
		}
	case 3:
		switch {
		case k[0] == 'c' && k[1] == 'a' && k[2] == 't':
			return kCat
		case k[0] == 'p' && k[1] == 'i' && k[2] == 'd':
			return kPid
		case k[0] == 't' && k[1] == 'i' && k[2] == 'd':
			return kTid
		case k[0] == 'd' && k[1] == 'u' && k[2] == 'r':
			return kDur
		}
	case 4:
		switch {
		case k[0] == 'n' && k[1] == 'a' && k[2] == 'm' && k[3] == 'e':
			return kName
		case k[0] == 'a' && k[1] == 'r' && k[2] == 'g' && k[3] == 's':
			return kArgs
		}
	}
	return kOther
}

func argKey(k []byte) int {
	switch len(k) {
	case 3:
		if k[0] == 'S' && k[1] == 'e' && k[2] == 'q' {
			return kSeq
		}
	case 5:
		if k[0] == 'f' && k[4] == 's' && string(k) == "flops" {
			return kFlops
		}
		if k[0] == 'd' && k[4] == 'e' && string(k) == "dtype" {
			return kDtype
		}
	case 10:
		if k[0] == 'I' && k[5] == ' ' {
			switch string(k[6:]) {
			case "Dims":
				return kDims
			case "type":
				return kTypes
			}
		}
		if k[0] == 'G' && k[5] == ' ' && string(k) == "Group size" {
			return kGroup
		}
	case 13:
		if k[0] == 'I' && k[2] == ' ' && string(k) == "In msg nelems" {
			return kInN
		}
	case 14:
		if k[0] == 'O' && k[3] == ' ' && string(k) == "Out msg nelems" {
			return kOutN
		}
	case 18:
		if k[0] == 'P' && k[14] == 'N' && string(k) == "Process Group Name" {
			return kPG
		}
	case 19:
		if k[0] == 'P' && k[14] == 'R' && string(k) == "Process Group Ranks" {
			return kPGRanks
		}
	case 25:
		if k[0] == 'P' && k[14] == 'D' && string(k) == "Process Group Description" {
			return kPGDesc
		}
	case 15:
		if k[0] == 'C' && k[8] == ' ' && string(k) == "Concrete Inputs" {
			return kConcrete
		}
		if k[0] == 'C' && k[10] == ' ' && string(k) == "Collective name" {
			return kColl
		}
	case 11:
		if (k[0] == 'E' || k[0] == 'e') && k[1] == 'x' && k[9] == 'i' && k[10] == 'd' && string(k[1:]) == "xternal id" {
			return kExt
		}
		if k[0] == 'c' && k[1] == 'o' && k[10] == 'n' && string(k) == "correlation" {
			return kCorr
		}
	case 6:
		if k[0] == 's' && k[1] == 't' && k[5] == 'm' && string(k) == "stream" {
			return kStream
		}
		if k[0] == 'd' && k[1] == 'e' && k[5] == 'e' && string(k) == "device" {
			return kDevice
		}
		if k[0] == 'k' && k[1] == 'e' && k[5] == 'l' && string(k) == "kernel" {
			return kKernel
		}
	}
	return kOther
}
