package crash

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// PyTorch NCCL flight-recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE>0 with
// TORCH_NCCL_DUMP_ON_TIMEOUT=1): one file per rank, pickled (the default
// DebugInfoWriter) or JSON (_dump_nccl_trace_json). Both hold
// {"version", "pg_config", "pg_status": {pg: {last_enqueued_collective,
// last_started_collective, last_completed_collective}}, "entries": [...]}.
// Per rank we keep last enqueued / started / completed of the default
// group and the first entry that did not complete.

type frRank struct {
	rank             int
	file             string
	enq, start, comp int
	pending          string // first entry not completed: "nccl:all_reduce seq 12 (scheduled)"
	last             string // last entry
	worldSize        int
	pgs              []frPG // every process group of the dump (extractFRGroups)
	ev               Evidence
}

// frPG is one process group's status in a rank's dump: TP, DP, PP and
// expert groups each have their own counters, so a hang inside a TP group
// of a TP×DP mesh shows only there.
type frPG struct {
	id               string // pg_status key
	ranks            string // pg_config ranks, "[0, 1]"
	desc             string
	enq, start, comp int
}

const maxFRGroups = 32

// extractFRGroups reads every process group of a decoded dump, sorted by id.
func extractFRGroups(doc map[string]any) []frPG {
	st, _ := doc["pg_status"].(map[string]any)
	cfg, _ := doc["pg_config"].(map[string]any)
	ids := make([]string, 0, len(st))
	for k := range st {
		ids = append(ids, k)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := atoiDef(ids[i], -1), atoiDef(ids[j], -1)
		if a != b {
			return a < b
		}
		return ids[i] < ids[j]
	})
	var out []frPG
	for _, id := range ids {
		g, ok := st[id].(map[string]any)
		if !ok {
			continue
		}
		pg := frPG{id: id, enq: pyIntDef(g["last_enqueued_collective"], -1), start: pyIntDef(g["last_started_collective"], -1), comp: pyIntDef(g["last_completed_collective"], -1)}
		if c, ok := cfg[id].(map[string]any); ok {
			pg.ranks, _ = c["ranks"].(string)
			pg.desc, _ = c["desc"].(string)
		}
		out = append(out, pg)
		if len(out) == maxFRGroups {
			break
		}
	}
	return out
}

// IsPickle reports whether head starts a Python pickle (protocol 2+), the
// format of flight-recorder dumps, so hosts route it to the crash session.
func IsPickle(head []byte) bool {
	return len(head) >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5
}

var reFRRank = lazyre.New(`(?i)(?:rank|_)[_-]?(\d{1,5})(?:\.\w+)?$`)

// frDoc reads a decoded flight-recorder document; it reports whether doc
// is one.
func frDoc(s *Session, doc map[string]any, line int) bool {
	st, ok := doc["pg_status"].(map[string]any)
	if !ok {
		return false
	}
	if _, ok := doc["entries"]; !ok {
		if _, ok := doc["version"]; !ok {
			return false
		}
	}
	s.format("flight_recorder")
	name := s.fileName(s.cur.idx)
	r := frRank{rank: -1, file: name, enq: -1, start: -1, comp: -1}
	if v, ok := pyInt(doc["rank"]); ok {
		r.rank = int(v)
	} else {
		r.rank = atoiDef(submatch(reFRRank, name), -1)
	}
	r.pgs = extractFRGroups(doc)
	pg := "0"
	if _, ok := st[pg]; !ok {
		keys := make([]string, 0, len(st))
		for k := range st {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > 0 {
			pg = keys[0]
		}
	}
	if g, ok := st[pg].(map[string]any); ok {
		r.enq = pyIntDef(g["last_enqueued_collective"], -1)
		r.start = pyIntDef(g["last_started_collective"], -1)
		r.comp = pyIntDef(g["last_completed_collective"], -1)
	}
	if cfg, ok := doc["pg_config"].(map[string]any); ok {
		if g, ok := cfg[pg].(map[string]any); ok {
			if rs, ok := g["ranks"].(string); ok {
				r.worldSize = strings.Count(rs, ",") + 1
				if strings.TrimSpace(strings.Trim(rs, "[]")) == "" {
					r.worldSize = 0
				}
			}
		}
	}
	if es, ok := doc["entries"].([]any); ok {
		for _, e := range es {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			desc := frEntry(m)
			r.last = desc
			if st, _ := m["state"].(string); st != "" && st != "completed" && r.pending == "" {
				r.pending = desc
			}
		}
	}
	text := "flight recorder"
	if r.rank >= 0 {
		text += " rank " + strconv.Itoa(r.rank)
	}
	text += ": last enqueued " + strconv.Itoa(r.enq) + ", last started " + strconv.Itoa(r.start) + ", last completed " + strconv.Itoa(r.comp)
	if r.pending != "" {
		text += "; first not completed: " + r.pending
	}
	r.ev = Evidence{File: name, Line: line, Text: clip(text, 400)}
	inc := &s.b.facts.inc
	if len(inc.fr) < maxRanks {
		inc.fr = append(inc.fr, r)
	}
	if r.worldSize > inc.worldSize {
		inc.worldSize = r.worldSize
	}
	return true
}

func frEntry(m map[string]any) string {
	name, _ := m["profiling_name"].(string)
	if name == "" {
		name = "collective"
	}
	d := name
	if v, ok := pyInt(m["collective_seq_id"]); ok {
		d += " seq " + strconv.FormatInt(v, 10)
	}
	if st, _ := m["state"].(string); st != "" {
		d += " (" + st + ")"
	}
	return clip(d, 160)
}

// frCulprit: the rank(s) whose last enqueued collective is behind the
// others' never issued the collective the others wait in.
func frCulprit(inc *incidentFacts, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	if len(inc.fr) < 2 {
		return Culprit{}, false
	}
	fr := append([]frRank(nil), inc.fr...)
	sort.SliceStable(fr, func(i, j int) bool { return fr[i].rank < fr[j].rank })
	hi := -1 << 31
	for _, r := range fr {
		hi = max(hi, r.enq)
	}
	var behind []frRank
	for _, r := range fr {
		if r.enq < hi {
			behind = append(behind, r)
		}
	}
	if len(behind) > 0 && len(behind) < len(fr) {
		var ranks []int
		evs := []Evidence{}
		for _, r := range behind {
			ranks = append(ranks, r.rank)
			evs = append(evs, r.ev)
		}
		for _, r := range fr {
			if r.enq == hi {
				evs = append(evs, r.ev)
				break
			}
		}
		c := mk(behind[0].rank, 0, "", "flight recorder: rank(s) "+intsString(ranks)+" last enqueued collective "+strconv.Itoa(behind[0].enq)+" while the others enqueued up to "+strconv.Itoa(hi)+": they never issued it", "PyTorch NCCL flight-recorder dumps: last enqueued vs last completed per rank", evs...)
		if len(behind) > 1 {
			c.Rank, c.Ranks = nil, ranks
		}
		return c, true
	}
	if c, ok := frGroupCulprit(fr, mk); ok {
		return c, true
	}
	// every dump present but one (world size from pg_config)
	if ws := inc.worldSize; ws > len(fr) {
		seen := map[int]bool{}
		for _, r := range fr {
			seen[r.rank] = true
		}
		var miss []int
		for r := 0; r < ws; r++ {
			if !seen[r] {
				miss = append(miss, r)
			}
		}
		if len(miss) == 1 && !seen[-1] {
			return mk(miss[0], 0, "", "flight-recorder dumps exist for every rank but "+strconv.Itoa(miss[0])+" (group of "+strconv.Itoa(ws)+"): that rank never dumped — it crashed or hung before the dump signal", "PyTorch NCCL flight-recorder dumps: the rank without a dump", fr[0].ev), true
		}
	}
	return Culprit{}, false
}

// frGroupCulprit compares every process group across the ranks whose
// dumps hold it (same id and member list): in a TP×DP mesh the default
// group can agree on every rank while one TP group has a rank behind.
// The first group (by id) with ranks behind names them.
func frGroupCulprit(fr []frRank, mk func(int, int, string, string, string, ...Evidence) Culprit) (Culprit, bool) {
	type member struct {
		r  frRank
		pg frPG
	}
	groups := map[string][]member{}
	var keys []string
	for _, r := range fr {
		for _, pg := range r.pgs {
			k := pg.id + "|" + pg.ranks
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], member{r, pg})
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := strings.SplitN(keys[i], "|", 2)[0], strings.SplitN(keys[j], "|", 2)[0]
		if atoiDef(a, -1) != atoiDef(b, -1) {
			return atoiDef(a, -1) < atoiDef(b, -1)
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		ms := groups[k]
		if len(ms) < 2 {
			continue
		}
		hi := -1 << 31
		for _, m := range ms {
			hi = max(hi, m.pg.enq)
		}
		var behind []member
		for _, m := range ms {
			if m.pg.enq < hi {
				behind = append(behind, m)
			}
		}
		if len(behind) == 0 || len(behind) == len(ms) {
			continue
		}
		var ranks []int
		evs := []Evidence{}
		for _, m := range behind {
			ranks = append(ranks, m.r.rank)
			evs = append(evs, m.r.ev)
		}
		pg := behind[0].pg
		name := "process group " + pg.id
		if pg.desc != "" {
			name += " (" + pg.desc + ")"
		}
		if pg.ranks != "" {
			name += " of ranks " + pg.ranks
		}
		c := mk(behind[0].r.rank, 0, "", "flight recorder, "+name+": rank(s) "+intsString(ranks)+" last enqueued collective "+strconv.Itoa(pg.enq)+" while the group's other ranks enqueued up to "+strconv.Itoa(hi)+": they never issued it", "PyTorch NCCL flight-recorder dumps: last enqueued per rank in every process group", evs...)
		if len(behind) > 1 {
			c.Rank, c.Ranks = nil, ranks
		}
		return c, true
	}
	return Culprit{}, false
}

// frJSON reads a JSON flight-recorder dump (a sideDoc).
func frJSON(s *Session, buf []byte, line int) bool {
	var doc map[string]any
	if json.Unmarshal(buf, &doc) != nil {
		return false
	}
	return frDoc(s, doc, line)
}

// frPickle reads a pickled flight-recorder dump, or says why it cannot.
func frPickle(s *Session, buf []byte) {
	v, err := unpickle(buf)
	name := s.fileName(s.cur.idx)
	if err == nil {
		if doc, ok := v.(map[string]any); ok && frDoc(s, doc, 1) {
			s.format("flight_recorder_pickle")
			return
		}
		err = errors.New("not a flight-recorder dump (no pg_status)")
	}
	s.format("python_pickle")
	s.flag("pickle_unreadable")
	s.cur.problem = "cannot read the pickle: " + err.Error()
	f := &s.b.facts
	f.notes = appendCap(f.notes, "cannot read the pickle "+clip(name, 120)+": "+err.Error()+" — convert it with python -c \"import pickle,json,sys; print(json.dumps(pickle.load(open(sys.argv[1],'rb')), default=str))\" FILE > FILE.json and add the JSON", 8)
}

// --- a small Python pickle reader (protocols 2–5, plain containers) ---

type pyGlobal struct{ module, name string }

// pyList is a list or tuple while it is built (memo entries alias it).
type pyList struct{ v []any }

// plain turns the decoded value into []any / map[string]any trees
// (bounded: memo references can make a small pickle expand exponentially).
func plain(v any, depth int, budget *int) any {
	*budget--
	if depth > 64 || *budget < 0 {
		return nil
	}
	// The budget counts elements, not calls: a list holding itself a
	// million times (memo references cost a pickle 2 bytes each) made each
	// of 64 levels allocate a million slots, 1.3 GB from 983 KB.
	switch x := v.(type) {
	case *pyList:
		if *budget -= len(x.v); *budget < 0 {
			return nil
		}
		out := make([]any, len(x.v))
		for i, e := range x.v {
			out[i] = plain(e, depth+1, budget)
		}
		return out
	case map[string]any:
		if *budget -= len(x); *budget < 0 {
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			out[k] = plain(x[k], depth+1, budget)
		}
		return out
	}
	return v
}

type pyObj struct {
	callable any
	args     any
}

const (
	maxPickleOps   = limits.PickleOps
	maxPickleDepth = limits.PickleDepth
	maxPickleElems = limits.PickleElems
)

var errPickleShort = errors.New("truncated pickle")

// The budgets are fixed (docs/limits.md), so the errors name their values:
// a reader sees which bound refused the dump, not only that it was refused.
var (
	errPickleDeep = fmt.Errorf("pickle too deep: more than %d stack, mark or memo entries (limits.PickleDepth, a fixed bound)", maxPickleDepth)
	errPickleLong = fmt.Errorf("pickle too long: more than %d opcodes (limits.PickleOps, a fixed bound)", maxPickleOps)
)

// unpickle decodes the data types a flight-recorder dump uses: dicts
// (string keys), lists, tuples, str, bytes, int, float, bool, None.
// Class instances (GLOBAL / REDUCE / BUILD) decode to opaque values.
func unpickle(b []byte) (v any, err error) {
	var stack []any
	var marks []int
	memo := map[uint32]any{}
	pos := 0
	need := func(n int) ([]byte, error) {
		if n < 0 || pos+n > len(b) {
			return nil, errPickleShort
		}
		x := b[pos : pos+n]
		pos += n
		return x, nil
	}
	pop := func() (any, error) {
		if len(stack) == 0 {
			return nil, errors.New("pickle stack underflow at offset " + strconv.Itoa(pos))
		}
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return x, nil
	}
	popMark := func() ([]any, error) {
		if len(marks) == 0 {
			return nil, errors.New("pickle MARK missing at offset " + strconv.Itoa(pos))
		}
		m := marks[len(marks)-1]
		marks = marks[:len(marks)-1]
		if m > len(stack) {
			return nil, errors.New("bad pickle MARK")
		}
		items := append([]any(nil), stack[m:]...)
		stack = stack[:m]
		return items, nil
	}
	top := func() (any, error) {
		if len(stack) == 0 {
			return nil, errors.New("pickle stack empty at offset " + strconv.Itoa(pos))
		}
		return stack[len(stack)-1], nil
	}
	str := func(n int) error {
		x, err := need(n)
		if err != nil {
			return err
		}
		stack = append(stack, string(x))
		return nil
	}
	ulen := func(n int) (int, error) {
		x, err := need(n)
		if err != nil {
			return 0, err
		}
		var u uint64
		for i := n - 1; i >= 0; i-- {
			u = u<<8 | uint64(x[i])
		}
		if u > uint64(len(b)) {
			return 0, errPickleShort
		}
		return int(u), nil
	}
	setItems := func(d any, kv []any) error {
		m, ok := d.(map[string]any)
		if !ok {
			return nil // items of an opaque object
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[pyKey(kv[i])] = kv[i+1]
		}
		return nil
	}
	for ops := 0; ops < maxPickleOps; ops++ {
		if len(stack) > maxPickleDepth || len(marks) > maxPickleDepth || len(memo) > maxPickleDepth {
			return nil, errPickleDeep
		}
		op, err := need(1)
		if err != nil {
			return nil, err
		}
		switch op[0] {
		case 0x80: // PROTO
			if _, err := need(1); err != nil {
				return nil, err
			}
		case 0x95: // FRAME
			if _, err := need(8); err != nil {
				return nil, err
			}
		case '.': // STOP
			x, err := pop()
			if err != nil {
				return nil, err
			}
			budget := maxPickleElems
			return plain(x, 0, &budget), nil
		case '}':
			stack = append(stack, map[string]any{})
		case ']', ')':
			stack = append(stack, &pyList{})
		case '(':
			marks = append(marks, len(stack))
		case 'X':
			n, err := ulen(4)
			if err != nil || str(n) != nil {
				return nil, errPickleShort
			}
		case 0x8c, 'U', 'C':
			n, err := ulen(1)
			if err != nil || str(n) != nil {
				return nil, errPickleShort
			}
		case 0x8d, 0x8e:
			n, err := ulen(8)
			if err != nil || str(n) != nil {
				return nil, errPickleShort
			}
		case 'T', 'B':
			n, err := ulen(4)
			if err != nil || str(n) != nil {
				return nil, errPickleShort
			}
		case 'J':
			x, err := need(4)
			if err != nil {
				return nil, err
			}
			stack = append(stack, int64(int32(binary.LittleEndian.Uint32(x))))
		case 'K':
			x, err := need(1)
			if err != nil {
				return nil, err
			}
			stack = append(stack, int64(x[0]))
		case 'M':
			x, err := need(2)
			if err != nil {
				return nil, err
			}
			stack = append(stack, int64(binary.LittleEndian.Uint16(x)))
		case 0x8a, 0x8b: // LONG1, LONG4
			w := 1
			if op[0] == 0x8b {
				w = 4
			}
			n, err := ulen(w)
			if err != nil {
				return nil, err
			}
			x, err := need(n)
			if err != nil {
				return nil, err
			}
			if n > 8 {
				stack = append(stack, pyGlobal{"builtins", "int(" + strconv.Itoa(n) + " bytes)"})
				break
			}
			var u uint64
			for i := n - 1; i >= 0; i-- {
				u = u<<8 | uint64(x[i])
			}
			if n > 0 && n < 8 && x[n-1]&0x80 != 0 {
				u |= ^uint64(0) << (8 * uint(n))
			}
			stack = append(stack, int64(u))
		case 'G':
			x, err := need(8)
			if err != nil {
				return nil, err
			}
			stack = append(stack, math.Float64frombits(binary.BigEndian.Uint64(x)))
		case 'N':
			stack = append(stack, nil)
		case 0x88:
			stack = append(stack, true)
		case 0x89:
			stack = append(stack, false)
		case 's':
			val, err := pop()
			if err != nil {
				return nil, err
			}
			key, err := pop()
			if err != nil {
				return nil, err
			}
			d, err := top()
			if err != nil {
				return nil, err
			}
			setItems(d, []any{key, val})
		case 'u':
			kv, err := popMark()
			if err != nil {
				return nil, err
			}
			d, err := top()
			if err != nil {
				return nil, err
			}
			setItems(d, kv)
		case 'a':
			val, err := pop()
			if err != nil {
				return nil, err
			}
			d, err := top()
			if err != nil {
				return nil, err
			}
			if l, ok := d.(*pyList); ok {
				l.v = append(l.v, val)
			}
		case 'e':
			items, err := popMark()
			if err != nil {
				return nil, err
			}
			d, err := top()
			if err != nil {
				return nil, err
			}
			if l, ok := d.(*pyList); ok {
				l.v = append(l.v, items...)
			}
		case 't':
			items, err := popMark()
			if err != nil {
				return nil, err
			}
			stack = append(stack, &pyList{items})
		case 0x85, 0x86, 0x87:
			n := int(op[0]-0x85) + 1
			if len(stack) < n {
				return nil, errors.New("pickle stack underflow")
			}
			items := append([]any(nil), stack[len(stack)-n:]...)
			stack = append(stack[:len(stack)-n], &pyList{items})
		case 0x94: // MEMOIZE
			x, err := top()
			if err != nil {
				return nil, err
			}
			memo[uint32(len(memo))] = x
		case 'q', 'r':
			w := 1
			if op[0] == 'r' {
				w = 4
			}
			n, err := ulenRaw(b, &pos, w)
			if err != nil {
				return nil, err
			}
			x, err := top()
			if err != nil {
				return nil, err
			}
			memo[n] = x
		case 'h', 'j':
			w := 1
			if op[0] == 'j' {
				w = 4
			}
			n, err := ulenRaw(b, &pos, w)
			if err != nil {
				return nil, err
			}
			x, ok := memo[n]
			if !ok {
				return nil, errors.New("pickle memo " + strconv.Itoa(int(n)) + " missing")
			}
			stack = append(stack, x)
		case 'c': // GLOBAL "module\nname\n"
			var parts [2]string
			for i := range parts {
				j := pos
				for j < len(b) && b[j] != '\n' {
					j++
				}
				if j >= len(b) {
					return nil, errPickleShort
				}
				parts[i] = string(b[pos:j])
				pos = j + 1
			}
			stack = append(stack, pyGlobal{parts[0], parts[1]})
		case 0x93: // STACK_GLOBAL
			n, err := pop()
			if err != nil {
				return nil, err
			}
			m, err := pop()
			if err != nil {
				return nil, err
			}
			ms, _ := m.(string)
			ns, _ := n.(string)
			stack = append(stack, pyGlobal{ms, ns})
		case 'R', 0x81: // REDUCE, NEWOBJ
			args, err := pop()
			if err != nil {
				return nil, err
			}
			fn, err := pop()
			if err != nil {
				return nil, err
			}
			if g, ok := fn.(pyGlobal); ok {
				if g.name == "OrderedDict" || g.name == "defaultdict" || g.name == "dict" {
					stack = append(stack, map[string]any{})
					break
				}
				// torch's C++ pickler tags typed containers:
				// restore_type_tag(value, "Dict[str, Any]"), build_intlist([…])
				if l, ok := args.(*pyList); ok && g.module == "torch.jit._pickle" && len(l.v) > 0 {
					stack = append(stack, l.v[0])
					break
				}
			}
			stack = append(stack, pyObj{fn, args})
		case 'b': // BUILD
			if _, err := pop(); err != nil {
				return nil, err
			}
		case '0': // POP
			if _, err := pop(); err != nil {
				return nil, err
			}
		case '1': // POP_MARK
			if _, err := popMark(); err != nil {
				return nil, err
			}
		case '2': // DUP
			x, err := top()
			if err != nil {
				return nil, err
			}
			stack = append(stack, x)
		default:
			return nil, errors.New("unsupported pickle opcode 0x" + strconv.FormatUint(uint64(op[0]), 16) + " at offset " + strconv.Itoa(pos-1))
		}
	}
	return nil, errPickleLong
}

func ulenRaw(b []byte, pos *int, n int) (uint32, error) {
	if *pos+n > len(b) {
		return 0, errPickleShort
	}
	var u uint32
	for i := n - 1; i >= 0; i-- {
		u = u<<8 | uint32(b[*pos+i])
	}
	*pos += n
	return u, nil
}

func pyKey(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "None"
	}
	return "?"
}

// pyInt reads an int (pickle int, JSON number or numeric string).
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		// outside int64 the conversion differs between native and wasm
		// (1e30 was a collective timeout in one and nothing in the other)
		if !(x >= -1<<63 && x < 1<<63) || x != math.Trunc(x) {
			return 0, false
		}
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func pyIntDef(v any, def int) int {
	if n, ok := pyInt(v); ok {
		return int(n)
	}
	return def
}

// frFinding: flight-recorder dumps alone show a collective that was
// enqueued but never completed (or ranks at different sequence numbers).
func (b *builder) frFinding(work map[string]*agg) {
	fr := b.facts.inc.fr
	if len(fr) == 0 {
		return
	}
	open, diff := false, false
	first := map[string]int{} // group id|ranks → the first dump's enq
	for _, r := range fr {
		if r.enq > r.comp {
			open = true
		}
		if r.enq != fr[0].enq {
			diff = true
		}
		for _, pg := range r.pgs {
			if pg.enq > pg.comp {
				open = true
			}
			k := pg.id + "|" + pg.ranks
			if e, ok := first[k]; !ok {
				first[k] = pg.enq
			} else if e != pg.enq {
				diff = true
			}
		}
	}
	if !open && !diff {
		return
	}
	a := work[ClassCollectiveTimeout]
	if a == nil {
		a = newAgg(ClassCollectiveTimeout, 0.7)
		work[ClassCollectiveTimeout] = a
	}
	a.f.Count++
	sorted := append([]frRank(nil), fr...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].rank < sorted[j].rank })
	for _, r := range sorted {
		a.evidence(r.ev)
		waits := r.enq > r.comp
		for _, pg := range r.pgs {
			waits = waits || pg.enq > pg.comp
		}
		if r.rank >= 0 && waits {
			a.rank(r.rank)
		}
	}
	a.addReason("flight recorder: collectives enqueued but not completed (last enqueued vs last completed per rank)")
	if diff {
		a.note("flight-recorder dumps disagree on the last enqueued collective: the ranks behind never issued the collective the others wait in")
	}
	for _, r := range sorted {
		if r.pending != "" {
			a.detail("flight_recorder_pending", r.pending)
			break
		}
	}
}
